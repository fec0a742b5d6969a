"""Settling judgments: unknown never clears a violation of an unchanged candidate; appeals; candidates."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from heedful.enforce import judge

RESULTS = ("pass", "violated", "not_applicable", "unknown")


def j(rule: str, result: str) -> dict[str, Any]:
    return {
        "rule_id": rule,
        "rule_text": rule,
        "kind": "k",
        "params": {},
        "stage": "delivery",
        "result": result,
        "reason": "because",
        "quotes": [],
    }


def test_unknown_keeps_an_earlier_violation() -> None:
    effective, cleared = judge.settle([j("r1", "unknown")], {"r1": "violated"})
    assert effective[0]["result"] == "violated" and effective[0]["held"] and cleared == []


def test_pass_and_not_applicable_clear_a_violation() -> None:
    for result in ("pass", "not_applicable"):
        effective, cleared = judge.settle([j("r1", result)], {"r1": "violated"})
        assert effective[0]["result"] == result and cleared == ["r1"]


def test_unknown_after_a_clearing_stays_unknown() -> None:
    effective, _ = judge.settle([j("r1", "unknown")], {"r1": "cleared"})
    assert effective[0]["result"] == "unknown"


def test_an_overturned_violation_passes_for_that_candidate_only() -> None:
    effective, _ = judge.settle([j("r1", "violated"), j("r2", "violated")], {"r1": "overturned"})
    assert [e["result"] for e in effective] == ["pass", "violated"]


@given(st.sampled_from(RESULTS), st.sampled_from([None, "violated", "cleared", "overturned"]))
def test_unknown_never_turns_into_a_pass(result: str, prior: str | None) -> None:
    standing = {} if prior is None else {"r": prior}
    (effective,), cleared = judge.settle([j("r", result)], standing)
    if result == "unknown":
        assert effective["result"] == ("violated" if prior == "violated" else "unknown")
        assert cleared == []
    if result == "violated" and prior != "overturned":
        assert effective["result"] == "violated"


def test_offline_review_overturns_only_on_a_pass() -> None:
    assert judge.review_offline({"result": "pass"})
    assert not any(judge.review_offline({"result": r}) for r in ("violated", "unknown", "not_applicable"))


def test_candidate_ids_are_stable_and_distinct() -> None:
    a = judge.candidate_id("pre_action", {"tool": "Bash", "input": {"command": "ls", "x": 1}})
    b = judge.candidate_id("pre_action", {"input": {"x": 1, "command": "ls"}, "tool": "Bash"})
    c = judge.candidate_id("pre_action", {"tool": "Bash", "input": {"command": "ls -a"}})
    assert a == b != c and a.startswith("p-")


def test_run_checks_filters_by_stage_and_status_and_survives_a_broken_check() -> None:
    rules = [
        {"id": "r1", "text": "a", "status": "checked", "check": {"kind": "ok", "stage": "pre_action", "params": {}}},
        {"id": "r2", "text": "b", "status": "guidance", "check": None},
        {"id": "r3", "text": "c", "status": "checked", "check": {"kind": "ok", "stage": "delivery", "params": {}}},
        {"id": "r4", "text": "d", "status": "checked", "check": {"kind": "boom", "stage": "pre_action", "params": {}}},
    ]

    def evaluate(kind: str, params: dict[str, Any], stage: str, evidence: Any) -> Any:
        if kind == "boom":
            raise ValueError("broken")
        return SimpleNamespace(result="pass", reason="fine", quotes=[])

    out = judge.run_checks(rules, "pre_action", {}, evaluate)
    assert [(o["rule_id"], o["result"]) for o in out] == [("r1", "pass"), ("r4", "unknown")]
