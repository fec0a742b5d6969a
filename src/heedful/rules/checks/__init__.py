"""The closed set of programmatic check kinds: each a module of pure functions.

Every kind module provides `KIND`, `EVIDENCE`, `describe(params)`, `evaluate(params, stage,
evidence) -> Verdict` (never raises), `cases(params) -> [Case]` (validation cases) and
`review(params, stage, evidence) -> label` (an independent labeller used offline).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from heedful.rules.checks import (
    command,
    commit_message,
    count_limit,
    field_value,
    forbidden_text,
    json_fields,
    leftovers,
    path,
    required_event,
    staged_path,
    word_limit,
)
from heedful.rules.checks.verdict import Stage, Verdict

KINDS: dict[str, ModuleType] = {
    module.KIND: module
    for module in (
        command,
        path,
        staged_path,
        commit_message,
        word_limit,
        count_limit,
        forbidden_text,
        json_fields,
        field_value,
        required_event,
        leftovers,
    )
}


def stage_of(kind: str, params: dict[str, Any]) -> Stage:
    module = KINDS[kind]
    if kind == field_value.KIND:
        return field_value.stage_for(params)
    stage: Stage = module.STAGE
    return stage


def evaluate(kind: str, params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    """Run one check; an unknown kind or an internal fault gives `unknown`, never an exception."""
    module = KINDS.get(kind)
    if kind == "semantic":  # judged by a model (rules.semantic), never here: hooks call no model
        return Verdict(result="unknown", reason="a semantic check needs a model; not judged here")
    if module is None:
        return Verdict(result="unknown", reason=f"unknown check kind {kind!r}")
    try:
        verdict: Verdict = module.evaluate(params, stage, evidence)
    except Exception as exc:  # defence in depth: kinds are written not to raise
        return Verdict(result="unknown", reason=f"the check could not read the evidence ({type(exc).__name__})")
    return verdict


def describe(kind: str, params: dict[str, Any]) -> str:
    module = KINDS.get(kind)
    return kind if module is None else str(module.describe(params))
