"""Which candidates may come back and in which state, and what is true now ranks first.

A candidate's state reads both axes of the record at one moment (now, or `as_of`): forgotten if
it had been expired by then, superseded if its validity had ended, current otherwise; with
`as_of`, an item counts only from its `valid_from`. The states of all candidates are computed at
once from the user's in-memory columns.

`current_first` then orders a ranked list so that a superseded item never comes before what
replaced it: the replacement (followed along the chain to the item holding at that moment) is
placed just above it, and brought in when no route found it. The superseded item stays, marked.

    Berlin (superseded by Lisbon), Porto, Lisbon  ->  Lisbon, Berlin, Porto
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from heedful.memory.recall.fusion import Fused
from heedful.memory.recall.types import State
from heedful.store.sqlite.recall_index import NEVER

if TYPE_CHECKING:
    from heedful.store.records import FactRecord
    from heedful.store.sqlite.recall_index import UserRecallIndex

MAX_CHAIN = 16


def admissible_states(
    index: UserRecallIndex, item_ids: Sequence[str], moment: int | None, include_forgotten: bool
) -> dict[str, State]:
    """The state of every candidate that may come back (`moment` in microseconds, or None for now)."""
    unique = [item_id for item_id in dict.fromkeys(item_ids) if item_id in index.position]
    if not unique:
        return {}
    where = np.fromiter((index.position[i] for i in unique), dtype=np.int64, count=len(unique))
    keep, forgotten, superseded = _states(index, where, moment, include_forgotten)
    states: dict[str, State] = {}
    for n in np.flatnonzero(keep):
        states[unique[n]] = "forgotten" if forgotten[n] else "superseded" if superseded[n] else "current"
    return states


def admissible(
    index: UserRecallIndex, positions: np.ndarray, moment: int | None, include_forgotten: bool
) -> np.ndarray:
    """Which of `positions` may come back (the rule of `admissible_states`, without building ids)."""
    return _states(index, positions, moment, include_forgotten)[0]


def _states(
    index: UserRecallIndex, where: np.ndarray, moment: int | None, include_forgotten: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(may come back, forgotten, superseded) for each position in `where`."""
    valid_to, expired = index.valid_to[where], index.expired_at[where]
    if moment is None:
        keep = np.ones(len(where), dtype=bool)
        forgotten, superseded = expired != NEVER, valid_to != NEVER
    else:
        keep = index.valid_from[where] <= moment
        forgotten, superseded = expired <= moment, valid_to <= moment
    if not include_forgotten:
        keep &= ~forgotten
    return keep, forgotten, superseded


def _replacement(
    index: UserRecallIndex, item_id: str, moment: int | None, include_forgotten: bool
) -> tuple[str, State] | None:
    """The item that holds (at `moment`) in place of a superseded one, following the chain."""
    seen = {item_id}
    here = index.position[item_id]
    for _ in range(MAX_CHAIN):
        successor = index.superseded_by[here]
        if successor is None or successor in seen or successor not in index.position:
            return None
        seen.add(successor)
        state = admissible_states(index, [successor], moment, include_forgotten).get(successor)
        if state is None:
            return None
        if state != "superseded":
            return successor, state
        here = index.position[successor]
    return None


def current_first(
    fused: list[Fused],
    states: dict[str, State],
    index: UserRecallIndex,
    moment: int | None,
    include_forgotten: bool,
) -> list[Fused]:
    """`fused` with each superseded item's replacement placed (or brought in) just above it."""
    if not any(states.get(entry.id) == "superseded" for entry in fused):
        return fused
    by_id = {entry.id: entry for entry in fused}
    placed: set[str] = set()
    ordered: list[Fused] = []
    for entry in fused:
        if entry.id in placed:
            continue
        if states.get(entry.id) == "superseded":
            found = _replacement(index, entry.id, moment, include_forgotten)
            if found is not None and found[0] not in placed:
                successor, state = found
                states[successor] = state
                lifted = by_id.get(successor) or Fused(successor, entry.score)
                lifted.score = max(lifted.score, entry.score)
                ordered.append(lifted)
                placed.add(successor)
        ordered.append(entry)
        placed.add(entry.id)
    return ordered


# Raw messages carry no supersession links. Taking two messages at least this alike (cosine) for
# one thing said at two times and raising the newer one lifted BEAM's knowledge updates from 43.6%
# to 56.4% newer-first at 0.6, but cost LoCoMo @10 6.6 points (conversations 0-1; 1.1 at 0.85) and
# BEAM @10 4.6: off by default (None), kept as an option (`Recaller(restated_cosine=...)`).
RESTATED_COSINE: float | None = None
_PAST_WORDS = frozenset(
    "originally initially earliest before previously previous formerly old older earlier prior".split()
)
# Words that name an earlier state only in a phrase: "used to", "at first" (not "the key used in my
# app" or "the first sprint", which ask about now).
_PAST_PHRASES = (("used", "to"), ("at", "first"))


def asks_about_the_past(words: Sequence[str]) -> bool:
    """A question naming an earlier state ("what was my original budget?") wants the old item first."""
    if any(word in _PAST_WORDS or word.startswith("original") for word in words):
        return True
    return any(pair in _PAST_PHRASES for pair in pairwise(words))


def newer_first(
    fused: list[Fused],
    records: dict[str, FactRecord],
    index: UserRecallIndex,
    threshold: float | None = RESTATED_COSINE,
) -> list[Fused]:
    """Raise a newer restatement above an older one it ranks below (a changed number, date or place).

    Two items count as one thing said twice when they are the messages behind a superseded fact
    and the fact that replaced it, or (with a `threshold`) when their vectors are that alike.
    """
    where = [index.position.get(entry.id, -1) for entry in fused]
    known = np.array([here >= 0 and bool(index.has_vector[here]) for here in where])
    if len(fused) < 2 or not known.any():
        return fused
    safe = np.array([here if here >= 0 else 0 for here in where], dtype=np.int64)
    vectors = index.matrix[safe]
    alike = np.zeros((len(fused), len(fused)), dtype=bool)
    if threshold is not None:
        alike = ((vectors @ vectors.T) >= threshold) & known[:, None] & known[None, :]
    _link_replaced_sources(fused, records, index, alike)
    started = index.valid_from[safe]
    newer = np.triu(alike & (started[None, :] > started[:, None]), 1)  # [a, b]: b below a, alike, newer
    if not newer.any():
        return fused
    moved: set[int] = set()
    ordered: list[Fused] = []
    for rank, entry in enumerate(fused):
        if rank in moved:
            continue
        later = [int(other) for other in np.flatnonzero(newer[rank]) if int(other) not in moved]
        if later:  # the newest restatement goes first, the rest keep their order after it
            newest = max(later, key=lambda other: int(started[other]))
            ordered.append(fused[newest])
            moved.add(newest)
        ordered.append(entry)
    return ordered


def _link_replaced_sources(
    fused: list[Fused], records: dict[str, FactRecord], index: UserRecallIndex, alike: np.ndarray
) -> None:
    """Mark as alike the messages behind a superseded fact and behind the fact that replaced it."""
    rank_of_message: dict[str, int] = {}
    for rank, entry in enumerate(fused):
        record = records.get(entry.id)
        if record is not None and record.kind == "excerpt":
            for message_id in record.source_message_ids:
                rank_of_message.setdefault(message_id, rank)
    if not rank_of_message:
        return
    for entry in fused:
        record = records.get(entry.id)
        successor = index.superseded_by[index.position[entry.id]] if entry.id in index.position else None
        if record is None or successor is None or successor not in records:
            continue
        old = [rank_of_message[m] for m in record.source_message_ids if m in rank_of_message]
        new = [rank_of_message[m] for m in records[successor].source_message_ids if m in rank_of_message]
        for a in old:
            for b in new:
                alike[a, b] = alike[b, a] = True
