"""field_value: a field of the action, the artifact or the JSON reply equals (or must not equal) a literal.

params: target (action | artifact | delivery), path ([str]: keys from the top), op (equals |
not_equals), value (a JSON scalar; comparison is type-strict).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from heedful.rules.checks.evidence import action_of, artifact_of, as_dict, delivery_of, parse_json_reply
from heedful.rules.checks.kind import CheckKind
from heedful.rules.checks.verdict import Result, Stage, Verdict

if TYPE_CHECKING:
    from heedful.rules.models import Case

KIND = "field_value"
STAGE_OF_TARGET: dict[str, Stage] = {"action": "pre_action", "artifact": "artifact", "delivery": "delivery"}
EVIDENCE = ["action | artifact | delivery (JSON)"]
_MISSING = object()


def _json(value: object) -> str:
    """A value as JSON spells it (`true`, `null`), which is what the user and the agent read."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def evidence_for(params: dict[str, Any]) -> list[str]:
    return [f"{params.get('target')}.{'.'.join(map(str, params.get('path') or []))}"]


def stage_for(params: dict[str, Any]) -> Stage:
    return STAGE_OF_TARGET.get(str(params.get("target")), "delivery")


def _valid(params: Any) -> bool:
    return (
        isinstance(params, dict)
        and isinstance(params.get("target"), str)
        and params["target"] in STAGE_OF_TARGET
        and isinstance(params.get("op"), str)
        and params["op"] in ("equals", "not_equals")
        and isinstance(params.get("path"), list)
        and bool(params["path"])
        and all(isinstance(p, str) for p in params["path"])
        and (params.get("value") is None or isinstance(params.get("value"), str | int | float | bool))
    )


def describe(params: dict[str, Any]) -> str:
    op = "=" if params.get("op") == "equals" else "!="
    return f"{params.get('target')}.{'.'.join(map(str, params.get('path') or []))} {op} {_json(params.get('value'))}"


def _container(target: str, evidence: Any) -> tuple[str, Any]:
    if target == "action":
        action = action_of(evidence)
        return ("missing", None) if action is None else ("ok", action["input"])
    if target == "artifact":
        artifact = artifact_of(evidence)
        if artifact is None:
            return "missing", None
        content = artifact.get("content")
        if isinstance(content, str):
            parsed, value = parse_json_reply(content)
            return ("ok", value) if parsed else ("not_json", None)
        return "ok", artifact
    reply = delivery_of(evidence)
    if reply is None:
        return "missing", None
    parsed, value = parse_json_reply(reply)
    return ("ok", value) if parsed else ("not_json", None)


def _walk(value: Any, path: list[str]) -> Any:
    for key in path:
        node = as_dict(value)
        if node is None or key not in node:
            return _MISSING
        value = node[key]
    return value


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def evaluate(params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    if not _valid(params):
        return Verdict(result="unknown", reason="the check's parameters are invalid")
    if stage != stage_for(params):
        return Verdict(result="not_applicable", reason=f"checked at {stage_for(params)}, not at {stage}")
    state, container = _container(params["target"], evidence)
    if state == "missing":
        return Verdict(result="unknown", reason=f"the evidence holds no {params['target']}")
    if state == "not_json":
        return Verdict(result="not_applicable", reason=f"the {params['target']} is not JSON")
    found = _walk(container, params["path"])
    dotted = ".".join(params["path"])
    if found is _MISSING:
        return Verdict(result="unknown", reason=f"the {params['target']} has no field {dotted}")
    if isinstance(found, dict | list):
        return Verdict(result="unknown", reason=f"{dotted} is not a single value")
    equal = _same(found, params["value"])
    ok = equal if params["op"] == "equals" else not equal
    shown = f"{found}" if not isinstance(found, str) else found
    if ok:
        quotes = [shown] if isinstance(found, str) else []
        return Verdict(result="pass", reason=f"{dotted} is {_json(found)}", quotes=quotes)
    want = "must be" if params["op"] == "equals" else "must not be"
    return Verdict(
        result="violated",
        reason=f"{dotted} is {_json(found)} but {want} {_json(params['value'])}",
        quotes=[shown] if isinstance(found, str) else [],
    )


def _nest(path: list[str], value: Any) -> dict[str, Any]:
    out: Any = value
    for key in reversed(path):
        out = {key: out}
    return out


def cases(params: dict[str, Any]) -> list[Case]:
    import json

    from heedful.rules.models import Case

    stage = stage_for(params)
    path = [str(p) for p in params.get("path") or ["field"]]
    value = params.get("value")
    other: Any = "other-value" if not isinstance(value, str) or value != "other-value" else "different"
    if isinstance(value, bool):
        other = not value
    elif isinstance(value, int | float):
        other = value + 1
    good, bad = (value, other) if params.get("op") == "equals" else (other, value)

    def wrap(v: Any) -> dict[str, Any]:
        body = _nest(path, v)
        if params.get("target") == "action":
            return {"action": {"tool": "Tool", "input": body}}
        if params.get("target") == "artifact":
            return {"artifact": {"path": "out.json", "content": json.dumps(body)}}
        return {"delivery": json.dumps(body)}

    na_stage: Stage = "artifact" if stage != "artifact" else "delivery"
    return [
        Case(stage=stage, evidence=wrap(good), expected="pass"),
        Case(stage=stage, evidence=wrap(bad), expected="violated"),
        Case(stage=na_stage, evidence={"delivery": "text"}, expected="not_applicable"),
    ]


def review(params: dict[str, Any], stage: str, evidence: dict[str, Any]) -> Result:
    import json

    if stage != stage_for(params):
        return "not_applicable"
    target = params.get("target")
    if target == "action":
        body = (evidence.get("action") or {}).get("input")
    elif target == "artifact":
        body = json.loads((evidence.get("artifact") or {}).get("content") or "null")
    else:
        body = json.loads(evidence.get("delivery") or "null")
    for key in params.get("path") or []:
        body = body.get(key) if isinstance(body, dict) else None
    equal = json.dumps(body) == json.dumps(params.get("value"))
    return "pass" if equal == (params.get("op") == "equals") else "violated"


class FieldValue(CheckKind):
    name = KIND
    stage = "delivery"  # the target decides: see stage_for
    evidence = tuple(EVIDENCE)

    def stage_for(self, params: dict[str, Any]) -> Stage:
        return stage_for(params)

    def evidence_for(self, params: dict[str, Any]) -> list[str]:
        return evidence_for(params)
