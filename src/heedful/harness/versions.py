"""The registry of harness versions. A new version is added beside the old, never edited in place,
so that stored evaluations stay reproducible; the default moves only when an evaluation accepts it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from heedful.errors import InputError
from heedful.harness.context import HarnessV1, MemoryContext

if TYPE_CHECKING:
    from heedful.api import Heedful


class Harness(Protocol):
    name: str

    def build(
        self,
        hf: Heedful,
        user_id: str,
        question: str,
        options: list[str] | None = None,
        as_of: str | None = None,
    ) -> MemoryContext: ...


HARNESSES: dict[str, type[Harness]] = {"v1": HarnessV1}
DEFAULT_HARNESS = "v1"


def get_harness(name: str | None = None) -> Harness:
    chosen = name or DEFAULT_HARNESS
    if chosen not in HARNESSES:
        raise InputError(f"unknown harness {chosen!r}; available: {', '.join(HARNESSES)}")
    return HARNESSES[chosen]()
