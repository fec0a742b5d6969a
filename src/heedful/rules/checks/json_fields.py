"""reply_json_fields: the candidate reply is a JSON object holding the required fields.

params: fields ([str], non-empty).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from heedful.rules.checks.evidence import clip, parse_json_reply, reply_at_delivery
from heedful.rules.checks.kind import CheckKind
from heedful.rules.checks.verdict import Result, Stage, Verdict

if TYPE_CHECKING:
    from heedful.rules.models import Case

KIND = "reply_json_fields"
STAGE: Stage = "delivery"
EVIDENCE = ["delivery"]


def _fields(params: Any) -> list[str]:
    value = params.get("fields") if isinstance(params, dict) else None
    return [f for f in value if isinstance(f, str) and f] if isinstance(value, list) else []


def describe(params: dict[str, Any]) -> str:
    return "a JSON reply with " + ", ".join(_fields(params))


def evaluate(params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    fields = _fields(params)
    if not fields:
        return Verdict(result="unknown", reason="the check names no fields")
    reply = reply_at_delivery(stage, evidence)
    if isinstance(reply, Verdict):
        return reply
    parsed, value = parse_json_reply(reply)
    if not parsed or not isinstance(value, dict):
        quotes = [clip(reply, 80)] if reply else []
        return Verdict(result="violated", reason="the reply is not a JSON object", quotes=quotes)
    missing = [f for f in fields if f not in value]
    if missing:
        reason = f"the JSON reply lacks {', '.join(missing)}"
        return Verdict(result="violated", reason=reason, quotes=[clip(reply, 120)])
    return Verdict(result="pass", reason=f"the JSON reply has {', '.join(fields)}")


def cases(params: dict[str, Any]) -> list[Case]:
    import json

    from heedful.rules.models import Case

    fields = _fields(params) or ["field"]
    full = json.dumps({f: "value" for f in fields})
    partial = json.dumps({f: "value" for f in fields[:-1]} | {"other": 1})
    return [
        Case(stage=STAGE, evidence={"delivery": full}, expected="pass"),
        Case(stage=STAGE, evidence={"delivery": partial}, expected="violated"),
        Case(stage=STAGE, evidence={"delivery": "Done: everything works."}, expected="violated", note="prose"),
        Case(stage="artifact", evidence={"artifact": {"path": "a.json", "content": "{}"}}, expected="not_applicable"),
    ]


def review(params: dict[str, Any], stage: str, evidence: dict[str, Any]) -> Result:
    import json

    if stage != STAGE:
        return "not_applicable"
    try:
        value = json.loads(str(evidence.get("delivery")))
    except ValueError:
        return "violated"
    return "pass" if isinstance(value, dict) and set(_fields(params)) <= set(value) else "violated"


class ReplyJsonFields(CheckKind):
    name = KIND
    stage = STAGE
    evidence = tuple(EVIDENCE)
