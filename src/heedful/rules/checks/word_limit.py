"""reply_word_limit: the candidate reply has at most `limit` words (whitespace-separated tokens).

params: limit (int > 0).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from heedful.rules.checks.evidence import clip, reply_at_delivery
from heedful.rules.checks.kind import CheckKind
from heedful.rules.checks.verdict import Result, Stage, Verdict

if TYPE_CHECKING:
    from heedful.rules.models import Case

KIND = "reply_word_limit"
STAGE: Stage = "delivery"
EVIDENCE = ["delivery"]


def _limit(params: Any) -> int | None:
    value = params.get("limit") if isinstance(params, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def count_words(text: str) -> int:
    return len(re.findall(r"\S+", text))


def describe(params: dict[str, Any]) -> str:
    return f"replies of at most {_limit(params)} words"


def evaluate(params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    limit = _limit(params)
    if limit is None:
        return Verdict(result="unknown", reason="the check has no valid word limit")
    reply = reply_at_delivery(stage, evidence)
    if isinstance(reply, Verdict):
        return reply
    words = count_words(reply)
    if words > limit:
        tokens = re.findall(r"\S+", reply)
        start = reply.find(tokens[limit]) if limit < len(tokens) else 0
        return Verdict(
            result="violated",
            reason=f"the reply has {words} words; the limit is {limit}",
            quotes=[clip(reply[max(start, 0) :], 120)],
        )
    return Verdict(result="pass", reason=f"the reply has {words} words (limit {limit})")


def cases(params: dict[str, Any]) -> list[Case]:
    from heedful.rules.models import Case

    limit = _limit(params) or 1
    short = " ".join(["ok"] * max(1, limit // 2))
    exact = " ".join(["word"] * limit)
    long = " ".join(["word"] * (limit + 5))
    return [
        Case(stage=STAGE, evidence={"delivery": short}, expected="pass"),
        Case(stage=STAGE, evidence={"delivery": exact}, expected="pass", note="exactly at the limit"),
        Case(stage=STAGE, evidence={"delivery": long}, expected="violated"),
        Case(stage="pre_action", evidence={"action": {"tool": "Bash", "command": "ls"}}, expected="not_applicable"),
    ]


def review(params: dict[str, Any], stage: str, evidence: dict[str, Any]) -> Result:
    if stage != STAGE:
        return "not_applicable"
    reply = evidence.get("delivery")
    if not isinstance(reply, str):
        return "unknown"
    return "violated" if len(reply.split()) > (_limit(params) or 0) else "pass"


class ReplyWordLimit(CheckKind):
    name = KIND
    stage = STAGE
    evidence = tuple(EVIDENCE)
