"""One user's recallable rows held in memory as columns, so that recall never loops over them in Python.

Position `i` is the user's i-th recallable row in insertion (rowid) order, in every column: the
embedding matrix (one contiguous float32 block), times as integer microseconds, state columns,
excerpt neighbours, and per-entity and per-place position lists. The index is refreshed from the
per-user version that migration 0006 keeps by trigger: new rows are appended (reading only rows
past the last one seen), changed validity or expiry re-reads only the rows that have any, and a
rewritten statement (a secret purge) rebuilds it.

Keyword postings (`fact_terms`) are held too, term by term: a term's postings are read the first
time a query names it and extended with the postings of appended rows, so that BM25 over a common
term is one array operation instead of an SQL aggregate over tens of thousands of rows.
"""

from __future__ import annotations

import gc
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np

from heedful.store.sqlite.terms import RECALLABLE_KINDS

NEVER = np.iinfo(np.int64).max  # an open validity or expiry
NO_TIME = np.iinfo(np.int64).min  # no event time: never inside a window
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_KIND_CODES = {kind: code for code, kind in enumerate(RECALLABLE_KINDS)}
EXCERPT = _KIND_CODES["excerpt"]
_KINDS = ",".join(f"'{kind}'" for kind in RECALLABLE_KINDS)
_ROWS = (
    "SELECT rowid, id, kind, session_id, event_at, valid_from, valid_to, expired_at, superseded_by, lower(place),"
    f" length(statement), embedding FROM facts INDEXED BY facts_user_rows WHERE user_id = ? AND rowid > ?"
    f" AND kind IN ({_KINDS}) ORDER BY rowid"
)
_STATES = (
    "SELECT rowid, valid_to, expired_at, superseded_by FROM facts INDEXED BY facts_user_rows WHERE user_id = ?"
    f" AND kind IN ({_KINDS}) AND (valid_to IS NOT NULL OR expired_at IS NOT NULL OR superseded_by IS NOT NULL)"
)


# Past this many rows with vectors, a vector query first scores a projection of every row onto
# COARSE_DIMS principal directions (a sample's SVD), then re-scores the best candidates exactly:
# at 100,000 rows of 256 dims it reads 38 MB instead of 100 MB. Measured on a 100k-row store
# (hashing embedder, the worst case: its vectors spread over all dimensions), the top 10 of the
# exact scan are kept 97.7% of the time and the top 200 95.1%; below the threshold the scan is exact.
COARSE_FROM_ROWS = 50_000
COARSE_DIMS = 96
COARSE_SAMPLE = 4000
# A full garbage collection walks every object the process holds (tens of thousands once the store
# and numpy are loaded: 10-200 ms on a busy 2-core machine), and one landing inside a recall was
# most of its tail. After a large index is built (and once per process), what is alive is collected
# once and frozen: later collections walk only what was made since.
FREEZE_FROM_ROWS = 5000
_frozen = threading.Event()
_POSTINGS = "SELECT fact_rowid, tf, dl FROM fact_terms WHERE user_id = ? AND term = ? AND fact_rowid > ?"


def settle_long_lived(rows: int) -> None:
    """Collect once and freeze the survivors, after an index of `rows` rows was built (see FREEZE_FROM_ROWS)."""
    if rows < FREEZE_FROM_ROWS and _frozen.is_set():
        return
    _frozen.set()
    gc.collect()
    gc.freeze()


@dataclass(frozen=True, slots=True)
class Postings:
    """One term's postings in one user's index: positions, term frequencies and row lengths (in tokens).

    `df` counts every row of the user holding the term (as BM25's document frequency does), also a
    row the index does not hold (a kind recall never returns).
    """

    positions: np.ndarray
    tf: np.ndarray
    dl: np.ndarray
    df: int

    @property
    def nbytes(self) -> int:
        return int(self.positions.nbytes + self.tf.nbytes + self.dl.nbytes)


def micros(texts: list[str | None], missing: int) -> np.ndarray:
    """Stored times ('2024-05-08T10:00:00.000000Z') as int64 microseconds; None becomes `missing`."""
    out = np.full(len(texts), missing, dtype=np.int64)
    present = [i for i, text in enumerate(texts) if text]
    if present:
        listed = [str(texts[i]) for i in present]
        if all(len(text) == 27 and text.endswith("Z") for text in listed):  # the store's own form, at once
            out[present] = np.array([t[:-1] for t in listed], dtype="datetime64[us]").astype(np.int64)
        else:  # a time written in another ISO form: read one by one
            out[present] = [_one_micros(text, missing) for text in listed]
    return out


def _one_micros(text: str, missing: int) -> int:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return missing
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int((moment - EPOCH) // timedelta(microseconds=1))


def micros_of(text: str) -> int:
    return int(micros([text], NO_TIME)[0])


class _Grow:
    """A numpy array that grows at its end by doubling its capacity (amortised O(1) appends)."""

    def __init__(self, dtype: np.dtype | type, width: int = 0) -> None:
        self._shape_tail = (width,) if width else ()
        self._data = np.zeros((16, *self._shape_tail), dtype=dtype)
        self.size = 0

    def extend(self, values: np.ndarray) -> None:
        needed = self.size + len(values)
        if needed > len(self._data):
            capacity = max(needed, 2 * len(self._data))
            grown = np.zeros((capacity, *self._shape_tail), dtype=self._data.dtype)
            grown[: self.size] = self._data[: self.size]
            self._data = grown
        self._data[self.size : needed] = values
        self.size = needed

    @property
    def view(self) -> np.ndarray:
        return self._data[: self.size]


@dataclass(eq=False)
class UserRecallIndex:
    user_id: str
    dim: int = 0
    version: tuple[int, int, int] = (-1, -1, -1)
    ids: list[str] = field(default_factory=list)
    position: dict[str, int] = field(default_factory=dict)
    superseded_by: list[str | None] = field(default_factory=list)
    sessions: list[str | None] = field(default_factory=list)
    entities: dict[str, list[int]] = field(default_factory=dict)
    places: dict[str, list[int]] = field(default_factory=dict)
    _last_rowid: int = 0
    _last_in_session: dict[str | None, int] = field(default_factory=dict)
    _postings: dict[str, Postings] = field(default_factory=dict)
    _postings_lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._rowids = _Grow(np.int64)
        self._kinds = _Grow(np.int8)
        self._valid_from = _Grow(np.int64)
        self._event_at = _Grow(np.int64)
        self._valid_to = _Grow(np.int64)
        self._expired_at = _Grow(np.int64)
        self._lengths = _Grow(np.int32)
        self._previous = _Grow(np.int32)
        self._following = _Grow(np.int32)
        self._has_vector = _Grow(np.bool_)
        self._matrix: _Grow | None = None
        self._basis: np.ndarray | None = None
        self._projected: _Grow | None = None
        self._coarse_lock = threading.Lock()
        self._recent: np.ndarray | None = None
        self._session_codes = _Grow(np.int32)
        self._session_number: dict[str, int] = {}
        self._codes_lock = threading.Lock()

    # -- columns -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.ids)

    @property
    def rowids(self) -> np.ndarray:
        return self._rowids.view

    @property
    def kinds(self) -> np.ndarray:
        return self._kinds.view

    @property
    def valid_from(self) -> np.ndarray:
        return self._valid_from.view

    @property
    def event_at(self) -> np.ndarray:
        return self._event_at.view

    @property
    def valid_to(self) -> np.ndarray:
        return self._valid_to.view

    @property
    def expired_at(self) -> np.ndarray:
        return self._expired_at.view

    @property
    def lengths(self) -> np.ndarray:
        return self._lengths.view

    @property
    def previous(self) -> np.ndarray:
        return self._previous.view

    @property
    def following(self) -> np.ndarray:
        return self._following.view

    @property
    def has_vector(self) -> np.ndarray:
        return self._has_vector.view

    @property
    def matrix(self) -> np.ndarray:
        return self._matrix.view if self._matrix is not None else np.zeros((len(self), 0), dtype=np.float32)

    @property
    def nbytes(self) -> int:
        """Roughly what the index holds in memory: its arrays plus about 200 bytes a row for ids and maps."""
        coarse = self._projected.view.nbytes if self._projected is not None else 0
        arrays = self.matrix.nbytes + coarse + self.rowids.nbytes * 6 + self.lengths.nbytes * 3
        postings = sum(found.nbytes for found in list(self._postings.values()))
        return int(arrays + postings + 200 * len(self))

    def coarse(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(basis, every row projected onto it) once the index is large enough; None below that."""
        with self._coarse_lock:
            if self._basis is None or self._projected is None:
                return None
            return self._basis, self._projected.view

    def _build_coarse(self) -> None:
        """Take the basis once (from a fixed sample, when the index first reaches COARSE_FROM_ROWS
        rows with vectors) and project every row; appended rows are projected as they come, and a
        rebuilt index takes a new basis. Done at refresh, not in a query (where a route has a timeout)."""
        if self._basis is not None or not self.dim or self.dim <= COARSE_DIMS:
            return
        rows = np.flatnonzero(self.has_vector)
        if len(rows) < COARSE_FROM_ROWS:
            return
        sample = self.matrix[np.sort(np.random.default_rng(0).choice(rows, COARSE_SAMPLE, replace=False))]
        _, vectors = np.linalg.eigh(sample.T.astype(np.float64) @ sample)  # ascending eigenvalues
        basis = np.ascontiguousarray(vectors[:, ::-1][:, :COARSE_DIMS], dtype=np.float32)
        projected = _Grow(np.float32, COARSE_DIMS)
        for start in range(0, len(self), 20_000):  # in blocks: no full-size temporary
            projected.extend(self.matrix[start : start + 20_000] @ basis)
        with self._coarse_lock:
            self._basis, self._projected = basis, projected

    def positions_of_rowids(self, rowids: np.ndarray) -> np.ndarray:
        """Positions of the given rowids (-1 for a rowid this index does not hold)."""
        found = np.searchsorted(self.rowids, rowids)
        found = np.minimum(found, max(len(self) - 1, 0))
        ok = (len(self) > 0) & (self.rowids[found] == rowids) if len(self) else np.zeros(len(rowids), dtype=bool)
        return np.where(ok, found, -1)

    def recent_order(self) -> np.ndarray:
        """Positions newest first (by validity start, then insertion)."""
        if self._recent is None or len(self._recent) != len(self):
            self._recent = np.lexsort((-self.rowids, -self.valid_from.astype(np.float64)))
        return self._recent

    def session_codes(self) -> np.ndarray:
        """Each position's session as a small integer (-1 for none), extended as rows are appended."""
        with self._codes_lock:
            done = self._session_codes.size
            if done < len(self):
                number = self._session_number
                fresh = [-1 if s is None else number.setdefault(s, len(number)) for s in self.sessions[done:]]
                self._session_codes.extend(np.asarray(fresh, dtype=np.int32))
            return self._session_codes.view

    # -- keyword postings ------------------------------------------------------------------------
    def postings(self, conn: sqlite3.Connection, terms: Iterable[str]) -> dict[str, Postings]:
        """The postings of the given terms (read from `fact_terms` once, then kept); absent terms left out."""
        with self._postings_lock:
            found: dict[str, Postings] = {}
            for term in dict.fromkeys(terms):
                held = self._postings.get(term)
                if held is None:
                    held = self._read_postings(conn, term, 0, None)
                    self._postings[term] = held
                if held.df:
                    found[term] = held
            return found

    def _read_postings(self, conn: sqlite3.Connection, term: str, after: int, held: Postings | None) -> Postings:
        rows = conn.execute(_POSTINGS, (self.user_id, term, after)).fetchall()
        return self._joined(held, rows)

    def _joined(self, held: Postings | None, rows: list[tuple[int, int, int]]) -> Postings:
        """`held` (if any) followed by the postings of `rows` (rowid, tf, dl)."""
        if not rows and held is not None:
            return held
        table = np.array(rows, dtype=np.int64).reshape(-1, 3)
        where = self.positions_of_rowids(table[:, 0])
        keep = where >= 0
        fresh = Postings(where[keep], table[keep, 1].astype(np.float64), table[keep, 2].astype(np.float64), len(rows))
        if held is None:
            return fresh
        return Postings(
            np.concatenate([held.positions, fresh.positions]),
            np.concatenate([held.tf, fresh.tf]),
            np.concatenate([held.dl, fresh.dl]),
            held.df + fresh.df,
        )

    def _extend_postings(self, conn: sqlite3.Connection, after: int) -> None:
        """Bring every held term's postings up to date with the rows appended past rowid `after`
        (one seek per held term, in SQLite, a few hundred terms a statement)."""
        with self._postings_lock:
            held = list(self._postings)
            for start in range(0, len(held), 500):
                chunk = held[start : start + 500]
                rows = conn.execute(
                    "SELECT term, fact_rowid, tf, dl FROM fact_terms WHERE user_id = ?"
                    f" AND term IN ({','.join('?' * len(chunk))}) AND fact_rowid > ? ORDER BY term, fact_rowid",
                    (self.user_id, *chunk, after),
                ).fetchall()
                by_term: dict[str, list[tuple[int, int, int]]] = {}
                for term, rowid, tf, dl in rows:
                    by_term.setdefault(str(term), []).append((int(rowid), int(tf), int(dl)))
                for term, found in by_term.items():
                    self._postings[term] = self._joined(self._postings[term], found)

    # -- refresh -------------------------------------------------------------------------------
    def refresh(self, conn: sqlite3.Connection, version: tuple[int, int, int]) -> UserRecallIndex:
        """This index brought to `version` (a new one when statements were rewritten)."""
        if version == self.version:
            return self
        if version[2] != self.version[2] and self.version != (-1, -1, -1):
            return UserRecallIndex(self.user_id).refresh(conn, version)
        if version[0] != self.version[0]:
            self._append(conn)
            self._build_coarse()
        if version[1] != self.version[1] and self.version != (-1, -1, -1):
            self._reread_states(conn)
        self.version = version
        return self

    def _append(self, conn: sqlite3.Connection) -> None:
        rows = conn.execute(_ROWS, (self.user_id, self._last_rowid)).fetchall()
        if not rows:
            return
        start = len(self.ids)
        new_ids = [str(r[1]) for r in rows]
        self.ids.extend(new_ids)
        self.position.update({fact_id: start + i for i, fact_id in enumerate(new_ids)})
        self.superseded_by.extend(r[8] for r in rows)
        self.sessions.extend(r[3] for r in rows)
        self._rowids.extend(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)))
        self._kinds.extend(np.fromiter((_KIND_CODES[r[2]] for r in rows), dtype=np.int8, count=len(rows)))
        self._event_at.extend(micros([r[4] for r in rows], NO_TIME))
        self._valid_from.extend(micros([r[5] for r in rows], NO_TIME))
        self._valid_to.extend(micros([r[6] for r in rows], NEVER))
        self._expired_at.extend(micros([r[7] for r in rows], NEVER))
        self._lengths.extend(np.fromiter((r[10] or 0 for r in rows), dtype=np.int32, count=len(rows)))
        previous = np.full(len(rows), -1, dtype=np.int32)
        following = self._following
        self._following.extend(np.full(len(rows), -1, dtype=np.int32))
        excerpt = _KIND_CODES["excerpt"]
        for offset, row in enumerate(rows):
            here = start + offset
            if row[9]:
                self.places.setdefault(str(row[9]), []).append(here)
            if _KIND_CODES[row[2]] != excerpt:
                continue
            before = self._last_in_session.get(row[3])
            if before is not None:
                previous[offset] = before
                following.view[before] = here
            self._last_in_session[row[3]] = here
        self._previous.extend(previous)
        self._append_vectors([r[11] for r in rows])
        self._append_entities(conn, new_ids, start)
        after, self._last_rowid = self._last_rowid, int(rows[-1][0])
        if self._postings:
            self._extend_postings(conn, after)
        self._recent = None

    def _append_vectors(self, blobs: list[bytes | None]) -> None:
        if not self.dim:
            self.dim = next((len(b) // 4 for b in blobs if b), 0)
        block = np.zeros((len(blobs), self.dim), dtype=np.float32)
        present = np.zeros(len(blobs), dtype=bool)
        for i, blob in enumerate(blobs):
            if blob and len(blob) == 4 * self.dim:
                block[i] = np.frombuffer(blob, dtype=np.float32)
                present[i] = True
        if self.dim:
            if self._matrix is None:
                self._matrix = _Grow(np.float32, self.dim)
                self._matrix.extend(np.zeros((len(self) - len(blobs), self.dim), dtype=np.float32))
            self._matrix.extend(block)
            with self._coarse_lock:
                if self._basis is not None and self._projected is not None:
                    self._projected.extend(block @ self._basis)
        self._has_vector.extend(present)

    def _append_entities(self, conn: sqlite3.Connection, new_ids: list[str], start: int) -> None:
        if start == 0:  # a first build reads every entity row of the user at once
            rows = conn.execute("SELECT fact_id, entity FROM fact_entities WHERE user_id = ?", (self.user_id,))
        else:
            marks = ",".join("?" * len(new_ids))
            rows = conn.execute(
                f"SELECT fact_id, entity FROM fact_entities WHERE fact_id IN ({marks}) AND +user_id = ?",
                (*new_ids, self.user_id),
            )
        touched: set[str] = set()
        for fact_id, entity in rows:
            here = self.position.get(fact_id)
            if here is not None and here >= start:
                self.entities.setdefault(str(entity), []).append(here)
                touched.add(str(entity))
        for name in touched:
            self.entities[name].sort()

    def _reread_states(self, conn: sqlite3.Connection) -> None:
        self._valid_to.view[:] = NEVER
        self._expired_at.view[:] = NEVER
        self.superseded_by = [None] * len(self)
        rows = conn.execute(_STATES, (self.user_id,)).fetchall()
        if not rows:
            return
        where = self.positions_of_rowids(np.array([r[0] for r in rows], dtype=np.int64))
        valid_to = micros([r[1] for r in rows], NEVER)
        expired = micros([r[2] for r in rows], NEVER)
        for offset, here in enumerate(where):
            if here < 0:
                continue
            self._valid_to.view[here] = valid_to[offset]
            self._expired_at.view[here] = expired[offset]
            self.superseded_by[here] = rows[offset][3]
