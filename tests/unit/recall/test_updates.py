"""The newest statement on a present-tense question's subject comes first (pure ordering)."""

from __future__ import annotations

import numpy as np
import pytest

from heedful.memory.recall.fusion import Fused
from heedful.memory.recall.query import words
from heedful.memory.recall.supersession import asks_about_the_past
from heedful.memory.recall.updates import asks_about_now, newest_on_subject, states_a_change


@pytest.mark.parametrize(
    ("question", "now"),
    [
        ("What is the average response time of the dashboard API?", True),
        ("How many commits have been merged into the main branch?", True),
        ("When is my Zoom call with the creative director scheduled?", True),
        ("Where does Alice live now?", True),
        ("When did Caroline go to the support group?", False),
        ("How many cupcakes did I order for the event?", False),
        ("What time should I plan to join the Zoom meeting?", True),
        ("What was my first budget?", False),
        ("pottery in Osaka", False),
    ],
)
def test_asks_about_now(question: str, now: bool) -> None:
    assert asks_about_now(words(question)) is now


def _fused(*names: str) -> list[Fused]:
    return [Fused(name, 1.0 / (rank + 1)) for rank, name in enumerate(names)]


def test_newer_restatement_moves_above_the_older_one() -> None:
    fused = _fused("old", "other", "new", "tail")
    coverage = np.array([0.9, 0.2, 0.8, 0.9])
    started = np.array([10, 30, 20, 40])
    order = [entry.id for entry in newest_on_subject(fused, coverage, started, window=3)]
    # "other" is newer but holds little of the question; "tail" is outside the window
    assert order == ["new", "old", "other", "tail"]


def test_an_item_holding_little_of_the_question_is_not_a_restatement() -> None:
    fused = _fused("old", "new")
    order = newest_on_subject(fused, np.array([0.9, 0.2]), np.array([1, 2]))
    assert [entry.id for entry in order] == ["old", "new"]
    order = newest_on_subject(fused, np.array([0.9, 0.4]), np.array([1, 2]))  # on subject, but much less of it
    assert [entry.id for entry in order] == ["old", "new"]
    order = newest_on_subject(fused, np.array([0.9, 0.6]), np.array([2, 1]))  # a restatement, but older
    assert [entry.id for entry in order] == ["old", "new"]


def test_the_best_ranked_restatement_goes_first_and_nothing_is_lost() -> None:
    fused = _fused("a", "b", "c", "d")
    coverage = np.array([1.0, 1.0, 0.1, 1.0])
    started = np.array([1, 2, 9, 3])
    order = [entry.id for entry in newest_on_subject(fused, coverage, started)]
    assert order == ["b", "a", "c", "d"]


def test_with_every_each_newer_restatement_goes_above_the_older_newest_first() -> None:
    fused = _fused("a", "b", "c", "d")
    coverage = np.array([1.0, 1.0, 0.1, 1.0])
    started = np.array([1, 2, 9, 3])
    order = [entry.id for entry in newest_on_subject(fused, coverage, started, every=True)]
    assert order == ["d", "b", "a", "c"]


def test_an_update_said_in_passing_still_restates() -> None:
    # the update holds about half of what the original holds of the question (a message about something else)
    fused = _fused("original", "reply", "update")
    order = newest_on_subject(fused, np.array([1.0, 0.9, 0.55]), np.array([1, 1, 5]))
    assert [entry.id for entry in order] == ["update", "original", "reply"]


@pytest.mark.parametrize(
    ("question", "past"),
    [
        ("What was my original budget?", True),
        ("Where did I live before Lisbon?", True),
        ("Which editor did I used to prefer?", True),
        ("What did I think at first?", True),
        ("What is the daily call quota for the API key used in my application?", False),
        ("What is the deadline for completing the first sprint?", False),
    ],
)
def test_asks_about_the_past_only_for_an_earlier_state(question: str, past: bool) -> None:
    assert asks_about_the_past(words(question)) is past


def test_a_newer_statement_of_a_change_comes_up_from_below_the_window() -> None:
    fused = _fused("old", "reply", "other", "update", "tail")
    coverage = np.array([1.0, 1.0, 0.1, 0.5, 0.9])
    started = np.array([1, 2, 3, 9, 0])
    changed = np.array([False, False, False, True, False])
    order = newest_on_subject(fused, coverage, started, window=2, changed=changed, change_depth=5)
    # the update holds only half of what "old" holds and ranks below the window, but it states a change
    assert [entry.id for entry in order] == ["update", "old", "reply", "other", "tail"]
    # without a stated change, nothing below the window moves
    plain = newest_on_subject(fused, coverage, started, window=2)
    assert [entry.id for entry in plain] == ["reply", "old", "other", "update", "tail"]


def test_a_statement_of_a_change_goes_before_a_newer_reply_and_every_one_above_the_older() -> None:
    fused = _fused("old", "reply", "first change", "second change")
    coverage = np.array([1.0, 1.0, 0.6, 0.6])
    started = np.array([1, 2, 5, 9])
    changed = np.array([False, False, True, True])
    order = newest_on_subject(fused, coverage, started, window=2, changed=changed, change_depth=4)
    assert [entry.id for entry in order] == ["second change", "first change", "old", "reply"]


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("The sprint deadline was extended to April 5.", True),
        ("Commits merged into main have grown to 165.", True),
        ("I'm down to 12 hours of overtime this week.", True),
        ("My first sprint deadline is April 1.", False),
        ("Renewal of the lease is in May.", False),
        ("Now I'm ready for something new!", False),
    ],
)
def test_states_a_change(text: str, change: bool) -> None:
    assert states_a_change(text) is change


def test_a_statement_of_a_change_needs_less_of_the_question_to_be_on_its_subject() -> None:
    fused = _fused("old", "other", "update")
    coverage = np.array([1.0, 0.1, 0.25])  # below the share a restatement needs, above a change's
    started = np.array([1, 2, 9])
    changed = np.array([False, False, True])
    order = newest_on_subject(fused, coverage, started, window=1, changed=changed, change_depth=3)
    assert [entry.id for entry in order] == ["update", "old", "other"]
    kept = newest_on_subject(fused, coverage, started, window=1, changed=changed, change_depth=3, change_share=0.3)
    assert [entry.id for entry in kept] == ["old", "other", "update"]
