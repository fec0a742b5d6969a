"""Appeal review: may a delivery judgment the agent appealed be overturned?

Offline (and always on the hook path, which never calls a model) only a pass on re-check
overturns. Through the API with a model configured, a separate call reviews the appeal: it sees
the rule, the judgment with its quotes, the reply and the agent's evidence, and overturns only
when the evidence shows the rule is in fact kept. Either way the overturn applies to that reply
only; the stored rule never changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from heedful.enforce.judge import review_offline
from heedful.llm import ChatMessage, run_step
from heedful.llm.prompts import appeal_review
from heedful.llm.prompts.appeal_review import AppealDecision, AppealInput

if TYPE_CHECKING:
    from heedful.enforce.decide import AppealReviewer
    from heedful.enforce.results import Judgment
    from heedful.llm import Model


class AppealStep:
    name = "enforce.appeal_review"
    response_model = AppealDecision

    def messages(self, context: AppealInput) -> list[ChatMessage]:
        return appeal_review.messages(context)

    def offline(self, context: AppealInput) -> AppealDecision:
        passed = review_offline(context.judgment)
        return AppealDecision(overturn=passed, reason="re-check passed" if passed else "re-check did not pass")


def model_reviewer(model: Model) -> AppealReviewer:
    """An appeal reviewer for `Enforcer`: (judgment, evidence, appeal) -> (overturn, reason)."""

    def review(judgment: Judgment, evidence: dict[str, Any], appeal: str) -> tuple[bool, str]:
        if review_offline(judgment):
            return True, f"re-check passed: {judgment.get('reason', '')}"
        context = AppealInput(
            rule=str(judgment.get("rule_text", "")), judgment=dict(judgment), evidence=evidence, appeal=appeal
        )
        try:
            decision = run_step(model, AppealStep(), context)
        except Exception as exc:  # a failed review upholds the judgment
            return False, f"the appeal review failed ({exc}); the judgment stands"
        return decision.overturn, f"appeal review: {decision.reason}"

    return review
