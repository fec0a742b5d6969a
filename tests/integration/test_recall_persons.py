"""The person a question names: items that never name them rank lower (an option; real SQLite files)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from heedful.api import Heedful
from heedful.memory.recall.config import DEFAULT
from heedful.memory.recall.engine import Recaller
from heedful.memory.recall.persons import common_people, person_focus
from heedful.memory.recall.query import analyze
from heedful.memory.write import NewMessage

T0 = datetime(2024, 5, 1, 18, tzinfo=UTC)
# Two people talk; each speaks half of the turns, so each is named by far more than 5% of them.
TURNS = [
    ("Mia", "I took the kids to the dinosaur museum on Sunday."),
    ("Leo", "The museum trip sounds fun, my kids love the museum too."),
    ("Mia", "We are painting the kitchen this weekend."),
    ("Leo", "I started a pottery class on Tuesdays."),
] * 30


def _home(hf: Heedful) -> None:
    messages = [
        NewMessage(text, at=T0 + timedelta(minutes=n), speaker=speaker, session_id=f"s{n // 8}")
        for n, (speaker, text) in enumerate(TURNS)
    ]
    hf.memory.add("pair", messages, extract=False)


def _speakers(hf: Heedful, recaller: Recaller, question: str) -> list[str]:
    items = recaller.recall("pair", question, limit=10).items
    return [item.text.split(":")[0] for item in items]


def test_items_not_naming_the_person_asked_about_rank_lower(hf: Heedful) -> None:
    _home(hf)
    index = hf.store.search.index("pair")
    analysis = analyze("What do Mia's kids like at the museum?", T0, index.entities)
    assert common_people(index, analysis) == ["mia"]
    mia, leo = index.entities["mia"][0], index.entities["leo"][0]
    assert mia not in index.entities["leo"]
    lowered = person_focus(index, ["mia"], np.array([leo, mia]), np.array([0.02, 0.01]), 0.5)
    assert lowered.tolist() == [0.01, 0.01]
    # the first `keep` items keep their scores: a question may name the wrong person for a strong match
    kept = person_focus(index, ["mia"], np.array([leo, mia]), np.array([0.02, 0.01]), 0.5, keep=1)
    assert kept.tolist() == [0.02, 0.01]

    plain = Recaller(hf.store, lambda: hf.embedder)
    focused = Recaller(hf.store, lambda: hf.embedder, config=DEFAULT.derive("focus", person_penalty=0.5))
    try:
        before = _speakers(hf, plain, "What do Mia's kids like at the museum?")
        after = _speakers(hf, focused, "What do Mia's kids like at the museum?")
        explained = focused.recall("pair", "What do Mia's kids like at the museum?", limit=120).items
    finally:
        plain.close()
        focused.close()
    assert before.count("Mia") < after.count("Mia")
    # what the focus took shows in explain, and the parts still add up to the score
    for item in explained:
        assert abs(sum(hit.contribution for hit in item.routes.values()) - item.score) < 1e-5
    assert any("person" in item.routes for item in explained)


def test_a_strong_keyword_match_keeps_its_score_when_the_question_names_the_wrong_person(hf: Heedful) -> None:
    _home(hf)
    index = hf.store.search.index("pair")
    mia, leo = index.entities["mia"][0], index.entities["leo"][0]
    exempt = person_focus(
        index, ["mia"], np.array([leo, mia]), np.array([0.02, 0.01]), 0.5, exempt=np.array([True, False])
    )
    assert exempt.tolist() == [0.02, 0.01]

    question = "When did Mia start a pottery class?"  # it was Leo: the words still find his turn
    penalised = DEFAULT.derive("focus", person_penalty=0.5)
    kept = penalised.derive("focus+keyword", person_exempt_keyword=5)
    first = {}
    for config in (penalised, kept):
        recaller = Recaller(hf.store, lambda: hf.embedder, config=config)
        try:
            first[config.name] = recaller.recall("pair", question, limit=10).items[0].text
        finally:
            recaller.close()
    assert first["focus+keyword"] == "Leo: I started a pottery class on Tuesdays."
    assert first["focus"] != first["focus+keyword"]
