"""Validation before activation: cases, an independent review, execution, up to three rounds.

For each proposal (the compiler's revisions, in order) the kind generates 3–9 cases; a reviewer
that never sees the expected labels judges faithfulness and labels every case; then the check
itself runs on every case. Only when the review approves, every review label and every
execution result equals the expected label, is the check activated. Otherwise the rule stays
guidance (meaning clear) or inactive (meaning unclear).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from heedful.llm import Model, run_step
from heedful.rules.checks import KINDS, evaluate
from heedful.rules.models import Case, CheckSpec, RuleStatus
from heedful.rules.steps import ReviewInput, ReviewStep

MAX_ROUNDS = 3
MIN_CASES, MAX_CASES = 3, 9


@dataclass
class Outcome:
    status: RuleStatus
    check: CheckSpec | None
    reason: str
    rounds: list[dict[str, Any]] = field(default_factory=list)


# What exists at each stage: a check may not need evidence that only appears later.
AVAILABLE = {
    "pre_action": {"action", "project", "task", "events", "branch"},
    "artifact": {"artifact", "project", "task", "events"},
    "delivery": {"delivery", "events", "workspace", "project", "task"},
}


def structural_problems(spec: CheckSpec, cases: list[Case]) -> list[str]:
    problems = []
    roots = {field.split(".", 1)[0].split(" ", 1)[0] for field in spec.evidence}
    late = sorted(roots - AVAILABLE[spec.stage])
    if late:
        problems.append(f"needs {', '.join(late)}, which does not exist yet at the {spec.stage} stage")
    if not MIN_CASES <= len(cases) <= MAX_CASES:
        problems.append(f"{len(cases)} cases; between {MIN_CASES} and {MAX_CASES} are needed")
    if not any(case.expected == "not_applicable" for case in cases):
        problems.append("no not-applicable case")
    at_stage = {case.expected for case in cases if case.stage == spec.stage}
    for needed in ("pass", "violated"):
        if needed not in at_stage:
            problems.append(f"no {needed} case at the {spec.stage} stage")
    return problems


def _terms(spec: CheckSpec) -> list[str]:
    """Words of the spec that the rule's own wording must contain (the check may not invent them)."""
    params = spec.params
    if spec.kind == "forbidden_command":
        words = [params.get("program")] if params.get("program") not in (None, "git") else []
        words += list(params.get("args") or [])
        flags = params.get("flags") or []
        words += [group[0].lstrip("-").split("-")[0] for group in flags if group[0].startswith("--")]
        return [w for w in words if isinstance(w, str)]
    if spec.kind in ("forbidden_path",):
        return [g.strip("*/").split("/")[-1] for g in params.get("globs") or [] if g.strip("*/")]
    if spec.kind == "reply_json_fields":
        return list(params.get("fields") or [])
    if spec.kind == "field_value":
        return [str(p) for p in params.get("path") or []]
    return []


def _left_out(text: str, spec: CheckSpec) -> list[str]:
    """Words the rule puts after the forbidden program that the check drops (it would forbid more)."""
    from heedful.rules.compile import command_words

    params = spec.params
    program = params.get("program")
    if spec.kind != "forbidden_command" or not isinstance(program, str):
        return []
    kept = {str(w).lower() for w in params.get("subcommand") or []} | {str(w).lower() for w in params.get("args") or []}
    kept |= {str(flag).lower() for group in params.get("flags") or [] for flag in group}
    for match in re.finditer(rf"(?<![\w-]){re.escape(program)}(?![\w-])((?:\s+[^\s,.;:!?`]+)*)", text, re.IGNORECASE):
        named = []
        for word in command_words(match.group(1), keep_adverbs=True):
            word = word.strip("`'\"").lower()
            # A cluster of short flags (-rf) names each of them (-r, -f).
            named += [f"-{c}" for c in word[1:]] if re.fullmatch(r"-[a-z]{2,}", word) else [word]
        dropped = [w for w in named if w and w not in kept]
        if dropped:
            return dropped
    return []


def faithful(text: str, spec: CheckSpec) -> tuple[bool, str]:
    lowered = text.lower()
    missing = [t for t in _terms(spec) if t and t.lower() not in lowered]
    if missing:
        return False, f"the check names {', '.join(missing)}, which the rule does not say"
    dropped = _left_out(text, spec)
    if dropped:
        return False, f"the check leaves out {' '.join(dropped)}, which the rule names: it would forbid more"
    if spec.kind == "reply_word_limit" and not re.search(r"\d", text):
        return False, "the rule states no number of words"
    return True, "the check states the rule's requirement and nothing more"


def offline_review(payload: ReviewInput) -> tuple[bool, bool, str, list[str]]:
    """(approved, meaning_clear, reason, labels): the kind's own naive labeller, blind to labels."""
    spec = payload.spec
    ok, reason = faithful(payload.rule_text, spec)
    module = KINDS.get(spec.kind)
    labels: list[str] = []
    for stage, evidence in payload.cases:
        try:
            labels.append(module.review(spec.params, stage, evidence) if module else "unknown")
        except Exception:  # a labeller that cannot read a case abstains
            labels.append("unknown")
    return ok, True, reason, labels


def validate(
    model: Model, text: str, proposals: list[CheckSpec], condition: str | None, exceptions: list[str], vague: bool
) -> Outcome:
    if vague:
        return Outcome("inactive", None, "the rule's meaning is unclear; it is neither shown nor checked")
    if condition or exceptions:
        return _semantic_or_guidance(
            model, text, condition, exceptions, [],
            "programmatic checks are only for rules without conditions or exceptions",
        )
    if not proposals:
        return _semantic_or_guidance(model, text, condition, exceptions, [],
                                     "no programmatic check states this rule")
    rounds: list[dict[str, Any]] = []
    clear = True
    for spec in proposals[:MAX_ROUNDS]:
        record: dict[str, Any] = {"kind": spec.kind, "params": spec.params}
        rounds.append(record)
        module = KINDS.get(spec.kind)
        if module is None:  # a model may propose a kind outside the closed set
            record["rejected"] = f"unknown check kind {spec.kind!r}"
            continue
        try:
            cases: list[Case] = module.cases(spec.params)
        except Exception as exc:  # parameters a model made up that the kind cannot use
            record["rejected"] = f"unusable parameters: {exc}"
            continue
        record["cases"] = len(cases)
        problems = structural_problems(spec, cases)
        if problems:
            record["rejected"] = "; ".join(problems)
            continue
        review = run_step(model, ReviewStep(), ReviewInput(rule_text=text, spec=spec,
                                                           cases=[(c.stage, c.evidence) for c in cases]))
        clear = clear and review.meaning_clear
        if not review.approved:
            record["rejected"] = f"review: {review.reason}"
            continue
        disagreements = [i for i, (c, label) in enumerate(zip(cases, review.labels, strict=False))
                         if c.expected != label]
        if len(review.labels) != len(cases) or disagreements:
            record["rejected"] = f"review labels disagree on cases {disagreements or 'count'}"
            continue
        results = [evaluate(spec.kind, spec.params, c.stage, c.evidence).result for c in cases]
        failed = [i for i, (c, r) in enumerate(zip(cases, results, strict=True)) if c.expected != r]
        if failed:
            record["rejected"] = f"execution disagrees on cases {failed}"
            continue
        record["admitted"] = True
        checked = spec.model_copy(update={
            "cases": cases,
            "validation": {"admitted": True, "rounds": len(rounds), "cases": len(cases), "review": review.reason},
        })
        return Outcome("checked", checked, f"validated on {len(cases)} cases", rounds)
    if not clear:
        return Outcome("inactive", None, "the reviewer found the meaning unclear", rounds)
    return _semantic_or_guidance(model, text, condition, exceptions, rounds,
                                 f"no proposal passed validation in {len(rounds)} round(s)")


def _semantic_or_guidance(
    model: Model, text: str, condition: str | None, exceptions: list[str], rounds: list[dict[str, Any]], why: str
) -> Outcome:
    """With a model, try a semantic check (validated the same way); offline the rule stays guidance."""
    if model.offline:
        return Outcome("guidance", None, f"{why}; a semantic check needs a model", rounds)
    from heedful.rules.semantic import compile_semantic

    spec, semantic_rounds = compile_semantic(model, text, condition, exceptions)
    rounds = rounds + semantic_rounds
    if spec is None:
        return Outcome("guidance", None, f"{why}; no semantic check passed validation", rounds)
    return Outcome("checked", spec, f"semantic check validated on {len(spec.cases)} cases", rounds)
