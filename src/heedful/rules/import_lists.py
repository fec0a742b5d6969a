"""A line that introduces a list of commands, read with its list.

Instruction files often say when and leave the what to a list below:

    Before opening a PR, run:
    - `swift test`
    - `swiftlint --strict`

Read line by line, the intro named no command and each item was a bare command with no rule, so nothing
was enforced. The intro is read with the commands its list names ("Before opening a PR, run: `swift test`,
`swiftlint --strict`", the file's own words in their order) and the items are reported as part of it.
A list item that is a rule of its own ("- Never push to main.") ends the list: only items that are
commands, alone or after a label ("Run tests: `swift test`"), belong to the intro.
"""

from __future__ import annotations

import re
from dataclasses import replace

from heedful.rules.import_parse import Unit

# An item that is only a command: "`swift test`", "Run tests: `swift test`", "`make lint` (fast)".
_COMMAND_ITEM = re.compile(r"^(?:[^`:]{1,40}:\s*)?(?P<command>`[^`]+`)(?:\s*\([^)]*\))?\.?$")
# An intro that says when the list is due: it ends with a colon and names a moment ("Run the gates:" names none,
# and its items may each be a rule of their own).
_INTRO = re.compile(r"\b(?:before|after|when(?:ever)?|once|prior to)\b[^:]*:$", re.IGNORECASE)
# A script named by its path.
_SCRIPT = re.compile(r"^(?:\.{0,2}/|[\w.-]+/)[\w./-]+$|^[\w.-]+\.(?:sh|py|ps1|rb|js|ts)$")


def _names_a_command(code: str) -> bool:
    """ "`swift test`", "`./scripts/check.sh`": a command line (a lower-case program, or a script by its path);
    "`Co-Authored-By: Codex`", "`type(scope): subject`": a format, not a command."""
    words = code.strip("`").split()
    first = words[0] if words else ""
    return bool(re.fullmatch(r"[a-z][a-z0-9_.+-]*", first) or _SCRIPT.match(first)) and ":" not in words[0]


def join_command_lists(units: list[Unit]) -> tuple[list[Unit], dict[int, int]]:
    """The units with each intro read with its commands, and {line of an absorbed item: line of its intro}."""
    out: list[Unit] = []
    absorbed: dict[int, int] = {}
    index = 0
    while index < len(units):
        unit = units[index]
        index += 1
        if unit.kind not in ("item", "sentence") or not _INTRO.search(unit.text.strip()):
            out.append(unit)
            continue
        commands: list[Unit] = []
        while index < len(units) and units[index].kind == "item":
            found = _COMMAND_ITEM.match(units[index].text.strip())
            if found is None or not _names_a_command(found.group("command")):
                break
            commands.append(units[index])
            index += 1
        if not commands:
            out.append(unit)
            continue
        listed = ", ".join(_COMMAND_ITEM.match(c.text.strip()).group("command") for c in commands)  # type: ignore[union-attr]
        out.append(
            replace(
                unit,
                text=f"{unit.text.rstrip()} {listed}",
                raw="\n".join([unit.raw, *(c.raw for c in commands)]),
                lines=(*unit.lines, *(line for c in commands for line in c.lines)),
            )
        )
        out.extend(commands)
        absorbed.update({c.line: unit.line for c in commands})
    return out, absorbed
