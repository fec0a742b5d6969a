"""Adjudication: how each candidate relates to what is stored (offline rules, or one model call).

Offline, embeddings only find the neighbours; agreement is decided on entity, predicate and
object, because a vector cannot tell "likes X" from "no longer likes X".
"""

from __future__ import annotations

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


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and norm_key(a) == norm_key(b)


def _is_replaced_by(fact: StoredFact, candidate: Candidate) -> bool:
    """A change of mind: a "no longer", a flipped preference, "switched from X to Y", or the same
    single-valued slot (name, city) with a new value."""
    same_predicate = fact.predicate == candidate.predicate
    same_object = _same(fact.object, candidate.object)
    if candidate.negated:
        return same_predicate and same_object
    if (fact.predicate, candidate.predicate) in _OPPOSITES:
        return same_object
    if candidate.replaces and fact.object and norm_key(candidate.replaces) in norm_key(fact.object):
        return True
    return candidate.single_valued and same_predicate and not same_object


def _decide(item: CandidateWithNeighbours) -> Decision:
    candidate = item.candidate
    same_entity = [f for f in item.neighbours if _same(f.entity, candidate.entity)]
    # A change of mind: the same single-valued slot with a new value, a flipped preference,
    # a "no longer", or "switched from X to Y".
    replaced = [fact for fact in same_entity if _is_replaced_by(fact, candidate)]
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
        if _same(fact.object, candidate.object) or fact.similarity >= DUPLICATE_COSINE:
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


def adjudicate_offline(context: AdjudicationContext) -> Adjudication:
    return Adjudication(decisions=[_decide(item) for item in context.items])


class AdjudicateStep:
    name = "memory.adjudicate"
    response_model = Adjudication

    def messages(self, context: AdjudicationContext) -> list[ChatMessage]:
        return build_messages(context)

    def offline(self, context: AdjudicationContext) -> Adjudication:
        return adjudicate_offline(context)


__all__ = ["AdjudicateStep", "StoredFact", "adjudicate_offline"]
