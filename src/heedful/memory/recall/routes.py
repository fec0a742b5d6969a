"""What every route receives, and the registry of the six routes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from heedful.memory.recall.query import QueryAnalysis

if TYPE_CHECKING:
    from heedful.embed import Embedder
    from heedful.store.protocols import SearchStore
    from heedful.store.sqlite.recall_index import UserRecallIndex

Ranking = list[tuple[str, float]]


@dataclass(frozen=True, slots=True)
class RouteContext:
    search: SearchStore
    user_id: str
    analysis: QueryAnalysis
    depth: int
    embedder: Embedder | None
    # The user's rows in memory, read once per recall: routes rank positions in it.
    index: UserRecallIndex

    def ranking(self, scored: list[tuple[int, float]]) -> Ranking:
        """Positions turned into item ids."""
        return [(self.index.ids[here], score) for here, score in scored]


RouteFn = Callable[[RouteContext], Ranking]
