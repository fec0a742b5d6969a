"""Per-user keyword statistics and BM25 on PostgreSQL, with the SQLite backend's tokenizer and constants.

Terms are made by SQLite's FTS5 porter/unicode61 tokenizer (an in-memory SQLite connection, see
`heedful.store.sqlite.terms.Tokenizer`), so both backends index the same terms; they are kept in
`fact_terms` under the user's id and the user's row and token counts in `user_term_totals`.
BM25 is computed in SQL over the user's own N, document frequencies and average length, with
FTS5's formula (k1 = 1.2, b = 0.75, idf floored at 1e-6): no statistic crosses users.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import psycopg

from heedful.store.sqlite.terms import K1, MIN_IDF, RECALLABLE_KINDS, B, Tokenizer

_KINDS = ",".join(f"'{kind}'" for kind in RECALLABLE_KINDS)

# BM25 of one user's rows for a list of terms; ties by insertion order (scores equal to 1e-9: the
# server sums a row's terms in no fixed order, so equal scores may differ in their last bits).
# Parameters: user, terms, user, terms, limit. The idf is FTS5's: ln((N - df + 0.5) / (df + 0.5)),
# 1e-6 when not positive.
BM25_SQL = f"""
WITH totals AS (
    SELECT docs::float8 AS docs, CASE WHEN tokens > 0 THEN tokens::float8 / docs ELSE 1.0 END AS average
    FROM user_term_totals WHERE user_id = ? AND docs > 0
), weights AS (
    SELECT t.term, ln((totals.docs - COUNT(*) + 0.5) / (COUNT(*) + 0.5)) AS idf
    FROM fact_terms t, totals WHERE t.user_id = ? AND t.term = ANY(?) GROUP BY t.term, totals.docs
)
SELECT seq, score FROM (
SELECT t.fact_seq AS seq,
       SUM(CASE WHEN w.idf > 0 THEN w.idf ELSE {MIN_IDF}::float8 END * t.tf * {K1 + 1}::float8
           / (t.tf + {K1}::float8 * (1 - {B}::float8 + {B}::float8 * t.dl / totals.average))) AS score
FROM fact_terms t JOIN weights w ON w.term = t.term CROSS JOIN totals
WHERE t.user_id = ? AND t.term = ANY(?)
GROUP BY t.fact_seq
) scored ORDER BY round(score * 1e9) DESC, seq LIMIT ?
"""


def new_tokenizer() -> Tokenizer:
    """The SQLite tokenizer on a private in-memory connection (no file; nothing is stored there)."""
    return Tokenizer(sqlite3.connect(":memory:", check_same_thread=False))


def index_rows(conn: psycopg.Connection[Any], tokenizer: Tokenizer, rows: Sequence[tuple[int, str, str]]) -> None:
    """Add the terms of new recallable rows: (seq, user id, statement as stored, i.e. after redaction,
    so that a masked secret leaves no term behind)."""
    if not rows:
        return
    counts = tokenizer.counts([(seq, statement) for seq, _, statement in rows])
    postings: list[tuple[str, str, int, int, int]] = []
    totals: dict[str, list[int]] = {}
    for seq, user_id, _ in rows:
        terms = counts.get(seq, {})
        length = sum(terms.values())
        postings.extend((user_id, term, seq, tf, length) for term, tf in terms.items())
        total = totals.setdefault(user_id, [0, 0])
        total[0] += 1
        total[1] += length
    # One statement for every posting (arrays unnested in the server), not one per posting.
    conn.execute(
        "INSERT INTO fact_terms (user_id, term, fact_seq, tf, dl)"
        " SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[], ?::int[], ?::int[])"
        " ON CONFLICT (user_id, term, fact_seq) DO UPDATE SET tf = excluded.tf, dl = excluded.dl",
        [list(column) for column in zip(*postings, strict=True)] if postings else [[], [], [], [], []],
    )
    with conn.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO user_term_totals (user_id, docs, tokens) VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE"
            " SET docs = user_term_totals.docs + excluded.docs, tokens = user_term_totals.tokens + excluded.tokens",
            [(user_id, docs, tokens) for user_id, (docs, tokens) in sorted(totals.items())],
        )


def rebuild_terms(conn: psycopg.Connection[Any], chunk: int = 2000) -> None:
    """Re-index every recallable row of every user (after a purge); call inside a transaction."""
    tokenizer = new_tokenizer()
    conn.execute("DELETE FROM fact_terms")
    conn.execute("DELETE FROM user_term_totals")
    last = 0
    while True:
        rows = conn.execute(
            f"SELECT seq, user_id, statement FROM facts WHERE seq > ? AND kind IN ({_KINDS}) ORDER BY seq LIMIT ?",
            (last, chunk),
        ).fetchall()
        if not rows:
            return
        index_rows(conn, tokenizer, [(int(r["seq"]), str(r["user_id"]), str(r["statement"])) for r in rows])
        last = int(rows[-1]["seq"])


def user_totals(conn: psycopg.Connection[Any], user_id: str) -> tuple[int, int]:
    row = conn.execute("SELECT docs, tokens FROM user_term_totals WHERE user_id = ?", (user_id,)).fetchone()
    return (0, 0) if row is None else (int(row["docs"]), int(row["tokens"]))


def bm25(conn: psycopg.Connection[Any], user_id: str, terms: Sequence[str], limit: int) -> list[tuple[int, float]]:
    """(seq, score) of one user's `limit` best rows for `terms`, best first, ties by insertion order."""
    if not terms or limit <= 0:
        return []
    listed = list(terms)
    rows = conn.execute(BM25_SQL, (user_id, user_id, listed, user_id, listed, limit)).fetchall()
    return [(int(r["seq"]), float(r["score"])) for r in rows]


def document_frequencies(conn: psycopg.Connection[Any], user_id: str, terms: Sequence[str]) -> dict[str, int]:
    """How many of one user's rows hold each term (terms no row holds are left out)."""
    if not terms:
        return {}
    rows = conn.execute(
        "SELECT term, COUNT(*) AS df FROM fact_terms WHERE user_id = ? AND term = ANY(?) GROUP BY term",
        (user_id, list(terms)),
    ).fetchall()
    return {str(r["term"]): int(r["df"]) for r in rows}


def share_holding(conn: psycopg.Connection[Any], user_id: str, terms: Sequence[str]) -> float:
    """The share of one user's indexed rows holding any of `terms` (one round trip)."""
    if not terms:
        return 0.0
    row = conn.execute(
        "SELECT (SELECT COUNT(DISTINCT fact_seq) FROM fact_terms WHERE user_id = ? AND term = ANY(?))::float8"
        " / docs AS share FROM user_term_totals WHERE user_id = ? AND docs > 0",
        (user_id, list(terms), user_id),
    ).fetchone()
    return 0.0 if row is None else float(row["share"])


def holders(
    conn: psycopg.Connection[Any], user_id: str, terms: Sequence[str], seqs: Sequence[int]
) -> list[tuple[str, int]]:
    """(term, seq) for each of the given rows of one user holding one of `terms`."""
    if not terms or not seqs:
        return []
    rows = conn.execute(
        "SELECT term, fact_seq FROM fact_terms WHERE user_id = ? AND term = ANY(?) AND fact_seq = ANY(?)",
        (user_id, list(terms), list(seqs)),
    ).fetchall()
    return [(str(r["term"]), int(r["fact_seq"])) for r in rows]
