"""reply_forbidden_text: the candidate reply contains none of the forbidden patterns.

params: patterns ([str]: "emoji" means any emoji; anything else a phrase matched case-insensitively,
as whole words where it starts or ends with a letter or digit).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from heedful.rules.checks.evidence import reply_at_delivery
from heedful.rules.checks.kind import CheckKind
from heedful.rules.checks.text_match import find, naive_find
from heedful.rules.checks.verdict import Result, Stage, Verdict

if TYPE_CHECKING:
    from heedful.rules.models import Case

KIND = "reply_forbidden_text"
STAGE: Stage = "delivery"
EVIDENCE = ["delivery"]


def _patterns(params: Any) -> list[str]:
    value = params.get("patterns") if isinstance(params, dict) else None
    return [v for v in value if isinstance(v, str) and v.strip()] if isinstance(value, list) else []


def describe(params: dict[str, Any]) -> str:
    names = ["any emoji" if p.strip().lower() in ("emoji", "emojis") else repr(p) for p in _patterns(params)]
    return "replies without " + (" or ".join(names) or "anything")


def evaluate(params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    patterns = _patterns(params)
    if not patterns:
        return Verdict(result="unknown", reason="the check names no forbidden text")
    reply = reply_at_delivery(stage, evidence)
    if isinstance(reply, Verdict):
        return reply
    for pattern in patterns:
        found = find(pattern, reply)
        if found is not None:
            what = "an emoji" if pattern.strip().lower() in ("emoji", "emojis") else repr(pattern)
            return Verdict(result="violated", reason=f"the reply contains {what}", quotes=[found])
    return Verdict(result="pass", reason=f"the reply is {describe(params).removeprefix('replies ')}")


def _sample(pattern: str) -> str:
    return "✅" if pattern.strip().lower() in ("emoji", "emojis") else pattern


def cases(params: dict[str, Any]) -> list[Case]:
    from heedful.rules.models import Case

    patterns = _patterns(params) or ["example"]
    found = [
        Case(stage=STAGE, evidence={"delivery": "Fixed the parser; the tests pass now."}, expected="pass"),
        Case(stage=STAGE, evidence={"delivery": f"Done. {_sample(patterns[0])} The tests pass."}, expected="violated"),
    ]
    if len(patterns) > 1:
        found.append(
            Case(stage=STAGE, evidence={"delivery": f"{_sample(patterns[-1])} - see the diff."}, expected="violated")
        )
    found.append(
        Case(stage="pre_action", evidence={"action": {"tool": "Bash", "command": "echo ok"}}, expected="not_applicable")
    )
    return found


def review(params: dict[str, Any], stage: str, evidence: dict[str, Any]) -> Result:
    if stage != STAGE:
        return "not_applicable"
    reply = evidence.get("delivery")
    if not isinstance(reply, str):
        return "unknown"
    return "violated" if any(naive_find(p, reply) for p in _patterns(params)) else "pass"


class ReplyForbiddenText(CheckKind):
    name = KIND
    stage = STAGE
    evidence = tuple(EVIDENCE)
