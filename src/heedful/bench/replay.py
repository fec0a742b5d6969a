"""`heedful bench replay`: corrections taught once, enforced later, through the real hook command.

Every step runs `python -m heedful.hookmain <platform>` as a subprocess with a payload shaped like
the platform's. A teaching session sends the corrections as UserPromptSubmit payloads (each
paired with the previous reply through Stop); `jobs drain` learns them; then each later event
runs in its own session (UserPromptSubmit with its task, any setup tool events, then the
PreToolUse or Stop under test) in the teaching project or another one, on Claude Code or Codex.
A second teaching session retracts and supersedes rules, and more sessions follow. Reported:
violating events blocked, compliant events wrongly blocked, supersede and retract honoured, scope
respected, and hook latency p50/p95.

A teach item may carry a `tag`, and every event's `tag` may name the item it tests. Then the report
also splits the results per tag and says, for each tagged item, which rules its message became
(status, scope, check kind and parameters, from the rules whose source text is that message), so
that a missed violation reads as admission (`missing`: no active rule), compilation (`guidance`:
learned but not checked) or a check with the wrong parameters or scope (`checked`). `--keep DIR`
leaves the home and the two projects in DIR for `heedful rules list --home DIR/home`.
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

from heedful.errors import InputError
from heedful.integrations import payloads

DATA = Path(__file__).resolve().parent / "data"


def load(path: Path | None = None) -> dict[str, Any]:
    """The bundled replay files merged (only the top folder's), or the one file given."""
    files = [path] if path else sorted(DATA.glob("replay_*.json"))
    merged: dict[str, list[Any]] = {"teach": [], "replay": [], "retrain": [], "after": []}
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"cannot read the replay file {file}: {exc}") from exc
        if not isinstance(data, dict):
            raise InputError(f"the replay file {file} is not a JSON object with teach/replay/retrain/after lists")
        for key in merged:
            items = data.get(key, [])
            if not isinstance(items, list):
                raise InputError(f"the replay file {file}: {key} is not a list")
            for index, item in enumerate(items):
                problem = _malformed(key, item)
                if problem:
                    raise InputError(f"the replay file {file}: {key}[{index}] {problem}")
            merged[key].extend(items)
    return merged


_EVENT_VALUE = {"bash": "command", "reply": "reply", "write": "path", "create": "path", "edit": "path", "patch": "path"}


def _malformed(key: str, item: Any) -> str | None:
    """What is wrong with one teach item or event, before anything runs (None when it is well formed)."""
    if not isinstance(item, dict):
        return "is not an object"
    if key in ("teach", "retrain"):
        missing = [f for f in ("prompt", "reply") if not isinstance(item.get(f), str)]
        return f"needs text in {', '.join(missing)}" if missing else None
    if item.get("platform") not in ("claude-code", "codex"):
        return "needs platform claude-code or codex"
    if item.get("project") not in ("app", "lib"):
        return "needs project app or lib"
    if item.get("expect") not in ("block", "allow"):
        return "needs expect block or allow"
    field = _EVENT_VALUE.get(item.get("kind", ""))
    if field is None:
        return f"needs kind one of {', '.join(_EVENT_VALUE)}"
    missing = [f for f in ("id", "task", field) if not isinstance(item.get(f), str)]
    if missing:
        return f"needs text in {', '.join(missing)}"
    for step in item.get("setup", []):
        if not isinstance(step, dict) or step.get("post") not in ("bash", "edit", "create", "delete"):
            return "has a setup step without post bash, edit, create or delete"
        if not isinstance(step.get("command" if step["post"] == "bash" else "path"), str):
            return "has a setup step without its command or path"
    return None


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
            self.hook(
                "claude-code",
                self.payload("claude-code", "UserPromptSubmit", session, cwd, turn, prompt=step["prompt"]),
            )
            self.hook(
                "claude-code",
                self.payload("claude-code", "Stop", session, cwd, turn, last_assistant_message=step["reply"]),
            )

    def approve_pending(self) -> int:
        """Approve what the user was asked to confirm (retracting a checked rule waits for it)."""
        from heedful.api import Heedful

        with Heedful.open(self.home, embedder=self.embedder, store_url="sqlite") as hf:
            held = [p for p in hf.rules.pending("bench") if p.source == "user"]
            for proposal in held:
                hf.rules.approve("bench", proposal.rule_id)
        return len(held)

    def drain(self) -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-m", "heedful", "jobs", "drain", "--json", "--home", str(self.home)],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=600,
        )
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
            self.hook(
                platform,
                self.payload(
                    platform, "PreToolUse", session, cwd, turn, tool_name=tool, tool_input=tool_input, tool_use_id=use
                ),
            )
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("x = 1\n")
            self.hook(
                platform,
                self.payload(
                    platform,
                    "PostToolUse",
                    session,
                    cwd,
                    turn,
                    tool_name=tool,
                    tool_input=tool_input,
                    tool_use_id=use,
                    tool_response={"success": True},
                ),
            )
            return
        self.hook(
            platform,
            self.payload(
                platform,
                "PostToolUse",
                session,
                cwd,
                turn,
                tool_name=tool,
                tool_input=tool_input,
                tool_response={"stdout": "", "stderr": ""},
            ),
        )

    def event(self, item: dict[str, Any]) -> tuple[bool, str | None]:
        """Run one later event in its own session: whether the hook blocked it, and the reason it gave."""
        platform = item["platform"]
        cwd = str(self.projects[item["project"]])
        session = f"replay-{item['id']}"
        turn = f"{session}-t1"
        self.hook(platform, self.payload(platform, "UserPromptSubmit", session, cwd, turn, prompt=item["task"]))
        for step in item.get("setup", []):
            self._setup(platform, step, session, cwd, turn)
        if item["kind"] == "reply":
            answer = self.hook(
                platform, self.payload(platform, "Stop", session, cwd, turn, last_assistant_message=item["reply"])
            )
            if answer is not None and answer.get("decision") == "block":
                return True, str(answer.get("reason") or "")
            return False, None
        if item["kind"] == "bash":
            tool, tool_input = "Bash", {"command": item["command"]}
        else:
            tool, tool_input = self._tool(platform, item["kind"], item["path"], cwd)
        answer = self.hook(
            platform, self.payload(platform, "PreToolUse", session, cwd, turn, tool_name=tool, tool_input=tool_input)
        )
        output = (answer or {}).get("hookSpecificOutput") or {}
        if output.get("permissionDecision") == "deny":
            return True, str(output.get("permissionDecisionReason") or "")
        return False, None

    def learned(self, items: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        """Per tagged teach item, the rules whose source text is its message (any status)."""
        from heedful.api import Heedful

        prompts = {_words(step["prompt"]): step["tag"] for step in items if step.get("tag")}
        found: dict[str, list[dict[str, Any]]] = {tag: [] for tag in prompts.values()}
        with Heedful.open(self.home, embedder=self.embedder, store_url="sqlite") as hf:
            for rule in hf.rules.list("bench", include_all=True):
                tag = prompts.get(_words(hf.rules.show("bench", rule["id"]).source_text))
                if tag is not None:
                    check = rule.get("check") or {}
                    found[tag].append(
                        {
                            "id": rule["id"],
                            "text": rule["text"],
                            "status": rule["status"],
                            "scope": rule["scope"],
                            "check": check.get("kind"),
                            "params": check.get("params"),
                        }
                    )
        return found


def _share(items: list[dict[str, Any]]) -> float | None:
    return round(sum(i["correct"] for i in items) / len(items), 4) if items else None


def _words(text: str) -> str:
    return " ".join(text.split()).casefold()


ACTIVE = ("checked", "guidance")


def _diagnose(outcome: dict[str, Any], learned: dict[str, list[dict[str, Any]]]) -> str | None:
    """Why a tagged event went wrong: its correction was not learned, stayed guidance, or was checked amiss."""
    if outcome["correct"] or outcome["tag"] not in learned:
        return None
    if outcome["blocked"]:
        return "blocked by: " + (outcome.get("reason") or "")[:240]
    active = [r for r in learned[outcome["tag"]] if r["status"] in ACTIVE]
    if not active:
        return "missing"
    return "checked" if any(r["status"] == "checked" for r in active) else "guidance"


def _own_rule(outcome: dict[str, Any], learned: dict[str, list[dict[str, Any]]]) -> bool | None:
    """Whether a block cites a rule learned from the event's own correction (another rule may block it by luck)."""
    if not outcome["blocked"] or outcome["tag"] not in learned:
        return None
    return any(rule["id"] in (outcome.get("reason") or "") for rule in learned[outcome["tag"]])


def _by_tag(outcomes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    tags: dict[str, dict[str, Any]] = {}
    for o in outcomes:
        row = tags.setdefault(
            o["tag"], {"violating": 0, "blocked": 0, "by_own_rule": 0, "compliant": 0, "wrongly_blocked": 0}
        )
        if o["expect"] == "block":
            row["violating"] += 1
            row["blocked"] += o["blocked"]
            row["by_own_rule"] += bool(o.get("own_rule"))
        else:
            row["compliant"] += 1
            row["wrongly_blocked"] += o["blocked"]
    return tags


def run(data: Path | None = None, embedder: str = "hashing", keep: Path | None = None) -> dict[str, Any]:
    spec = load(data)
    if keep is not None and keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
        raise InputError(f"--keep needs an empty or new directory: {keep}")
    tagged = any(step.get("tag") for step in spec["teach"] + spec["retrain"])
    with tempfile.TemporaryDirectory(prefix="heedful-replay-") as temp:
        root = keep or Path(temp)
        replayer = Replayer(root, embedder)
        replayer.teach(spec["teach"], "teach-1")
        learned = replayer.drain()
        rules = {"replay": replayer.learned(spec["teach"]) if tagged else {}, "after": {}}
        outcomes = []
        approved = 0
        for phase, events in (("replay", spec["replay"]), ("after", spec["after"])):
            if phase == "after":
                replayer.teach(spec["retrain"], "teach-2")
                replayer.drain()
                approved = replayer.approve_pending()
                if tagged:
                    rules["after"] = replayer.learned(spec["teach"] + spec["retrain"])
            for item in events:
                blocked, reason = replayer.event(item)
                outcomes.append(
                    {
                        **item,
                        "phase": phase,
                        "blocked": blocked,
                        "reason": reason,
                        "correct": blocked == (item["expect"] == "block"),
                    }
                )
        latencies = sorted(replayer.latencies)
    for o in outcomes:
        o["diagnosis"] = _diagnose(o, rules[o["phase"]])
        o["own_rule"] = _own_rule(o, rules[o["phase"]])
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
        "latency_ms": {
            "p50": round(statistics.median(latencies), 1) if latencies else None,
            "p95": round(latencies[int(0.95 * (len(latencies) - 1))], 1) if latencies else None,
        },
        "errors": replayer.errors[:10],
        "mistakes": [
            {k: o[k] for k in ("id", "phase", "platform", "project", "tag", "expect", "blocked")}
            | ({"diagnosis": o["diagnosis"]} if o["diagnosis"] else {})
            for o in outcomes
            if not o["correct"]
        ],
        "targets": {"violations_blocked_rate": ">= 0.95", "compliant_blocked": 0},
    }
    if tagged:
        report["violations_blocked_by_own_rule"] = sum(bool(o["own_rule"]) for o in violating)
        report["by_tag"] = _by_tag(outcomes)
        kinds = {step["tag"]: step.get("learn") for step in spec["teach"] + spec["retrain"] if step.get("tag")}
        report["learned"] = {tag: {"learn": kinds.get(tag), "rules": found} for tag, found in rules["replay"].items()}
        report["learned_after_retrain"] = rules["after"]
    if keep is not None:
        report["kept"] = str(root)
    return report


def _render(report: dict[str, Any]) -> None:
    typer.echo(
        f"events {report['events']} ({report['violating']} violating, {report['compliant']} compliant), "
        f"{report['hook_calls']} hook calls"
    )
    typer.echo(
        f"violations blocked   {report['violations_blocked']}/{report['violating']} "
        f"({report['violations_blocked_rate']:.1%}; target >= 95%)"
    )
    if "violations_blocked_by_own_rule" in report:
        typer.echo(f"  of which by the rule of the correction tested: {report['violations_blocked_by_own_rule']}")
    typer.echo(f"compliant blocked    {report['compliant_blocked']} (target 0)")
    for key in ("supersede_honoured", "retract_honoured", "scope_respected"):
        value = report[key]
        typer.echo(f"{key.replace('_', ' '):<20} {'-' if value is None else f'{value:.1%}'}")
    typer.echo(f"hook latency         p50 {report['latency_ms']['p50']} ms, p95 {report['latency_ms']['p95']} ms")
    for tag, row in report.get("by_tag", {}).items():
        found = report["learned"].get(tag, {}).get("rules") or report["learned_after_retrain"].get(tag, [])
        rules = ", ".join(f"{r['status']}" + (f" {r['check']}" if r["check"] else "") for r in found) or "no rule"
        typer.echo(
            f"  {tag:<22} blocked {row['blocked']}/{row['violating']} ({row['by_own_rule']} by its own rule), "
            f"wrongly blocked {row['wrongly_blocked']}/{row['compliant']}; learned: {rules}"
        )
    for mistake in report["mistakes"]:
        typer.echo(f"  wrong: {mistake}")
    for error in report["errors"]:
        typer.echo(f"  error: {error}")


def cli(
    data: Annotated[Path | None, typer.Option("--data", help="A replay JSON file (default: the bundled ones).")] = None,
    embedder: Annotated[str, typer.Option("--embedder", help="Embedder for the learning jobs.")] = "hashing",
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    keep: Annotated[
        Path | None, typer.Option("--keep", help="Leave the home and projects in this new directory.")
    ] = None,
) -> None:
    """Replay taught corrections and later sessions through the real hook subprocess."""
    report = run(data=data, embedder=embedder, keep=keep)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        _render(report)


__all__ = ["cli", "run"]
