"""workspace_leftovers: files matching a pattern that the session created must be gone at delivery.

params: globs ([str], gitignore-like, see forbidden_path).
Evidence: events (kind create | write with created: true | delete, and commands such as `rm x`),
and optionally workspace (the paths present at delivery), which is authoritative when given.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any

from heedful.rules.checks.evidence import events_of, workspace_of
from heedful.rules.checks.kind import CheckKind
from heedful.rules.checks.path import glob_regex
from heedful.rules.checks.verdict import Result, Stage, Verdict

if TYPE_CHECKING:
    from heedful.rules.models import Case
from heedful.rules.shell import positionals, simple_commands

KIND = "workspace_leftovers"
STAGE: Stage = "delivery"
EVIDENCE = ["events", "workspace"]


def _globs(params: Any) -> list[str]:
    value = params.get("globs") if isinstance(params, dict) else None
    return [g for g in value if isinstance(g, str) and g.strip()] if isinstance(value, list) else []


def describe(params: dict[str, Any]) -> str:
    return "no leftover " + ", ".join(_globs(params))


def _norm(path: str) -> str:
    return posixpath.normpath(path.replace("\\", "/")).removeprefix("./")


def _created_and_deleted(events: list[dict[str, Any]]) -> tuple[list[str], set[str]]:
    created: list[str] = []
    deleted: set[str] = set()
    for event in events:
        kind = str(event.get("kind", "")).lower()
        path = event.get("path")
        if isinstance(path, str):
            if kind == "create" or (kind == "write" and event.get("created") is True):
                created.append(_norm(path))
                deleted.discard(_norm(path))
            elif kind == "delete":
                deleted.add(_norm(path))
        line = event.get("command")
        if kind == "command" and isinstance(line, str):
            for command in simple_commands(line):
                if command.program in ("rm", "unlink", "trash"):
                    deleted.update(_norm(p) for p in positionals(command))
    return created, deleted


def evaluate(params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    globs = _globs(params)
    if not globs:
        return Verdict(result="unknown", reason="the check names no pattern")
    if stage != STAGE:
        return Verdict(result="not_applicable", reason=f"checked at delivery, not at {stage}")
    events = events_of(evidence)
    if events is None:
        return Verdict(result="unknown", reason="the evidence holds no event log")
    created, deleted = _created_and_deleted(events)
    matching = [p for p in dict.fromkeys(created) if any(glob_regex(g).match(p) for g in globs)]
    if not matching:
        return Verdict(result="not_applicable", reason=f"the session created no file matching {', '.join(globs)}")
    workspace = workspace_of(evidence)
    if workspace is not None:
        present = {_norm(p) for p in workspace}
        left = [p for p in matching if p in present]
    else:
        left = [p for p in matching if p not in deleted]
    if left:
        return Verdict(result="violated", reason=f"left behind: {', '.join(left)}", quotes=left[:8])
    return Verdict(result="pass", reason=f"removed {', '.join(matching)} before delivery")


def cases(params: dict[str, Any]) -> list[Case]:
    from heedful.rules.models import Case

    pattern = (_globs(params) or ["scratch_*"])[0].rstrip("/")
    name = pattern.replace("**/", "").replace("**", "x").replace("*", "scratch").replace("?", "x")
    if _globs(params) and _globs(params)[0].endswith("/"):
        name += "/notes.txt"
    create = {"kind": "create", "path": name}
    return [
        Case(stage=STAGE, evidence={"events": [create, {"kind": "delete", "path": name}]}, expected="pass"),
        Case(stage=STAGE, evidence={"events": [create], "workspace": [name, "src/app.py"]}, expected="violated"),
        Case(
            stage=STAGE,
            evidence={"events": [create, {"kind": "command", "command": f"rm -f {name}"}]},
            expected="pass",
            note="removed by a command",
        ),
        Case(stage=STAGE, evidence={"events": [{"kind": "edit", "path": "src/app.py"}]}, expected="not_applicable"),
    ]


def review(params: dict[str, Any], stage: str, evidence: dict[str, Any]) -> Result:
    import fnmatch

    if stage != STAGE:
        return "not_applicable"
    events = evidence.get("events") or []
    pats = [g.rstrip("/") for g in _globs(params)]

    def hit(path: str) -> bool:
        return any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(path, p + "/*") for p in pats)

    made = [e["path"] for e in events if e.get("kind") == "create" and hit(str(e.get("path")))]
    if not made:
        return "not_applicable"
    if "workspace" in evidence:
        return "violated" if any(m in evidence["workspace"] for m in made) else "pass"
    gone = {e.get("path") for e in events if e.get("kind") == "delete"}
    gone |= {w for e in events if e.get("kind") == "command" for w in str(e.get("command")).split()}
    return "pass" if all(m in gone for m in made) else "violated"


class WorkspaceLeftovers(CheckKind):
    name = KIND
    stage = STAGE
    evidence = tuple(EVIDENCE)
