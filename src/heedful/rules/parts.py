"""What the rule operations are given: the rule store, the model, the embedder and new rule ids.

    parts = RuleParts(store.rules, lambda: hf.model, lambda: hf.embedder)
    RuleService(parts).learn("me", "never push to main")

The model and the embedder are loaded on first use (a rule read that needs neither never loads
numpy's embedder or a model client), so they are passed as loaders, not as objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from heedful.ids import new_id

if TYPE_CHECKING:
    from heedful.api import Heedful
    from heedful.embed import Embedder
    from heedful.llm import Model
    from heedful.rules.selection_readings import MetaStore
    from heedful.store.protocols import RuleStore


def new_rule_id() -> str:
    return new_id("r")


@dataclass(frozen=True, slots=True)
class RuleParts:
    repo: RuleStore
    load_model: Callable[[], Model]
    load_embedder: Callable[[], Embedder]
    new_id: Callable[[], str] = new_rule_id
    meta: MetaStore | None = None  # where each rule's selection reading is kept (`rules.selection_readings`)

    @property
    def model(self) -> Model:
        return self.load_model()

    @property
    def embedder(self) -> Embedder:
        return self.load_embedder()

    @classmethod
    def of(cls, hf: Heedful) -> RuleParts:
        """The parts of an open `Heedful` (its model and embedder still load on first use)."""
        return cls(hf.store.rules, lambda: hf.model, lambda: hf.embedder, meta=hf.store)
