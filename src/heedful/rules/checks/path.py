"""forbidden_path: files the user forbade editing or writing, as globs relative to the project.

params: globs ([str], gitignore-like: a pattern without `/` matches a name at any depth, a
trailing `/` means everything below that directory; `/etc/**` is a place on the file system and
`~/.ssh/**` one in the user's home directory, however the path spells it: `~/`, `$HOME/`,
`/home/NAME/`, `/Users/NAME/`, `/root/`), outside_project (bool: any path that leaves the project
root is forbidden), created_only (bool: only files the action may create; an edit in place of an existing
file — an Edit-style tool, a patch's `Update File` — passes: "don't create new markdown files" leaves the
README editable).
"""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from heedful.rules.checks.evidence import action_of, artifact_of, clip, edited_in_place, project_of
from heedful.rules.checks.kind import CheckKind
from heedful.rules.checks.verdict import Result, Stage, Verdict

if TYPE_CHECKING:
    from heedful.rules.models import Case

KIND = "forbidden_path"
STAGE: Stage = "pre_action"
EVIDENCE = ["action.path", "project"]


# Top-level folders of a file system: "/etc/hosts" is that file, while "/dist" is dist/ at the project root.
SYSTEM_ROOTS = frozenset(
    "etc usr var tmp opt bin sbin lib lib64 home root dev proc sys mnt media srv boot run snap nix private "
    "Users Library System Applications Volumes".split()
)


def system_path(pattern: str) -> bool:
    """Whether a glob names a place on the file system (`/etc/**`) rather than in the project (`/dist`, `./build`)."""
    clean = pattern.strip().replace("\\", "/")
    return clean.startswith("/") and clean.lstrip("/").split("/", 1)[0] in SYSTEM_ROOTS


_HOME = re.compile(r"^(?:~|\$HOME|\$\{HOME\}|/home/[^/]+|/Users/[^/]+|/root)(?=/)")


def home_path(pattern: str) -> bool:
    """Whether a glob names a place in the user's home directory (`~/.bashrc`, `$HOME/.ssh/**`)."""
    return pattern.strip().startswith(("~/", "$HOME/", "${HOME}/"))


def in_home(path: str) -> str | None:
    """The path below the home directory it is written in (`/home/ana/.zshrc` -> `.zshrc`), or None."""
    clean = path.replace("\\", "/")
    found = _HOME.match(clean)
    rest = clean[found.end() :].strip("/") if found else ""
    return posixpath.normpath(rest) if rest else None


def home_regex(pattern: str) -> re.Pattern[str]:
    """A home glob as a regular expression over paths below the home directory, anchored there."""
    return glob_regex("/" + pattern.strip().split("/", 1)[1])


def project_glob(pattern: str) -> tuple[str, bool]:
    """(the glob relative to the project root, anchored at the root): `./build/**`, `/dist` and `dist/` alike."""
    clean = pattern.strip().replace("\\", "/")
    rooted = clean.startswith(("./", "/")) and not system_path(clean)
    while clean.startswith("./"):
        clean = clean[2:]
    if rooted:
        clean = clean.lstrip("/")
    return clean, rooted or "/" in clean.rstrip("/")


@lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """The glob as a regular expression over project-relative paths (over absolute ones for a system path)."""
    pattern, anchored = project_glob(pattern)
    directory = pattern.endswith("/")
    pattern = pattern.rstrip("/")
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    body = "".join(out)
    prefix = "" if anchored else "(?:.*/)?"
    suffix = "/.*" if directory else "(?:/.*)?"
    return re.compile(f"^{prefix}{body}{suffix}$")


def relative_path(path: str, project: str | None) -> tuple[str | None, bool | None]:
    """(path relative to the project or None, inside the project? None when unknowable)."""
    clean = path.replace("\\", "/")
    if clean.startswith("/"):
        if not project:
            return None, None
        root = posixpath.normpath(project.replace("\\", "/"))
        normal = posixpath.normpath(clean)
        if normal == root or normal.startswith(root.rstrip("/") + "/"):
            return posixpath.relpath(normal, root), True
        return None, False
    if clean.startswith("~"):
        return None, False
    normal = posixpath.normpath(clean)
    if normal == ".." or normal.startswith("../"):
        return None, False
    return normal, True


def _globs(params: dict[str, Any]) -> list[str]:
    value = params.get("globs")
    return [g for g in value if isinstance(g, str) and g.strip()] if isinstance(value, list) else []


def describe(params: dict[str, Any]) -> str:
    parts = list(_globs(params))
    if params.get("outside_project"):
        parts.append("anything outside the project")
    return ", ".join(parts) or "no paths"


def _paths(stage: str, evidence: Any) -> list[str] | None:
    if stage == "pre_action":
        action = action_of(evidence)
        if action is None:
            return None
        return [p for p in action.get("paths", []) if isinstance(p, str)]
    artifact = artifact_of(evidence)
    if artifact is None:
        return None
    path = artifact.get("path")
    return [path] if isinstance(path, str) else []


def evaluate(params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    if not isinstance(params, dict):
        return Verdict(result="unknown", reason="the check has no parameters")
    if stage not in ("pre_action", "artifact"):
        return Verdict(result="not_applicable", reason=f"paths are checked on actions and artifacts, not at {stage}")
    paths = _paths(stage, evidence)
    if paths is None:
        holder = "action" if stage == "pre_action" else "artifact"
        return Verdict(result="unknown", reason=f"the evidence holds no {holder}")
    if not paths:
        return Verdict(result="not_applicable", reason="the action writes no file")
    if params.get("created_only") and stage == "pre_action":
        paths = [p for p in paths if p not in edited_in_place(evidence)]
        if not paths:
            return Verdict(result="pass", reason="the action edits existing files in place; the rule is about new ones")
    project = project_of(evidence)
    unknown_reason = ""
    for path in paths:
        relative, inside = relative_path(path, project)
        if params.get("outside_project"):
            if inside is False:
                return Verdict(result="violated", reason=f"writes {path!r}, outside the project", quotes=[clip(path)])
            if inside is None:
                unknown_reason = f"cannot tell whether {path!r} is inside the project: no project in the evidence"
        absolute = posixpath.normpath(path.replace("\\", "/")) if path.replace("\\", "/").startswith("/") else None
        for pattern in _globs(params):
            # a system path (`/etc/**`) is matched as written, a home path (`~/.ssh/**`) below the home directory
            # however the path spells it, and any other glob against the path in the project
            if home_path(pattern):
                below = in_home(path)
                matched = below is not None and not (inside and relative) and bool(home_regex(pattern).match(below))
            else:
                target = absolute if system_path(pattern) else relative
                matched = target is not None and bool(glob_regex(pattern).match(target))
            if matched:
                return Verdict(
                    result="violated",
                    reason=f"writes {relative!r}, which matches the forbidden {pattern!r}",
                    quotes=[clip(path)],
                )
    if unknown_reason:
        return Verdict(result="unknown", reason=unknown_reason)
    return Verdict(result="pass", reason=f"no written path matches {describe(params)}")


def cases(params: dict[str, Any]) -> list[Case]:
    from heedful.rules.models import Case

    found: list[Case] = []
    project = "/srv/project"
    globs = _globs(params)
    if globs and home_path(globs[0]):
        return _home_cases(globs[0], project, params)
    if globs:
        written = globs[0] if system_path(globs[0]) else project_glob(globs[0])[0]
        example = written.replace("**/", "").replace("**", "deep/file").replace("*", "example").rstrip("/")
        if written.endswith("/"):
            example += "/example.py"
        created_only = bool(params.get("created_only"))
        found.append(
            Case(
                stage=STAGE,
                evidence={"project": project, "action": {"tool": "Edit", "file_path": example}},
                expected="pass" if created_only else "violated",
                note="an edit in place of an existing file" if created_only else "",
            )
        )
        if not system_path(globs[0]):
            found.append(
                Case(
                    stage=STAGE,
                    evidence={"project": project, "action": {"tool": "Write", "file_path": f"{project}/{example}"}},
                    expected="violated",
                    note="absolute path",
                )
            )
            found.append(
                Case(
                    stage=STAGE,
                    evidence={"project": project, "action": {"tool": "Write", "file_path": f"./{example}"}},
                    expected="violated",
                    note="written as ./path",
                )
            )
    if params.get("outside_project"):
        found.append(
            Case(
                stage=STAGE,
                evidence={"project": project, "action": {"tool": "Write", "file_path": "/etc/hosts"}},
                expected="violated",
            )
        )
        found.append(
            Case(
                stage=STAGE,
                evidence={"project": project, "action": {"tool": "Edit", "file_path": "../other/file.py"}},
                expected="violated",
            )
        )
    found.append(
        Case(
            stage=STAGE,
            evidence={"project": project, "action": {"tool": "Edit", "file_path": "src/app/main_module.py"}},
            expected="pass",
        )
    )
    found.append(
        Case(
            stage=STAGE,
            evidence={"project": project, "action": {"tool": "Bash", "command": "ls"}},
            expected="not_applicable",
            note="no file written",
        )
    )
    return found


def _home_cases(pattern: str, project: str, params: dict[str, Any]) -> list[Case]:
    """A home glob: written as `~/`, and as the absolute path of a home directory; the project's own file is fine."""
    from heedful.rules.models import Case

    below = pattern.strip().split("/", 1)[1]
    example = below.replace("**/", "").replace("**", "deep/file").replace("*", "example").rstrip("/")
    example += "/example.py" if below.endswith("/") else ""

    def edit(path: str) -> dict[str, Any]:
        return {"project": project, "action": {"tool": "Edit", "file_path": path}}

    found = [
        Case(stage=STAGE, evidence=edit(f"~/{example}"), expected="violated"),
        Case(stage=STAGE, evidence=edit(f"/home/dev/{example}"), expected="violated", note="the home directory"),
        Case(stage=STAGE, evidence=edit(f"{project}/{example}"), expected="pass", note="the project's own file"),
        Case(
            stage=STAGE,
            evidence={"project": project, "action": {"tool": "Bash", "command": "ls"}},
            expected="not_applicable",
            note="no file written",
        ),
    ]
    if not params.get("outside_project"):
        found.append(Case(stage=STAGE, evidence=edit("/tmp/scratch.txt"), expected="pass", note="elsewhere"))
    return found


def review(params: dict[str, Any], stage: str, evidence: dict[str, Any]) -> Result:
    """Independent labeller: fnmatch-style suffix comparison on the raw path string."""
    import fnmatch

    if stage not in ("pre_action", "artifact"):
        return "not_applicable"
    action = evidence.get("action") or {}
    path = action.get("file_path") or action.get("path")
    if not isinstance(path, str):
        return "not_applicable"
    if params.get("created_only") and str(action.get("tool", "")).lower() in (
        "edit",
        "multiedit",
        "str_replace_editor",
    ):
        return "pass"  # an edit changes a file that exists
    project = str(evidence.get("project") or "")
    if params.get("outside_project") and (
        ".." in path.split("/") or (path.startswith("/") and not path.startswith(project + "/"))
    ):
        return "violated"
    local = path[len(project) + 1 :] if project and path.startswith(project + "/") else path
    local = local.removeprefix("./")
    for pattern in _globs(params):
        if pattern.startswith("~/"):  # the user's home, spelled `~` or as a home directory outside the project
            home = re.sub(r"^(?:/home/[^/]+|/Users/[^/]+|/root)/", "~/", path) if not local.startswith("~") else path
            if not (project and path.startswith(project + "/")) and (
                fnmatch.fnmatch(home, pattern.rstrip("/")) or fnmatch.fnmatch(home, pattern.rstrip("/") + "/*")
            ):
                return "violated"
            continue
        if pattern.startswith("/") and pattern.strip("/").split("/", 1)[0] in SYSTEM_ROOTS:
            if fnmatch.fnmatch(path, pattern.rstrip("/")) or fnmatch.fnmatch(path, pattern.rstrip("/") + "/*"):
                return "violated"
            continue
        stem = pattern.removeprefix("./").lstrip("/").rstrip("/")
        bare = stem.removeprefix("**/")  # "**/migrations/**" also names migrations/ at the root
        candidates = [stem, f"*/{stem}", f"{stem}/*", f"*/{stem}/*", bare, f"{bare}/*"]
        if any(fnmatch.fnmatch(local, c) for c in candidates):
            return "violated"
    return "pass"


class ForbiddenPath(CheckKind):
    name = KIND
    stage = STAGE
    evidence = tuple(EVIDENCE)
