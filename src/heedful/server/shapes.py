"""The JSON both the CLI's `--json` and the HTTP API answer with: one function per shape.

Each takes the opened `Heedful` and an already validated user id and returns plain JSON data;
heedful's own errors (InputError, NotFoundError) pass through for the caller to render.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_args

from heedful.errors import InputError, NotFoundError

if TYPE_CHECKING:
    from heedful.api import Heedful
    from heedful.memory.events import MemoryEvent
    from heedful.memory.write import NewMessage


def moment(as_of: str | None) -> str | None:
    """An `--as-of` given by a person (ISO 8601) as the store's text form, or None."""
    if not as_of:
        return None
    from heedful.timeutil import parse_user_time, to_text

    return to_text(parse_user_time(as_of))


def new_message(
    text: str, role: str = "user", session: str | None = None, at: str | None = None, speaker: str | None = None
) -> NewMessage:
    from heedful.memory.write import NewMessage
    from heedful.timeutil import parse_user_time

    if role not in ("user", "assistant"):
        raise InputError(f"the role must be 'user' or 'assistant', not {role!r}")
    return NewMessage(
        text=text,
        role=role,  # type: ignore[arg-type]  # checked just above
        session_id=session or "default",
        at=parse_user_time(at) if at else None,
        speaker=speaker,
    )


def events_json(events: list[MemoryEvent]) -> dict[str, Any]:
    """`memory forget|correct|delete|flush --json`."""
    return {"events": [event.to_json() for event in events]}


def memory_list_json(
    hf: Heedful,
    user: str,
    kinds: list[str] | None = None,
    include_inactive: bool = False,
    as_of: str | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """`memory list --json`: a user nobody has added anything for yet has an empty list, not an error."""
    from heedful.memory.history import fact_json
    from heedful.store.records import FactKind

    known = get_args(FactKind)  # checked here so that a typo is an error, not an empty list
    unknown = [k for k in kinds or [] if k not in known]
    if unknown:
        raise InputError(f"unknown kind {unknown[0]!r}; choose from {', '.join(known)}")
    if limit is not None and limit < 1:
        raise InputError("the limit must be at least 1")
    when = moment(as_of)
    if not hf.store.memory.user_exists(user):
        return []
    facts = hf.memory.list(user, kinds=kinds, include_inactive=include_inactive, as_of=when, limit=limit)
    return [fact_json(fact, when) for fact in facts]


def memory_undo_json(hf: Heedful, user: str) -> dict[str, Any]:
    """`memory undo --json`: each change reversed, newest first."""
    from heedful.memory.results import MemoryUndo

    return MemoryUndo(undone=hf.memory.undo(user)).model_dump(mode="json")


def log_json(hf: Heedful, user: str, session: str | None = None, limit: int = 200) -> dict[str, Any]:
    """`heedful log --json`: the sessions (when no session is named) and what was blocked and why."""
    if limit < 1:
        raise InputError("the limit must be at least 1")
    repo = hf.store.enforce
    entries = repo.entries(user, session, limit=limit)
    if session is not None and not entries and repo.session(user, session) is None:
        raise NotFoundError(f"no such session {session!r} for user {user!r} (`heedful log` lists the sessions)")
    return {
        "user": user,
        "session": session,
        "sessions": [] if session else repo.sessions(user),
        "entries": entries,
    }
