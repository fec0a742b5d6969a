"""The learner's model-shaped steps: each renders messages for a model and has an offline path.

`run_step(hf.model, Step(), input)` takes the offline (deterministic) path when no model is
configured; a configured model answers the same response models from `messages()`.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from heedful.embed import Embedder
from heedful.llm import ChatMessage
from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.rules.models import Admission, Candidate, CheckSpec, Result


# -- admission --------------------------------------------------------------------------------
class AdmitInput(BaseModel):
    text: str


class AdmitStep:
    """Offline: the learned admission model over the embedding and the lexicon's signals when the
    embedder it was trained with is given, else the lexicon alone."""

    name = "rules.admit"
    response_model = Admission

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder

    def messages(self, context: AdmitInput) -> list[ChatMessage]:
        system = (
            "Decide whether one user message to a coding agent holds a lasting behavioural rule. "
            "Read the message alone. Answer decision: persist (a lasting preference, recurring friction or "
            "mistake to avoid; 'from now on X' is lasting), task_local (only for the current task: a request, "
            "an answer, a temporary exception such as 'be detailed this time'), underspecified (reusable but "
            "its meaning or activation is unclear: 'be careful with that', 'when the project is done'), or none "
            "(no instruction). Scope for persist: project when the user binds it to this repo/project/codebase/"
            "'here'/'we', else global. Set retraction when the user explicitly withdraws an earlier rule. "
            + DATA_NOTE
        )
        return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=data_block(context.text))]

    def offline(self, context: AdmitInput) -> Admission:
        from heedful.rules.detect import admit

        lexicon = admit(context.text)
        if self.embedder is None or not context.text.strip():
            return lexicon
        from heedful.rules import admission_model

        weights = admission_model.shipped()
        if weights is None or weights.embedder != self.embedder.name:
            return lexicon
        vector = self.embedder.embed([context.text])[0]
        return admission_model.admit(context.text, vector, weights, lexicon)


# -- interpretation ---------------------------------------------------------------------------
class InterpretInput(BaseModel):
    text: str


class InterpretResponse(BaseModel):
    candidates: list[Candidate] = Field(default_factory=list)


class InterpretStep:
    name = "rules.interpret"
    response_model = InterpretResponse

    def messages(self, context: InterpretInput) -> list[ChatMessage]:
        system = (
            "Split the user's correction into atomic directives (one behaviour each; keep a prohibition with "
            "its replacement, split independent requirements). For each give text, polarity, condition (only "
            "from explicit wording), exceptions, and evidence: exact quotes copied from the message. Mark "
            "dangerous any rule that would weaken safety (skipping hooks or tests, never asking before deleting, "
            "force pushes, committing secrets). " + DATA_NOTE
        )
        return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=data_block(context.text))]

    def offline(self, context: InterpretInput) -> InterpretResponse:
        from heedful.rules.interpret import interpret

        return InterpretResponse(candidates=interpret(context.text))


# -- compilation ------------------------------------------------------------------------------
class CompileInput(BaseModel):
    text: str
    condition: str | None = None
    exceptions: list[str] = Field(default_factory=list)


class CompileResponse(BaseModel):
    proposals: list[CheckSpec] = Field(default_factory=list)


class CompileStep:
    name = "rules.compile"
    response_model = CompileResponse

    def messages(self, context: CompileInput) -> list[ChatMessage]:
        from heedful.rules.checks import KINDS

        kinds = {name: (module.__doc__ or "").strip() for name, module in KINDS.items()}
        system = (
            "Propose programmatic checks for a learned rule, most faithful first, using only these kinds: "
            f"{json.dumps(kinds)}. Propose nothing when no kind states the whole requirement; never drop a "
            "condition or exception to make a rule checkable, never invent thresholds. " + DATA_NOTE
        )
        return [ChatMessage(role="system", content=system),
                ChatMessage(role="user", content=data_block(context.model_dump()))]

    def offline(self, context: CompileInput) -> CompileResponse:
        from heedful.rules.compile import propose

        return CompileResponse(proposals=propose(context.text, context.condition, context.exceptions))


# -- independent review -----------------------------------------------------------------------
class ReviewInput(BaseModel):
    rule_text: str
    spec: CheckSpec
    cases: list[tuple[str, dict[str, Any]]]


class ReviewResponse(BaseModel):
    approved: bool
    meaning_clear: bool
    reason: str
    labels: list[Result]


class ReviewStep:
    """Sees the rule, the proposed check and the cases' evidence, never the expected labels."""

    name = "rules.review"
    response_model = ReviewResponse

    def messages(self, context: ReviewInput) -> list[ChatMessage]:
        system = (
            "Review a proposed check for a learned rule. Say whether it preserves the rule's meaning, scope and "
            "exceptions without inventing requirements (approved), whether the rule is clear (meaning_clear), "
            "and label each case pass, violated, not_applicable or unknown on your own. " + DATA_NOTE
        )
        spec = context.spec.model_dump(exclude={"cases", "validation"})
        payload = {"rule": context.rule_text, "check": spec, "cases": context.cases}
        return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=data_block(payload))]

    def offline(self, context: ReviewInput) -> ReviewResponse:
        from heedful.rules.validate import offline_review

        approved, clear, reason, labels = offline_review(context)
        return ReviewResponse(approved=approved, meaning_clear=clear, reason=reason, labels=labels)  # type: ignore[arg-type]


# -- library resolution -----------------------------------------------------------------------
class ResolveInput(BaseModel):
    candidate: Candidate
    related: list[dict[str, Any]] = Field(default_factory=list)
    similarities: list[float] = Field(default_factory=list)


class ResolveResponse(BaseModel):
    op: str
    target_id: str | None = None
    reason: str = ""


class ResolveStep:
    name = "rules.resolve"
    response_model = ResolveResponse

    def messages(self, context: ResolveInput) -> list[ChatMessage]:
        system = (
            "Resolve a candidate rule against related existing rules: noop (already covered), update (refined "
            "condition, exception or wording), supersede (the requirement changed), or new. Retract only on an "
            "explicit retraction. Name the target rule id. " + DATA_NOTE
        )
        return [ChatMessage(role="system", content=system),
                ChatMessage(role="user", content=data_block(context.model_dump()))]

    def offline(self, context: ResolveInput) -> ResolveResponse:
        from heedful.rules.resolve import resolve_offline

        return resolve_offline(context)


# -- selection ------------------------------------------------------------------------------
class SelectCard(BaseModel):
    id: str
    text: str
    condition: str | None = None
    exceptions: list[str] = Field(default_factory=list)
    cosine: float = 0.0
    keyword: float = 0.0


class SelectInput(BaseModel):
    query: str
    project_languages: list[str] | None = None
    cards: list[SelectCard]
    cosine_threshold: float
    keyword_threshold: float


class SelectDecision(BaseModel):
    id: str
    applies: bool
    why: str


class SelectResponse(BaseModel):
    decisions: list[SelectDecision]


class SelectStep:
    """One batch of rule cards (at most 32) judged for the current task and message."""

    name = "rules.select"
    response_model = SelectResponse

    def messages(self, context: SelectInput) -> list[ChatMessage]:
        system = (
            "Select the learned rules that apply to the CURRENT task and the user's latest message. Judge each "
            "rule's scope, condition and exceptions; topic similarity alone is not enough; an exception that the "
            "request meets excludes a rule. Prefer including a rule that may apply over missing it. Answer one "
            "decision per card with a short reason. " + DATA_NOTE
        )
        return [ChatMessage(role="system", content=system),
                ChatMessage(role="user", content=data_block(context.model_dump()))]

    def offline(self, context: SelectInput) -> SelectResponse:
        from heedful.rules.select import judge_card

        languages = set(context.project_languages) if context.project_languages is not None else None
        decisions = []
        for card in context.cards:
            applies, why = judge_card(context.query, card.text, card.condition, card.exceptions, card.cosine,
                                      card.keyword, languages, context.cosine_threshold, context.keyword_threshold)
            decisions.append(SelectDecision(id=card.id, applies=applies, why=why))
        return SelectResponse(decisions=decisions)
