"""The parameters of a harness version: how memory is extracted and retracted, recall weights and
budgets, what the context keeps, query rewrites.

A version is these parameters under a name. v1 is the defaults; later versions (proposed by
`heedful evolve` and accepted by its evaluator) are parameter files beside it, so an old
evaluation can always be rebuilt with the exact parameters it used. The extraction and retraction
parameters act when memory is written (the evaluator ingests each benchmark user through them);
the others when a context is built.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, ConfigDict, Field, field_validator

from heedful.memory.adjudicate import RetractionRules
from heedful.memory.extract import ExtractionRules

# The recall routes a version may weigh (memory/recall/engine.py DEFAULT_WEIGHTS), listed here so
# that reading a parameter file does not import the recall engine.
ROUTES = ("vector", "keyword", "entity", "time", "place", "recency")
# The named recall configurations (memory/recall/config.py CONFIGS), for the same reason.
RECALL_CONFIGS = ("default", "single-stage", "restatements", "newest-first")


class HarnessParams(BaseModel):
    """Everything a version may change. Unknown fields are refused, so a typo never passes silently."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    extract_facts: bool = Field(
        default=False,
        description="Extract facts from every message as it is stored (offline patterns, then adjudication);"
        " v1 reads the raw messages only.",
    )
    extraction: ExtractionRules = Field(
        default_factory=ExtractionRules, description="Which facts extraction reads (when extract_facts is on)."
    )
    retraction: RetractionRules = Field(
        default_factory=RetractionRules, description="Which newer facts retire older ones (when extract_facts is on)."
    )
    recall_config: str = Field(
        default="default", description="The named recall configuration the weights below are laid over."
    )
    recall_weights: dict[str, float] = Field(
        default_factory=dict, description="Overrides of the recall routes' fusion weights."
    )
    recall_limit: int | None = Field(
        default=None, ge=1, le=500, description="Items recall returns (None: recall's own)."
    )
    budget_tokens: int | None = Field(default=None, ge=1, description="Token budget of recall (None: recall's own).")
    max_facts: int | None = Field(default=None, ge=0, description="Recalled facts kept in the context (None: all).")
    max_summaries: int = Field(default=3, ge=0, le=100)
    max_excerpts: int = Field(default=6, ge=0, le=200)
    per_option_limit: int = Field(default=5, ge=1, le=100, description="Evidence items recalled per answer option.")
    query_expansions: dict[str, str] = Field(
        default_factory=dict,
        description="A word of the question -> words added to the recall query (to bridge vocabulary).",
    )

    @field_validator("recall_config")
    @classmethod
    def _known_config(cls, name: str) -> str:
        if name not in RECALL_CONFIGS:
            raise ValueError(f"unknown recall configuration {name!r}; known: {', '.join(RECALL_CONFIGS)}")
        return name

    @field_validator("recall_weights")
    @classmethod
    def _known_routes(cls, weights: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(weights) - set(ROUTES))
        if unknown:
            raise ValueError(f"unknown recall routes {unknown}; known: {', '.join(ROUTES)}")
        if any(w < 0 or w > 10 for w in weights.values()):
            raise ValueError("recall weights must lie between 0 and 10")
        return weights

    @field_validator("query_expansions")
    @classmethod
    def _single_words(cls, expansions: dict[str, str]) -> dict[str, str]:
        for word, extra in expansions.items():
            if not word.strip() or " " in word.strip() or not extra.strip():
                raise ValueError("each query expansion maps one word to the words it adds")
        return {word.strip().lower(): extra.strip() for word, extra in expansions.items()}

    def expand_query(self, question: str) -> str:
        """The question with the words its expansions add (once each), or the question itself."""
        if not self.query_expansions:
            return question
        from heedful.harness.options import content_words

        present = set(content_words(question))
        extra = [self.query_expansions[w] for w in dict.fromkeys(content_words(question)) if w in self.query_expansions]
        added = [w for w in " ".join(extra).split() if w.lower() not in present]
        return f"{question} {' '.join(dict.fromkeys(added))}".strip() if added else question

    def ingest_key(self) -> str:
        """What the stored memory depends on: equal keys, the same memory (raw messages only when off)."""
        if not self.extract_facts:
            return "raw"
        written = self.model_dump_json(include={"extraction", "retraction"})
        return "facts-" + hashlib.sha256(written.encode()).hexdigest()[:12]
