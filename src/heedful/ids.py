"""Identifiers: short random ids for records, and the one check every user id passes."""

from __future__ import annotations

import secrets

from heedful.errors import InputError

MAX_USER_ID_CHARS = 200


def new_id(prefix: str) -> str:
    """A short, prefixed, random identifier (`f-3fa9c0d2e1b4` for a fact)."""
    return f"{prefix}-{secrets.token_hex(6)}"


def validate_user_id(user_id: object) -> str:
    """Return `user_id` unchanged if it is a valid user id, else raise a one-line `InputError`.

    Every entry point (memory, rules, enforcement, MCP, CLI) calls this. Nothing is normalised:
    " alice" is rejected rather than read as "alice", so two spellings can never alias one user.
    """
    if not isinstance(user_id, str) or not user_id:
        raise InputError("the user id is empty")
    if not user_id.strip():
        raise InputError("the user id is only whitespace")
    if user_id != user_id.strip():
        raise InputError(f"the user id {user_id!r} has whitespace around it; give it without")
    if len(user_id) > MAX_USER_ID_CHARS:
        raise InputError(f"the user id is longer than {MAX_USER_ID_CHARS} characters")
    if any(ord(char) < 32 or ord(char) == 127 or 0xD800 <= ord(char) <= 0xDFFF for char in user_id):
        raise InputError(f"the user id {user_id!r} holds a control character or an unpaired surrogate")
    return user_id
