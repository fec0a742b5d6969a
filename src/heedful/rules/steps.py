"""The learner's model-shaped steps: each renders messages for a model and has an offline path.

`run_step(hf.model, Step(), input)` takes the offline (deterministic) path when no model is
configured; a configured model answers the same response models from `messages()`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from heedful.embed import Embedder
from heedful.llm import ChatMessage
from heedful.llm.prompts import admit_rule, compile_check, interpret_rule, resolve_rule, review_check, select_rules
from heedful.llm.prompts.admit_rule import AdmitInput
from heedful.llm.prompts.compile_check import CompileInput, CompileResponse
from heedful.llm.prompts.interpret_rule import InterpretInput, InterpretResponse
from heedful.llm.prompts.resolve_rule import ResolveInput, ResolveResponse
from heedful.llm.prompts.review_check import ReviewInput, ReviewResponse
from heedful.llm.prompts.select_rules import SelectCard, SelectDecision, SelectInput, SelectResponse
from heedful.rules.models import Admission, Candidate

if TYPE_CHECKING:
    from heedful.llm import Model

__all__ = [
    "AdmitInput",
    "AdmitStep",
    "CompileInput",
    "CompileResponse",
    "CompileStep",
    "InterpretInput",
    "InterpretResponse",
    "InterpretStep",
    "ResolveInput",
    "ResolveResponse",
    "ResolveStep",
    "ReviewInput",
    "ReviewResponse",
    "ReviewStep",
    "SelectCard",
    "SelectDecision",
    "SelectInput",
    "SelectResponse",
    "SelectStep",
    "interpreted",
]


# -- admission --------------------------------------------------------------------------------
class AdmitStep:
    """Offline: the learned admission model over the embedding and the lexicon's signals when the
    embedder it was trained with is given, else the lexicon alone."""

    name = "rules.admit"
    response_model = Admission

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder

    def messages(self, context: AdmitInput) -> list[ChatMessage]:
        return admit_rule.messages(context)

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
class InterpretStep:
    name = "rules.interpret"
    response_model = InterpretResponse

    def messages(self, context: InterpretInput) -> list[ChatMessage]:
        return interpret_rule.messages(context)

    def offline(self, context: InterpretInput) -> InterpretResponse:
        from heedful.rules.interpret import interpret

        return InterpretResponse(candidates=interpret(context.text))


def interpreted(model: Model, text: str) -> list[Candidate]:
    """The atomic candidates of a message, by the model or offline; a forbidden list of commands a model kept as
    one rule is split like the offline reading splits it (one check matches one command)."""
    from heedful.llm import run_step
    from heedful.rules.command_lists import split_command_list

    candidates = run_step(model, InterpretStep(), InterpretInput(text=text)).candidates
    return [part for candidate in candidates for part in split_command_list(candidate)]


# -- compilation ------------------------------------------------------------------------------
class CompileStep:
    name = "rules.compile"
    response_model = CompileResponse

    def messages(self, context: CompileInput) -> list[ChatMessage]:
        from heedful.rules.checks import KINDS

        kinds = {name: kind.summary for name, kind in KINDS.items()}
        return compile_check.messages(context, kinds)

    def offline(self, context: CompileInput) -> CompileResponse:
        from heedful.rules.compile import propose

        return CompileResponse(proposals=propose(context.text, context.condition, context.exceptions))


# -- independent review -----------------------------------------------------------------------
class ReviewStep:
    """Sees the rule, the proposed check and the cases' evidence, never the expected labels."""

    name = "rules.review"
    response_model = ReviewResponse

    def messages(self, context: ReviewInput) -> list[ChatMessage]:
        return review_check.messages(context)

    def offline(self, context: ReviewInput) -> ReviewResponse:
        from heedful.rules.validate import offline_review

        approved, clear, reason, labels = offline_review(context)
        return ReviewResponse(approved=approved, meaning_clear=clear, reason=reason, labels=labels)  # type: ignore[arg-type]


# -- library resolution -----------------------------------------------------------------------
class ResolveStep:
    name = "rules.resolve"
    response_model = ResolveResponse

    def messages(self, context: ResolveInput) -> list[ChatMessage]:
        return resolve_rule.messages(context)

    def offline(self, context: ResolveInput) -> ResolveResponse:
        from heedful.rules.resolve import resolve_offline

        return resolve_offline(context)


# -- selection ------------------------------------------------------------------------------
class SelectStep:
    """One batch of rule cards (at most 32) judged for the current task and message."""

    name = "rules.select"
    response_model = SelectResponse

    def messages(self, context: SelectInput) -> list[ChatMessage]:
        return select_rules.messages(context)

    def offline(self, context: SelectInput) -> SelectResponse:
        from heedful.rules.select import judge_card

        languages = set(context.project_languages) if context.project_languages is not None else None
        decisions = []
        for card in context.cards:
            applies, why = judge_card(
                context.query,
                card.text,
                card.condition,
                card.exceptions,
                card.cosine,
                card.keyword,
                languages,
                context.cosine_threshold,
                context.keyword_threshold,
            )
            decisions.append(SelectDecision(id=card.id, applies=applies, why=why))
        return SelectResponse(decisions=decisions)
