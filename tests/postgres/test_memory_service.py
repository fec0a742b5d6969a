"""`heedful.memory` end to end on a PostgresStore: add, recall with explain, correct, forget, undo, as-of.

The SQLite recall suites run here too (imported below): the same tests, on a PostgreSQL-backed
Heedful, through the `hf` fixture of this module.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from heedful.api import Heedful
from heedful.config import load_settings
from heedful.memory.write import NewMessage
from heedful.timeutil import to_text
from integration.test_recall import (  # noqa: F401  (collected here, against PostgreSQL)
    test_an_answer_is_found_through_the_question_before_it,
    test_budget_and_limit_are_honoured,
    test_entity_route_and_speaker,
    test_enumeration_widens_the_cut_and_the_budget,
    test_forgotten_facts_only_come_back_when_asked,
    test_keyword_and_vector_routes_find_a_turn_and_explain_it,
    test_superseded_facts_are_marked_and_as_of_answers_from_then,
    test_time_route_raises_items_from_the_named_window,
    test_tombstone_hides_matching_excerpts_even_those_written_later,
    test_users_are_isolated,
)
from integration.test_recall_current_first import (  # noqa: F401
    test_a_superseded_fact_never_outranks_its_replacement,
    test_recall_as_of_a_past_moment_puts_what_held_then_first,
    test_restated_messages_put_the_newer_first_only_when_asked,
    test_the_index_follows_supersession_after_it_was_built,
)

T0 = datetime(2024, 3, 1, 9, tzinfo=UTC)


@pytest.fixture
def hf(home: Path, pg_store: Any) -> Iterator[Heedful]:
    """A heedful (hashing embedder) whose store is a fresh PostgreSQL database."""
    settings = load_settings(home)
    settings.embedder.name = "hashing"
    opened = Heedful(settings)
    opened.__dict__["store"] = pg_store  # the store the facade would open for a database URL
    yield opened


def test_add_recall_explain_correct_forget_undo(hf: Heedful) -> None:
    turns = [
        "I live in Berlin near the old canal",
        "My sister Maria plays the cello",
        "We adopted a grey cat named Pixel",
        "I run every Sunday morning along the river",
    ]
    hf.memory.add(
        "alice",
        [NewMessage(text=t, at=T0 + timedelta(days=i), session_id="s1") for i, t in enumerate(turns)],
        flush=True,
    )
    hf.memory.add("bob", "Bob keeps bees on his roof in Lisbon", extract=False)

    result = hf.memory.recall("alice", "what is my cat called?")
    assert result.items[0].text == "We adopted a grey cat named Pixel"
    explained = result.to_json(explain=True)
    top = explained["items"][0]  # type: ignore[index]
    assert {"keyword", "vector"} <= set(top["routes"]) and top["routes"]["keyword"]["rank"] == 1
    assert all(item.text != "Bob keeps bees on his roof in Lisbon" for item in hf.memory.recall("alice", "bees").items)

    berlin = next(f for f in hf.memory.list("alice", kinds=["fact"]) if "Berlin" in f.statement)
    event = hf.memory.correct("alice", berlin.id, "I live in Lisbon near the sea")
    now_items = hf.memory.recall("alice", "where do I live?").items
    assert now_items[0].text == "I live in Lisbon near the sea" and now_items[0].state == "current"
    old = next(item for item in now_items if item.id == berlin.id)  # still shown, marked, below
    assert old.state == "superseded" and now_items.index(old) > 0
    history = hf.memory.history("alice", berlin.id)
    assert history is not None and event is not None

    hf.memory.forget("alice", "my sister Maria")
    assert all("Maria" not in item.text for item in hf.memory.recall("alice", "who plays the cello?").items)
    shown = hf.memory.recall("alice", "who plays the cello?", include_forgotten=True).items
    assert any(item.state == "forgotten" and "Maria" in item.text for item in shown)

    undone = hf.memory.undo("alice")  # the forget is undone: Maria comes back
    assert undone
    assert any("Maria" in item.text for item in hf.memory.recall("alice", "who plays the cello?").items)
    before = to_text(T0 + timedelta(days=2))
    assert hf.memory.recall("alice", "where do I live?", as_of=before).items[0].text.startswith("I live in Berlin")
