"""Recall: six routes in parallel, weighted RRF with content gating, a token budget, explain.

    recaller = Recaller(store, lambda: embedder)
    result = recaller.recall("alice", "where did I go last May?", as_of="2024-06-01T00:00:00Z")

Content routes (vector, keyword, entity) decide what can come back; time, place and recency only
raise what they found (unless none found anything), and recency alone never admits an item. Each
route runs under a timeout in a thread pool; a route that times out (or fails) is reported and
the others still answer. Items are filtered before fusion: with `as_of`, only rows valid by then,
in their state then (validity and expiry both read at that time); never forgotten ones (expired,
or matching an active request to forget) unless `include_forgotten`; superseded items come back
marked `superseded`. Routes rank positions in the user's index, and fusion and the session stage
(sessions.py: a session prior and the neighbouring turns, shown in explain as a `session` part of
each score) work on arrays; only the rows returned are read from the store and made into objects.
For a question about the present, what holds now comes first: a superseded item's replacement
above it (supersession.py), a newer restatement or a later statement of a changed value above the
older one (updates.py). Every weight and stage setting comes from a named configuration
(config.py), reported by explain.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING

import numpy as np

from heedful.errors import InputError
from heedful.memory.recall import entity, keyword, place, recency, vector
from heedful.memory.recall import time as time_route
from heedful.memory.recall.budget import (
    DEFAULT_BUDGET_TOKENS,
    DEFAULT_MAX_ITEMS,
    ENUMERATION_FACTOR,
    estimate_tokens,
    pack,
)
from heedful.memory.recall.config import DEFAULT, RecallConfig, recall_config
from heedful.memory.recall.fusion import (
    BOOST_ONLY_ROUTES,
    CONTENT_ROUTES,
    RRF_K,
    Fused,
    FusedTable,
    fuse_positions,
    order_by_score_then_id,
)
from heedful.memory.recall.persons import common_people, person_focus, speakers
from heedful.memory.recall.query import QueryAnalysis, analyze, words
from heedful.memory.recall.routes import Ranking, RouteContext, RouteFn
from heedful.memory.recall.sessions import SessionStage, rescore
from heedful.memory.recall.supersession import (
    admissible,
    admissible_states,
    asks_about_the_past,
    current_first,
    newer_first,
)
from heedful.memory.recall.tombstones import TombstoneFilter
from heedful.memory.recall.types import RecallItem, RecallResult, RouteHit, State
from heedful.memory.recall.updates import asks_about_now, newest_on_subject, states_a_change
from heedful.store.sqlite.recall_index import micros_of
from heedful.timeutil import from_text, now, parse_user_time, to_text

if TYPE_CHECKING:
    from heedful.embed import Embedder
    from heedful.store.protocols import Store
    from heedful.store.records import CandidateRow, FactRecord
    from heedful.store.sqlite.recall_index import UserRecallIndex

log = logging.getLogger(__name__)

ROUTES: dict[str, RouteFn] = {
    "vector": vector.run,
    "keyword": keyword.run,
    "entity": entity.run,
    "time": time_route.run,
    "place": place.run,
    "recency": recency.run,
}
# The weights of the default configuration (config.py holds them, with the other named ones).
DEFAULT_WEIGHTS: dict[str, float] = dict(DEFAULT.weights)  # a copy: changing it changes no configuration
TIED_ROUTES = frozenset({"entity", "time", "place"})
# Routes that wait on the embedder or on SQLite run in the pool (under the timeout); the others are
# array lookups in the user's index, cheaper than handing them to a thread, and run in the caller.
POOLED_ROUTES = frozenset({"vector", "keyword"})
RECALLABLE_KINDS = frozenset({"fact", "commitment", "excerpt", "summary"})
DEFAULT_ROUTE_TIMEOUT = 2.5
MIN_DEPTH = 200


def state_of(row: CandidateRow, moment: str | None) -> State:
    """The row's state now, or as of `moment` on both axes (same rule as FactRecord.state_at)."""
    if row.expired_at is not None and (moment is None or row.expired_at <= moment):
        return "forgotten"
    if row.valid_to is not None and (moment is None or row.valid_to <= moment):
        return "superseded"
    return "current"


class Recaller:
    def __init__(
        self,
        store: Store,
        embedder_provider: Callable[[], Embedder],
        *,
        config: RecallConfig | str = DEFAULT,
        route_timeout: float = DEFAULT_ROUTE_TIMEOUT,
        weights: Mapping[str, float] | None = None,
        max_workers: int | None = None,
        restated_cosine: float | None = None,
    ) -> None:
        """`config` names a registered configuration (or is one); `weights` and `restated_cosine`, when
        given, make a variant of it named after its base (`default+custom`)."""
        chosen = recall_config(config) if isinstance(config, str) else config
        if weights or restated_cosine is not None:
            changes = {} if restated_cosine is None else {"restated_cosine": restated_cosine}
            chosen = chosen.derive(f"{chosen.name}+custom", weights=weights, **changes)
        self.config = chosen
        self.store = store
        self._embedder_provider = embedder_provider
        self.route_timeout = route_timeout
        # One worker per core: routes are short, and more threads than cores only make them wait
        # on each other (the embedder's own threads included). A slow route still blocks one worker.
        workers = max_workers or max(2, min(len(ROUTES), os.cpu_count() or 2))
        # (user, common name) -> (the index's size when checked, whether the name is a speaker)
        self._speaking: dict[tuple[str, str], tuple[int, bool]] = {}
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="recall")

    @property
    def weights(self) -> Mapping[str, float]:
        return self.config.weights

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def analyze(self, user_id: str, query: str, as_of: str | None = None) -> QueryAnalysis:
        reference = from_text(as_of) if as_of else now()
        return analyze(query, reference, self.store.search.entity_set(user_id))

    def recall(
        self,
        user_id: str,
        query: str,
        *,
        limit: int | None = None,
        budget_tokens: int | None = None,
        as_of: str | None = None,
        include_forgotten: bool = False,
        route_timeout: float | None = None,
    ) -> RecallResult:
        if not query or not query.strip():
            raise InputError("the recall query is empty")
        if limit is not None and limit < 1:
            raise InputError("the recall limit must be at least 1")
        if budget_tokens is not None and budget_tokens < 1:
            raise InputError("the token budget must be at least 1")
        moment = to_text(parse_user_time(as_of)) if as_of else None
        index = self.store.search.index(user_id)
        reference = from_text(moment) if moment else now()
        analysis = analyze(query, reference, index.entities)
        widen = ENUMERATION_FACTOR if analysis.enumeration else 1
        max_items = limit if limit is not None else DEFAULT_MAX_ITEMS * widen
        budget = budget_tokens if budget_tokens is not None else DEFAULT_BUDGET_TOKENS * widen
        depth = max(MIN_DEPTH, 3 * max_items)

        config = self.config  # one configuration for the whole call, even if another is set meanwhile
        timeout = self.route_timeout if route_timeout is None else route_timeout
        people = common_people(index, analysis)
        speaking = self._speakers(user_id, index, people) if people and not config.names_in_vector else []
        rankings, route_ms, timed_out, failed = self._run_routes(
            user_id, analysis, depth, timeout, index, config, speaking
        )
        # Only content routes admit items (anchors admit only when no content route found any), so
        # only their items need a state; the anchor routes' other items could never come back.
        admitting = [name for name in rankings if name in CONTENT_ROUTES and len(rankings[name])]
        if not admitting:
            admitting = [name for name in rankings if name not in BOOST_ONLY_ROUTES]
        moment_us = micros_of(moment) if moment else None
        allowed = np.zeros(len(index), dtype=bool)
        if admitting:
            pool = np.concatenate([rankings[name].positions for name in admitting])
            allowed[pool[admissible(index, pool, moment_us, include_forgotten)]] = True
        filtered = {route: ranking.where(allowed[ranking.positions]) for route, ranking in rankings.items()}
        first = fuse_positions(filtered, index.ids, config.weights, k=RRF_K, tied=TIED_ROUTES)
        if people and config.person_penalty > 0 and len(first):
            first = _focused(first, index, people, config)
        present = (analysis.window is None or analysis.window.end > reference) and not asks_about_the_past(words(query))
        asks_now = present and asks_about_now(words(query))
        # "what is / how many ... have I" states the present; a modal ("what should I ...") asks what to do
        stated_now = present and asks_about_now(words(query), modal=False)
        started = time.perf_counter()
        if config.session_stage is not None and len(first):
            # a modal question keeps its neighbours: they help it more than they mislead
            neighbours = config.session_stage.present_neighbours or not stated_now
            first = self._rescore(index, first, config.session_stage, moment_us, include_forgotten, neighbours)
        if config.session_stage is not None:
            route_ms["session"] = round((time.perf_counter() - started) * 1000, 3)
        fused, records, states = self._honour_tombstones(user_id, index, first, moment_us, include_forgotten, max_items)
        if present:  # a question about the present: what holds now comes first
            fused = current_first(fused, states, index, moment_us, include_forgotten)[:max_items]
            missing = [entry.id for entry in fused if entry.id not in records]
            records.update(self.store.memory.get_facts(user_id, missing) if missing else {})
            fused = newer_first(fused, records, index, config.restated_cosine)
            if asks_now:
                fused = self._newest_on_subject(fused, records, index, analysis, config, stated_now)
        items = self._items(fused, records, states)
        packed, used = pack(items, lambda item: item.tokens, budget, max_items)
        return RecallResult(
            query=query,
            items=packed,
            as_of=moment,
            enumeration=analysis.enumeration,
            budget_tokens=budget,
            used_tokens=used,
            route_ms=route_ms,
            timed_out=timed_out,
            failed=failed,
            analysis=analysis.to_json(),
            config=config.name,
        )

    # -- steps ---------------------------------------------------------------------------------
    def _run_routes(
        self,
        user_id: str,
        analysis: QueryAnalysis,
        depth: int,
        timeout: float,
        index: UserRecallIndex,
        config: RecallConfig,
        speaking: list[str],
    ) -> tuple[dict[str, Ranking], dict[str, float], list[str], list[str]]:
        active = [
            name
            for name in ROUTES
            if config.weight(name) > 0
            and not (name == "time" and analysis.window is None)
            and not (name == "place" and not analysis.places)
            and not (name == "entity" and not analysis.entities)
            and not (name == "keyword" and not analysis.match_expression)
        ]
        embedder = self._embedder_provider() if "vector" in active else None
        ctx = RouteContext(self.store.search, user_id, analysis, depth, embedder, index, tuple(speaking))
        timings: dict[str, float] = {}

        def timed(name: str) -> Ranking:
            started = time.perf_counter()
            try:
                return ROUTES[name](ctx)
            finally:
                timings[name] = round((time.perf_counter() - started) * 1000, 3)

        futures: dict[str, Future[Ranking]] = {
            name: self._pool.submit(timed, name) for name in active if name in POOLED_ROUTES
        }
        rankings: dict[str, Ranking] = {}
        timed_out: list[str] = []
        failed: list[str] = []
        for name in (name for name in active if name not in POOLED_ROUTES):  # while the pool works
            try:
                rankings[name] = timed(name)
            except Exception as error:  # a failed route is reported; the others still answer
                log.warning("recall route %s failed: %s", name, error)
                failed.append(name)
        wait(futures.values(), timeout=timeout)
        for name, future in futures.items():
            if not future.done():
                future.cancel()
                timed_out.append(name)
                continue
            raised = future.exception()
            if raised is not None:
                log.warning("recall route %s failed: %s", name, raised)
                failed.append(name)
                continue
            rankings[name] = future.result()
        route_ms = {name: timings[name] for name in active if name in timings and name not in timed_out}
        for name in timed_out:
            route_ms[name] = round(timeout * 1000, 3)
        return rankings, route_ms, timed_out, failed

    def _speakers(self, user_id: str, index: UserRecallIndex, people: list[str]) -> list[str]:
        """`speakers` (persons.py) of the common people the question names, each checked again only
        when the user's index has changed size."""
        unknown = [name for name in people if self._speaking.get((user_id, name), (-1, False))[0] != len(index)]
        if unknown:

            def statements(ids: list[str]) -> dict[str, str]:
                return {fid: record.statement for fid, record in self.store.memory.get_facts(user_id, ids).items()}

            found = set(speakers(index, unknown, statements))
            for name in unknown:
                self._speaking[(user_id, name)] = (len(index), name in found)
        return [name for name in people if self._speaking[(user_id, name)][1]]

    def _rescore(
        self,
        index: UserRecallIndex,
        first: FusedTable,
        stage: SessionStage,
        moment_us: int | None,
        include_forgotten: bool,
        neighbours: bool,
    ) -> FusedTable:
        """The fused table scored again by the session stage, with the neighbours it brings in (those that
        may come back) and a `session` column holding what it added."""
        positions, scores = rescore(index, first.positions, first.scores, stage, RRF_K, neighbours)
        known = len(first)
        brought = positions[known:]
        keep = np.concatenate([np.ones(known, dtype=bool), admissible(index, brought, moment_us, include_forgotten)])
        positions, scores = positions[keep], scores[keep]
        added = len(positions) - known
        raised = scores - np.concatenate([first.scores, np.zeros(added)])
        order = order_by_score_then_id(scores, index.ids, positions)

        def grown(table: np.ndarray, fill: float) -> np.ndarray:
            return np.vstack([table, np.full((added, table.shape[1]), fill)])[order]

        raised = raised[order]
        lifted = raised > 0
        session = np.where(lifted, np.arange(1, len(order) + 1, dtype=np.float64), np.nan)
        # What the stage added shows in explain as one more part of the score, so the parts still add up.
        return FusedTable(
            positions[order],
            scores[order],
            (*first.routes, "session"),
            np.column_stack([grown(first.ranks, np.nan), session]),
            np.column_stack([grown(first.route_scores, 0.0), np.where(lifted, raised, 0.0)]),
            np.column_stack([grown(first.contributions, 0.0), np.where(lifted, raised, 0.0)]),
        )

    def _newest_on_subject(
        self,
        fused: list[Fused],
        records: Mapping[str, FactRecord],
        index: UserRecallIndex,
        analysis: QueryAnalysis,
        config: RecallConfig,
        stated_now: bool,
    ) -> list[Fused]:
        """`newest_on_subject` over the returned rows; statements of a change count for a question that
        states the present, and for a modal one with `modal_changes` (the default)."""
        where = np.array([index.position.get(entry.id, -1) for entry in fused], dtype=np.int64)
        if not len(where) or (where < 0).any():
            return fused
        coverage = self.store.search.query_coverage(index, analysis.match_expression, where)
        depth = config.change_depth if stated_now or config.modal_changes else 0
        changed = np.array(
            [n < depth and _states_own_change(records.get(entry.id)) for n, entry in enumerate(fused)], dtype=bool
        )
        return newest_on_subject(
            fused,
            coverage,
            index.valid_from[where],
            every=config.every_restatement,
            changed=changed,
            change_depth=depth,
        )

    def _honour_tombstones(
        self,
        user_id: str,
        index: UserRecallIndex,
        table: FusedTable,
        moment_us: int | None,
        include_forgotten: bool,
        max_items: int,
    ) -> tuple[list[Fused], dict[str, FactRecord], dict[str, State]]:
        """The first `max_items` items that no active request to forget hides (checked in rank order),
        their rows and their states (read in rank order, a batch at a time, only as far as needed).

        A hidden item is left out, or with `include_forgotten` kept and marked forgotten.
        """
        tombstones = TombstoneFilter(self.store.search.tombstones(user_id))
        kept: list[Fused] = []
        records: dict[str, FactRecord] = {}
        states: dict[str, State] = {}
        batch = max_items + 8
        for start in range(0, len(table), batch):
            chunk = table.entries(index.ids, start, start + batch)
            chunk_ids = [entry.id for entry in chunk]
            states.update(admissible_states(index, chunk_ids, moment_us, include_forgotten))
            records.update(self.store.memory.get_facts(user_id, chunk_ids))
            vectors = self.store.search.vectors_for(user_id, chunk_ids) if tombstones else {}
            for entry in chunk:
                record = records.get(entry.id)
                if record is None:
                    continue
                hidden = tombstones and states[entry.id] != "forgotten"
                if hidden and tombstones.hiding(record.statement, vectors.get(entry.id)):
                    if not include_forgotten:
                        continue
                    states[entry.id] = "forgotten"
                kept.append(entry)
                if len(kept) >= max_items:
                    return kept, records, states
        return kept, records, states

    def _items(
        self, fused: list[Fused], records: Mapping[str, FactRecord], states: Mapping[str, State]
    ) -> list[RecallItem]:
        items: list[RecallItem] = []
        for entry in fused:
            record = records.get(entry.id)
            if record is None:
                continue
            items.append(
                RecallItem(
                    id=entry.id,
                    kind=record.kind,
                    text=record.statement,
                    score=round(entry.score, 6),
                    state=states[entry.id],
                    valid_from=record.valid_from,
                    valid_to=record.valid_to,
                    event_at=record.event_at,
                    session_id=record.session_id,
                    source_message_ids=list(record.source_message_ids),
                    tokens=estimate_tokens(record.statement),
                    routes={
                        name: RouteHit(_plain(hit.rank), round(hit.score, 6), round(hit.contribution, 6))
                        for name, hit in entry.routes.items()
                    },
                )
            )
        return items


def _focused(first: FusedTable, index: UserRecallIndex, people: list[str], config: RecallConfig) -> FusedTable:
    """The fused table with items naming none of `people` lowered (persons.py) and sorted again; what the
    focus took shows in explain as a `person` part of the score, so the parts still add up."""
    exempt = None
    if config.person_exempt_keyword > 0 and "keyword" in first.routes:
        exempt = first.ranks[:, first.routes.index("keyword")] <= config.person_exempt_keyword  # NaN: not found
    scores = person_focus(
        index, people, first.positions, first.scores, config.person_penalty, config.person_keep, exempt
    )
    order = order_by_score_then_id(scores, index.ids, first.positions)
    lowered = (scores - first.scores)[order]
    rank = np.where(lowered < 0, np.arange(1, len(order) + 1, dtype=np.float64), np.nan)
    return FusedTable(
        first.positions[order],
        scores[order],
        (*first.routes, "person"),
        np.column_stack([first.ranks[order], rank]),
        np.column_stack([first.route_scores[order], lowered]),
        np.column_stack([first.contributions[order], lowered]),
    )


def _states_own_change(record: FactRecord | None) -> bool:
    """The user (not the assistant) says that something of theirs changed: an update to what they said before."""
    return record is not None and record.perspective != "assistant_said" and states_a_change(record.statement)


def _plain(rank: float) -> float:
    """Whole ranks as ints (shown as 3, not 3.0); shared ranks of tied items stay fractional."""
    return int(rank) if float(rank).is_integer() else rank
