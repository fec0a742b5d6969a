"""Admission: persist / task_local / underspecified / none, and the scope of lasting rules."""

from __future__ import annotations

import pytest

from heedful.rules.detect import admit, has_signal


@pytest.mark.parametrize(
    ("text", "decision", "scope"),
    [
        ("never push to main", "persist", "global"),
        ("use uv, not pip, in this repo", "persist", "project"),
        ("From now on, be more detailed.", "persist", "global"),
        ("in this project, do not add new dependencies", "persist", "project"),
        ("we switched to yarn, not pnpm", "persist", "project"),
        ("Why do you keep adding emojis to commit messages?", "persist", "global"),
        ("Be detailed this time.", "task_local", None),
        ("For this refactor only, add no dependencies.", "task_local", None),
        ("Refactor this file", "task_local", None),
        ("be careful with that", "underspecified", "global"),
        ("do it the way I showed you", "underspecified", "global"),
        ("When the project is done, always write a changelog.", "underspecified", "global"),
        ("thanks, looks good!", "none", None),
        ("what does this function return?", "none", None),
    ],
)
def test_admission(text: str, decision: str, scope: str | None) -> None:
    result = admit(text)
    assert result.decision == decision, result.reasons
    if decision == "persist":
        assert result.scope == scope


def test_lasting_versus_this_time() -> None:
    assert admit("From now on, run the linter before committing.").decision == "persist"
    assert admit("Run the linter before committing this time.").decision == "task_local"
    assert admit("Not just this time: always run the linter before committing.").decision == "persist"


@pytest.mark.parametrize(
    "text",
    [
        "forget what I said about rg",
        "ok scratch what I told you about tabs, spaces are fine",
        "take back the ban on npm",
        "you can use pip again",
        "please ignore my earlier rule about commit messages",
    ],
)
def test_retraction_is_recognised(text: str) -> None:
    result = admit(text)
    assert result.decision == "persist"
    assert result.retraction


@pytest.mark.parametrize("text", ["the build is ok again, thanks", "just ignore the failing test for now"])
def test_a_state_or_a_one_off_is_not_a_retraction(text: str) -> None:
    assert not admit(text).retraction


def test_detection_errs_toward_a_signal_but_skips_chatter() -> None:
    assert has_signal("hmm, maybe don't use that library")
    assert not has_signal("ok")
    assert not has_signal('Traceback (most recent call last):\n  File "a.py", line 1\n    x\nError: boom\n')


@pytest.mark.parametrize(
    ("text", "bound"),
    [
        ("thats the third time today you deleted my branch", False),
        ("you did it 3 times today, stop force pushing", False),
        ("use port 8081 today, 8080 is taken", True),
    ],
)
def test_today_counting_a_recurrence_bounds_nothing(text: str, bound: bool) -> None:
    assert (admit(text).decision == "task_local") is bound
