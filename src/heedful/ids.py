"""Short, prefixed, random identifiers (`f-3fa9c0d2e1b4` for a fact)."""

from __future__ import annotations

import secrets


def new_id(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(6)}"
