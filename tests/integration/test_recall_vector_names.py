"""The vector route embeds the question without the names of the people who speak in the memory (real SQLite)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from heedful.api import Heedful
from heedful.memory.recall.config import DEFAULT
from heedful.memory.recall.engine import Recaller
from heedful.memory.recall.persons import common_people, speakers
from heedful.memory.recall.query import analyze
from heedful.memory.recall.vector import without_names
from heedful.memory.write import NewMessage

T0 = datetime(2024, 5, 1, 18, tzinfo=UTC)
# Two people talk; each is named by far more than 5% of the turns (the speaker is an item's entity).
CHATTER = [("Mia", "Thanks Leo, you are the best Leo."), ("Leo", "Anytime Mia, talk soon Mia.")] * 60
ANSWER = ("Mia", "We went hiking up the ridge trail last weekend.")


def _home(hf: Heedful) -> None:
    turns = [*CHATTER[:61], ANSWER, *CHATTER[61:]]
    messages = [
        NewMessage(text, at=T0 + timedelta(minutes=n), speaker=speaker, session_id=f"s{n // 8}")
        for n, (speaker, text) in enumerate(turns)
    ]
    hf.memory.add("pair", messages, extract=False)


def _vector_rank_of_answer(recaller: Recaller, question: str) -> float | None:
    for item in recaller.recall("pair", question, limit=50).items:
        if "ridge trail" in item.text:
            hit = item.routes.get("vector")
            return None if hit is None else hit.rank
    return None


def test_the_question_is_embedded_without_the_common_names(hf: Heedful) -> None:
    _home(hf)
    question = "Where did Mia and Leo go hiking, Mia?"
    plain = Recaller(hf.store, lambda: hf.embedder)
    named = Recaller(hf.store, lambda: hf.embedder, config=DEFAULT.derive("named", names_in_vector=True))
    try:
        without, with_names = _vector_rank_of_answer(plain, question), _vector_rank_of_answer(named, question)
    finally:
        plain.close()
        named.close()
    # first, or second after the turn that follows it (a turn's vector holds the one before it)
    assert without is not None and without <= 2
    # with the names in the question's vector, the turns that are little more than the names come first
    assert with_names is None or with_names > 10


def test_names_are_left_out_only_while_something_else_is_asked() -> None:
    assert without_names("What do Melanie's kids like?", ("melanie",)) == "What do kids like?"
    assert without_names("What did Jon and Gina both paint?", ("jon", "gina")) == "What did and both paint?"
    assert without_names("Who is Melanie?", ("melanie",)) == "Who is Melanie?"  # nothing but the name is asked
    assert without_names("What does Melanie like?", ()) == "What does Melanie like?"


def test_only_speakers_are_left_out_not_common_topics(hf: Heedful) -> None:
    _home(hf)
    topics = [NewMessage(f"Flask route number {n} returns JSON.", at=T0 + timedelta(hours=n)) for n in range(120)]
    hf.memory.add("solo", topics, extract=False)

    def statements(user: str) -> Callable[[list[str]], dict[str, str]]:
        return lambda ids: {fid: fact.statement for fid, fact in hf.store.memory.get_facts(user, ids).items()}

    pair, solo = hf.store.search.index("pair"), hf.store.search.index("solo")
    assert "flask" in common_people(solo, analyze("How does the Flask route return JSON?", T0, solo.entities))
    assert speakers(solo, ["flask"], statements("solo")) == []  # a topic the question needs
    assert speakers(pair, ["mia", "leo"], statements("pair")) == ["mia", "leo"]
