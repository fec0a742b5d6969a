"""Read queries behind recall's routes on PostgreSQL. Each one is scoped to a single user.

The vector route runs in the database with pgvector: an exact scan of the user's rows
(`WHERE user_id = ? ORDER BY embedding <#> q, seq LIMIT k`) up to EXACT_SCAN_UP_TO rows, the
store-wide HNSW index (iterative scan, filtered to the user) beyond. The keyword route is BM25 in
SQL over the user's own postings and totals (`terms.py`). Time, place, recency and entities are
array operations on a per-process index of the user's rows (the SQLite backend's
`UserRecallIndex`, filled from PostgreSQL without the vectors, which stay in the database),
refreshed when the user's version (kept by trigger) moves, so that several processes share one
database and each sees the others' writes.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg

from heedful.store.postgres.db import Database, Row
from heedful.store.postgres.memory import VECTOR_COLUMN, padded
from heedful.store.postgres.terms import bm25, document_frequencies, holders, new_tokenizer, share_holding, user_totals
from heedful.store.records import CandidateRow
from heedful.store.sqlite.recall_index import (
    _KIND_CODES,
    NEVER,
    NO_TIME,
    UserRecallIndex,
    micros,
    settle_long_lived,
)
from heedful.store.sqlite.search import MAX_CACHED_BYTES, MAX_CACHED_EXPRESSIONS, MAX_CACHED_USERS, SQLiteSearch
from heedful.store.sqlite.terms import MIN_IDF, RECALLABLE_KINDS, phrases

# The vector route is an exact scan of the user's rows, unless the user has more than
# EXACT_SCAN_UP_TO rows with vectors and holds at least HNSW_MIN_SHARE of the table: then the
# store-wide HNSW index answers, filtered to the user. Measured (python -m heedful.bench.scale_postgres,
# 2 cores under a load average of 30, hashing vectors): the exact scan costs about 4 us a row (42 ms
# at 10k, 211 ms at 100k); the filtered HNSW scan kept 99% of the exact top 10 and took 84 ms for a
# user holding 90% of a 110k-row table but 317 ms for one holding 9% of it (it wades through the
# other users' neighbours). A user with a small share of a large store keeps the exact scan.
EXACT_SCAN_UP_TO = 5_000
HNSW_MIN_SHARE = 0.5
# Candidates the HNSW scan keeps per step (pgvector's cap is 1000); results past it come from
# further iterative steps.
MAX_EF_SEARCH = 1000
_KINDS = ",".join(f"'{kind}'" for kind in RECALLABLE_KINDS)
_ROWS = (
    "SELECT seq, id, kind, session_id, event_at, valid_from, valid_to, expired_at, superseded_by,"
    " lower(place) AS place, length(statement) AS length, embedding_dim FROM facts"
    f" WHERE user_id = ? AND seq > ? AND kind IN ({_KINDS}) ORDER BY seq"
)
_STATES = (
    f"SELECT seq, valid_to, expired_at, superseded_by FROM facts WHERE user_id = ? AND kind IN ({_KINDS})"
    " AND (valid_to IS NOT NULL OR expired_at IS NOT NULL OR superseded_by IS NOT NULL)"
)
# `+ 0` keeps the planner off the HNSW index (whose order it would otherwise take, then re-sort):
# the exact route reads the user's rows by the user index and keeps the top k of all of them.
_EXACT = (
    "SELECT seq, -(embedding <#> ?::vector) AS score FROM facts"
    f" WHERE user_id = ? AND kind IN ({_KINDS}) AND embedding IS NOT NULL"
    " ORDER BY (embedding <#> ?::vector) + 0, seq LIMIT ?"
)
_APPROXIMATE = (
    "SELECT seq, -(embedding <#> ?::vector) AS score FROM facts"
    f" WHERE user_id = ? AND kind IN ({_KINDS}) ORDER BY embedding <#> ?::vector LIMIT ?"
)
# The approximate route always takes the HNSW index (a small store's planner would rather sort).
_USE_HNSW = ("enable_seqscan = off", "enable_bitmapscan = off", "enable_sort = off")


class StoredVectors:
    """One user's vectors as `index.matrix` offers them, read from PostgreSQL for the rows asked for
    (recall compares the vectors of a few dozen results; the full matrix never leaves the database)."""

    def __init__(self, index: PostgresRecallIndex) -> None:
        self.index = index

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.index), self.index.dim)

    nbytes = 0

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, positions: Any) -> np.ndarray:
        where = np.asarray(positions, dtype=np.int64)
        flat = where.reshape(-1)
        out = np.zeros((len(flat), self.index.dim), dtype=np.float32)
        if len(flat):
            found = self.index.read_vectors([int(seq) for seq in self.index.rowids[flat]])
            for row, seq in enumerate(self.index.rowids[flat]):
                vector = found.get(int(seq))
                if vector is not None and len(vector) == self.index.dim:
                    out[row] = vector
        return out[0] if where.ndim == 0 else out


class PostgresRecallIndex(UserRecallIndex):
    """`UserRecallIndex` filled from PostgreSQL: every column but the vectors (see `StoredVectors`)."""

    db: Database
    tombstones: list[tuple[str, str, np.ndarray | None]] | None = None

    @property
    def matrix(self) -> Any:
        return StoredVectors(self)

    def read_vectors(self, seqs: Sequence[int]) -> dict[int, np.ndarray]:
        rows = self.db.fetchall(
            f"SELECT seq, {VECTOR_COLUMN} FROM facts WHERE user_id = ? AND seq = ANY(?) AND embedding IS NOT NULL",
            (self.user_id, list(seqs)),
        )
        return {int(r["seq"]): np.asarray(r["embedding"], dtype=np.float32) for r in rows}

    def load(self, version: tuple[int, int, int]) -> PostgresRecallIndex:
        """This index brought to `version` (a new one when statements were rewritten)."""
        if version == self.version:
            return self
        self.tombstones = None
        fresh = self.version == (-1, -1, -1)
        if version[2] != self.version[2] and not fresh:
            rebuilt = PostgresRecallIndex(self.user_id)
            rebuilt.db = self.db
            return rebuilt.load(version)
        with self.db.read() as conn:
            if version[0] != self.version[0]:
                self._append_rows(conn)
            if version[1] != self.version[1] and not fresh:
                self._reread(conn)
        self.version = version
        return self

    def _append_rows(self, conn: psycopg.Connection[Any]) -> None:
        rows = conn.execute(_ROWS, (self.user_id, self._last_rowid)).fetchall()
        if not rows:
            return
        start = len(self.ids)
        new_ids = [str(r["id"]) for r in rows]
        self.ids.extend(new_ids)
        self.position.update({fact_id: start + i for i, fact_id in enumerate(new_ids)})
        self.superseded_by.extend(r["superseded_by"] for r in rows)
        self.sessions.extend(r["session_id"] for r in rows)
        count = len(rows)
        self._rowids.extend(np.fromiter((r["seq"] for r in rows), dtype=np.int64, count=count))
        self._kinds.extend(np.fromiter((_KIND_CODES[r["kind"]] for r in rows), dtype=np.int8, count=count))
        self._event_at.extend(micros([r["event_at"] for r in rows], NO_TIME))
        self._valid_from.extend(micros([r["valid_from"] for r in rows], NO_TIME))
        self._valid_to.extend(micros([r["valid_to"] for r in rows], NEVER))
        self._expired_at.extend(micros([r["expired_at"] for r in rows], NEVER))
        self._lengths.extend(np.fromiter((r["length"] or 0 for r in rows), dtype=np.int32, count=count))
        self._has_vector.extend(np.fromiter((bool(r["embedding_dim"]) for r in rows), dtype=np.bool_, count=count))
        self.dim = self.dim or next((int(r["embedding_dim"]) for r in rows if r["embedding_dim"]), 0)
        previous = np.full(count, -1, dtype=np.int32)
        self._following.extend(np.full(count, -1, dtype=np.int32))
        excerpt = _KIND_CODES["excerpt"]
        for offset, row in enumerate(rows):
            here = start + offset
            if row["place"]:
                self.places.setdefault(str(row["place"]), []).append(here)
            if _KIND_CODES[row["kind"]] != excerpt:
                continue
            before = self._last_in_session.get(row["session_id"])
            if before is not None:
                previous[offset] = before
                self._following.view[before] = here
            self._last_in_session[row["session_id"]] = here
        self._previous.extend(previous)
        self._add_entities(conn, new_ids, start)
        self._last_rowid = int(rows[-1]["seq"])
        self._recent = None

    def _add_entities(self, conn: psycopg.Connection[Any], new_ids: list[str], start: int) -> None:
        if start == 0:  # a first build reads every entity row of the user at once
            rows = conn.execute("SELECT fact_id, entity FROM fact_entities WHERE user_id = ?", (self.user_id,))
        else:
            rows = conn.execute(
                "SELECT fact_id, entity FROM fact_entities WHERE user_id = ? AND fact_id = ANY(?)",
                (self.user_id, new_ids),
            )
        touched: set[str] = set()
        for row in rows.fetchall():
            here = self.position.get(row["fact_id"])
            if here is not None and here >= start:
                self.entities.setdefault(str(row["entity"]), []).append(here)
                touched.add(str(row["entity"]))
        for name in touched:
            self.entities[name].sort()

    def _reread(self, conn: psycopg.Connection[Any]) -> None:
        self._valid_to.view[:] = NEVER
        self._expired_at.view[:] = NEVER
        self.superseded_by = [None] * len(self)
        rows = conn.execute(_STATES, (self.user_id,)).fetchall()
        if not rows:
            return
        where = self.positions_of_rowids(np.array([r["seq"] for r in rows], dtype=np.int64))
        valid_to = micros([r["valid_to"] for r in rows], NEVER)
        expired = micros([r["expired_at"] for r in rows], NEVER)
        for offset, here in enumerate(where):
            if here >= 0:
                self._valid_to.view[here] = valid_to[offset]
                self._expired_at.view[here] = expired[offset]
                self.superseded_by[here] = rows[offset]["superseded_by"]


class PostgresSearch(SQLiteSearch):
    """The SQLite backend's search over the same per-user index, with every query sent to PostgreSQL.

    The array operations on the index (time windows, places, recency, entities, neighbours) and the
    id-based forms of the protocol are inherited; everything that reads the database is defined here.
    """

    def __init__(self, db: Database, max_cached_users: int = MAX_CACHED_USERS) -> None:
        self.pg = db
        self._indexes: OrderedDict[str, UserRecallIndex] = OrderedDict()
        self._max_cached = max_cached_users
        self._lock = threading.Lock()
        self._terms_of: dict[str, list[str]] = {}
        self._tokenizer = new_tokenizer()

    # -- the per-user index ----------------------------------------------------------------------
    def version(self, user_id: str) -> tuple[int, int, int]:
        row = self.pg.fetchone(
            "SELECT inserted, updated, rewritten FROM user_fact_versions WHERE user_id = ?", (user_id,)
        )
        return (0, 0, 0) if row is None else (int(row["inserted"]), int(row["updated"]), int(row["rewritten"]))

    def index(self, user_id: str) -> PostgresRecallIndex:
        """The user's index at the current version (appended to, or rebuilt, as needed)."""
        version = self.version(user_id)
        with self._lock:
            cached = self._indexes.get(user_id)
            if not isinstance(cached, PostgresRecallIndex):
                cached = PostgresRecallIndex(user_id)
                cached.db = self.pg
            if cached.version != version:
                cached = cached.load(version)
                settle_long_lived(len(cached))  # built or reloaded: collect once, freeze the survivors
            self._indexes[user_id] = cached
            self._indexes.move_to_end(user_id)
            while len(self._indexes) > 1 and (
                len(self._indexes) > self._max_cached
                or sum(index.nbytes for index in self._indexes.values()) > MAX_CACHED_BYTES
            ):
                self._indexes.popitem(last=False)
        return cached

    # -- vectors ---------------------------------------------------------------------------------
    def vector_positions(self, index: UserRecallIndex, query: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """Positions of the `limit` rows with the largest inner product with `query` (cosine for the
        unit vectors embedders make), best first, ties by insertion order: exact up to
        EXACT_SCAN_UP_TO rows with vectors, by the HNSW index beyond for a user holding HNSW_MIN_SHARE of
        the table."""
        if not len(index) or not index.dim or index.dim != query.shape[-1]:
            return []
        count = int(index.has_vector.sum())
        limit = min(limit, count)
        if limit <= 0:
            return []
        approximate = count > EXACT_SCAN_UP_TO and count >= HNSW_MIN_SHARE * self.table_rows()
        return self._positions(index, self.nearest(index.user_id, query, limit, approximate))

    def table_rows(self) -> float:
        """The planner's estimate of the facts table's size (a catalog read, no scan)."""
        row = self.pg.fetchone("SELECT reltuples FROM pg_class WHERE oid = 'facts'::regclass")
        return 0.0 if row is None else max(0.0, float(row["reltuples"]))

    def nearest(self, user_id: str, query: np.ndarray, limit: int, approximate: bool) -> list[tuple[int, float]]:
        """(seq, inner product) of one user's `limit` nearest recallable rows, best first."""
        vector = padded(query)
        if not approximate:
            rows = self.pg.fetchall(_EXACT, (vector, user_id, vector, limit))
        else:
            with self.pg.transaction() as conn:
                # A filtered HNSW scan keeps stepping until it has `limit` rows of this user.
                settings = [
                    f"hnsw.ef_search = {min(MAX_EF_SEARCH, max(40, limit))}",
                    "hnsw.iterative_scan = relaxed_order",
                ]
                conn.execute("; ".join(f"SET LOCAL {setting}" for setting in [*settings, *_USE_HNSW]))
                rows = conn.execute(_APPROXIMATE, (vector, user_id, vector, limit)).fetchall()
            if len(rows) < limit:  # the filtered scan gave up (a user with a small share of a large table)
                return self.nearest(user_id, query, limit, approximate=False)
            # relaxed order: the index may return near neighbours slightly out of order
            rows = sorted(rows, key=lambda r: (-float(r["score"]), int(r["seq"])))
        return [(int(r["seq"]), float(r["score"])) for r in rows]

    @staticmethod
    def _positions(index: UserRecallIndex, scored: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """(position, score) for (seq, score); rows written after the index was read are left out."""
        if not scored:
            return []
        where = index.positions_of_rowids(np.array([seq for seq, _ in scored], dtype=np.int64))
        return [(int(here), score) for here, (_, score) in zip(where, scored, strict=True) if here >= 0]

    def vectors_for(self, user_id: str, fact_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Embeddings of the given recallable rows (rows without one are left out)."""
        if not fact_ids:
            return {}
        rows = self.pg.fetchall(
            f"SELECT id, {VECTOR_COLUMN} FROM facts WHERE user_id = ? AND id = ANY(?) AND kind IN ({_KINDS})"
            " AND embedding IS NOT NULL",
            (user_id, list(fact_ids)),
        )
        return {str(r["id"]): np.asarray(r["embedding"], dtype=np.float32) for r in rows}

    def vectors(self, user_id: str) -> tuple[list[str], np.ndarray]:
        rows = self.pg.fetchall(
            f"SELECT id, {VECTOR_COLUMN} FROM facts WHERE user_id = ? AND kind IN ({_KINDS})"
            " AND embedding IS NOT NULL ORDER BY seq",
            (user_id,),
        )
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        return [str(r["id"]) for r in rows], np.asarray([r["embedding"] for r in rows], dtype=np.float32)

    # -- rows ------------------------------------------------------------------------------------
    def candidates(self, user_id: str, fact_ids: Sequence[str]) -> dict[str, CandidateRow]:
        """The state and text of the given facts (one user's only)."""
        if not fact_ids:
            return {}
        rows = self.pg.fetchall(
            "SELECT id, kind, statement, session_id, event_at, valid_from, valid_to, ingested_at, expired_at"
            " FROM facts WHERE user_id = ? AND id = ANY(?)",
            (user_id, list(dict.fromkeys(fact_ids))),
        )
        return {str(r["id"]): CandidateRow(**r) for r in rows}

    def tombstones(self, user_id: str) -> list[tuple[str, str, np.ndarray | None]]:
        """Active requests to forget: (id, what to forget, embedding) of current, unexpired tombstones.

        Kept with the user's index: a new or changed tombstone is a facts row, and moves its version."""
        index = self.index(user_id)
        if index.tombstones is None:
            index.tombstones = self._read_tombstones(user_id)
        return index.tombstones

    def _read_tombstones(self, user_id: str) -> list[tuple[str, str, np.ndarray | None]]:
        rows = self.pg.fetchall(
            f"SELECT id, COALESCE(object, statement) AS target, {VECTOR_COLUMN} FROM facts"
            " WHERE user_id = ? AND kind = 'tombstone' AND valid_to IS NULL AND expired_at IS NULL ORDER BY seq",
            (user_id,),
        )
        return [(r["id"], r["target"], _vector(r)) for r in rows]

    # -- keywords --------------------------------------------------------------------------------
    def _query_terms(self, match_expression: str) -> list[str]:
        known = self._terms_of.get(match_expression)
        if known is None:
            known = self._tokenizer.terms(phrases(match_expression))
            if len(self._terms_of) >= MAX_CACHED_EXPRESSIONS:
                self._terms_of.clear()
            self._terms_of[match_expression] = known
        return known

    def term_share(self, user_id: str, term: str) -> float:
        """The share of one user's recallable rows whose statement holds `term` (an FTS5-style phrase)."""
        stems = self._query_terms(term)
        if not stems:
            return 0.0
        with self.pg.read() as conn:
            return share_holding(conn, user_id, stems)

    def keyword_positions(self, index: UserRecallIndex, match_expression: str, limit: int) -> list[tuple[int, float]]:
        """BM25 (FTS5's formula, see `terms.py`) over the user's own rows and statistics, computed in
        SQL; best first, ties by insertion order."""
        stems = self._query_terms(match_expression) if match_expression else []
        if not stems or not len(index) or limit <= 0:
            return []
        with self.pg.read() as conn:
            return self._positions(index, bm25(conn, index.user_id, stems, limit))

    def query_coverage(self, index: UserRecallIndex, match_expression: str, positions: np.ndarray) -> np.ndarray:
        """For each position, the share of the query's terms its row holds, each term weighted by its idf
        among the user's rows (terms no row holds are left out of the whole)."""
        cover = np.zeros(len(positions), dtype=np.float64)
        stems = self._query_terms(match_expression) if match_expression else []
        if not stems or not len(positions):
            return cover
        seqs = index.rowids[np.asarray(positions, dtype=np.int64)]
        with self.pg.read() as conn:
            docs, _ = user_totals(conn, index.user_id)
            if docs <= 0:
                return cover
            frequencies = document_frequencies(conn, index.user_id, stems)
            held = holders(conn, index.user_id, stems, [int(seq) for seq in seqs])
        idf = {term: max(math.log((docs - df + 0.5) / (df + 0.5)), MIN_IDF) for term, df in frequencies.items()}
        total = sum(idf.values())
        for term, seq in held:
            cover[seqs == seq] += idf.get(term, 0.0)
        return cover / total if total > 0 else cover

    # -- entities ----------------------------------------------------------------------------------
    def co_entities(self, user_id: str, entities: Sequence[str], limit: int = 20) -> list[str]:
        """Entities that share facts with the given ones (one hop in the entity graph)."""
        if not entities:
            return []
        rows = self.pg.fetchall(
            "SELECT b.entity, COUNT(*) AS n FROM fact_entities a JOIN fact_entities b"
            " ON a.fact_id = b.fact_id AND b.user_id = a.user_id"
            " WHERE a.user_id = ? AND a.entity = ANY(?) AND NOT (b.entity = ANY(?))"
            " GROUP BY b.entity ORDER BY n DESC, b.entity LIMIT ?",
            (user_id, list(entities), list(entities), limit),
        )
        return [str(r["entity"]) for r in rows]


def _vector(row: Row) -> np.ndarray | None:
    return None if row["embedding"] is None else np.asarray(row["embedding"], dtype=np.float32)
