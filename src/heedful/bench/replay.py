"""`heedful bench replay`: corrections taught once, enforced later, through the real hook command.

Every step runs `python -m heedful.hookmain <platform>` as a subprocess with a payload shaped like
the platform's. A teaching session sends the corrections as UserPromptSubmit payloads (each
paired with the previous reply through Stop); `jobs drain` learns them; then each later event
runs in its own session (UserPromptSubmit with its task, any setup tool events, then the
PreToolUse or Stop under test) in the teaching project or another one, on Claude Code or Codex.
A second teaching session retracts and supersedes rules, and more sessions follow. Reported:
violating events blocked, compliant events wrongly blocked, supersede and retract honoured, scope
respected, and hook latency p50/p95.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.integrations import payloads

DATA = Path(__file__).resolve().parent / "data"


def load(path: Path | None = None) -> dict[str, Any]:
    files = [path] if path else sorted(DATA.glob("replay_*.json"))
    merged: dict[str, list[Any]] = {"teach": [], "replay": [], "retrain": [], "after": []}
    for file in files:
        data = json.loads(file.read_text(encoding="utf-8"))
        for key in merged:
            merged[key].extend(data.get(key, []))
    return merged


class Replayer:
    def __init__(self, root: Path, embedder: str) -> None:
        self.embedder = embedder
        self.root = root
        self.home = root / "home"
        self.projects = {name: (root / name).resolve() for name in ("app", "lib")}
        for path in self.projects.values():
            path.mkdir(parents=True, exist_ok=True)
        self.env = payloads.hook_env(self.home, user="bench", HEEDFUL_EMBEDDER=embedder)
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        self.latencies: list[float] = []
        self.errors: list[str] = []

    def hook(self, platform: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        code, out, err, elapsed = payloads.run_hook(platform, payload, self.env)
        self.latencies.append(elapsed)
        if code != 0:
            self.errors.append(f"exit {code}: {err.strip()[:200]}")
        try:
            return json.loads(out) if out.strip() else None
        except json.JSONDecodeError:
            self.errors.append(f"not JSON: {out[:200]}")
            return None

    def payload(self, platform: str, event: str, session: str, cwd: str, turn: str, **fields: Any) -> dict[str, Any]:
        if platform == "codex":
            return payloads.codex(event, session, cwd, turn=turn, **fields)
        return payloads.claude(event, session, cwd, **fields)

    def teach(self, steps: list[dict[str, Any]], session: str) -> None:
        cwd = str(self.projects["app"])
        for index, step in enumerate(steps):
            turn = f"{session}-{index}"
            self.hook("claude-code", self.payload("claude-code", "UserPromptSubmit", session, cwd, turn,
                                                  prompt=step["prompt"]))
            self.hook("claude-code", self.payload("claude-code", "Stop", session, cwd, turn,
                                                  last_assistant_message=step["reply"]))

    def approve_pending(self) -> int:
        """Approve what the user was asked to confirm (retracting a checked rule waits for it)."""
        from heedful.api import Heedful

        with Heedful.open(self.home, embedder=self.embedder) as hf:
            held = [p for p in hf.rules.pending("bench") if p.source == "user"]
            for proposal in held:
                hf.rules.approve("bench", proposal.rule_id)
        return len(held)

    def drain(self) -> dict[str, Any]:
        done = subprocess.run([sys.executable, "-m", "heedful", "jobs", "drain", "--json", "--home", str(self.home)],
                              capture_output=True, text=True, env=self.env, timeout=600)
        if done.returncode != 0:
            self.errors.append(f"drain: {done.stderr.strip()[:200]}")
        return json.loads(done.stdout) if done.stdout.strip() else {}

    def _tool(self, platform: str, kind: str, path: str, cwd: str) -> tuple[str, dict[str, Any]]:
        if platform == "codex" or kind == "patch":
            op = "Add" if kind in ("write", "create") else "Update"
            return "apply_patch", {"command": f"*** Begin Patch\n*** {op} File: {path}\n+x = 1\n*** End Patch\n"}
        full = str(Path(cwd) / path)
        if kind == "edit":
            return "Edit", {"file_path": full, "old_string": "a", "new_string": "b", "replace_all": False}
        return "Write", {"file_path": full, "content": "x = 1\n"}

    def _setup(self, platform: str, step: dict[str, Any], session: str, cwd: str, turn: str) -> None:
        post = step["post"]
        target = Path(cwd) / step.get("path", "")
        if post == "bash":
            tool, tool_input = "Bash", {"command": step["command"]}
        elif post == "delete":
            target.unlink(missing_ok=True)
            tool, tool_input = "Bash", {"command": f"rm {step['path']}"}
        else:
            tool, tool_input = self._tool(platform, "write" if post == "create" else "edit", step["path"], cwd)
            use = f"setup-{session}-{step['path']}"
            self.hook(platform, self.payload(platform, "PreToolUse", session, cwd, turn, tool_name=tool,
                                             tool_input=tool_input, tool_use_id=use))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("x = 1\n")
            self.hook(platform, self.payload(platform, "PostToolUse", session, cwd, turn, tool_name=tool,
                                             tool_input=tool_input, tool_use_id=use, tool_response={"success": True}))
            return
        self.hook(platform, self.payload(platform, "PostToolUse", session, cwd, turn, tool_name=tool,
                                         tool_input=tool_input, tool_response={"stdout": "", "stderr": ""}))

    def event(self, item: dict[str, Any]) -> bool:
        """Run one later event in its own session; True when the hook blocked it."""
        platform = item["platform"]
        cwd = str(self.projects[item["project"]])
        session = f"replay-{item['id']}"
        turn = f"{session}-t1"
        self.hook(platform, self.payload(platform, "UserPromptSubmit", session, cwd, turn, prompt=item["task"]))
        for step in item.get("setup", []):
            self._setup(platform, step, session, cwd, turn)
        if item["kind"] == "reply":
            answer = self.hook(platform, self.payload(platform, "Stop", session, cwd, turn,
                                                      last_assistant_message=item["reply"]))
            return answer is not None and answer.get("decision") == "block"
        if item["kind"] == "bash":
            tool, tool_input = "Bash", {"command": item["command"]}
        else:
            tool, tool_input = self._tool(platform, item["kind"], item["path"], cwd)
        answer = self.hook(platform, self.payload(platform, "PreToolUse", session, cwd, turn, tool_name=tool,
                                                  tool_input=tool_input))
        output = (answer or {}).get("hookSpecificOutput") or {}
        return output.get("permissionDecision") == "deny"


def _share(items: list[dict[str, Any]]) -> float | None:
    return round(sum(i["correct"] for i in items) / len(items), 4) if items else None


def run(data: Path | None = None, embedder: str = "hashing", keep: Path | None = None) -> dict[str, Any]:
    spec = load(data)
    with tempfile.TemporaryDirectory(prefix="heedful-replay-") as temp:
        root = keep or Path(temp)
        replayer = Replayer(root, embedder)
        replayer.teach(spec["teach"], "teach-1")
        learned = replayer.drain()
        outcomes = []
        approved = 0
        for phase, events in (("replay", spec["replay"]), ("after", spec["after"])):
            if phase == "after":
                replayer.teach(spec["retrain"], "teach-2")
                replayer.drain()
                approved = replayer.approve_pending()
            for item in events:
                blocked = replayer.event(item)
                outcomes.append({**item, "phase": phase, "blocked": blocked,
                                 "correct": blocked == (item["expect"] == "block")})
        latencies = sorted(replayer.latencies)
    violating = [o for o in outcomes if o["expect"] == "block"]
    compliant = [o for o in outcomes if o["expect"] == "allow"]
    report = {
        "events": len(outcomes),
        "violating": len(violating),
        "violations_blocked": sum(o["blocked"] for o in violating),
        "violations_blocked_rate": _share(violating),
        "compliant": len(compliant),
        "compliant_blocked": sum(o["blocked"] for o in compliant),
        "supersede_honoured": _share([o for o in outcomes if o["tag"] == "supersede"]),
        "retract_honoured": _share([o for o in outcomes if o["tag"] == "retract"]),
        "scope_respected": _share([o for o in outcomes if o["project"] == "lib"]),
        "by_platform": {p: _share([o for o in outcomes if o["platform"] == p]) for p in ("claude-code", "codex")},
        "taught": len(spec["teach"]) + len(spec["retrain"]),
        "held_for_approval": approved,
        "learning_jobs": learned.get("done", 0),
        "hook_calls": len(latencies),
        "latency_ms": {"p50": round(statistics.median(latencies), 1) if latencies else None,
                       "p95": round(latencies[int(0.95 * (len(latencies) - 1))], 1) if latencies else None},
        "errors": replayer.errors[:10],
        "mistakes": [{k: o[k] for k in ("id", "phase", "platform", "project", "tag", "expect", "blocked")}
                     for o in outcomes if not o["correct"]],
        "targets": {"violations_blocked_rate": ">= 0.95", "compliant_blocked": 0},
    }
    return report


def _render(report: dict[str, Any]) -> None:
    typer.echo(f"events {report['events']} ({report['violating']} violating, {report['compliant']} compliant), "
               f"{report['hook_calls']} hook calls")
    typer.echo(f"violations blocked   {report['violations_blocked']}/{report['violating']} "
               f"({report['violations_blocked_rate']:.1%}; target >= 95%)")
    typer.echo(f"compliant blocked    {report['compliant_blocked']} (target 0)")
    for key in ("supersede_honoured", "retract_honoured", "scope_respected"):
        value = report[key]
        typer.echo(f"{key.replace('_', ' '):<20} {'-' if value is None else f'{value:.1%}'}")
    typer.echo(f"hook latency         p50 {report['latency_ms']['p50']} ms, p95 {report['latency_ms']['p95']} ms")
    for mistake in report["mistakes"]:
        typer.echo(f"  wrong: {mistake}")
    for error in report["errors"]:
        typer.echo(f"  error: {error}")


def cli(
    data: Annotated[Path | None, typer.Option("--data", help="A replay JSON file (default: the bundled ones).")] = None,
    embedder: Annotated[str, typer.Option("--embedder", help="Embedder for the learning jobs.")] = "hashing",
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """Replay taught corrections and later sessions through the real hook subprocess."""
    report = run(data=data, embedder=embedder)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        _render(report)


__all__ = ["cli", "run"]

