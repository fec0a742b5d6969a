"""What `git commit` and `git add` commands say: messages, pathspecs, whether everything is staged.

Read from the `SimpleCommand`s of `rules.shell`; pure, never raises.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from heedful.rules.shell import SimpleCommand, positionals, simple_commands

_COMMIT_VALUE_OPTIONS = frozenset(
    {
        "-m",
        "--message",
        "-F",
        "--file",
        "-C",
        "--reuse-message",
        "-c",
        "--reedit-message",
        "--author",
        "--date",
        "--fixup",
        "--squash",
        "-t",
        "--template",
        "--trailer",
        "--cleanup",
        "-S",
        "--gpg-sign",
        "--pathspec-from-file",
    }
)


class GitCommit(NamedTuple):
    """What one `git commit` says: its message parts (None: written elsewhere), the paths it names,
    and whether it stages every tracked change (`-a`)."""

    messages: list[str] | None
    paths: list[str]
    all_tracked: bool


def heredoc_value(value: str) -> str:
    """`$(cat <<'EOF' ... EOF)` as the text it produces; anything else unchanged."""
    stripped = value.strip()
    if stripped.startswith("$(") and stripped.endswith(")"):
        inner = simple_commands(stripped[2:-1])
        if inner and inner[0].heredocs:
            return "\n".join(inner[0].heredocs)
    return value


def git_commit(command: SimpleCommand) -> GitCommit | None:
    """The parts of a `git commit` command, or None for any other command."""
    rest = positionals(command)
    if command.program != "git" or rest[:1] != ["commit"]:
        return None
    args = list(command.args)
    start = args.index("commit") + 1
    messages: list[str] = []
    from_file = False
    paths: list[str] = []
    all_tracked = False
    i = start
    while i < len(args):
        arg = args[i]
        value: str | None = None
        name = arg
        if arg == "--":
            paths += args[i + 1 :]
            break
        if arg.startswith("--") and "=" in arg:
            name, value = arg.split("=", 1)
        elif re.fullmatch(r"-[a-zA-Z]+", arg) and len(arg) > 2:
            letters = arg[1:]
            all_tracked = all_tracked or "a" in letters
            last = letters[-1]
            name = f"-{last}" if last in "mFCc" else arg
            if name == arg:
                i += 1
                continue
        elif re.fullmatch(r"-m.+", arg):
            name, value = "-m", arg[2:]
        if name in ("-a", "--all"):
            all_tracked = True
        elif name in _COMMIT_VALUE_OPTIONS:
            if value is None and i + 1 < len(args):
                value = args[i + 1]
                i += 1
            if name in ("-m", "--message") and value is not None:
                messages.append(heredoc_value(value))
            elif name in ("-F", "--file"):
                from_file = True
                if value == "-" and command.heredocs:
                    messages.append("\n".join(command.heredocs))
                    from_file = False
        elif not arg.startswith("-"):
            paths.append(arg)
        i += 1
    if from_file or (not messages and "--no-edit" not in args):
        return GitCommit(None if from_file or not messages else messages, paths, all_tracked)
    return GitCommit(messages, paths, all_tracked)


def git_added(command: SimpleCommand) -> tuple[list[str], bool] | None:
    """(pathspecs, stages everything) of a `git add`/`git stage`, or None for any other command."""
    rest = positionals(command)
    if command.program != "git" or rest[:1] not in (["add"], ["stage"]):
        return None
    pathspecs = rest[1:]
    everything = any(a in ("-A", "--all", "-u", "--update") for a in command.args) or any(
        p in (".", ":/", ":", "*", "-A") for p in pathspecs
    )
    return pathspecs, everything
