"""Timestamps: always timezone-aware UTC, stored as fixed-width ISO 8601 text.

A fixed width keeps lexicographic order equal to time order, so SQL can compare the text.
"""

from __future__ import annotations

from datetime import UTC, datetime

from heedful.errors import InputError

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def now() -> datetime:
    return datetime.now(UTC)


def to_text(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime(_FORMAT)


def from_text(text: str) -> datetime:
    return datetime.strptime(text, _FORMAT).replace(tzinfo=UTC)


def parse_user_time(text: str) -> datetime:
    """Parse an ISO 8601 time given by a user; naive times are taken as UTC."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise InputError(f"not an ISO 8601 time: {text!r} (example: 2024-05-07T14:30:00Z)") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def now_text() -> str:
    return to_text(now())
