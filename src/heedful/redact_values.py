"""Redaction of stored values, for every backend and for copies kept outside a database.

Which columns hold no free text (`is_safe_column`), which column each `?` of a write statement
binds to (`placeholder_columns`), a text value redacted with the strings inside JSON text kept
valid (`redact_value`), and a JSON-shaped record redacted except under safe keys (`redact_record`).
Pure functions over `heedful.memory.redact`; no database is imported here, so the domain (the
hook's spool) and both stores share them without depending on a backend.

    redact_value('{"note": "token sk-abc123def456ghi789"}')  -> '{"note": "token [REDACTED:api_key]"}'
"""

from __future__ import annotations

import json
import re
from typing import Any

from heedful.memory.redact import redact

# Columns that hold identifiers or machine values, never free text. Anything else is redacted.
SAFE_COLUMNS = frozenset(
    {
        "id", "key", "seq", "version", "state", "kind", "role", "op", "status", "scope", "project", "platform",
        "stage", "action", "tool", "turn", "perspective", "lease_owner", "embedding", "confidence",
        "background", "created", "ok", "attempts", "max_attempts", "revisions", "turn_count", "current_turn",
        "supersedes", "superseded_by", "undone_by", "term", "tf", "dl", "docs", "tokens",
    }
)  # fmt: skip
SAFE_SUFFIXES = ("_id", "_ids", "_at", "_version", "_hash", "_count", "_rowid")


def is_safe_column(column: str | None) -> bool:
    if column is None:
        return False
    column = column.lower()
    return column in SAFE_COLUMNS or column.endswith(SAFE_SUFFIXES)


_WRITE = re.compile(r"^\s*(?:INSERT|REPLACE|UPDATE)\b", re.IGNORECASE)
_INSERT = re.compile(
    r"^\s*(?:INSERT|REPLACE)\s+(?:OR\s+\w+\s+)?INTO\s+[\w.\"]+\s*\(([^)]*)\)\s*VALUES\s*\(", re.IGNORECASE
)
_COMPARED = re.compile(r"(\w+)\s*(?:=|==|!=|<>|<=|>=|<|>)\s*(?:\w+\s*\(\s*)?$")
_IN_LIST = re.compile(r"(\w+)\s+(?:NOT\s+)?IN\s*\((?:\s*\?\s*,)*\s*$", re.IGNORECASE)


def placeholder_columns(sql: str) -> tuple[str | None, ...] | None:
    """The column each `?` of a write statement binds to (None: unknown); None for other statements."""
    if not _WRITE.match(sql):
        return None
    positions = _placeholders(sql)
    values = _values_elements(sql)
    columns: list[str | None] = []
    for position in positions:
        column = None
        if values is not None:
            names, spans = values
            column = next((names[k] for k, (start, end) in enumerate(spans) if start <= position < end), None)
        if column is None:
            before = sql[:position]
            found = _COMPARED.search(before) or _IN_LIST.search(before)
            column = found.group(1) if found else None
        columns.append(column)
    return tuple(columns)


def _placeholders(sql: str) -> list[int]:
    """Offsets of `?` outside string literals and quoted names."""
    offsets: list[int] = []
    quote = ""
    for offset, char in enumerate(sql):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char == "?":
            offsets.append(offset)
    return offsets


def _values_elements(sql: str) -> tuple[list[str], list[tuple[int, int]]] | None:
    """For `INSERT ... (a, b) VALUES (x, y)`: the column names and the span of each value."""
    match = _INSERT.match(sql)
    if match is None:
        return None
    names = [name.strip().strip('"`[]') for name in match.group(1).split(",")]
    spans: list[tuple[int, int]] = []
    depth, start, quote = 0, match.end(), ""
    for offset in range(match.end(), len(sql)):
        char = sql[offset]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif char in ",)" and not depth:
            spans.append((start, offset))
            start = offset + 1
            if char == ")":
                break
    if len(spans) != len(names):
        return None  # an unusual shape: fall back to reading each placeholder's neighbourhood
    return names, spans


def redact_value(value: Any) -> Any:
    """Redact a text value (and the strings inside JSON text); other values pass unchanged."""
    if not isinstance(value, str) or not value:
        return value
    if value[0] in "[{" and value[-1] in "]}":
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
        if isinstance(parsed, (list, dict)):
            cleaned = _redact_json(parsed)
            return value if cleaned == parsed else json.dumps(cleaned)
    return redact(value).text


def _redact_json(node: Any) -> Any:
    if isinstance(node, str):
        return redact(node).text
    if isinstance(node, list):
        return [_redact_json(item) for item in node]
    if isinstance(node, dict):
        return {key: _redact_json(item) for key, item in node.items()}
    return node


def redact_record(node: Any, key: str | None = None) -> Any:
    """A JSON-shaped record with every text redacted except under keys of known-safe columns
    (for copies of writes kept outside the database, such as the hook's spool)."""
    if isinstance(node, dict):
        return {k: node[k] if is_safe_column(k) else redact_record(node[k], k) for k in node}
    if isinstance(node, list):
        return [redact_record(item, key) for item in node]
    return redact_value(node)
