"""Per-user keyword statistics and BM25, so that one user's scores never depend on another's rows.

Each recallable row's statement is tokenized by SQLite's own FTS5 tokenizer (porter over
unicode61, through a connection-private temporary FTS5 table and its vocabulary), and its terms
are kept in `fact_terms` under the user's id with their frequency and the row's length; the
user's row and token counts live in `user_term_totals`. A query reads only the user's postings
for its terms, and scores them with FTS5's BM25 (k1 = 1.2, b = 0.75, idf floored at 1e-6) over
the user's own N, document frequencies and average length. Worked example: a user with 4 rows of
5 tokens each, one of which holds "lisbon" once:

    idf = ln((4 - 1 + 0.5) / (1 + 0.5)) = 0.847;  score = 0.847 * 1 * 2.2 / (1 + 1.2) = 0.847
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence

# Kinds that recall may return (tombstones and the profile are read by the harness directly).
RECALLABLE_KINDS = ("fact", "commitment", "excerpt", "summary")
K1 = 1.2
B = 0.75
MIN_IDF = 1e-6
_PHRASE = re.compile(r'"((?:[^"]|"")*)"')
_TEMP_TABLE = "heedful_tokens"


class Tokenizer:
    """SQLite's porter/unicode61 tokenizer, reached through a temporary FTS5 table of one connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._lock = threading.Lock()
        self._ready = False

    def _prepare(self) -> None:
        if not self._ready:
            self.conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_TEMP_TABLE} USING fts5(text, tokenize = 'porter unicode61')"
            )
            self.conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_TEMP_TABLE}_vocab"
                f" USING fts5vocab('temp', '{_TEMP_TABLE}', 'instance')"
            )
            self._ready = True

    def counts(self, docs: Sequence[tuple[int, str]]) -> dict[int, dict[str, int]]:
        """doc key -> term -> how often the term occurs in that text."""
        if not docs:
            return {}
        with self._lock:
            self._prepare()
            try:
                self.conn.executemany(f"INSERT INTO temp.{_TEMP_TABLE} (rowid, text) VALUES (?, ?)", docs)
                rows = self.conn.execute(
                    f"SELECT doc, term, COUNT(*) FROM temp.{_TEMP_TABLE}_vocab GROUP BY doc, term"
                ).fetchall()
            finally:
                self.conn.execute(f"DELETE FROM temp.{_TEMP_TABLE}")
        found: dict[int, dict[str, int]] = {key: {} for key, _ in docs}
        for doc, term, count in rows:
            found[int(doc)][str(term)] = int(count)
        return found

    def terms(self, texts: Iterable[str]) -> list[str]:
        """The distinct terms of some query words, in order."""
        listed = [text for text in texts if text.strip()]
        counts = self.counts(list(enumerate(listed)))
        ordered: list[str] = []
        for key in range(len(listed)):
            ordered.extend(term for term in counts[key] if term not in ordered)
        return ordered


def phrases(match_expression: str) -> list[str]:
    """The quoted terms of an FTS5-style expression ('"lisbon" OR "moved"' -> ['lisbon', 'moved'])."""
    return [found.replace('""', '"') for found in _PHRASE.findall(match_expression)]


def index_rows(conn: sqlite3.Connection, tokenizer: Tokenizer, rows: Sequence[tuple[int, str, str]]) -> None:
    """Add the terms of new recallable rows (rowid, user id, statement as it was stored: read it back
    from the table, so that a secret the boundary masked leaves no term behind)."""
    if not rows:
        return
    counts = tokenizer.counts([(rowid, statement) for rowid, _, statement in rows])
    postings: list[tuple[str, str, int, int, int]] = []
    totals: dict[str, list[int]] = {}
    for rowid, user_id, _ in rows:
        terms = counts.get(rowid, {})
        length = sum(terms.values())
        postings.extend((user_id, term, rowid, tf, length) for term, tf in terms.items())
        total = totals.setdefault(user_id, [0, 0])
        total[0] += 1
        total[1] += length
    conn.executemany(
        "INSERT OR REPLACE INTO fact_terms (user_id, term, fact_rowid, tf, dl) VALUES (?, ?, ?, ?, ?)", postings
    )
    conn.executemany(
        "INSERT INTO user_term_totals (user_id, docs, tokens) VALUES (?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET"
        " docs = user_term_totals.docs + excluded.docs, tokens = user_term_totals.tokens + excluded.tokens",
        [(user_id, docs, tokens) for user_id, (docs, tokens) in totals.items()],
    )


def stored_statements(conn: sqlite3.Connection, rowids: Sequence[int]) -> list[tuple[int, str, str]]:
    """(rowid, user id, statement) of the given facts rows, as the table holds them."""
    found: list[tuple[int, str, str]] = []
    for start in range(0, len(rowids), 500):
        chunk = list(rowids[start : start + 500])
        found.extend(
            (int(r[0]), str(r[1]), str(r[2]))
            for r in conn.execute(
                f"SELECT rowid, user_id, statement FROM facts WHERE rowid IN ({','.join('?' * len(chunk))})", chunk
            )
        )
    return found


def rebuild_terms(conn: sqlite3.Connection, chunk: int = 2000) -> None:
    """Re-index every recallable row of every user (after a migration or a purge); call inside a transaction."""
    tokenizer = Tokenizer(conn)
    conn.execute("DELETE FROM fact_terms")
    conn.execute("DELETE FROM user_term_totals")
    kinds = ",".join("?" * len(RECALLABLE_KINDS))
    last = 0
    while True:
        rows = conn.execute(
            f"SELECT rowid, user_id, statement FROM facts WHERE rowid > ? AND kind IN ({kinds}) ORDER BY rowid LIMIT ?",
            (last, *RECALLABLE_KINDS, chunk),
        ).fetchall()
        if not rows:
            return
        index_rows(conn, tokenizer, [(int(r[0]), str(r[1]), str(r[2])) for r in rows])
        last = int(rows[-1][0])


def user_totals(conn: sqlite3.Connection, user_id: str) -> tuple[int, int]:
    row = conn.execute("SELECT docs, tokens FROM user_term_totals WHERE user_id = ?", (user_id,)).fetchone()
    return (0, 0) if row is None else (int(row[0]), int(row[1]))


def postings(conn: sqlite3.Connection, user_id: str, term: str) -> list[tuple[int, int, int]]:
    """(row id, term frequency, row length) of one user's rows holding `term`."""
    rows = conn.execute(
        "SELECT fact_rowid, tf, dl FROM fact_terms WHERE user_id = ? AND term = ?", (user_id, term)
    ).fetchall()
    return [(int(r[0]), int(r[1]), int(r[2])) for r in rows]


def bm25(docs: int, tokens: int, term_postings: Sequence[Sequence[tuple[int, int, int]]]) -> dict[int, float]:
    """BM25 of every row holding a query term, from one user's statistics only (FTS5's formula)."""
    if docs <= 0:
        return {}
    average = tokens / docs if tokens else 1.0
    scores: dict[int, float] = {}
    for rows in term_postings:
        if not rows:
            continue
        idf = math.log((docs - len(rows) + 0.5) / (len(rows) + 0.5))
        idf = idf if idf > 0 else MIN_IDF
        for rowid, tf, length in rows:
            norm = K1 * (1 - B + B * length / average)
            scores[rowid] = scores.get(rowid, 0.0) + idf * tf * (K1 + 1) / (tf + norm)
    return scores
