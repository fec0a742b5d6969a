"""`MemoryService`: the memory kernel's public face (`hf.memory`).

It is given `MemoryParts` (the store, loaders for the embedder and the model, the settings it
reads), never the whole `Heedful` facade:

    MemoryService(MemoryParts(store, load_embedder, load_model, home=home))
"""

from __future__ import annotations

import builtins
from functools import cached_property
from typing import TYPE_CHECKING

from heedful.errors import InputError, NotFoundError
from heedful.ids import validate_user_id
from heedful.memory.events import MemoryEvent
from heedful.memory.write import AddResult, MemoryWriter, NewMessage

if TYPE_CHECKING:
    from heedful.memory.areas import AreaClassifier
    from heedful.memory.history import FactHistory, MemoryHistory
    from heedful.memory.parts import MemoryParts
    from heedful.memory.recall.engine import Recaller
    from heedful.memory.recall.types import RecallResult
    from heedful.memory.results import DreamResult, UndoneChange
    from heedful.store.records import FactRecord


class MemoryService:
    def __init__(self, parts: MemoryParts) -> None:
        self.parts = parts
        self.store = parts.store

    @cached_property
    def writer(self) -> MemoryWriter:
        return _writer_for_adopted_harness(self.parts)

    @cached_property
    def recaller(self) -> Recaller:
        from heedful.memory.recall.engine import Recaller

        return Recaller(self.store, self.parts.load_embedder, config=self.parts.recall_config)

    @property
    def areas(self) -> AreaClassifier:
        """The coarse area of each request to forget (what a model may be told instead of the words).

        The writer's own classifier, so that the area descriptions are embedded once per home."""
        return self.writer.areas

    def forgotten_areas(self, user_id: str) -> list[str]:
        """The areas of the user's active requests to forget, e.g. ["health"]; never their content."""
        requests = self.store.memory.list_facts(
            self.require_user(user_id), kinds=["tombstone"], current_only=True, with_embeddings=True
        )
        return self.areas.areas([(t.object or t.statement, t.embedding) for t in requests])

    @cached_property
    def _history(self) -> MemoryHistory:
        from heedful.memory.history import MemoryHistory

        return MemoryHistory(self.store, self.parts.load_embedder)

    def require_user(self, user_id: str) -> str:
        user_id = validate_user_id(user_id)
        if not self.store.memory.user_exists(user_id):
            raise NotFoundError(f"unknown user {user_id!r}: nothing has been added for this user yet")
        return user_id

    # -- writing -------------------------------------------------------------------------------
    def add(
        self,
        user_id: str,
        messages: list[NewMessage] | str,
        *,
        flush: bool = False,
        extract: bool = True,
        background: bool = False,
    ) -> AddResult:
        if isinstance(messages, str):
            messages = [NewMessage(text=messages)]
        return self.writer.add(user_id, messages, flush=flush, extract=extract, background=background)

    def flush(self, user_id: str) -> list[MemoryEvent]:
        return self.writer.flush(self.require_user(user_id))

    def forget(self, user_id: str, request: str) -> list[MemoryEvent]:
        from heedful.memory.forget import forget

        if not request or not request.strip():
            raise InputError("say what to forget")
        return forget(self.parts, self.areas, self.require_user(user_id), request)

    # -- reading -------------------------------------------------------------------------------
    def recall(
        self,
        user_id: str,
        query: str,
        *,
        limit: int | None = None,
        budget_tokens: int | None = None,
        as_of: str | None = None,
        include_forgotten: bool = False,
    ) -> RecallResult:
        return self.recaller.recall(  # the recaller validates the query, limit and budget
            self.require_user(user_id),
            query,
            limit=limit,
            budget_tokens=budget_tokens,
            as_of=as_of,
            include_forgotten=include_forgotten,
        )

    def list(
        self,
        user_id: str,
        *,
        kinds: builtins.list[str] | None = None,
        include_inactive: bool = False,
        as_of: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[FactRecord]:
        return self._history.list(
            self.require_user(user_id), kinds=kinds, include_inactive=include_inactive, as_of=as_of, limit=limit
        )

    def history(self, user_id: str, fact_id: str) -> FactHistory:
        return self._history.history(self.require_user(user_id), fact_id)

    def profile(self, user_id: str) -> FactRecord | None:
        profiles = self.store.memory.list_facts(self.require_user(user_id), kinds=["profile"], current_only=True)
        return profiles[-1] if profiles else None

    # -- user control --------------------------------------------------------------------------
    def correct(self, user_id: str, fact_id: str, text: str) -> MemoryEvent:
        return self._history.correct(self.require_user(user_id), fact_id, text)

    def delete(self, user_id: str, fact_id: str) -> MemoryEvent:
        return self._history.delete(self.require_user(user_id), fact_id)

    def undo(self, user_id: str) -> builtins.list[UndoneChange]:
        """Reverse the user's newest change group; what was reversed, newest first."""
        return self._history.undo(self.require_user(user_id))

    # -- consolidation -------------------------------------------------------------------------
    def dream(self, user_id: str) -> DreamResult:
        from heedful.memory.dream import dream

        user_id = self.require_user(user_id)
        flushed = self.flush(user_id)
        return dream(self.parts, user_id, flushed_events=len(flushed))


def _writer_for_adopted_harness(parts: MemoryParts) -> MemoryWriter:
    """The writer with the extraction and retraction rules of the adopted harness version.

    `heedful evolve adopt vN` is the user's word that vN is how their memory is written from now
    on; without an adopted version (v1) the built-in rules apply, and nothing is read from disk.
    """
    from heedful.harness.versions import DEFAULT_HARNESS, default_version

    name = default_version(parts.home)
    if name == DEFAULT_HARNESS:
        return MemoryWriter(parts)
    from heedful.harness.versions import stored_versions
    from heedful.memory.adjudicate import AdjudicateStep
    from heedful.memory.extract import ExtractStep

    version = stored_versions(parts.home).get(name)
    if version is None:  # an adopted file that no longer exists: the built-in rules, as before adoption
        return MemoryWriter(parts)
    extract, adjudicate = ExtractStep(version.params.extraction), AdjudicateStep(version.params.retraction)
    return MemoryWriter(parts, extract, adjudicate)
