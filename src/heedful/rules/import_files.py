"""Which files an import reads, and whose rules they give: a repository's, or the user's everywhere.

A file inside a git repository gives project rules for that repository (its root); a file in the
user's home directory outside any repository gives global rules; `--project DIR` overrides both.
A directory stands for the instruction files the agents read from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from heedful.errors import InputError

# The agents' instruction files, relative to a project (or home) directory.
INSTRUCTION_FILES = (
    "CLAUDE.md",
    ".claude/CLAUDE.md",
    "AGENTS.md",
    "GEMINI.md",
    ".cursorrules",
    ".github/copilot-instructions.md",
)
INSTRUCTION_GLOBS = (".claude/rules/*.md", ".cursor/rules/*.mdc")
MAX_BYTES = 1_000_000


@dataclass(frozen=True)
class Target:
    """One file to import, its text, and the scope its rules get."""

    path: Path
    text: str
    scope: str
    project: str | None


def instruction_files(directory: Path) -> list[Path]:
    found = [directory / name for name in INSTRUCTION_FILES if (directory / name).is_file()]
    for pattern in INSTRUCTION_GLOBS:
        found.extend(sorted(p for p in directory.glob(pattern) if p.is_file()))
    return found


def git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def scope_for(path: Path, project: str | None) -> tuple[str, str | None]:
    if project is not None:
        return "project", project
    home = Path.home().resolve()
    root = git_root(path.parent)
    if root is not None and root != home:
        return "project", str(root)
    if path.is_relative_to(home):
        return "global", None
    raise InputError(f"{path} is neither inside a git repository nor in your home directory; give --project DIR")


def _read(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_BYTES:
            raise InputError(f"{path} is larger than {MAX_BYTES // 1000} kB; is it really an instruction file?")
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path} is not UTF-8 text") from exc
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from exc


def targets(paths: list[str | Path], project: str | None) -> list[Target]:
    """Every file to import, read and scoped; any unreadable path stops the whole import first."""
    if not paths:
        raise InputError("give at least one instruction file (or a directory holding one)")
    files: list[Path] = []
    for given in paths:
        path = Path(given).expanduser().resolve()
        if path.is_dir():
            inside = instruction_files(path)
            if not inside:
                raise InputError(
                    f"{path} holds no agent-instruction file (CLAUDE.md, AGENTS.md, GEMINI.md, "
                    ".cursorrules, .cursor/rules/*.mdc, .github/copilot-instructions.md)"
                )
            files.extend(inside)
        elif path.is_file():
            files.append(path)
        else:
            raise InputError(f"no such file or directory: {given}")
    unique = list(dict.fromkeys(p.resolve() for p in files))
    return [Target(path, _read(path), *scope_for(path, project)) for path in unique]


__all__ = ["INSTRUCTION_FILES", "INSTRUCTION_GLOBS", "Target", "git_root", "instruction_files", "scope_for", "targets"]
