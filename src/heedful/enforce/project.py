"""Which project a path belongs to: the root of its repository, found by a version-control marker.

An agent may start in a subdirectory (Claude Code then sets `CLAUDE_PROJECT_DIR` to it), and a
user may run `heedful rules learn` from one; both must name the same project, so a path is
resolved to the nearest enclosing directory that holds a VCS marker. Without a marker the path
itself is the project, and rules stored for one of its ancestors apply to it as well
(`lineage`). Pure apart from `stat` calls; light enough for the hook.
"""

from __future__ import annotations

import os

# Directories or files that mark the root of a working copy (git worktrees and submodules have a `.git` file).
VCS_MARKERS = (".git", ".hg", ".jj", ".sl", ".svn", ".bzr", ".pijul", "_darcs", ".fslckout", "_FOSSIL_")


def repository_root(path: str) -> str | None:
    """The nearest directory at or above `path` holding a VCS marker (None when there is none)."""
    current = os.path.realpath(path)
    while True:
        if any(os.path.exists(os.path.join(current, marker)) for marker in VCS_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def project_root(cwd: str, env_dir: str | None = None) -> str:
    """The project a session works in: the repository around the platform's project dir (else `cwd`).

    `env_dir` (Claude Code's `CLAUDE_PROJECT_DIR`) is where the agent started, which may be a
    subdirectory; it wins over `cwd` because a tool call may `cd` elsewhere.
    """
    start = os.path.realpath(env_dir if env_dir and os.path.isdir(env_dir) else cwd)
    return repository_root(start) or start


def normalise(path: str) -> str:
    """A project path as stored: absolute, symlinks resolved, then widened to its repository root."""
    full = os.path.realpath(os.path.expanduser(path))
    return repository_root(full) or full


def lineage(project: str | None) -> list[str]:
    """`project` and every directory above it, nearest first (rules stored for any of them apply)."""
    if not project:
        return []
    current = os.path.normpath(project)
    out = [current]
    while (parent := os.path.dirname(current)) != current:
        out.append(parent)
        current = parent
    return out
