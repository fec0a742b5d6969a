"""Secrets never reach the file: every INSERT/UPDATE/REPLACE parameter is redacted on its way in.

The connection (`RedactingConnection`) reads each write statement once to learn which column
each `?` binds to, then passes every text parameter through `heedful.redact_values.redact_value`
unless its column is known to hold no free text (ids, hashes, timestamps, states, paths of
projects). JSON text is parsed and its string values redacted, so it stays valid JSON. A new
table needs no code of its own to be covered: only a column proven safe is ever let through
untouched. Which column a `?` binds to, and which columns are safe, is read by the functions of
`heedful.redact_values`, which the PostgreSQL store shares.

    INSERT INTO notes (id, user_id, body) VALUES (?, ?, ?)   -> id, user_id kept; body redacted
    UPDATE jobs SET last_error = ? WHERE id = ?              -> last_error redacted; id kept
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

# The functions live in a module no backend owns; re-exported here for existing importers.
from heedful.redact_values import (
    SAFE_COLUMNS,
    SAFE_SUFFIXES,
    is_safe_column,
    placeholder_columns,
    redact_record,
    redact_value,
)

_NAMED = re.compile(r"[:@$][A-Za-z_]")
MAX_PLANS = 512
MAX_REMEMBERED = 4096


class RedactingConnection(sqlite3.Connection):
    """A sqlite3 connection whose writes are redacted before they are bound."""

    def _plan(self, sql: str) -> tuple[bool, ...] | None:
        """For a write statement, whether each placeholder's column is safe; None for other statements."""
        plans: dict[str, tuple[bool, ...] | None] = self.__dict__.setdefault("_plans", {})
        if sql not in plans:
            if len(plans) >= MAX_PLANS:
                plans.clear()  # statements built with variable IN lists: keep the cache bounded
            columns = placeholder_columns(sql)
            if columns is None:
                plans[sql] = None
            elif not columns and _NAMED.search(sql):
                plans[sql] = (False,)  # named parameters: each is checked by its name in `_clean`
            else:
                plans[sql] = tuple(is_safe_column(column) for column in columns)
        return plans[sql]

    def _redacted(self, value: Any) -> Any:
        """`redact_value`, remembered: the same text is often written to several tables in a row."""
        if not isinstance(value, str) or not value:
            return value
        seen: dict[str, str] = self.__dict__.setdefault("_seen", {})
        found = seen.get(value)
        if found is None:
            if len(seen) >= MAX_REMEMBERED:
                seen.clear()
            found = redact_value(value)
            seen[value] = found
            seen[found] = found  # redaction is idempotent: its output needs no second pass
        return found

    def _clean(self, plan: tuple[bool, ...], parameters: Any) -> Any:
        if isinstance(parameters, Mapping):
            return {key: value if is_safe_column(key) else self._redacted(value) for key, value in parameters.items()}
        return [
            value if index < len(plan) and plan[index] else self._redacted(value)
            for index, value in enumerate(parameters)
        ]

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        plan = self._plan(sql) if parameters else None
        if plan is None or (all(plan) and not isinstance(parameters, Mapping)):
            return super().execute(sql, parameters)
        return super().execute(sql, self._clean(plan, parameters))

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> sqlite3.Cursor:
        plan = self._plan(sql)
        if plan is None or all(plan):  # only ids, counts and terms: nothing to mask
            return super().executemany(sql, seq_of_parameters)
        return super().executemany(sql, [self._clean(plan, parameters) for parameters in seq_of_parameters])


__all__ = [
    "SAFE_COLUMNS",
    "SAFE_SUFFIXES",
    "RedactingConnection",
    "is_safe_column",
    "placeholder_columns",
    "redact_record",
    "redact_value",
]
