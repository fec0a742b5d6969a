"""Purging secrets stored before redaction covered a write path, on PostgreSQL (see the SQLite `purge.py`).

The same rule as SQLite: every text column not known to be safe (`redaction.is_safe_column`) is
read and redacted; the rows that change are rewritten in one transaction during which the tables'
append-only guards (the triggers that refuse rewrites) are disabled and then enabled again, a
facts row's key and lost entities are re-derived from its masked statement, the keyword terms
are rebuilt, and the purge is recorded in `secret_purges` (table, primary key, columns; never the
secret). The rewritten tables are then rewritten on disk (VACUUM FULL), so the old row versions
leave the table files; the server's write-ahead log keeps them until it is recycled.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg

from heedful.ids import new_id
from heedful.redact_values import is_safe_column, redact_value
from heedful.store.postgres.db import Database
from heedful.store.sqlite.purge import DERIVED, PurgeReport, Rewrite
from heedful.timeutil import now_text

SKIPPED_TABLES = ("schema_version", "secret_purges")
TEXT_TYPES = ("text", "character varying", "character")
# Trigger functions that refuse a rewrite; other triggers (the per-user versions) keep firing.
GUARDS = ("heedful_refuse", "facts_append_only")


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _tables(conn: psycopg.Connection[Any]) -> list[str]:
    rows = conn.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        " AND table_type = 'BASE TABLE' ORDER BY table_name"
    ).fetchall()
    return [str(r["table_name"]) for r in rows if r["table_name"] not in SKIPPED_TABLES]


def _text_columns(conn: psycopg.Connection[Any], table: str) -> list[str]:
    rows = conn.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema()"
        " AND table_name = ? ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return [
        str(r["column_name"])
        for r in rows
        if r["data_type"] in TEXT_TYPES
        and not is_safe_column(r["column_name"])
        and (table, r["column_name"]) not in DERIVED
    ]


def _primary_key(conn: psycopg.Connection[Any], table: str) -> list[str]:
    rows = conn.execute(
        "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
        " WHERE i.indrelid = ?::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)",
        (_quoted(table),),
    ).fetchall()
    return [str(r["attname"]) for r in rows]


def find_secrets(conn: psycopg.Connection[Any]) -> list[tuple[Rewrite, list[str], list[Any], dict[str, str]]]:
    """Every row holding text that redaction would change: (what to report, key columns, key values,
    masked values). A row is reported by its primary key (one value, or a list for a composite key)."""
    found: list[tuple[Rewrite, list[str], list[Any], dict[str, str]]] = []
    for table in _tables(conn):
        columns, key = _text_columns(conn, table), _primary_key(conn, table)
        if not columns or not key:
            continue
        listed = ", ".join(_quoted(c) for c in [*key, *columns])
        for row in conn.execute(f"SELECT {listed} FROM {_quoted(table)}").fetchall():
            masked = {c: redact_value(row[c]) for c in columns if isinstance(row[c], str)}
            changed = {c: v for c, v in masked.items() if v != row[c]}
            if changed:
                values = [row[k] for k in key]
                shown: Any = values[0] if len(values) == 1 else values
                found.append((Rewrite(table, shown, sorted(changed)), key, values, changed))
    return found


def purge_secrets(db: Database, dry_run: bool = False) -> PurgeReport:
    """Mask every stored secret in place (or, with `dry_run`, only say where they are)."""
    with db.read() as conn:
        found = find_secrets(conn)
    report = PurgeReport(dry_run=dry_run, rewritten=[rewrite for rewrite, *_ in found])
    if dry_run or not found:
        return report
    from heedful.memory.normalize import norm_key

    tables = sorted({rewrite.table for rewrite, *_ in found})
    with db.transaction() as conn:
        guards = conn.execute(
            "SELECT c.relname AS tbl, t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
            " JOIN pg_proc p ON p.oid = t.tgfoid"
            " WHERE NOT t.tgisinternal AND c.relname = ANY(?) AND p.proname = ANY(?)",
            (tables, list(GUARDS)),
        ).fetchall()
        for guard in guards:
            conn.execute(f"ALTER TABLE {_quoted(guard['tbl'])} DISABLE TRIGGER {_quoted(guard['name'])}")
        for rewrite, key, values, changed in found:
            assignments = ", ".join(f"{_quoted(c)} = ?" for c in changed)
            params: list[Any] = list(changed.values())
            if rewrite.table == "facts" and "statement" in changed:
                assignments += ", norm_key = ?"
                params.append(norm_key(changed["statement"])[:500])
                _drop_lost_entities(conn, key, values, changed["statement"])
            where = " AND ".join(f"{_quoted(k)} = ?" for k in key)
            conn.execute(f"UPDATE {_quoted(rewrite.table)} SET {assignments} WHERE {where}", [*params, *values])
        for guard in guards:
            conn.execute(f"ALTER TABLE {_quoted(guard['tbl'])} ENABLE TRIGGER {_quoted(guard['name'])}")
        if "facts" in tables:  # the keyword terms of a rewritten statement go with it
            from heedful.store.postgres.terms import rebuild_terms

            rebuild_terms(conn)
        report.purge_id = new_id("purge")
        conn.execute(
            "INSERT INTO secret_purges (id, at, rewritten, row_count) VALUES (?, ?, ?, ?)",
            (report.purge_id, now_text(), json.dumps(report.to_json()["rewritten"]), len(found)),
        )
    with db.read() as conn:  # outside the transaction: VACUUM cannot run inside one
        for table in tables:
            conn.execute(f"VACUUM FULL {_quoted(table)}")
    return report


def _drop_lost_entities(conn: psycopg.Connection[Any], key: list[str], values: list[Any], masked: str) -> None:
    """Entities taken from the words that were masked go too (a key read as a name)."""
    from heedful.memory.normalize import norm_key

    where = " AND ".join(f"{_quoted(k)} = ?" for k in key)
    row = conn.execute(f"SELECT id, statement FROM facts WHERE {where}", values).fetchone()
    if row is None:
        return
    before, after = f" {norm_key(row['statement'])} ", f" {norm_key(masked)} "
    for named in conn.execute("SELECT entity FROM fact_entities WHERE fact_id = ?", (row["id"],)).fetchall():
        entity_key = f" {norm_key(named['entity'])} "
        if entity_key in before and entity_key not in after:
            conn.execute("DELETE FROM fact_entities WHERE fact_id = ? AND entity = ?", (row["id"], named["entity"]))
