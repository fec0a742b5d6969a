"""The learning of one message's own words: admit, interpret, ground, resolve against the library, compile, commit.

The message is read alone first; context is consulted only when the message refers back ("keep
doing that"), and then only the previous *user* message can supply the meaning. Retracting or
weakening a checked rule, and every change the agent asks for (`proposed_by`), is held as a
proposal for the user's approval (`proposals`); retractions are read in `retraction`. The entry
point (which leaves out quoted text and starts the embedder's load first) is `rules.learn`. Offline,
the words are interpreted and their candidates compiled while the embedder still loads (`_read_early`),
before admission needs it; what admission turns away was read for nothing, in time that was idle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from heedful.llm import Model, run_step
from heedful.rules import lexicon as lx
from heedful.rules.detect import is_question, project_scoped
from heedful.rules.interpret import is_referent_only, referent_scope, resolve_referent, verify_evidence
from heedful.rules.library import compile_candidate, row_for, rule_from_row
from heedful.rules.models import LIVE_STATUSES, Action, Admission, Candidate, ContextMessage, LearnResult, Op, Rule
from heedful.rules.proposals import Change, Proposal, change_row, proposal_of
from heedful.rules.resolve import content_words, merge_update
from heedful.rules.retraction import retract
from heedful.rules.revisions import card, public_row, retired_row
from heedful.rules.scope_grounding import project_bound
from heedful.rules.steps import (
    AdmitInput,
    AdmitStep,
    ResolveInput,
    ResolveResponse,
    ResolveStep,
    interpreted,
)

if TYPE_CHECKING:
    from heedful.embed import Embedder
    from heedful.rules.parts import RuleParts
    from heedful.rules.validate import Outcome
    from heedful.store.records import RuleRow

RELATED_LIMIT = 8
_REQUEST = re.compile(r"^\s*(?:please\s+)?(?:can|could|would|will) you\b", re.IGNORECASE)


@dataclass(slots=True)
class _Turn:
    """One message's learning: who, what was said, and the library its candidates are resolved against."""

    parts: RuleParts
    user: str
    text: str
    scope: str
    project: str | None
    live: list[Rule]
    vectors: np.ndarray | None
    pending: list[Proposal]
    proposed_by: str | None
    touched: set[str] = field(default_factory=set)  # rules already changed by an earlier candidate
    compiled: dict[str, Outcome] = field(default_factory=dict)  # made while the embedder loaded (`_read_early`)


def _related(
    candidate: Candidate, rules: list[Rule], vectors: np.ndarray | None, vector: np.ndarray
) -> tuple[list[Rule], list[float]]:
    """The existing rules most related to a candidate (embedding or shared words)."""
    words = content_words(candidate.text)
    scored = []
    for index, rule in enumerate(rules):
        cosine = float(np.dot(vectors[index], vector)) if vectors is not None else 0.0
        shared = len(words & content_words(rule.text))
        scored.append((max(cosine, 0.3 * shared), cosine, rule))
    scored.sort(key=lambda item: item[0], reverse=True)
    top = [item for item in scored[:RELATED_LIMIT] if item[0] > 0.15]
    return [item[2] for item in top], [item[1] for item in top]


def learn_words(
    parts: RuleParts,
    user: str,
    text: str,
    words: str,
    left_out: list[str],
    project: str | None,
    context: list[ContextMessage],
    proposed_by: str | None = None,
) -> LearnResult:
    """Learn from `words`, the user's own words in `text` (`left_out`: the reasons for what was set aside)."""
    model = parts.model
    sources = [words]
    candidates: list[Candidate] = []
    compiled: dict[str, Outcome] = {}
    if is_referent_only(words):
        embedder = parts.embedder
        resolved, source_text = resolve_referent(context, lambda earlier: _states_a_rule(model, earlier, embedder))
        if not resolved or source_text is None:
            return LearnResult(
                decision="underspecified",
                scope=None,
                reasons=[
                    *left_out,
                    (
                        "the message points back ('keep doing that'), but the previous user message of this session "
                        "states no rule to keep"
                    ),
                ],
            )
        candidates = resolved
        sources.append(source_text)
        bound = referent_scope(words) == "project" or project_scoped(source_text)
        admission = Admission(
            decision="persist",
            scope="project" if bound else "global",
            reasons=["the reference resolves to the previous user message"],
        )
    else:
        early = _read_early(model, parts.embedder, words)
        if early is not None:
            candidates, compiled = early
        admission = _admit(model, words, parts.embedder)
    if admission.decision == "persist" and admission.retraction and is_question(words) and not _REQUEST.match(words):
        admission = Admission(decision="none", reasons=["a question about a retraction, not a retraction"])
    if admission.decision != "persist":
        return LearnResult(
            decision=admission.decision,
            scope=admission.scope if admission.decision != "task_local" and admission.decision != "none" else None,
            reasons=[*admission.reasons, *left_out],
        )
    admission = admission.model_copy(update={"reasons": [*admission.reasons, *left_out]})
    scope = admission.scope or "global"
    if scope == "project" and project is None:
        return LearnResult(
            decision="underspecified", scope="project", reasons=["the rule is for a project, but no project was given"]
        )
    repo = parts.repo
    library = repo.latest_version(user)
    rows_now = repo.rules_at(user, library, project=project, statuses=LIVE_STATUSES, with_embeddings=True)
    pending = [p for p in (proposal_of(row) for row in rows_now) if p is not None]
    visible = [rule_from_row(row) for row in rows_now if proposal_of(row) is None]
    if admission.retraction:
        return retract(repo, parts.new_id, user, text, words, visible, pending, admission, proposed_by)
    if not candidates:
        candidates = interpreted(model, words)
    grounded = [
        c
        for c in candidates
        if not c.vague
        and not is_referent_only(c.text)
        and verify_evidence(c, sources)
        and verify_evidence(c, [text, *sources[1:]])
    ]
    if not grounded:
        return LearnResult(
            decision="underspecified",
            scope=scope,
            reasons=[*admission.reasons, "no directive could be grounded in the user's own words"],
        )
    if scope == "global" and project is not None:
        anchor = _bound_to_project(model, grounded, compiled)
        if anchor is not None:
            scope = "project"
            admission = admission.model_copy(update={"scope": scope, "reasons": [*admission.reasons, anchor]})
    live = [r for r in visible if r.scope == scope]
    rows: list[RuleRow] = []
    actions: list[Action] = []
    embedder = parts.embedder
    by_id = {row.id: row for row in rows_now}
    vectors = np.stack([_stored_vector(by_id.get(r.id), embedder.dim) for r in live]) if live else None
    new_vectors = embedder.embed([" ".join([c.text, c.condition or ""]) for c in grounded])
    turn = _Turn(parts, user, text, scope, project, live, vectors, pending, proposed_by, compiled=compiled)
    for candidate, vector in zip(grounded, new_vectors, strict=True):
        action, made = _resolve_one(turn, candidate, vector)
        actions.append(action)
        rows.extend(made)
    changed = [a.rule_id for a in actions if a.op != "noop" and a.rule_id]
    if len(grounded) > 1 and len(changed) > 1:
        actions.insert(0, Action(op="split", children=changed, reason="a bundled correction, stored as atomic rules"))
    version = None
    if rows:
        version = repo.commit(user, "learn", text[:120], rows)
    return LearnResult(
        decision="persist",
        scope=scope,
        actions=actions,
        reasons=admission.reasons,  # type: ignore[arg-type]
        library_version=version,
    )


def _read_early(model: Model, embedder: Embedder, words: str) -> tuple[list[Candidate], dict[str, Outcome]] | None:
    """Offline, while the embedder's model still loads (in its own thread, which leaves this one idle): interpret
    the words and compile each candidate, as the learning would after admission, and load the selection model.
    None when there is no such wait, or when a model answers (its calls are made only for an admitted message)."""
    if not model.offline or not getattr(embedder, "loading", False):
        return None
    from heedful.rules.selection_model import load_reading_model

    try:
        load_reading_model()  # the reading refresh after a learn uses it (`selection_readings.refresh`)
        candidates = interpreted(model, words)
        return candidates, {_compile_key(c): compile_candidate(model, c) for c in candidates}
    except Exception:  # what the learning would meet only for an admitted message: it meets it there, if at all
        return None


def _bound_to_project(model: Model, candidates: list[Candidate], compiled: dict[str, Outcome]) -> str | None:
    """Why the rule is the project's although its words named no anchor: every check it compiles to names the
    project's own commands or folders (`make lint`, `docs/v*/`). The outcomes are kept for the resolution."""
    reasons = []
    for candidate in candidates:
        key = _compile_key(candidate)
        outcome = compiled.get(key)
        if outcome is None:
            outcome = compiled[key] = compile_candidate(model, candidate)
        if outcome.status == "checked" and outcome.check is not None:
            reasons.append(project_bound(outcome.check))
    if not reasons or not all(reasons):
        return None
    return f"project scope: {reasons[0]}"


def _compile_key(candidate: Candidate) -> str:
    return candidate.model_dump_json()


def _compile(turn: _Turn, candidate: Candidate) -> Outcome:
    """The candidate's compiled outcome: made early (`_read_early`) or now."""
    made = turn.compiled.pop(_compile_key(candidate), None)
    return made if made is not None else compile_candidate(turn.parts.model, candidate)


def _stored_vector(row: RuleRow | None, dim: int) -> np.ndarray:
    """A rule's stored embedding, or zeros when it has none of this dimension (an embedder changed since)."""
    if row is None or row.embedding is None or len(row.embedding) != dim:
        return np.zeros(dim, dtype=np.float32)
    return row.embedding


def _admit(model: Model, text: str, embedder: Embedder | None = None) -> Admission:
    return run_step(model, AdmitStep(embedder), AdmitInput(text=text))


def _states_a_rule(model: Model, text: str, embedder: Embedder | None = None) -> bool:
    """Can "make that a rule" point here: a lasting rule, or one the user bound to the task ("for this search")."""
    admission = _admit(model, text, embedder)
    return not admission.retraction and (
        admission.decision == "persist" or (admission.decision == "task_local" and bool(lx.TASK_LOCAL.search(text)))
    )


def _unchanged_related(turn: _Turn, candidate: Candidate, vector: np.ndarray) -> tuple[list[Rule], list[float]]:
    """The related rules no earlier candidate of this message has changed (their vectors kept aligned)."""
    keep = [i for i, r in enumerate(turn.live) if r.id not in turn.touched]
    vectors = None if turn.vectors is None else turn.vectors[keep]
    return _related(candidate, [turn.live[i] for i in keep], vectors, vector)


def _decide(
    turn: _Turn, candidate: Candidate, related: list[Rule], similarities: list[float]
) -> tuple[ResolveResponse, Rule | None]:
    """The resolver's decision for a candidate, and the related rule it names (if any)."""
    decision = run_step(
        turn.parts.model,
        ResolveStep(),
        ResolveInput(candidate=candidate, related=[card(r) for r in related], similarities=similarities),
    )
    return decision, next((r for r in related if r.id == decision.target_id), None)


def _resolve_one(turn: _Turn, candidate: Candidate, vector: np.ndarray) -> tuple[Action, list[RuleRow]]:
    repo = turn.parts.repo
    user, text = turn.user, turn.text
    if candidate.dangerous or turn.proposed_by is not None:
        related, similarities = _unchanged_related(turn, candidate, vector)
        if turn.proposed_by is not None and related:
            decision, target = _decide(turn, candidate, related, similarities)
            if decision.op == "noop" and target is not None:
                return Action(op="noop", rule_id=target.id, rule=dict(target.public()), reason=decision.reason), []
            if decision.op in ("update", "supersede") and target is not None:
                merged = merge_update(card(target), candidate) if decision.op == "update" else candidate
                change: Change = "update" if decision.op == "update" else "supersede"
                return _propose(turn, merged, change, target, turn.proposed_by, decision.reason, vector)
        why = (candidate.danger_reason or "would weaken a safeguard") if candidate.dangerous else "a new rule"
        return _propose(turn, candidate, "new", None, turn.proposed_by or "user", why, vector)
    decision, target = _decide(turn, candidate, *_unchanged_related(turn, candidate, vector))
    if decision.op == "noop" and target is not None:
        return Action(op="noop", rule_id=target.id, rule=dict(target.public()), reason=decision.reason), []
    if decision.op == "update" and target is not None:
        merged = merge_update(card(target), candidate)
        outcome = _compile(turn, merged)
        if _weakens(target, outcome):
            why = f"{decision.reason}; the check would be dropped ({outcome.reason})"
            return _propose(turn, merged, "update", target, "user", why, vector)
        row = row_for(
            target.id,
            user,
            repo.next_rule_version(user, target.id),
            merged,
            target.scope,
            target.project,
            outcome.status,
            outcome.check,
            "update",
            f"{decision.reason}; {outcome.reason}",
            text,
            supersedes=target.supersedes,
            embedding=vector,
        )
        turn.touched.add(target.id)
        return Action(op="update", rule_id=target.id, rule=public_row(target.id, row), reason=decision.reason), [row]
    outcome = _compile(turn, candidate)
    if decision.op == "supersede" and target is not None and _weakens(target, outcome):
        why = f"{decision.reason}; the replacement has no check ({outcome.reason})"
        return _propose(turn, candidate, "supersede", target, "user", why, vector)
    rule_id = turn.parts.new_id()
    rows = []
    op: Op = "new"
    supersedes = None
    if decision.op == "supersede" and target is not None:
        op, supersedes = "supersede", target.id
        turn.touched.add(target.id)
        version = repo.next_rule_version(user, target.id)
        rows.append(retired_row(target, user, version, f"superseded by {rule_id}", text, superseded_by=rule_id))
    row = row_for(
        rule_id,
        user,
        1,
        candidate,
        turn.scope,
        turn.project,
        outcome.status,
        outcome.check,
        op,
        f"{decision.reason}; {outcome.reason}",
        text,
        supersedes=supersedes,
        embedding=vector,
    )
    rows.append(row)
    return Action(op=op, rule_id=rule_id, rule=public_row(rule_id, row), reason=decision.reason), rows


def _weakens(target: Rule, outcome: Outcome) -> bool:
    """A checked rule whose change would leave no check in its place."""
    return target.status == "checked" and outcome.status != "checked"


def _propose(
    turn: _Turn,
    candidate: Candidate,
    change: Change,
    target: Rule | None,
    source: str,
    why: str,
    vector: np.ndarray,
) -> tuple[Action, list[RuleRow]]:
    """Hold a change for the user's approval; the target stays as it is meanwhile."""
    waiting = next(
        (
            p
            for p in turn.pending
            if p.change == change
            and p.target == (target.id if target else None)
            and (target is not None or p.text == candidate.text)
        ),
        None,
    )
    if waiting is not None:
        return Action(op="noop", rule_id=waiting.rule_id, reason="the same change is already waiting for approval"), []
    rule_id = turn.parts.new_id()
    row = change_row(
        rule_id,
        turn.user,
        candidate,
        change,
        target,
        turn.scope,
        turn.project,
        source,
        why,
        turn.text,
        embedding=vector,
    )
    if target is not None:
        turn.touched.add(target.id)
    return Action(
        op="needs_user", rule_id=rule_id, rule=public_row(rule_id, row), reason=f"held for the user: {row.reason}"
    ), [row]


__all__ = ["learn_words"]
