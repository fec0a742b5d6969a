"""A restated value: for a question about the present the newer message ranks above the older one,
for a question in the past tense the order is left to the routes (real SQLite files)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from heedful.api import Heedful
from heedful.memory.write import NewMessage

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
