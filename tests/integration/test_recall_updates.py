"""A restated value: for a question about the present the newer message ranks above the older one,
for a question in the past tense the order is left to the routes (real SQLite files)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from heedful.api import Heedful
from heedful.memory.recall.config import DEFAULT
from heedful.memory.recall.engine import Recaller
from heedful.memory.write import NewMessage
from heedful.store.records import Role

T0 = datetime(2024, 3, 1, 9, tzinfo=UTC)
OLD = (
    "The dashboard API response time is about 400ms on average, and I want the dashboard API response time"
    " lower before the demo."
)
NEW = "Update: the dashboard API response time now averages 250ms after the caching tweaks."
FILLER = [
    "I finished the login page today.",
    "The transaction list needs pagination.",
    "We deploy to the staging server on Fridays.",
    "My budget tracker stores amounts in cents.",
    "The charts use a pie chart for categories.",
]


def _positions(hf: Heedful, user: str, question: str) -> tuple[int, int]:
    texts = [item.text for item in hf.memory.recall(user, question, limit=10).items]
    return texts.index(OLD), texts.index(NEW)


def test_newer_restatement_first_for_a_present_question(tmp_path: Path) -> None:
    with Heedful.open(tmp_path / "home", embedder="hashing") as hf:
        messages = [NewMessage(OLD, at=T0, session_id="s1")]
        messages += [NewMessage(t, at=T0 + timedelta(days=n + 1), session_id="s2") for n, t in enumerate(FILLER)]
        messages.append(NewMessage(NEW, at=T0 + timedelta(days=20), session_id="s3"))
        hf.memory.add("u", messages, extract=False)

        old, new = _positions(hf, "u", "What is the average response time of the dashboard API?")
        assert new < old
        # the past tense asks about what was said then: the routes' order stands (the old one
        # repeats the question's words, so it ranks first)
        old, new = _positions(hf, "u", "What was the average response time of the dashboard API?")
        assert old < new


ORIGINAL = "I have a deadline of April 1 for the first sprint, which covers the basic layout and navigation."
# Each of these says more of the question than the update does, so the update ranks below the first ten.
ON_SUBJECT = [
    f"For the first sprint deadline I listed the basic layout and navigation tasks, part {n}." for n in range(12)
]
UPDATE = "Could you help me adjust my board? The sprint deadline was extended to April 5."


def _home_with_an_update(hf: Heedful, update_role: Role) -> None:
    messages = [NewMessage(ORIGINAL, at=T0, session_id="s1")]
    messages += [NewMessage(t, at=T0 + timedelta(hours=n + 1), session_id="s1") for n, t in enumerate(ON_SUBJECT)]
    messages.append(NewMessage(UPDATE, role=update_role, at=T0 + timedelta(days=9), session_id="s2"))
    hf.memory.add("u", messages, extract=False)


PRESENT = "What is the deadline for the first sprint on the basic layout and navigation?"
MODAL = "What deadline should I aim for on the first sprint for the basic layout and navigation?"


def _ranks(hf: Heedful, config: str | None = None, question: str = PRESENT, **changes: object) -> tuple[int, int]:
    chosen = DEFAULT if config is None else DEFAULT.derive(config, **(changes or {"change_depth": 0}))
    recaller = Recaller(hf.store, lambda: hf.embedder, config=chosen)
    try:
        texts = [item.text for item in recaller.recall("u", question, limit=30).items]
    finally:
        recaller.close()
    return texts.index(ORIGINAL), texts.index(UPDATE)


def test_a_later_statement_of_a_change_comes_up_from_below_the_first_ten(tmp_path: Path) -> None:
    with Heedful.open(tmp_path / "home", embedder="hashing") as hf:
        _home_with_an_update(hf, "user")
        original, update = _ranks(hf, "without-changes")
        assert update > 10 and original < update  # the routes alone rank it far below
        original, update = _ranks(hf)
        assert update < original


def test_the_assistant_saying_a_change_is_not_an_update_of_the_users_own(tmp_path: Path) -> None:
    with Heedful.open(tmp_path / "home", embedder="hashing") as hf:
        _home_with_an_update(hf, "assistant")
        original, update = _ranks(hf)
        assert original < update


def test_a_modal_question_takes_the_later_statement_of_a_change_too(tmp_path: Path) -> None:
    with Heedful.open(tmp_path / "home", embedder="hashing") as hf:
        _home_with_an_update(hf, "user")
        original, update = _ranks(hf, "statements-only", MODAL, modal_changes=False)
        assert original < update  # "what ... should I" was once left to the routes
        original, update = _ranks(hf, question=MODAL)
        assert update < original
