"""What every route receives and what it gives back: positions in the user's index, best first."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from heedful.memory.recall.query import QueryAnalysis

if TYPE_CHECKING:
    from heedful.embed import Embedder
    from heedful.store.protocols import SearchStore
    from heedful.store.sqlite.recall_index import UserRecallIndex


@dataclass(frozen=True, slots=True)
class Ranking:
    """A route's ranking as two arrays: positions in the user's index, best first, and the route's scores.

    Arrays, not (id, score) tuples: a recall fuses thousands of these, and fusion works on positions."""

    positions: np.ndarray
    scores: np.ndarray

    def __len__(self) -> int:
        return len(self.positions)

    def where(self, keep: np.ndarray) -> Ranking:
        """The items `keep` marks, in their order."""
        return Ranking(self.positions[keep], self.scores[keep])

    @classmethod
    def of(cls, scored: list[tuple[int, float]]) -> Ranking:
        if not scored:
            return EMPTY
        positions, scores = zip(*scored, strict=True)
        return cls(np.asarray(positions, dtype=np.int64), np.asarray(scores, dtype=np.float64))


EMPTY = Ranking(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))


@dataclass(frozen=True, slots=True)
class RouteContext:
    search: SearchStore
    user_id: str
    analysis: QueryAnalysis
    depth: int
    embedder: Embedder | None
    # The user's rows in memory, read once per recall: routes rank positions in it.
    index: UserRecallIndex
    # The speakers the memory is about that the question names (persons.py), for the routes that leave them out.
    people: tuple[str, ...] = ()

    def ranking(self, scored: list[tuple[int, float]]) -> Ranking:
        """(position, score) pairs, best first, as a ranking."""
        return Ranking.of(scored)


RouteFn = Callable[[RouteContext], Ranking]
