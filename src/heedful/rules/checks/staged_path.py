"""staged_path: files that must never be staged or committed (`git add`, `git commit -a`, `git commit <paths>`).

params: globs ([str], gitignore-like as in forbidden_path). A pathspec that names a matching file
is a violation; one that stages everything below a directory (`git add -A`, `git add .`,
`git commit -a`) is a violation when the task wrote a matching file, and unknown otherwise
(the check cannot see which untracked files exist).
"""

from __future__ import annotations

import fnmatch
import posixpath
from typing import TYPE_CHECKING, Any

from heedful.rules.checks.evidence import clip, events_of, project_of, shell_action
from heedful.rules.checks.kind import CheckKind
from heedful.rules.checks.path import glob_regex, project_glob
from heedful.rules.checks.verdict import Result, Stage, Verdict
from heedful.rules.shell import simple_commands
from heedful.rules.shell_git import git_added, git_commit

if TYPE_CHECKING:
    from heedful.rules.models import Case

KIND = "staged_path"
STAGE: Stage = "pre_action"
EVIDENCE = ["action.command", "events"]


def _globs(params: Any) -> list[str]:
    value = params.get("globs") if isinstance(params, dict) else None
    return [g for g in value if isinstance(g, str) and g.strip()] if isinstance(value, list) else []


def describe(params: dict[str, Any]) -> str:
    return "never stage or commit " + (", ".join(_globs(params)) or "no paths")


def _clean(path: str, project: str | None = None) -> str:
    """The pathspec relative to the project: `./x`, `:/x` and `/abs/project/x` are all `x`."""
    normal = posixpath.normpath(path.replace("\\", "/").removeprefix(":/"))
    if normal.startswith("/") and project:
        root = posixpath.normpath(project.replace("\\", "/"))
        if normal == root or normal.startswith(root.rstrip("/") + "/"):
            normal = posixpath.relpath(normal, root)
    return "" if normal == "." else normal


def _matches(path: str, globs: list[str], project: str | None = None) -> str | None:
    clean = _clean(path, project)
    for pattern in globs:
        if clean and (glob_regex(pattern).match(clean) or fnmatch.fnmatch(pattern.strip("/"), clean)):
            return pattern
    return None


def _covers(pathspec: str, pattern: str, project: str | None = None) -> bool:
    """Whether a directory pathspec may stage a file matching the pattern."""
    base = _clean(pathspec, project)
    if not base:
        return True
    pattern, anchored = project_glob(pattern)  # "/dist" and "./dist" are dist/ at the root
    literal = pattern.split("*", 1)[0].rstrip("/")
    if not anchored:
        return "." not in posixpath.basename(base) or base.endswith("/")  # unanchored: any directory may hold it
    return literal.startswith(base + "/") or base.startswith(literal)


def evaluate(params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    globs = _globs(params)
    if not globs:
        return Verdict(result="unknown", reason="the check names no paths")
    if stage != STAGE:
        return Verdict(result="not_applicable", reason=f"checked before git stages files, not at {stage}")
    action = shell_action(evidence)
    if isinstance(action, Verdict):
        return action
    line: str = action["command"]
    project = project_of(evidence)
    bulk: list[tuple[str, list[str]]] = []
    staging = False
    for command in simple_commands(line):
        added = git_added(command)
        commit = git_commit(command)
        pathspecs: list[str] = []
        if added is not None:
            staging = True
            pathspecs, everything = added
            if everything:
                bulk.append((command.raw, globs))
        elif commit is not None:
            staging = True
            pathspecs = commit.paths
            if commit.all_tracked:
                bulk.append((command.raw, globs))
        for pathspec in pathspecs:
            pattern = _matches(pathspec, globs, project)
            if pattern is not None:
                return Verdict(
                    result="violated", reason=f"stages {pathspec!r}, which matches {pattern!r}", quotes=[clip(pathspec)]
                )
            covered = [g for g in globs if _covers(pathspec, g, project)]
            if covered and posixpath.splitext(pathspec)[1] == "" and not any(c in pathspec for c in "*?"):
                bulk.append((command.raw, covered))
    if not staging:
        return Verdict(result="not_applicable", reason="the command stages and commits nothing")
    if not bulk:
        return Verdict(result="pass", reason=f"no staged path matches {', '.join(globs)}")
    written = [str(e.get("path")) for e in events_of(evidence) or [] if isinstance(e.get("path"), str)]
    for raw, patterns in bulk:
        for path in written:
            pattern = _matches(path, patterns, project)
            if pattern is not None:
                return Verdict(
                    result="violated",
                    reason=f"stages everything, including {path!r} ({pattern!r})",
                    quotes=[clip(raw if raw in line else line)],
                )
    raw = bulk[0][0]
    return Verdict(
        result="unknown",
        reason=f"stages files in bulk; cannot see whether any matches {', '.join(bulk[0][1])}",
        quotes=[clip(raw if raw in line else line)],
    )


def _example(pattern: str) -> str:
    pattern = project_glob(pattern)[0]
    example = pattern.replace("**/", "").replace("**", "deep/file").replace("*", "example").rstrip("/")
    return example + "/example.txt" if pattern.endswith("/") else example


def cases(params: dict[str, Any]) -> list[Case]:
    from heedful.rules.models import Case

    globs = _globs(params) or ["example"]
    example = _example(globs[0])

    def bash(command: str, events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        evidence: dict[str, Any] = {"action": {"tool": "Bash", "command": command}}
        if events is not None:
            evidence["events"] = events
        return evidence

    return [
        Case(stage=STAGE, evidence=bash(f"git add {example}"), expected="violated"),
        Case(
            stage=STAGE,
            evidence=bash(f"git add src/app.py && git commit -m 'x' {example}"),
            expected="violated",
            note="named on git commit",
        ),
        Case(
            stage=STAGE,
            evidence=bash("git add -A", [{"kind": "write", "path": example}]),
            expected="violated",
            note="bulk add after writing the file",
        ),
        Case(stage=STAGE, evidence=bash("git add src/app_module.py && git commit -m 'fix'"), expected="pass"),
        Case(stage=STAGE, evidence=bash("git status"), expected="not_applicable", note="stages nothing"),
        Case(
            stage=STAGE,
            evidence={"action": {"tool": "Edit", "file_path": example}},
            expected="not_applicable",
            note="an edit stages nothing",
        ),
    ]


def review(params: dict[str, Any], stage: str, evidence: dict[str, Any]) -> Result:
    """Independent labeller: words after `git add`/`git commit` compared with fnmatch, events for bulk adds."""
    if stage != STAGE:
        return "not_applicable"
    line = (evidence.get("action") or {}).get("command")
    if not isinstance(line, str) or not any(w in line for w in ("git add", "git commit", "git stage")):
        return "not_applicable"
    words = [w.strip("'\"") for w in line.replace("&&", " ").split()]
    names = [w for w in words if not w.startswith("-") and w not in ("git", "add", "commit", "stage")]
    if "-A" in words or "." in words or "-a" in words:
        names += [str(e.get("path")) for e in evidence.get("events") or []]
    for name in names:
        name = name.removeprefix("./")
        for pattern in _globs(params):
            stem = pattern.removeprefix("./").lstrip("/").rstrip("/")
            if any(fnmatch.fnmatch(name, p) for p in (stem, f"*/{stem}", f"{stem}/*", f"*/{stem}/*")):
                return "violated"
    return "pass"


class StagedPath(CheckKind):
    name = KIND
    stage = STAGE
    evidence = tuple(EVIDENCE)
