"""The memory kernel end to end on a real SQLite file: supersede, forget, history, undo, Dream."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from heedful.api import Heedful
from heedful.errors import InputError, NotFoundError
from heedful.memory.write import BUFFER_FLUSH_MESSAGES, NewMessage


def statements(hf: Heedful, user: str = "alice", **kwargs: object) -> list[str]:
    return [f.statement for f in hf.memory.list(user, **kwargs)]  # type: ignore[arg-type]


def test_a_message_is_recallable_before_extraction(hf: Heedful) -> None:
    result = hf.memory.add("alice", "I adopted a greyhound named Pixel")
    assert result.events == [] and result.buffered == 1
    items = hf.memory.recall("alice", "greyhound Pixel").items
    assert items and items[0].kind == "excerpt" and "Pixel" in items[0].text


def test_the_buffer_flushes_itself_when_full(hf: Heedful) -> None:
    for n in range(BUFFER_FLUSH_MESSAGES - 1):
        assert hf.memory.add("alice", f"Note number {n} about nothing much").events == []
    result = hf.memory.add("alice", "I live in Berlin")
    assert [e.op for e in result.events] == ["add"] and result.buffered == 0


def test_change_of_mind_supersedes_and_keeps_the_old_fact(hf: Heedful) -> None:
    hf.memory.add("alice", "I live in Berlin", flush=True)
    (event,) = hf.memory.add("alice", "I moved to Lisbon", flush=True).events
    assert event.op == "supersede"
    assert statements(hf) == ["The user lives in Lisbon"]
    everything = hf.memory.list("alice", include_inactive=True)
    old = next(f for f in everything if "Berlin" in f.statement)
    assert old.state_at() == "superseded" and old.superseded_by == event.fact_id and old.valid_to
    recalled = {i.text: i.state for i in hf.memory.recall("alice", "where does the user live").items}
    assert recalled["The user lives in Berlin"] == "superseded"
    assert recalled["The user lives in Lisbon"] == "current"


def test_as_of_answers_from_what_was_valid_then(hf: Heedful) -> None:
    hf.memory.add("alice", [NewMessage("I live in Berlin", at=datetime(2023, 1, 5, tzinfo=UTC))], flush=True)
    hf.memory.add("alice", [NewMessage("I moved to Lisbon", at=datetime(2024, 3, 1, tzinfo=UTC))], flush=True)
    middle = "2023-06-01T00:00:00.000000Z"
    assert statements(hf, as_of=middle) == ["The user lives in Berlin"]


def test_no_longer_retracts(hf: Heedful) -> None:
    hf.memory.add("alice", "I love sushi", flush=True)
    (event,) = hf.memory.add("alice", "I don't like sushi anymore", flush=True).events
    assert event.op == "retract"
    assert statements(hf) == ["The user no longer likes sushi"]


def test_same_statement_only_confirms(hf: Heedful) -> None:
    hf.memory.add("alice", "I love hiking", flush=True)
    (event,) = hf.memory.add("alice", "I LOVE hiking!!", flush=True).events
    assert event.op == "confirm"
    assert hf.store.memory.count_facts("alice") == 3  # one fact, two excerpts


def test_forget_expires_facts_and_excerpts_and_leaves_a_tombstone(hf: Heedful) -> None:
    hf.memory.add("alice", "I take sertraline every morning", flush=True)
    hf.memory.add("alice", "I love hiking", flush=True)
    events = hf.memory.forget("alice", "forget that I take sertraline")
    assert events[0].kind == "tombstone"
    assert all("sertraline" not in i.text for i in hf.memory.recall("alice", "sertraline").items)
    assert statements(hf, kinds=["fact"]) == ["The user likes hiking"]
    tombstones = hf.memory.list("alice", kinds=["tombstone"])
    assert [t.statement for t in tombstones] == ["The user asked to forget: I take sertraline"]
    # The record keeps the expired rows with their reason.
    expired = [f for f in hf.memory.list("alice", kinds=["excerpt"], include_inactive=True) if f.expired_at]
    assert expired and "forgotten at the user's request" in (expired[0].expired_reason or "")


def test_forget_in_conversation_and_background_is_never_expired(hf: Heedful) -> None:
    hf.memory.add("alice", "I am allergic to peanuts", background=True, flush=True)
    hf.memory.add("alice", "I am allergic to shellfish", flush=True)
    hf.memory.add("alice", "Please forget that I am allergic to peanuts and shellfish", flush=True)
    remaining = statements(hf, kinds=["fact"])
    assert remaining == ["The user is allergic to peanuts"]


def test_forget_expires_at_most_six_facts(hf: Heedful) -> None:
    for n in range(9):
        hf.memory.add("alice", f"I have {n + 2} red bicycles in garage {n}", flush=True)
    events = hf.memory.forget("alice", "I have red bicycles in garage")
    assert sum(e.op == "retract" for e in events) == 6


def test_history_correct_delete_and_undo(hf: Heedful) -> None:
    hf.memory.add("alice", "I live in Berlin", flush=True)
    (moved,) = hf.memory.add("alice", "I moved to Lisbon", flush=True).events
    chain = hf.memory.history("alice", moved.fact_id).chain
    assert [f.statement for f in chain] == ["The user lives in Berlin", "The user lives in Lisbon"]

    corrected = hf.memory.correct("alice", moved.fact_id, "The user lives in Porto")
    assert statements(hf) == ["The user lives in Porto"]
    hf.memory.undo("alice")  # undo the correction
    assert statements(hf) == ["The user lives in Lisbon"]
    assert hf.memory.list("alice", include_inactive=True)[-1].id == corrected.fact_id  # kept, expired

    hf.memory.delete("alice", moved.fact_id)
    assert statements(hf) == []
    hf.memory.undo("alice")
    assert statements(hf) == ["The user lives in Lisbon"]
    hf.memory.undo("alice")  # undo the move: Berlin is current again
    assert statements(hf) == ["The user lives in Berlin"]
    undo_ops = [o for o in hf.store.memory.ops("alice") if o.op == "undo"]
    assert len(undo_ops) >= 3


def test_bad_input_changes_nothing(hf: Heedful) -> None:
    hf.memory.add("alice", "I live in Berlin", flush=True)
    count = hf.store.memory.count_facts("alice")
    with pytest.raises(InputError):
        hf.memory.add("alice", "   ")
    with pytest.raises(InputError):
        hf.memory.add("", "hello")
    with pytest.raises(InputError):
        hf.memory.add("alice", [NewMessage("fine"), NewMessage("")])  # one bad message: none stored
    with pytest.raises(NotFoundError):
        hf.memory.recall("nobody", "anything")
    with pytest.raises(NotFoundError):
        hf.memory.history("alice", "f-000000000000")
    with pytest.raises(InputError):
        hf.memory.forget("alice", "forget")
    assert hf.store.memory.count_facts("alice") == count
    assert len(hf.store.memory.messages("alice")) == 1


def test_secrets_are_masked_before_storage(hf: Heedful) -> None:
    result = hf.memory.add("alice", "my key is sk-proj-abcdefghijklmnopqrstuvwx12, keep it", flush=True)
    assert result.redactions == {"api_key": 1}
    stored = " ".join(row["text"] for row in hf.store.db.conn.execute("SELECT text FROM messages").fetchall())
    facts = " ".join(row["statement"] for row in hf.store.db.conn.execute("SELECT statement FROM facts").fetchall())
    assert "sk-proj" not in stored and "sk-proj" not in facts


def test_dream_summarises_rebuilds_profile_and_honours_tombstones(hf: Heedful) -> None:
    hf.memory.add(
        "alice",
        [
            NewMessage("I live in Berlin and I love hiking in the Harz mountains.", session_id="s1"),
            NewMessage("My sister Anna loves cilantro.", session_id="s1"),
            NewMessage("I take sertraline for my anxiety every day.", session_id="s1"),
        ],
    )
    hf.memory.forget("alice", "I take sertraline")
    rows_before = hf.store.memory.count_facts("alice")
    result = hf.memory.dream("alice")
    assert result.summaries == 1 and result.profile_rebuilt
    profile = hf.memory.profile("alice")
    assert profile is not None
    assert "Berlin" in profile.statement and "hiking" in profile.statement
    assert "Other people" in profile.statement and "Anna" in profile.statement
    summary = hf.memory.list("alice", kinds=["summary"])[0].statement
    assert "sertraline" not in summary and "sertraline" not in profile.statement
    assert hf.store.memory.count_facts("alice") > rows_before  # adds rows, never deletes
    again = hf.memory.dream("alice")
    assert again.summaries == 0 and not again.profile_rebuilt  # nothing new since


def test_context_orders_policy_forgotten_profile_facts(hf: Heedful) -> None:
    from heedful.harness import get_harness

    hf.memory.add("alice", "I live in Berlin", flush=True)
    hf.memory.add("alice", "I moved to Lisbon", flush=True)
    hf.memory.forget("alice", "I take sertraline")
    hf.memory.dream("alice")
    built = get_harness().build(hf, "alice", "Where does the user live?", options=["Berlin", "Lisbon"])
    text = built.text
    assert text.startswith("How to use the memory below")
    assert text.index("asked to forget") < text.index("Profile") < text.index("Recalled facts")
    assert "[NO LONGER TRUE since" in text and "The user lives in Berlin" in text
    assert [o["label"] for o in built.options] == ["A", "B"]
    assert built.options[1]["query"].startswith("lisbon")


def test_recall_as_of_answers_from_imported_history(hf: Heedful) -> None:
    # Imported history is ingested today but happened earlier: "as of" is about when facts held.
    hf.memory.add("alice", [NewMessage("I live in Berlin", at=datetime(2023, 1, 5, tzinfo=UTC))], flush=True)
    hf.memory.add("alice", [NewMessage("I moved to Lisbon", at=datetime(2024, 3, 1, tzinfo=UTC))], flush=True)
    then = {i.text: i.state for i in hf.memory.recall("alice", "where does the user live", as_of="2023-06-01").items}
    assert then.get("The user lives in Berlin") == "current"
    assert "The user lives in Lisbon" not in then
    now = {i.text: i.state for i in hf.memory.recall("alice", "where does the user live").items}
    assert now["The user lives in Berlin"] == "superseded" and now["The user lives in Lisbon"] == "current"


def test_a_request_to_forget_covers_what_was_still_waiting_for_extraction(hf: Heedful) -> None:
    hf.memory.add("alice", "I take sertraline every morning")  # buffered, not extracted yet
    hf.memory.forget("alice", "forget that I take sertraline")
    (event,) = hf.memory.flush("alice")
    assert event.op == "retract" and "forgotten at the user's request" in event.reason
    assert hf.memory.list("alice", kinds=["fact"]) == []
    stored = hf.memory.list("alice", kinds=["fact"], include_inactive=True)
    assert [f.state_at() for f in stored] == ["forgotten"]  # kept in the record, expired
    # Said again after the request, it is new information and is kept.
    hf.memory.add("alice", "I take sertraline again since last week", flush=True)
    assert [f.statement for f in hf.memory.list("alice", kinds=["fact"])] == ["The user takes sertraline again"]
