"""Read queries behind recall's routes. Each one is scoped to a single user."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful.store.records import CandidateRow
from heedful.store.sqlite.db import Database
from heedful.store.sqlite.terms import RECALLABLE_KINDS, bm25, phrases, postings, user_totals


class SQLiteSearch:
    def __init__(self, db: Database) -> None:
        self.db = db
        # user_id -> (version, ids, matrix). A version is the user's newest fact rowid plus the count.
        self._vector_cache: dict[str, tuple[tuple[int, int], list[str], np.ndarray]] = {}
        self._row_index: dict[str, tuple[tuple[int, int], dict[str, int]]] = {}
        self._entity_cache: dict[str, tuple[tuple[int, int], frozenset[str]]] = {}
        self._sequence_cache: dict[str, tuple[tuple[int, int], dict[str, str], dict[str, str], dict[str, int]]] = {}
        self._share_cache: dict[tuple[str, str], tuple[tuple[int, int], float]] = {}

    def _vector_version(self, user_id: str) -> tuple[int, int]:
        row = self.db.conn.execute(
            "SELECT COALESCE(MAX(rowid), 0), COUNT(*) FROM facts WHERE user_id = ?", (user_id,)
        ).fetchone()
        return int(row[0]), int(row[1])

    def row_count(self, user_id: str) -> int:
        """How many rows (of any kind) one user has."""
        return self._vector_version(user_id)[1]

    def vectors(self, user_id: str) -> tuple[list[str], np.ndarray]:
        """Every recallable row's id and embedding for one user (exact scan; cached per version)."""
        version = self._vector_version(user_id)
        cached = self._vector_cache.get(user_id)
        if cached is not None and cached[0] == version:
            return cached[1], cached[2]
        rows = self.db.conn.execute(
            f"SELECT id, embedding FROM facts WHERE user_id = ? AND embedding IS NOT NULL"
            f" AND kind IN ({','.join('?' * len(RECALLABLE_KINDS))}) ORDER BY rowid",
            (user_id, *RECALLABLE_KINDS),
        ).fetchall()
        ids = [row[0] for row in rows]
        matrix = (
            np.frombuffer(b"".join(row[1] for row in rows), dtype=np.float32).reshape(len(rows), -1)
            if rows
            else np.zeros((0, 0), dtype=np.float32)
        )
        self._vector_cache[user_id] = (version, ids, matrix)
        return ids, matrix

    def vector_search(self, user_id: str, query: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """The `limit` rows most similar (cosine) to `query`, best first."""
        ids, matrix = self.vectors(user_id)
        if not ids or matrix.shape[1] != query.shape[-1]:
            return []
        scores = matrix @ query.astype(np.float32).reshape(-1)
        if limit < len(ids):
            top = np.argpartition(-scores, limit)[:limit]
            top = top[np.argsort(-scores[top], kind="stable")]
        else:
            top = np.argsort(-scores, kind="stable")
        return [(ids[i], float(scores[i])) for i in top]

    def vectors_for(self, user_id: str, fact_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached embeddings of the given recallable rows (rows without one are left out)."""
        ids, matrix = self.vectors(user_id)
        version = self._vector_version(user_id)
        cached = self._row_index.get(user_id)
        if cached is None or cached[0] != version:
            cached = (version, {fact_id: row for row, fact_id in enumerate(ids)})
            self._row_index[user_id] = cached
        index = cached[1]
        return {fact_id: matrix[index[fact_id]] for fact_id in fact_ids if fact_id in index}

    def candidates(self, user_id: str, fact_ids: Sequence[str]) -> dict[str, CandidateRow]:
        """The state and text of the given facts (one user's only)."""
        found: dict[str, CandidateRow] = {}
        unique = list(dict.fromkeys(fact_ids))
        for start in range(0, len(unique), 500):
            chunk = unique[start : start + 500]
            rows = self.db.conn.execute(
                "SELECT id, kind, statement, session_id, event_at, valid_from, valid_to, ingested_at,"
                f" expired_at FROM facts WHERE user_id = ? AND id IN ({','.join('?' * len(chunk))})",
                (user_id, *chunk),
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

    def entity_set(self, user_id: str) -> frozenset[str]:
        """Every entity one user's facts name (cached until the user's facts change)."""
        version = self._vector_version(user_id)
        cached = self._entity_cache.get(user_id)
        if cached is not None and cached[0] == version:
            return cached[1]
        names = frozenset(self.known_entities(user_id))
        self._entity_cache[user_id] = (version, names)
        return names

    def excerpt_neighbours(self, user_id: str) -> tuple[dict[str, str], dict[str, str]]:
        """(previous, following): excerpt id -> its neighbour in the same session (cached per version)."""
        cached = self._excerpt_sequence(user_id)
        return cached[1], cached[2]

    def excerpt_lengths(self, user_id: str) -> dict[str, int]:
        """excerpt id -> the length of its statement in characters (cached per version)."""
        return self._excerpt_sequence(user_id)[3]

    def _excerpt_sequence(self, user_id: str) -> tuple[tuple[int, int], dict[str, str], dict[str, str], dict[str, int]]:
        version = self._vector_version(user_id)
        cached = self._sequence_cache.get(user_id)
        if cached is not None and cached[0] == version:
            return cached
        rows = self.db.conn.execute(
            "SELECT id, session_id, length(statement) FROM facts WHERE user_id = ? AND kind = 'excerpt' ORDER BY rowid",
            (user_id,),
        ).fetchall()
        previous: dict[str, str] = {}
        lengths: dict[str, int] = {}
        last_in_session: dict[str | None, str] = {}
        for fact_id, session_id, length in rows:
            lengths[fact_id] = int(length or 0)
            if session_id in last_in_session:
                previous[fact_id] = last_in_session[session_id]
            last_in_session[session_id] = fact_id
        following = {before: after for after, before in previous.items()}
        entry = (version, previous, following, lengths)
        self._sequence_cache[user_id] = entry
        return entry

    def _query_terms(self, match_expression: str) -> list[str]:
        return self.db.tokenizer.terms(phrases(match_expression))

    def term_share(self, user_id: str, term: str) -> float:
        """The share of one user's recallable rows whose statement holds `term` (an FTS5-style phrase)."""
        docs, _ = user_totals(self.db.conn, user_id)
        if not docs:
            return 0.0
        found: set[int] = set()
        for stem in self._query_terms(term):
            found.update(rowid for rowid, _, _ in postings(self.db.conn, user_id, stem))
        return len(found) / docs

    def keyword(self, user_id: str, match_expression: str, limit: int) -> list[tuple[str, float]]:
        """BM25 over the user's own rows and statistics (see `terms.py`); best first."""
        if not match_expression:
            return []
        docs, tokens = user_totals(self.db.conn, user_id)
        stems = self._query_terms(match_expression)
        scores = bm25(docs, tokens, [postings(self.db.conn, user_id, stem) for stem in stems])
        best = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))[:limit]
        if not best:
            return []
        rowids = [rowid for rowid, _ in best]
        ids = dict(
            self.db.conn.execute(
                f"SELECT rowid, id FROM facts WHERE user_id = ? AND rowid IN ({','.join('?' * len(rowids))})",
                (user_id, *rowids),
            ).fetchall()
        )
        return [(ids[rowid], score) for rowid, score in best if rowid in ids]

    def entity_facts(self, user_id: str, entities: Sequence[str]) -> dict[str, list[str]]:
        """fact id -> the query entities it mentions."""
        if not entities:
            return {}
        rows = self.db.conn.execute(
            f"SELECT fact_id, entity FROM fact_entities WHERE user_id = ? AND entity IN"
            f" ({','.join('?' * len(entities))})",
            (user_id, *entities),
        ).fetchall()
        found: dict[str, list[str]] = {}
        for fact_id, entity in rows:
            found.setdefault(fact_id, []).append(entity)
        return found

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
        rows = self.db.conn.execute(
            "SELECT DISTINCT entity FROM fact_entities WHERE user_id = ?", (user_id,)
        ).fetchall()
        return [row[0] for row in rows]

    def in_window(self, user_id: str, start: str, end: str, limit: int) -> list[str]:
        """Facts whose event time or recorded time falls in [start, end)."""
        rows = self.db.conn.execute(
            f"SELECT id FROM facts WHERE user_id = ? AND kind IN ({','.join('?' * len(RECALLABLE_KINDS))})"
            " AND ((event_at >= ? AND event_at < ?) OR (valid_from >= ? AND valid_from < ?))"
            " ORDER BY rowid DESC LIMIT ?",
            (user_id, *RECALLABLE_KINDS, start, end, start, end, limit),
        ).fetchall()
        return [row[0] for row in rows]

    def at_place(self, user_id: str, places: Sequence[str], limit: int) -> list[str]:
        if not places:
            return []
        clauses = " OR ".join("lower(place) = ?" for _ in places)
        rows = self.db.conn.execute(
            f"SELECT id FROM facts WHERE user_id = ? AND ({clauses}) ORDER BY rowid DESC LIMIT ?",
            (user_id, *[p.lower() for p in places], limit),
        ).fetchall()
        return [row[0] for row in rows]

    def recent(self, user_id: str, limit: int) -> list[str]:
        rows = self.db.conn.execute(
            f"SELECT id FROM facts WHERE user_id = ? AND kind IN ({','.join('?' * len(RECALLABLE_KINDS))})"
            " ORDER BY valid_from DESC, rowid DESC LIMIT ?",
            (user_id, *RECALLABLE_KINDS, limit),
        ).fetchall()
        return [row[0] for row in rows]
