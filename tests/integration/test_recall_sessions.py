"""The session stage of recall and the named recall configurations, on real SQLite files."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from heedful.api import Heedful
from heedful.errors import InputError
from heedful.memory.recall.config import CONFIGS, DEFAULT, recall_config
from heedful.memory.recall.engine import Recaller
from heedful.memory.recall.sessions import SessionStage, session_rescored
from heedful.memory.write import NewMessage

T0 = datetime(2024, 3, 1, 9, tzinfo=UTC)
SESSIONS = {
    "trip": [
        "We should plan the lake trip for June.",
        "I will bring the kayak and the big tent.",
        "Great, I already packed the stove and two sleeping bags.",
    ],
    "work": [
        "The quarterly report is due on Friday.",
        "I moved the budget review to Thursday morning.",
    ],
    "garden": [
        "The tomatoes finally turned red this week.",
        "I planted basil next to them, it keeps the bugs away.",
    ],
}


def _home(hf: Heedful) -> dict[str, str]:
    """Add the three sessions; return each turn's text by excerpt id."""
    messages = [
        NewMessage(text=text, at=T0 + timedelta(days=n, minutes=i), speaker="Ana", session_id=session)
        for n, (session, texts) in enumerate(SESSIONS.items())
        for i, text in enumerate(texts)
    ]
    hf.memory.add("ana", messages, extract=False)
    index = hf.store.search.index("ana")
    facts = hf.store.memory.get_facts("ana", index.ids)
    return {fact_id: fact.statement for fact_id, fact in facts.items()}


def _position_of(hf: Heedful, texts: dict[str, str], words: str) -> int:
    index = hf.store.search.index("ana")
    return next(index.position[i] for i, text in texts.items() if words in text)


def test_the_session_prior_lifts_turns_of_the_session_the_first_stage_found_most(hf: Heedful) -> None:
    texts = _home(hf)
    index = hf.store.search.index("ana")
    kayak, stove = _position_of(hf, texts, "kayak"), _position_of(hf, texts, "stove")
    report, budget = _position_of(hf, texts, "quarterly report"), _position_of(hf, texts, "budget review")
    # the report turn ranks first, but two trip turns vote for their session
    positions, scores = [report, kayak, stove], [0.020, 0.019, 0.018]
    stage = SessionStage(neighbour_share=0.0, session_prior=0.5)
    rescored = session_rescored(index, positions, scores, stage, k=60)
    assert set(rescored) == set(positions)  # no neighbours shared, none brought in
    assert rescored[kayak] > rescored[report]  # the trip session's vote outweighs one report turn
    assert rescored[report] > 0.020  # a session's own vote still counts for it
    plain = session_rescored(index, positions, scores, SessionStage(neighbour_share=0.0, session_prior=0.0), k=60)
    assert plain == dict(zip(positions, scores, strict=True))
    assert budget not in rescored


def test_a_neighbouring_turn_is_brought_in_and_shares_the_score_beside_it(hf: Heedful) -> None:
    texts = _home(hf)
    index = hf.store.search.index("ana")
    kayak = _position_of(hf, texts, "kayak")
    before, after = int(index.previous[kayak]), int(index.following[kayak])
    assert before >= 0 and after >= 0
    stage = SessionStage(neighbour_share=0.3, session_prior=0.0)
    rescored = session_rescored(index, [kayak], [0.02], stage, k=60)
    assert rescored[before] == pytest.approx(0.3 * 0.02)
    assert rescored[after] == pytest.approx(0.3 * 0.02)
    assert rescored[kayak] == pytest.approx(0.02)
    # for a question about the present, neighbours share nothing (an old statement's reply would lift it)
    assert session_rescored(index, [kayak], [0.02], stage, k=60, neighbours=False) == {kayak: pytest.approx(0.02)}


def test_named_configurations_are_fixed_and_reported(hf: Heedful) -> None:
    _home(hf)
    assert set(CONFIGS) >= {"default", "single-stage", "restatements"}
    with pytest.raises(InputError, match="unknown recall configuration 'nope'"):
        recall_config("nope")
    with pytest.raises(TypeError):
        DEFAULT.weights["keyword"] = 9.0  # type: ignore[index]
    variant = DEFAULT.derive("default+keyword", weights={"keyword": 2.0})
    assert variant.weight("keyword") == 2.0 and DEFAULT.weight("keyword") == 1.0
    with pytest.raises(InputError, match="unknown recall routes"):
        DEFAULT.derive("bad", weights={"telepathy": 1.0})
    assert "single-stage" in CONFIGS and CONFIGS["single-stage"].session_stage is None

    two = Recaller(hf.store, lambda: hf.embedder)
    one = Recaller(hf.store, lambda: hf.embedder, config="single-stage")
    try:
        staged = two.recall("ana", "what did we pack for the lake trip?")
        single = one.recall("ana", "what did we pack for the lake trip?")
    finally:
        two.close()
        one.close()
    assert staged.config == "default" and "session" in staged.route_ms
    assert single.config == "single-stage" and "session" not in single.route_ms
    assert staged.to_json(explain=True)["config"] == "default"
    assert "config" not in single.to_json()
    custom = Recaller(hf.store, lambda: hf.embedder, weights={"keyword": 1.5})
    assert custom.config.name == "default+custom" and custom.weights["keyword"] == 1.5
    custom.close()


def test_the_harness_lists_the_same_configurations_and_routes() -> None:
    from heedful.harness.params import RECALL_CONFIGS, ROUTES
    from heedful.memory.recall.config import ROUTE_NAMES

    assert set(RECALL_CONFIGS) == set(CONFIGS)
    assert set(ROUTES) == set(ROUTE_NAMES) == set(DEFAULT.weights)
