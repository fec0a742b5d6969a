"""What the session record says the agent still has: an edited line, a stale line, a malformed entry."""

from __future__ import annotations

from heedful.enforce import shown

LINES = {"r1": "- use uv, never pip", "r2": "- keep replies short"}


def test_a_line_shown_and_unchanged_is_in_context_and_an_edited_one_is_not() -> None:
    record = shown.updated(None, (), LINES, turn=1)
    assert shown.in_context(record, LINES, 2, None) == {"r1", "r2"}
    edited = {**LINES, "r2": "- keep replies under 15 words"}
    assert shown.in_context(record, edited, 2, None) == {"r1"}


def test_without_a_compaction_signal_a_line_is_shown_again_after_stale_turns() -> None:
    record = shown.updated(None, (), LINES, turn=1)
    stale = shown.stale_after("gemini")
    assert stale == shown.STALE_TURNS and shown.stale_after("claude-code") is None
    assert shown.in_context(record, LINES, 1 + stale - 1, stale) == {"r1", "r2"}
    assert shown.in_context(record, LINES, 1 + stale, stale) == frozenset()
    assert shown.in_context(record, LINES, 1000, None) == {"r1", "r2"}


def test_kept_entries_keep_the_turn_they_were_shown_at() -> None:
    record = shown.updated(None, (), {"r1": LINES["r1"]}, turn=1)
    later = shown.updated(record, {"r1"}, {"r2": LINES["r2"]}, turn=5)
    assert later["r1"] == record["r1"] and later["r2"].endswith("@5")
    assert shown.in_context(later, LINES, 11, 10) == {"r2"}  # r1 was shown at turn 1, r2 at turn 5


def test_entries_not_kept_or_malformed_or_of_removed_rules_count_as_not_shown() -> None:
    record = shown.updated(None, (), LINES, turn=1)
    assert shown.updated(record, {"r1"}, {}, turn=2) == {"r1": record["r1"]}
    assert shown.in_context({"r1": "zz", "r2": 3, "r3": "abc@1"}, LINES, 2, None) == frozenset()
    assert shown.in_context(record, {"r1": LINES["r1"]}, 2, None) == {"r1"}
