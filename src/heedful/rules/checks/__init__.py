"""The closed set of programmatic check kinds: one `CheckKind` class per kind, in one registry.

    KINDS["forbidden_command"].evaluate(params, "pre_action", evidence)   # -> Verdict, never raises
    validate_check("reply_word_limit", {"limit": 0})                       # CheckParamsError, one line

Each kind provides `describe(params)`, `evaluate(params, stage, evidence) -> Verdict` (never
raises), `cases(params) -> [Case]` (validation cases, after its parameter model accepted the
parameters) and `review(params, stage, evidence) -> label` (an independent labeller used offline).
A check spec is `{"kind": ..., "params": {...}}`; `semantic` checks are judged by a model, not here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from heedful.rules.checks.command import ForbiddenCommand
from heedful.rules.checks.commit_message import CommitMessage
from heedful.rules.checks.count_limit import ReplyCountLimit
from heedful.rules.checks.field_value import FieldValue
from heedful.rules.checks.forbidden_text import ReplyForbiddenText
from heedful.rules.checks.json_fields import ReplyJsonFields
from heedful.rules.checks.kind import CheckKind, CheckParamsError
from heedful.rules.checks.leftovers import WorkspaceLeftovers
from heedful.rules.checks.path import ForbiddenPath
from heedful.rules.checks.required_event import RequiredEvent
from heedful.rules.checks.staged_path import StagedPath
from heedful.rules.checks.verdict import Stage, Verdict
from heedful.rules.checks.word_limit import ReplyWordLimit

__all__ = ["KINDS", "CheckKind", "CheckParamsError", "describe", "evaluate", "stage_of", "validate_check"]

KINDS: Mapping[str, CheckKind] = MappingProxyType(
    {
        kind.name: kind
        for kind in (
            ForbiddenCommand(),
            ForbiddenPath(),
            StagedPath(),
            CommitMessage(),
            ReplyWordLimit(),
            ReplyCountLimit(),
            ReplyForbiddenText(),
            ReplyJsonFields(),
            FieldValue(),
            RequiredEvent(),
            WorkspaceLeftovers(),
        )
    }
)


def kind_of(name: str) -> CheckKind:
    """The registered kind, or `CheckParamsError` naming the kinds there are."""
    kind = KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise CheckParamsError(f"unknown check kind {name!r}; one of: {', '.join(sorted(KINDS))}")
    return kind


def validate_check(name: str, params: Any) -> None:
    """Raise `CheckParamsError` (one sentence) for an unknown kind or parameters its model rejects."""
    kind_of(name).check_params(params)


def stage_of(kind: str, params: dict[str, Any]) -> Stage:
    return kind_of(kind).stage_for(params)


def evaluate(kind: str, params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    """Run one check; an unknown kind or an internal fault gives `unknown`, never an exception."""
    if kind == "semantic":  # judged by a model (rules.semantic), never here: hooks call no model
        return Verdict(result="unknown", reason="a semantic check needs a model; not judged here")
    found = KINDS.get(kind) if isinstance(kind, str) else None
    if found is None:
        return Verdict(result="unknown", reason=f"unknown check kind {kind!r}")
    try:
        return found.evaluate(params, stage, evidence)
    except Exception as exc:  # defence in depth: kinds are written not to raise
        return Verdict(result="unknown", reason=f"the check could not read the evidence ({type(exc).__name__})")


def describe(kind: str, params: dict[str, Any]) -> str:
    found = KINDS.get(kind)
    return kind if found is None else str(found.describe(params))
