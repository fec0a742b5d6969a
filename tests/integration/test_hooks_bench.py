"""`bench replay` and `bench hooks` run end to end through the real hook subprocess and report numbers."""

from __future__ import annotations

from heedful.bench import hooks, replay


def test_replay_blocks_violations_and_honours_retract_supersede_and_scope() -> None:
    spec = replay.load()
    assert len(spec["replay"]) + len(spec["after"]) >= 60
    report = replay.run()
    assert report["errors"] == []
    assert report["events"] == len(spec["replay"]) + len(spec["after"])
    assert report["violations_blocked_rate"] >= 0.95
    assert report["retract_honoured"] == 1.0 and report["supersede_honoured"] == 1.0
    assert report["scope_respected"] == 1.0
    assert report["compliant_blocked"] == 0, report["mistakes"]
    assert report["latency_ms"]["p50"] > 0 and report["hook_calls"] > report["events"]


def test_hooks_benchmark_reports_a_ratio_to_bare_python() -> None:
    report = hooks.run(rules=50, runs=3, warmup=1)
    assert report["deny_works"] is True
    assert report["pre_tool_use_allow_ms"]["p50"] > 0 and report["python_c_pass_ms"]["p50"] > 0
    assert report["ratio_p50"] is not None and report["rules"] == 50
