"""Read queries behind recall's routes. Each one is scoped to a single user.

Routes work on positions in the user's in-memory index (`recall_index.py`): a vector scan is one
matrix product, time, place, entity and recency lookups are array operations, and keyword scores
come from the user's own postings (held in the index as arrays). Rows are read from SQLite only
for the items recall returns.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from heedful.store.records import CandidateRow
from heedful.store.sqlite.db import Database
from heedful.store.sqlite.recall_index import EXCERPT, UserRecallIndex, micros_of, settle_long_lived
from heedful.store.sqlite.terms import K1, MIN_IDF, B, phrases, user_totals

# Indexes kept in memory: beyond this many users or bytes, the least recently recalled is dropped.
MAX_CACHED_USERS = 64
MAX_CACHED_BYTES = 1 << 30
MAX_CACHED_EXPRESSIONS = 4096
COARSE_CANDIDATES = 2000


def _scan(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """matrix @ query on the calling thread. A matrix-vector product is bound by memory, not
    arithmetic: BLAS's worker threads add nothing to it, and on a busy machine waiting for them
    cost more than the product itself (10k rows: 22 ms median instead of about 1)."""
    return np.einsum("ij,j->i", matrix, query)


class SQLiteSearch:
    def __init__(self, db: Database, max_cached_users: int = MAX_CACHED_USERS) -> None:
        self.db = db
        self._indexes: OrderedDict[str, UserRecallIndex] = OrderedDict()
        self._max_cached = max_cached_users
        self._lock = threading.Lock()
        self._terms_of: dict[str, list[str]] = {}

    # -- the per-user index ----------------------------------------------------------------------
    def version(self, user_id: str) -> tuple[int, int, int]:
        row = self.db.conn.execute(
            "SELECT inserted, updated, rewritten FROM user_fact_versions WHERE user_id = ?", (user_id,)
        ).fetchone()
        return (0, 0, 0) if row is None else (int(row[0]), int(row[1]), int(row[2]))

    def index(self, user_id: str) -> UserRecallIndex:
        """The user's recall index at the current version (appended to, or rebuilt, as needed)."""
        version = self.version(user_id)
        with self._lock:
            cached = self._indexes.get(user_id) or UserRecallIndex(user_id)
            if cached.version != version:
                before, fresh = cached, cached.version == (-1, -1, -1)
                cached = cached.refresh(self.db.conn, version)
                if fresh or cached is not before:  # built, not appended to
                    settle_long_lived(len(cached))
            self._indexes[user_id] = cached
            self._indexes.move_to_end(user_id)
            while len(self._indexes) > 1 and (
                len(self._indexes) > self._max_cached
                or sum(index.nbytes for index in self._indexes.values()) > MAX_CACHED_BYTES
            ):
                self._indexes.popitem(last=False)
        return cached

    def row_count(self, user_id: str) -> int:
        """How many recallable rows one user has."""
        return len(self.index(user_id))

    # -- vectors ---------------------------------------------------------------------------------
    def vector_positions(self, index: UserRecallIndex, query: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """Positions of the `limit` rows most similar (cosine) to `query`, best first.

        An exact scan, or in a large index (see `UserRecallIndex.coarse`) a scan of the rows'
        projections and an exact re-score of the best COARSE_CANDIDATES (or 10 x `limit`) of them.
        """
        matrix = index.matrix
        if not len(index) or matrix.shape[1] != query.shape[-1]:
            return []
        query = query.astype(np.float32).reshape(-1)
        count = int(index.has_vector.sum())
        limit = min(limit, count)
        if limit <= 0:
            return []
        coarse = index.coarse()
        if coarse is not None:
            basis, projected = coarse
            rows = min(len(projected), len(index))
            approximate = _scan(projected[:rows], query @ basis)
            approximate[~index.has_vector[:rows]] = -np.inf
            pool = min(rows, max(COARSE_CANDIDATES, 10 * limit))
            candidates = np.argpartition(-approximate, pool - 1)[:pool] if pool < rows else np.arange(rows)
            candidates = candidates[index.has_vector[candidates]]
            scores = _scan(matrix[candidates], query)
        else:
            candidates = np.flatnonzero(index.has_vector) if count < len(index) else np.arange(len(index))
            scores = _scan(matrix[candidates] if count < len(index) else matrix, query)
        limit = min(limit, len(candidates))
        top = np.argpartition(-scores, limit - 1)[:limit] if limit < len(scores) else np.arange(len(scores))
        top = top[np.lexsort((candidates[top], -scores[top]))]
        return [(int(candidates[i]), float(scores[i])) for i in top]

    def vector_search(self, user_id: str, query: np.ndarray, limit: int) -> list[tuple[str, float]]:
        index = self.index(user_id)
        return [(index.ids[i], score) for i, score in self.vector_positions(index, query, limit)]

    def vectors_for(self, user_id: str, fact_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Embeddings of the given recallable rows (rows without one are left out)."""
        index = self.index(user_id)
        found = {}
        for fact_id in fact_ids:
            here = index.position.get(fact_id)
            if here is not None and index.has_vector[here]:
                found[fact_id] = index.matrix[here]
        return found

    # -- rows ------------------------------------------------------------------------------------
    def candidates(self, user_id: str, fact_ids: Sequence[str]) -> dict[str, CandidateRow]:
        """The state and text of the given facts (one user's only)."""
        found: dict[str, CandidateRow] = {}
        unique = list(dict.fromkeys(fact_ids))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            # `+user_id` keeps SQLite on the id index: by the user index it would read all their rows.
            rows = self.db.conn.execute(
                "SELECT id, kind, statement, session_id, event_at, valid_from, valid_to, ingested_at,"
                f" expired_at FROM facts WHERE id IN ({','.join('?' * len(chunk))}) AND +user_id = ?",
                (*chunk, user_id),
            ).fetchall()
            for row in rows:
                found[row[0]] = CandidateRow(*row)
        return found

    def tombstones(self, user_id: str) -> list[tuple[str, str, np.ndarray | None]]:
        """Active requests to forget: (id, what to forget, embedding) of current, unexpired tombstones."""
        rows = self.db.conn.execute(
            "SELECT id, COALESCE(object, statement), embedding FROM facts"
            " WHERE user_id = ? AND kind = 'tombstone'"
            " AND valid_to IS NULL AND expired_at IS NULL ORDER BY rowid",
            (user_id,),
        ).fetchall()
        return [(row[0], row[1], None if row[2] is None else np.frombuffer(row[2], dtype=np.float32)) for row in rows]

    # -- keywords --------------------------------------------------------------------------------
    def _query_terms(self, match_expression: str) -> list[str]:
        # Queries repeat their words: tokenizing goes through SQLite, so known expressions are kept.
        known = self._terms_of.get(match_expression)
        if known is None:
            known = self.db.tokenizer.terms(phrases(match_expression))
            if len(self._terms_of) >= MAX_CACHED_EXPRESSIONS:
                self._terms_of.clear()
            self._terms_of[match_expression] = known
        return known

    def term_share(self, user_id: str, term: str) -> float:
        """The share of one user's recallable rows whose statement holds `term` (an FTS5-style phrase)."""
        docs, _ = user_totals(self.db.conn, user_id)
        stems = self._query_terms(term)
        if not docs or not stems:
            return 0.0
        found = self.index(user_id).postings(self.db.conn, stems)
        if len(found) == 1 and len(stems) == 1:
            return next(iter(found.values())).df / docs
        rows = np.unique(np.concatenate([held.positions for held in found.values()])) if found else ()
        return len(rows) / docs

    def keyword_positions(self, index: UserRecallIndex, match_expression: str, limit: int) -> list[tuple[int, float]]:
        """BM25 (FTS5's formula, see `terms.py`) over the user's own rows and statistics; best first,
        ties by insertion order.

        Each term's postings are held in the user's index as arrays, so a common term costs one
        vectorised update of the scores, not a loop over its rows.
        """
        stems = self._query_terms(match_expression) if match_expression else []
        docs, tokens = user_totals(self.db.conn, index.user_id)
        if not stems or docs <= 0 or not len(index):
            return []
        found = index.postings(self.db.conn, stems)
        if not found:
            return []
        average = tokens / docs if tokens else 1.0
        scores = np.zeros(len(index), dtype=np.float64)
        for held in found.values():
            idf = math.log((docs - held.df + 0.5) / (held.df + 0.5))
            idf = idf if idf > 0 else MIN_IDF
            # positions are distinct within one term, so a fancy-indexed += adds each once
            scores[held.positions] += idf * held.tf * (K1 + 1) / (held.tf + K1 * (1 - B + B * held.dl / average))
        hit = np.flatnonzero(scores)
        if len(hit) > limit:
            hit = hit[np.argpartition(-scores[hit], limit - 1)[:limit]]
            # rows tied with the last one kept may have been cut arbitrarily: keep the earliest of them
            floor = scores[hit].min()
            ties = np.flatnonzero(scores == floor)
            hit = np.concatenate([hit[scores[hit] > floor], ties])
        order = np.lexsort((hit, -scores[hit]))[:limit]
        return [(int(here), float(scores[here])) for here in hit[order]]

    def query_coverage(self, index: UserRecallIndex, match_expression: str, positions: np.ndarray) -> np.ndarray:
        """For each position, the share of the query's terms its row holds, each term weighted by its idf
        among the user's rows (terms no row holds are left out of the whole)."""
        cover = np.zeros(len(positions), dtype=np.float64)
        stems = self._query_terms(match_expression) if match_expression else []
        docs, _ = user_totals(self.db.conn, index.user_id)
        found = index.postings(self.db.conn, stems) if stems and docs > 0 else {}
        total = 0.0
        for held in found.values():
            idf = max(math.log((docs - held.df + 0.5) / (held.df + 0.5)), MIN_IDF)
            total += idf
            cover += idf * np.isin(positions, held.positions)
        return cover / total if total > 0 else cover

    def keyword(self, user_id: str, match_expression: str, limit: int) -> list[tuple[str, float]]:
        index = self.index(user_id)
        return [(index.ids[i], score) for i, score in self.keyword_positions(index, match_expression, limit)]

    # -- entities ----------------------------------------------------------------------------------
    def entity_set(self, user_id: str) -> frozenset[str]:
        """Every entity one user's recallable rows name."""
        return frozenset(self.index(user_id).entities)

    def co_entities(self, user_id: str, entities: Sequence[str], limit: int = 20) -> list[str]:
        """Entities that share facts with the given ones (one hop in the entity graph)."""
        if not entities:
            return []
        marks = ",".join("?" * len(entities))
        rows = self.db.conn.execute(
            f"SELECT b.entity, COUNT(*) AS n FROM fact_entities a JOIN fact_entities b"
            f" ON a.fact_id = b.fact_id AND b.user_id = a.user_id"
            f" WHERE a.user_id = ? AND a.entity IN ({marks}) AND b.entity NOT IN ({marks})"
            f" GROUP BY b.entity ORDER BY n DESC LIMIT ?",
            (user_id, *entities, *entities, limit),
        ).fetchall()
        return [row[0] for row in rows]

    def known_entities(self, user_id: str) -> list[str]:
        return sorted(self.index(user_id).entities)

    # -- time, place, recency ------------------------------------------------------------------------
    def window_positions(self, index: UserRecallIndex, start: int, end: int, limit: int) -> list[int]:
        """Positions whose event time or recorded time falls in [start, end) (microseconds), newest first."""
        mask = ((index.event_at >= start) & (index.event_at < end)) | (
            (index.valid_from >= start) & (index.valid_from < end)
        )
        return [int(i) for i in np.flatnonzero(mask)[::-1][:limit]]

    def place_positions(self, index: UserRecallIndex, places: Sequence[str], limit: int) -> list[int]:
        found = sorted({here for place in places for here in index.places.get(place.lower(), ())}, reverse=True)
        return found[:limit]

    def recent_positions(self, index: UserRecallIndex, limit: int) -> list[int]:
        return [int(i) for i in index.recent_order()[:limit]]

    # -- id-based forms of the above (the `SearchStore` protocol) ------------------------------------
    def vectors(self, user_id: str) -> tuple[list[str], np.ndarray]:
        index = self.index(user_id)
        keep = np.flatnonzero(index.has_vector)
        return [index.ids[i] for i in keep], index.matrix[keep]

    def excerpt_neighbours(self, user_id: str) -> tuple[dict[str, str], dict[str, str]]:
        index = self.index(user_id)
        pairs = [(index.ids[i], index.ids[j]) for i, j in enumerate(index.previous) if j >= 0]
        return dict(pairs), {before: after for after, before in pairs}

    def excerpt_lengths(self, user_id: str) -> dict[str, int]:
        index = self.index(user_id)
        return {index.ids[i]: int(length) for i, length in enumerate(index.lengths) if index.kinds[i] == EXCERPT}

    def entity_facts(self, user_id: str, entities: Sequence[str]) -> dict[str, list[str]]:
        index = self.index(user_id)
        found: dict[str, list[str]] = {}
        for name in entities:
            for here in index.entities.get(name, ()):
                found.setdefault(index.ids[here], []).append(name)
        return found

    def in_window(self, user_id: str, start: str, end: str, limit: int) -> list[str]:
        index = self.index(user_id)
        return [index.ids[i] for i in self.window_positions(index, micros_of(start), micros_of(end), limit)]

    def at_place(self, user_id: str, places: Sequence[str], limit: int) -> list[str]:
        index = self.index(user_id)
        return [index.ids[i] for i in self.place_positions(index, places, limit)]

    def recent(self, user_id: str, limit: int) -> list[str]:
        index = self.index(user_id)
        return [index.ids[i] for i in self.recent_positions(index, limit)]
