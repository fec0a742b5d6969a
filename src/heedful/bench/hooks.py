"""`heedful bench hooks`: PreToolUse latency with a large active rule library, against a bare interpreter.

A fresh home gets `rules` checked rules (default 200: shell-command, path and action-field
checks, plus delivery checks that PreToolUse skips) committed as one library version. Then the
real hook command runs as a subprocess on Claude Code PreToolUse payloads (a compliant command,
so every pre-action check is evaluated, and a violating one), after warm-up runs that let Python
cache the bytecode. The baseline is `python -c pass` with the same interpreter; the report gives
p50/p95 of both and their ratio.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.integrations import payloads

TARGET_P50_MS = 50.0


def _spec(kind: str, stage: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"kind": kind, "stage": stage, "params": params, "evidence": [], "cases": [], "validation": {}}


def library(count: int) -> list[tuple[str, str, dict[str, Any]]]:
    """(text, scope, check spec) for `count` distinct checked rules."""
    out = []
    for i in range(count):
        slot = i % 5
        if slot == 0:
            out.append(
                (
                    f"Use newtool{i} instead of oldtool{i}.",
                    "global",
                    _spec(
                        "forbidden_command", "pre_action", {"program": f"oldtool{i}", "alternatives": [f"newtool{i}"]}
                    ),
                )
            )
        elif slot == 1:
            out.append(
                (
                    f"Never run `svc{i} deploy --prod`.",
                    "project",
                    _spec(
                        "forbidden_command",
                        "pre_action",
                        {"program": f"svc{i}", "subcommand": ["deploy"], "flags": [["--prod"]]},
                    ),
                )
            )
        elif slot == 2:
            out.append(
                (
                    f"Never edit files under vendor{i}/.",
                    "global",
                    _spec("forbidden_path", "pre_action", {"globs": [f"vendor{i}/"], "outside_project": False}),
                )
            )
        elif slot == 3:
            out.append(
                (
                    f"Never set `mode{i}` to `unsafe` in tool calls.",
                    "project",
                    _spec(
                        "field_value",
                        "pre_action",
                        {"target": "action", "path": [f"mode{i}"], "op": "not_equals", "value": "unsafe"},
                    ),
                )
            )
        else:
            out.append(
                (
                    f"Keep replies under {50 + i} words.",
                    "global",
                    _spec("reply_word_limit", "delivery", {"limit": 49 + i}),
                )
            )
    return out


def seed(home: Path, user: str, project: Path, count: int) -> int:
    """Commit `count` checked rules as one library version; returns its number."""
    from heedful.api import Heedful
    from heedful.ids import new_id
    from heedful.store.records import RuleRow

    with Heedful.open(home, embedder="hashing", store_url="sqlite") as hf:
        rows = [
            RuleRow(
                id=new_id("r"),
                user_id=user,
                scope=scope,
                project=str(project) if scope == "project" else None,
                version=1,
                text=text,
                condition=None,
                exceptions=[],
                evidence=[text],
                status="checked",
                check_spec=spec,
                op="new",
                reason="benchmark library",
                source_text=text,
                supersedes=None,
                superseded_by=None,
                library_version=0,
                created_at="",
                rule_created_at="",
            )
            for text, scope, spec in library(count)
        ]
        return int(hf.store.rules.commit(user, "learn", f"benchmark library of {count} rules", rows))


def _time(args: list[str], runs: int, data: bytes | None, env: dict[str, str]) -> list[float]:
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(args, input=data, capture_output=True, env=env, check=False)
        out.append((time.perf_counter() - started) * 1000)
    return out


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 1),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
        "min": round(ordered[0], 1),
    }


def run(rules: int = 200, runs: int = 40, warmup: int = 3) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="heedful-bench-hooks-") as temp:
        root = Path(temp)
        project = (root / "project").resolve()
        project.mkdir()
        home = root / "home"
        env = payloads.hook_env(home, user="bench")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        version = seed(home, "bench", project, rules)
        compliant = json.dumps(payloads.claude_bash("bench-1", str(project), "uv pip install requests")).encode()
        violating = json.dumps(payloads.claude_bash("bench-1", str(project), "oldtool0 --sync")).encode()
        command = payloads.hook_command("claude-code")
        _time(command, warmup, compliant, env)
        _time([sys.executable, "-c", "pass"], warmup, None, env)
        denied = subprocess.run(command, input=violating, capture_output=True, env=env, check=False).stdout
        baseline: list[float] = []
        allowed: list[float] = []
        blocked: list[float] = []
        for _ in range(runs):  # interleaved, so that machine load affects all three alike
            baseline += _time([sys.executable, "-c", "pass"], 1, None, env)
            allowed += _time(command, 1, compliant, env)
            blocked += _time(command, 1, violating, env)
    hook = _stats(allowed)
    bare = _stats(baseline)
    return {
        "rules": rules,
        "library_version": version,
        "runs": runs,
        "pre_tool_use_allow_ms": hook,
        "pre_tool_use_deny_ms": _stats(blocked),
        "python_c_pass_ms": bare,
        "ratio_p50": round(hook["p50"] / bare["p50"], 2) if bare["p50"] else None,
        "overhead_p50_ms": round(hook["p50"] - bare["p50"], 1),
        "deny_works": b'"permissionDecision": "deny"' in denied,
        "target_p50_ms": TARGET_P50_MS,
        "meets_target": hook["p50"] <= TARGET_P50_MS,
        "python": sys.version.split()[0],
    }


def cli(
    rules: Annotated[int, typer.Option("--rules", help="Active checked rules in the library.")] = 200,
    runs: Annotated[int, typer.Option("--runs", help="Timed runs of each command.")] = 40,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """PreToolUse hook latency with N active rules, and its ratio to a bare `python -c pass`."""
    if rules < 0 or runs < 1:
        typer.echo("error: --rules must be >= 0 and --runs >= 1", err=True)
        raise typer.Exit(2)
    report = run(rules=rules, runs=runs)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    allow, deny, bare = report["pre_tool_use_allow_ms"], report["pre_tool_use_deny_ms"], report["python_c_pass_ms"]
    typer.echo(f"PreToolUse with {report['rules']} active rules ({report['runs']} runs, Python {report['python']})")
    typer.echo(f"  allow (all checks run)  p50 {allow['p50']} ms  p95 {allow['p95']} ms")
    typer.echo(f"  deny                    p50 {deny['p50']} ms  p95 {deny['p95']} ms")
    typer.echo(f"  python -c pass          p50 {bare['p50']} ms  p95 {bare['p95']} ms")
    typer.echo(
        f"  ratio {report['ratio_p50']}x, overhead {report['overhead_p50_ms']} ms; "
        f"target p50 <= {TARGET_P50_MS:.0f} ms: {'met' if report['meets_target'] else 'not met'}"
    )


__all__ = ["cli", "run"]
