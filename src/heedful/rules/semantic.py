"""Semantic checks: a model judges evidence against a rule that no programmatic check states.

Only with a model: offline such a rule stays guidance, and on the hook path (which never calls a
model) a semantic check answers `unknown`, which never blocks. A rule becomes a semantic check
only after the validation protocol of the paper's B.2: the model writes 3–9 cases with expected
labels, a separate review call labels them without seeing those labels, and the semantic check
itself must agree with every label, within three rounds.

At run time rules are judged six to a call, each with only the evidence its stage needs and the
other selected rules for context. A judgment naming a rule outside the batch is dropped; a
violation whose quotes are not verbatim in the evidence is downgraded to `unknown`.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from heedful.llm import ChatMessage, Model, run_step
from heedful.llm.prompts import judge_rules, semantic_cases
from heedful.llm.prompts.judge_rules import JudgeInput, JudgeResponse, RuleCard, SemanticJudgment
from heedful.llm.prompts.semantic_cases import CasesInput, CasesResponse
from heedful.rules.checks.verdict import Verdict
from heedful.rules.models import Case, CheckSpec

log = logging.getLogger(__name__)
KIND = "semantic"
RULES_PER_CALL = 6
MAX_ROUNDS = 3
# What each stage's judgment may look at (the rest of the observation is left out of the prompt).
EVIDENCE_FOR: dict[str, tuple[str, ...]] = {
    "pre_action": ("action", "project"),
    "artifact": ("artifact", "project"),
    "delivery": ("delivery", "events"),
}


class JudgeStep:
    name = "rules.semantic_check"
    response_model = JudgeResponse

    def messages(self, context: JudgeInput) -> list[ChatMessage]:
        return judge_rules.messages(context)

    def offline(self, context: JudgeInput) -> JudgeResponse:
        return JudgeResponse(
            judgments=[
                SemanticJudgment(rule_id=r.id, result="unknown", reason="a semantic check needs a model")
                for r in context.rules
            ]
        )


def stage_evidence(stage: str, evidence: dict[str, Any]) -> dict[str, Any]:
    return {key: evidence[key] for key in EVIDENCE_FOR.get(stage, ()) if key in evidence}


def _grounded(judgment: SemanticJudgment, haystacks: list[str]) -> Verdict:
    quotes = [q for q in judgment.quotes if isinstance(q, str) and q.strip() and any(q in h for h in haystacks)]
    if judgment.result == "violated" and not quotes:
        return Verdict(result="unknown", reason=f"not grounded in the evidence: {judgment.reason}")
    return Verdict(result=judgment.result, reason=judgment.reason, quotes=quotes)


def judge(
    model: Model, stage: str, evidence: dict[str, Any], rules: list[RuleCard], other_rules: list[str] | None = None
) -> dict[str, Verdict]:
    """A verdict for every rule: from the model, or `unknown` when the model cannot answer."""
    needed = stage_evidence(stage, evidence)
    # A quote must stand verbatim in one of the evidence's strings (or in the JSON the model read).
    haystacks = [json.dumps(needed, ensure_ascii=False), *_strings(needed)]
    verdicts: dict[str, Verdict] = {}
    for start in range(0, len(rules), RULES_PER_CALL):
        batch = rules[start : start + RULES_PER_CALL]
        try:
            answer = run_step(
                model,
                JudgeStep(),
                JudgeInput(
                    stage=stage,  # type: ignore[arg-type]  # one of STAGES: callers pass a stage name
                    evidence=needed,
                    rules=batch,
                    other_rules=other_rules or [],
                ),
            )
        except Exception as exc:  # a failed call never blocks: the batch is unknown
            log.warning("semantic check failed: %s", exc)
            answer = JudgeResponse(judgments=[])
        wanted = {r.id for r in batch}
        for judgment in answer.judgments:
            if judgment.rule_id in wanted and judgment.rule_id not in verdicts:  # invented ids are dropped
                verdicts[judgment.rule_id] = _grounded(judgment, haystacks)
        for rule in batch:
            verdicts.setdefault(rule.id, Verdict(result="unknown", reason="the model gave no judgment"))
    return verdicts


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


# -- compilation: cases written by the model, reviewed blind, then executed ------------------------
class CasesStep:
    name = "rules.semantic_cases"
    response_model = CasesResponse

    def messages(self, context: CasesInput) -> list[ChatMessage]:
        return semantic_cases.messages(context)

    def offline(self, context: CasesInput) -> CasesResponse:
        raise RuntimeError("semantic checks are compiled only with a model")


def compile_semantic(
    model: Model, text: str, condition: str | None, exceptions: list[str]
) -> tuple[CheckSpec | None, list[dict[str, Any]]]:
    """A validated semantic check spec, or None with the rounds that failed (needs a model)."""
    from heedful.rules.steps import ReviewInput, ReviewStep
    from heedful.rules.validate import structural_problems

    rounds: list[dict[str, Any]] = []
    card = RuleCard(id="candidate", text=text, condition=condition, exceptions=exceptions)
    params = {"rule": text, "condition": condition, "exceptions": exceptions}
    for attempt in range(1, MAX_ROUNDS + 1):
        record: dict[str, Any] = {"kind": KIND, "round": attempt}
        rounds.append(record)
        try:
            generated = run_step(
                model, CasesStep(), CasesInput(text=text, condition=condition, exceptions=exceptions, attempt=attempt)
            )
        except Exception as exc:
            record["rejected"] = f"no cases: {exc}"
            continue
        cases = [Case(stage=c.stage, evidence=c.evidence, expected=c.expected) for c in generated.cases]
        spec = CheckSpec(kind=KIND, stage=generated.stage, params=params, evidence=list(EVIDENCE_FOR[generated.stage]))
        problems = structural_problems(spec, cases)
        if problems:
            record["rejected"] = "; ".join(problems)
            continue
        try:
            review = run_step(
                model,
                ReviewStep(),
                ReviewInput(rule_text=text, spec=spec, cases=[(c.stage, c.evidence) for c in cases]),
            )
        except Exception as exc:
            record["rejected"] = f"no review: {exc}"
            continue
        if not review.approved or [c.expected for c in cases] != list(review.labels):
            record["rejected"] = f"review disagrees: {review.reason}"
            continue
        results = [
            judge(model, c.stage, c.evidence, [card])[card.id].result if c.stage == spec.stage else "not_applicable"
            for c in cases
        ]
        failed = [i for i, (c, r) in enumerate(zip(cases, results, strict=True)) if c.expected != r]
        if failed:
            record["rejected"] = f"the semantic check disagrees on cases {failed}"
            continue
        record["admitted"] = True
        return spec.model_copy(
            update={
                "cases": cases,
                "validation": {"admitted": True, "rounds": attempt, "cases": len(cases), "review": review.reason},
            }
        ), rounds
    return None, rounds
