"""Scope read from what a rule's check names: a project's own commands and directories.

Admission reads scope from the sentence ("in this repo", a directory, a language version). A check
can say more: `make lint`, `pnpm run typecheck`, `./scripts/check.sh` or a write under
`docs/v*/` exist only in the project that defines them, so a rule whose every check names such a
thing is a project rule even when the sentence gives no anchor ("Do not skip `make lint` before
pushing"). Generic things stay global: a program's own subcommands (`npm install`, `git push`),
lock files, `.env`, `node_modules/`, paths outside the project.

    project_bound(check)  -> the reason it is bound to its project, or None
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from typing import Any

from heedful.rules.models import CheckSpec

# Programs whose words after them name targets the project defines (a Makefile, a justfile, Taskfile.yml …).
TARGET_RUNNERS = frozenset({"make", "just", "task", "mage", "rake", "invoke", "gulp", "grunt", "nox", "tox"})
# Package managers whose `run X` (or `run-script X`) runs a script of the project's manifest.
SCRIPT_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun", "deno", "composer", "pdm", "hatch", "poe"})
SCRIPT_SUBCOMMANDS = frozenset({"run", "run-script"})
# Directories every project of a kind has: a rule about them is a habit, not one project's layout.
GENERIC_DIRECTORIES = frozenset(
    {
        "",
        "*",
        "**",
        ".",
        ".git",
        ".github",
        ".venv",
        "venv",
        "env",
        "node_modules",
        "vendor",
        "dist",
        "build",
        "target",
        "out",
        "bin",
        "obj",
        "tmp",
        "temp",
        "coverage",
        "__pycache__",
        ".cache",
        ".next",
        ".idea",
        ".vscode",
        "src",
        "test",
        "tests",
        "lib",
    }
)


# A relative path that runs as a program: a script file or a file in a folder of scripts (not `dist/`, not
# `async/await`).
_SCRIPT = re.compile(
    r"^(?![/~])(?:[\w.-]+/)+[\w.-]+\.(?:sh|bash|py|js|mjs|cjs|ts|rb|pl|ps1|php)$|^(?:scripts?|bin|tools|hack|dev|ci)/[\w.-]+$"
)


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _own_command(command: str) -> str | None:
    """Why `command` is one the project defines, or None."""
    words = [w for w in _words(command) if not w.startswith("-")]
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    if words[0].startswith(("./", "../")) or _SCRIPT.search(words[0]):
        return f"`{command}` runs a script of the project"
    if program in TARGET_RUNNERS:
        return f"`{command}` runs a target the project defines"
    if program in SCRIPT_RUNNERS and len(words) > 2 and words[1] in SCRIPT_SUBCOMMANDS:
        return f"`{command}` runs a script of the project's manifest"
    if program in {"cargo"} and len(words) > 1 and words[1] == "xtask":
        return f"`{command}` runs the project's own xtask"
    return None


def _command_lines(commands: Iterable[Any]) -> list[str]:
    """The required commands as lines: each is a line or its words (`["make", "lint"]`)."""
    return [item if isinstance(item, str) else " ".join(str(w) for w in item) for item in commands]


def _own_directory(glob: str) -> str | None:
    """Why `glob` names a directory of one project's layout, or None (a bare file name, a generic folder,
    an absolute or home path)."""
    if glob.startswith(("/", "~", "$")) or "/" not in glob.strip("/"):
        return None
    parts = [p for p in glob.strip("/").split("/") if p not in ("**", "*", ".")]
    directories = parts[:-1] if "." in parts[-1] or "*" in parts[-1] else parts
    own = [d for d in directories if d.lower() not in GENERIC_DIRECTORIES]
    return f"`{glob}` is a folder of the project" if own else None


def project_bound(check: CheckSpec) -> str | None:
    """The reason `check` can only concern the project it was learned in, or None."""
    params = check.params
    if check.kind == "required_event":
        commands = _command_lines(params.get("commands", []))
        reasons = [_own_command(c) for c in commands]
        return reasons[0] if commands and all(reasons) else None
    if check.kind == "forbidden_command":
        program = str(params.get("program", ""))
        words = [program, *[str(w) for w in params.get("subcommand", [])], *[str(w) for w in params.get("args", [])]]
        return _own_command(" ".join(words)) if program else None
    if check.kind in ("forbidden_path", "staged_path"):
        if params.get("outside_project"):
            return None
        globs = [str(g) for g in params.get("globs", [])]
        reasons = [_own_directory(g) for g in globs]
        return reasons[0] if globs and all(reasons) else None
    return None


__all__ = ["project_bound"]
