"""The files a shell command line writes, moves or deletes: redirections, `tee`, `sed -i`,
`cp`/`mv`/`rm`/`touch`/`mkdir` targets, `git rm/mv`, heredoc patches. Pure, never raises.
"""

from __future__ import annotations

import posixpath
import re

from heedful.rules.shell import SimpleCommand, simple_commands

_PATCH_HEADER = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.MULTILINE)
_DIFF_HEADER = re.compile(r"^\+\+\+ (?:b/)?(\S+)", re.MULTILINE)
_TOUCHES_ALL = frozenset({"rm", "rmdir", "unlink", "shred", "touch", "mkdir", "mv", "truncate"})
_VALUE_OPTIONS = {
    "sed": frozenset({"-e", "--expression", "-f", "--file", "-l", "--line-length"}),
    "perl": frozenset({"-e", "-E", "-I", "-M"}),
    "truncate": frozenset({"-s", "--size", "-r", "--reference"}),
    "cp": frozenset({"-t", "--target-directory", "-S", "--suffix"}),
    "mv": frozenset({"-t", "--target-directory", "-S", "--suffix"}),
    "install": frozenset({"-m", "--mode", "-o", "--owner", "-g", "--group", "-t", "--target-directory"}),
    "mkdir": frozenset({"-m", "--mode"}),
    "tee": frozenset(),
}


def _operands(command: SimpleCommand) -> tuple[list[str], dict[str, str]]:
    """(operands, option values) for a file tool, skipping the values of its value options."""
    value_options = _VALUE_OPTIONS.get(command.program, frozenset())
    operands: list[str] = []
    values: dict[str, str] = {}
    args = list(command.args)
    i = 0
    after_double_dash = False
    while i < len(args):
        arg = args[i]
        if after_double_dash or not arg.startswith("-") or arg == "-":
            operands.append(arg)
        elif arg == "--":
            after_double_dash = True
        elif arg in value_options and i + 1 < len(args):
            values[arg] = args[i + 1]
            i += 1
        elif "=" in arg and arg.split("=", 1)[0] in value_options:
            values[arg.split("=", 1)[0]] = arg.split("=", 1)[1]
        i += 1
    return operands, values


def _writes_of(command: SimpleCommand) -> list[str]:
    program = command.program
    paths = list(command.writes)
    operands, values = _operands(command)
    if program in ("apply_patch", "applypatch"):
        text = "\n".join([*command.heredocs, *command.args])
        paths += [a or b for a, b in _PATCH_HEADER.findall(text)]
    elif program == "patch" or (program == "git" and operands[:1] == ["apply"]):
        paths += _DIFF_HEADER.findall("\n".join(command.heredocs))
    elif program == "tee":
        paths += operands
    elif program == "sed" and any(
        a.startswith(("-i", "--in-place")) or (re.fullmatch(r"-[a-zA-Z]+", a) and "i" in a) for a in command.args
    ):
        has_script = any(k in values for k in ("-e", "--expression", "-f", "--file"))
        paths += operands if has_script else operands[1:]
    elif program in _TOUCHES_ALL or (
        program == "perl" and any(re.fullmatch(r"-[a-zA-Z]*i\S*", a) for a in command.args)
    ):
        paths += operands
    elif program in ("cp", "install", "ln"):
        target = values.get("-t") or values.get("--target-directory")
        if target:
            paths += [f"{target.rstrip('/')}/{posixpath.basename(o)}" for o in operands] or [target]
        elif len(operands) > 1 and operands[-1].endswith("/"):
            paths += [f"{operands[-1].rstrip('/')}/{posixpath.basename(o)}" for o in operands[:-1]]
        elif len(operands) > 1:
            paths.append(operands[-1])
    elif program in ("chmod", "chown"):
        paths += operands[1:]
    elif program == "dd":
        paths += [a[3:] for a in command.args if a.startswith("of=")]
    elif program == "git" and operands[:1] in (["rm"], ["mv"]):
        paths += [p for p in operands[1:] if p != "."]
    return [p for p in paths if p and not p.startswith("/dev/")]


def written_paths(line: str) -> list[str]:
    """Files a shell command line writes, moves or deletes, in order (best effort, never raises).

    After a `cd DIR` in the line, a relative path is reported both joined to DIR and as written:
    whether a later step runs in DIR (or in a subshell that left it) is not always knowable, and a
    path rule must see the write either way (`cd migrations && touch 001.sql`).
    """
    if not isinstance(line, str):
        return []
    found: list[str] = []
    directory = ""
    for command in simple_commands(line):
        if command.program == "cd":
            target = next((a for a in command.args if not a.startswith("-")), "")
            if target and not target.startswith("~") and "$" not in target:
                directory = posixpath.normpath(posixpath.join(directory, target))
            continue
        for path in _writes_of(command):
            joined = posixpath.normpath(posixpath.join(directory, path)) if directory else path
            for candidate in (joined, path):
                if candidate not in found:
                    found.append(candidate)
    return found
