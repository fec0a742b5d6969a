"""Running checks on one candidate and settling the judgments against earlier ones (pure).

A candidate is one proposed action, one written file, or one reply; its identity is a hash of
the evidence that the stage's checks read. On an unchanged candidate an `unknown` never clears
an earlier violation of the same rule: only a later pass or not_applicable does. An appeal that
was upheld on re-check overturns the rule's violation for that candidate only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from heedful.enforce.results import Judgment
    from heedful.rules.checks.verdict import Result, Verdict
    from heedful.store.enforce_records import ActiveRule, Standing

# (kind, params, stage, evidence) -> Verdict: `heedful.rules.checks.evaluate`
Evaluate = Callable[[str, dict[str, Any], str, Any], "Verdict"]


def candidate_id(stage: str, subject: Any) -> str:
    # ASCII JSON: any string hashes, a lone surrogate included (it is escaped, never encoded).
    body = json.dumps(subject, sort_keys=True, ensure_ascii=True, default=str)
    return stage[0] + "-" + hashlib.sha1(body.encode("ascii")).hexdigest()[:16]


def run_checks(rules: Sequence[ActiveRule], stage: str, evidence: dict[str, Any], evaluate: Evaluate) -> list[Judgment]:
    """One judgment per checked rule whose check runs at `stage`."""
    out: list[Judgment] = []
    for rule in rules:
        check = rule.get("check")
        if rule.get("status") != "checked" or not isinstance(check, dict) or check.get("stage") != stage:
            continue
        params_value = check.get("params")
        params: dict[str, Any] = params_value if isinstance(params_value, dict) else {}
        result: Result
        try:
            verdict = evaluate(str(check.get("kind")), params, stage, evidence)
            result, reason, quotes = verdict.result, verdict.reason, list(verdict.quotes)
        except Exception as exc:  # a check never takes the hook down
            result, reason, quotes = "unknown", f"the check failed ({type(exc).__name__})", []
        out.append(
            {
                "rule_id": rule["id"],
                "rule_text": rule.get("text") or "",
                "kind": check.get("kind"),
                "params": params,
                "stage": stage,
                "result": result,
                "reason": reason,
                "quotes": quotes,
            }
        )
    return out


_RANK = {"violated": 3, "unknown": 2, "pass": 1, "not_applicable": 0}


def run_checks_on_parts(
    rules: Sequence[ActiveRule], stage: str, evidences: list[dict[str, Any]], evaluate: Evaluate
) -> list[Judgment]:
    """One judgment per rule over several readings of one candidate (a long command read in parts).

    The strongest result wins: a violation in any part, else unknown, else pass, else not_applicable.
    """
    merged: list[Judgment] = []
    for evidence in evidences:
        found = run_checks(rules, stage, evidence, evaluate)
        if not merged:
            merged = found
            continue
        merged = [
            new if _RANK.get(new["result"], 2) > _RANK.get(old["result"], 2) else old
            for old, new in zip(merged, found, strict=True)
        ]
    return merged


def settle(judgments: list[Judgment], standing: dict[str, Standing]) -> tuple[list[Judgment], list[str]]:
    """(effective judgments, rule ids whose earlier violation a pass / not_applicable now clears).

    `standing` maps rule id -> violated | cleared | overturned: the latest standing outcome of that
    rule on this same candidate.
    """
    effective: list[Judgment] = []
    cleared: list[str] = []
    for judgment in judgments:
        prior = standing.get(judgment["rule_id"])
        result = judgment["result"]
        if result == "unknown" and prior == "violated":
            judgment = {
                **judgment,
                "result": "violated",
                "held": True,
                "reason": f"{judgment['reason']}; the earlier violation on this unchanged candidate stands",
            }
        elif result == "violated" and prior == "overturned":
            judgment = {**judgment, "result": "pass", "reason": "overturned on appeal for this candidate"}
        elif result in ("pass", "not_applicable") and prior == "violated":
            cleared.append(judgment["rule_id"])
        effective.append(judgment)
    return effective, cleared


def review_offline(recheck: Judgment | dict[str, Any]) -> bool:
    """The offline appeal review: only a pass on re-check overturns a judgment."""
    return recheck.get("result") == "pass"
