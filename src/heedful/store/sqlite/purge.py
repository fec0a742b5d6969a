"""Purging secrets stored before redaction covered a write path: the one sanctioned rewrite.

Every text column that is not known to be safe (see `redaction.is_safe_column`) is read, row by
row, and redacted; the rows that change are rewritten in one transaction in which the
append-only triggers are dropped and re-created, the keyword terms are rebuilt, a facts row's
derived key and entities are re-derived from its masked statement, and the purge itself is
recorded in `secret_purges` (table, row id and columns; never the secret). The file is then
VACUUMed and the WAL truncated, so the old bytes leave the disk.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from heedful.ids import new_id
from heedful.store.sqlite.db import Database
from heedful.store.sqlite.redaction import is_safe_column, redact_value
from heedful.timeutil import now_text

# Derived from other columns: re-derived when their source changes, not redacted in place.
DERIVED = {("facts", "norm_key")}
SKIPPED_TABLES = ("sqlite_", "schema_version", "secret_purges")


@dataclass(slots=True)
class Rewrite:
    table: str
    rowid: int
    columns: list[str]


@dataclass(slots=True)
class PurgeReport:
    dry_run: bool
    rewritten: list[Rewrite] = field(default_factory=list)
    purge_id: str | None = None

    def to_json(self) -> dict[str, object]:
        tables: dict[str, int] = {}
        for row in self.rewritten:
            tables[row.table] = tables.get(row.table, 0) + 1
        return {
            "dry_run": self.dry_run,
            "purge_id": self.purge_id,
            "rows": len(self.rewritten),
            "tables": tables,
            "rewritten": [{"table": r.table, "rowid": r.rowid, "columns": r.columns} for r in self.rewritten],
        }


def _text_columns(db: Database, table: str) -> list[str]:
    columns = db.conn.execute(f'PRAGMA table_info("{table}")').fetchall()
    return [
        row["name"]
        for row in columns
        if not is_safe_column(row["name"]) and (table, row["name"]) not in DERIVED and row["type"].upper() != "BLOB"
    ]


def _tables(db: Database) -> list[str]:
    rows = db.conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall()
    return [
        row["name"]
        for row in rows
        if not row["name"].startswith(SKIPPED_TABLES)
        and "WITHOUT ROWID" not in (row["sql"] or "").upper()
        and not (row["sql"] or "").upper().startswith("CREATE VIRTUAL")
    ]


def find_secrets(db: Database) -> list[tuple[Rewrite, dict[str, str]]]:
    """Every row holding text that redaction would change, with the masked values."""
    found: list[tuple[Rewrite, dict[str, str]]] = []
    for table in _tables(db):
        columns = _text_columns(db, table)
        if not columns:
            continue
        listed = ", ".join(f'"{c}"' for c in columns)
        for row in db.conn.execute(f'SELECT rowid, {listed} FROM "{table}"'):
            masked = {c: redact_value(row[c]) for c in columns if isinstance(row[c], str)}
            changed = {c: v for c, v in masked.items() if v != row[c]}
            if changed:
                found.append((Rewrite(table, int(row[0]), sorted(changed)), changed))
    return found


def purge_secrets(db: Database, dry_run: bool = False) -> PurgeReport:
    """Mask every stored secret in place (or, with `dry_run`, only say where they are)."""
    found = find_secrets(db)
    report = PurgeReport(dry_run=dry_run, rewritten=[rewrite for rewrite, _ in found])
    if dry_run or not found:
        return report
    from heedful.memory.normalize import norm_key

    tables = sorted({rewrite.table for rewrite, _ in found})
    marks = ",".join("?" * len(tables))
    with db.transaction() as conn:
        guards = conn.execute(
            f"SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ({marks})"
            " AND sql LIKE '%RAISE(ABORT%'",
            tables,
        ).fetchall()
        for guard in guards:
            conn.execute(f'DROP TRIGGER "{guard["name"]}"')
        for rewrite, changed in found:
            assignments = ", ".join(f'"{c}" = ?' for c in changed)
            values = list(changed.values())
            if rewrite.table == "facts" and "statement" in changed:
                assignments += ", norm_key = ?"
                values.append(norm_key(changed["statement"])[:500])
                _drop_lost_entities(conn, rewrite.rowid, changed["statement"])
            conn.execute(f'UPDATE "{rewrite.table}" SET {assignments} WHERE rowid = ?', [*values, rewrite.rowid])
        for guard in guards:
            conn.execute(guard["sql"])
        if "facts" in tables:  # the keyword terms of a rewritten statement go with it
            from heedful.store.sqlite.terms import rebuild_terms

            rebuild_terms(conn)
        report.purge_id = new_id("purge")
        conn.execute(
            "INSERT INTO secret_purges (id, at, rewritten, row_count) VALUES (?, ?, ?, ?)",
            (report.purge_id, now_text(), json.dumps(report.to_json()["rewritten"]), len(found)),
        )
    db.conn.execute("VACUUM")
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return report


def _drop_lost_entities(conn: sqlite3.Connection, fact_rowid: int, masked: str) -> None:
    """Entities taken from the words that were masked go too (a key read as a name)."""
    from heedful.memory.normalize import norm_key

    fact_id, statement = conn.execute("SELECT id, statement FROM facts WHERE rowid = ?", (fact_rowid,)).fetchone()
    before, after = f" {norm_key(statement)} ", f" {norm_key(masked)} "
    for (entity,) in conn.execute("SELECT entity FROM fact_entities WHERE fact_id = ?", (fact_id,)).fetchall():
        key = f" {norm_key(entity)} "
        if key in before and key not in after:
            conn.execute("DELETE FROM fact_entities WHERE fact_id = ? AND entity = ?", (fact_id, entity))
