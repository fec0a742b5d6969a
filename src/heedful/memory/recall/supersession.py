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
from typing import TYPE_CHECKING

import numpy as np

from heedful.memory.recall.fusion import Fused
from heedful.memory.recall.types import State
from heedful.store.sqlite.recall_index import NEVER

if TYPE_CHECKING:
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
    valid_to, expired = index.valid_to[where], index.expired_at[where]
    if moment is None:
        keep = np.ones(len(where), dtype=bool)
        forgotten, superseded = expired != NEVER, valid_to != NEVER
    else:
        keep = index.valid_from[where] <= moment
        forgotten, superseded = expired <= moment, valid_to <= moment
    if not include_forgotten:
        keep &= ~forgotten
    states: dict[str, State] = {}
    for n in np.flatnonzero(keep):
        states[unique[n]] = "forgotten" if forgotten[n] else "superseded" if superseded[n] else "current"
    return states


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
