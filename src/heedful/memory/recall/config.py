"""Named recall configurations: every number recall is tuned by, under one name, never changed in place.

    config = recall_config("default")
    tuned = config.derive("default+keyword-1.5", weights={"keyword": 1.5})
    Recaller(store, embedder, config=tuned)

A harness version names the configuration it recalls with, `recall --explain` reports the name,
and a benchmark row says which one produced it. A variant is a new configuration under a new
name (`derive`); the registered ones are never altered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from heedful.errors import InputError
from heedful.memory.recall.sessions import SessionStage
from heedful.memory.recall.updates import CHANGE_DEPTH

ROUTE_NAMES = ("vector", "keyword", "entity", "time", "place", "recency")

# Tuned on LoCoMo conversations 0-4 (see the README, Benchmarks): keyword search over raw turns is the
# strongest single route there, dense search adds what the words miss; a named time is a strong
# hint when the question gives one; entities and recency only nudge; the second stage (the turns of
# the best sessions, see sessions.py) adds what the question's words and vector alone rank low.
_DEFAULT_WEIGHTS = {
    "vector": 0.4,
    "keyword": 1.0,
    "entity": 0.15,
    "time": 1.0,
    "place": 0.3,
    "recency": 0.05,
}


@dataclass(frozen=True, slots=True)
class RecallConfig:
    """Route weights, the session stage (None: one stage) and how restatements are linked."""

    name: str
    weights: Mapping[str, float]
    session_stage: SessionStage | None = field(default_factory=SessionStage)
    # Two messages at least this alike (cosine) count as one thing said twice (None: only linked facts).
    restated_cosine: float | None = None
    # For a question about now: every newer restatement goes above an older statement (True), or only
    # the best-ranked one (False). See updates.py for what each costs; derive a configuration to use it.
    every_restatement: bool = False
    # For a question about now: a newer item on its subject that states a change ("has grown to", "the new
    # deadline"), within the first this many, goes above the older statement (0: off; updates.py).
    change_depth: int = CHANGE_DEPTH
    # ... for a modal question too ("what deadline should I aim for?"), not only one stating the present.
    modal_changes: bool = True
    # An item naming none of the common people the question names loses this share of its score (persons.py).
    person_penalty: float = 0.0
    # ... except the first this many of the fused list: a question may name the wrong person for a strong match.
    person_keep: int = 0
    # ... and the keyword route's first this many: a question naming the wrong person still shares their words.
    person_exempt_keyword: int = 0
    # Keep the names of the people the memory is about in the question the vector route embeds (vector.py).
    names_in_vector: bool = False

    def __post_init__(self) -> None:
        unknown = sorted(set(self.weights) - set(ROUTE_NAMES))
        if unknown:
            raise InputError(f"unknown recall routes {unknown}; known: {', '.join(ROUTE_NAMES)}")
        if any(weight < 0 for weight in self.weights.values()):
            raise InputError("recall weights cannot be negative")
        # A read-only copy: the caller's dict can change afterwards without changing this configuration.
        object.__setattr__(self, "weights", MappingProxyType({**self.weights}))

    def weight(self, route: str) -> float:
        return float(self.weights.get(route, 0.0))

    def derive(self, name: str, weights: Mapping[str, float] | None = None, **changes: object) -> RecallConfig:
        """A new configuration under `name`: these weights over this one's, the other `changes` as given."""
        return dataclasses.replace(self, name=name, weights={**self.weights, **(weights or {})}, **changes)  # type: ignore[arg-type]

    def describe(self) -> dict[str, object]:
        stage = self.session_stage
        return {
            "name": self.name,
            "weights": dict(self.weights),
            "session_stage": None if stage is None else dataclasses.asdict(stage),
            "restated_cosine": self.restated_cosine,
            "every_restatement": self.every_restatement,
            "change_depth": self.change_depth,
            "modal_changes": self.modal_changes,
            "person_penalty": self.person_penalty,
            "person_keep": self.person_keep,
            "person_exempt_keyword": self.person_exempt_keyword,
            "names_in_vector": self.names_in_vector,
        }


DEFAULT = RecallConfig("default", _DEFAULT_WEIGHTS)
CONFIGS: Mapping[str, RecallConfig] = MappingProxyType(
    {
        config.name: config
        for config in (
            DEFAULT,
            # The first stage alone (the routes fused, no session stage): what recall was before it.
            DEFAULT.derive("single-stage", session_stage=None),
            # Restatements found by vector likeness too: more knowledge updates ranked newer-first, at
            # a cost on LoCoMo and BEAM @10 (see supersession.py).
            DEFAULT.derive("restatements", restated_cosine=0.6),
            # Every newer restatement above the older statement, newest first: 71.8% of BEAM's update
            # questions newer-first (51.3% by default), at about 8 points of BEAM @5 (see updates.py).
            DEFAULT.derive("newest-first", every_restatement=True),
        )
    }
)


def recall_config(name: str) -> RecallConfig:
    """The registered configuration of that name (a clear error naming the known ones otherwise)."""
    found = CONFIGS.get(name)
    if found is None:
        raise InputError(f"unknown recall configuration {name!r}; known: {', '.join(CONFIGS)}")
    return found
