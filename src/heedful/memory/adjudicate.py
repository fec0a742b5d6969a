"""Adjudication: how each candidate relates to what is stored (offline rules, or one model call).

Offline, embeddings only find the neighbours; agreement is decided on entity, predicate and
object, because a vector cannot tell "likes X" from "no longer likes X". `RetractionRules` say
which changes of mind retire a stored fact: a harness version carries them, so `heedful evolve`
can score a change to them.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

from heedful.llm.prompts.adjudicate_facts import (
    Adjudication,
    AdjudicationContext,
    CandidateWithNeighbours,
    Decision,
    StoredFact,
    build_messages,
)
from heedful.llm.prompts.extract_facts import Candidate
from heedful.llm.protocol import ChatMessage
from heedful.memory.normalize import norm_key

DUPLICATE_COSINE = 0.95
_OPPOSITES = {("likes", "dislikes"), ("dislikes", "likes")}
_PREDICATE = re.compile(r"[a-z][a-z0-9_]{0,40}")


class RetractionRules(BaseModel):
    """Which newer statements retire an older one (the offline path). The defaults are heedful's own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    negation_retracts: bool = Field(default=True, description="'I no longer like X' retires 'likes X'.")
    flip_retracts: bool = Field(default=True, description="'dislikes X' retires 'likes X', and the reverse.")
    switch_retracts: bool = Field(default=True, description="'switched from X to Y' retires the fact naming X.")
    single_valued_retracts: bool = Field(
        default=True, description="A new value of a one-value slot (name, city, job) retires the old value."
    )
    single_valued: tuple[str, ...] = Field(
        default=(), description="More predicates that hold one value at a time, besides those extraction marks."
    )
    duplicate_cosine: float = Field(
        default=DUPLICATE_COSINE, ge=0.5, le=1.0, description="Same slot and at least this alike: a duplicate."
    )

    @field_validator("single_valued")
    @classmethod
    def _predicates(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        bad = [n for n in names if not _PREDICATE.fullmatch(n)]
        if bad:
            raise ValueError(f"single-valued predicates are snake_case names, not {bad}")
        return tuple(sorted(set(names)))


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and norm_key(a) == norm_key(b)


def _is_replaced_by(fact: StoredFact, candidate: Candidate, rules: RetractionRules) -> bool:
    """A change of mind: a "no longer", a flipped preference, "switched from X to Y", or the same
    single-valued slot (name, city) with a new value, each as far as the rules allow."""
    same_predicate = fact.predicate == candidate.predicate
    same_object = _same(fact.object, candidate.object)
    if candidate.negated:
        return rules.negation_retracts and same_predicate and same_object
    if (fact.predicate, candidate.predicate) in _OPPOSITES:
        return rules.flip_retracts and same_object
    if candidate.replaces and fact.object and norm_key(candidate.replaces) in norm_key(fact.object):
        return rules.switch_retracts
    single = candidate.single_valued or candidate.predicate in rules.single_valued
    return rules.single_valued_retracts and single and same_predicate and not same_object


def _decide(item: CandidateWithNeighbours, rules: RetractionRules) -> Decision:
    candidate = item.candidate
    same_entity = [f for f in item.neighbours if _same(f.entity, candidate.entity)]
    replaced = [fact for fact in same_entity if _is_replaced_by(fact, candidate, rules)]
    if replaced:
        return Decision(
            index=item.index,
            action="replacement",
            target_ids=[f.id for f in replaced[:2]],
            reason="same subject and relation with a changed value",
        )
    for fact in same_entity:
        if fact.predicate != candidate.predicate:
            continue
        if _same(fact.object, candidate.object) or fact.similarity >= rules.duplicate_cosine:
            return Decision(index=item.index, action="duplicate", target_ids=[fact.id], reason="already stored")
        if fact.object and candidate.object and norm_key(fact.object) in norm_key(candidate.object):
            return Decision(
                index=item.index, action="enrichment", target_ids=[fact.id], reason="adds detail to a stored fact"
            )
    related = [f for f in same_entity if f.predicate == candidate.predicate]
    if related:
        return Decision(
            index=item.index, action="coexisting", target_ids=[related[0].id], reason="another value that also holds"
        )
    return Decision(index=item.index, action="new", reason="nothing related is stored")


def adjudicate_offline(context: AdjudicationContext, rules: RetractionRules | None = None) -> Adjudication:
    rules = rules or RetractionRules()
    return Adjudication(decisions=[_decide(item, rules) for item in context.items])


class AdjudicateStep:
    name = "memory.adjudicate"
    response_model = Adjudication

    def __init__(self, rules: RetractionRules | None = None) -> None:
        self.rules = rules or RetractionRules()

    def messages(self, context: AdjudicationContext) -> list[ChatMessage]:
        return build_messages(context)

    def offline(self, context: AdjudicationContext) -> Adjudication:
        return adjudicate_offline(context, self.rules)


__all__ = ["AdjudicateStep", "RetractionRules", "StoredFact", "adjudicate_offline"]
