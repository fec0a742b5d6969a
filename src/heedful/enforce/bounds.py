"""What the engine accepts from a platform: valid text, read within a bounded budget (pure).

Any string a platform sends is stored, hashed and printed, so lone surrogates (`"\\udfff"`, legal
in JSON, not encodable as UTF-8) become U+FFFD at the boundary. A hook has 30 seconds and the
shell reader is not linear on long words, so a command is never parsed whole past `HEAD_CHARS`:
the head is read in full, and the rest is scanned with one regular expression for the words the
armed command rules name; each hit is read as its own short command (the step around it, cut at
the shell separators `; & | ( ) newline backtick`). A violation in the part read is denied. A hit
inside a step too long to read, or past the window budget, is reported as unread, so that its rule
is judged unknown there rather than passed.

    views = command_views("pip install x; " + "#" * 10_000_000, {"pip"})
    views.parts[0][:13]     # 'pip install x'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

HEAD_CHARS = 32_768  # parsed in full
WINDOW_CHARS = 2_048  # read around each keyword hit past the head
MAX_WINDOWS = 48
MAX_LOOKS = 2_000  # keyword hits examined past the head (windows and hits inside over-long steps)
STORED_TEXT = 32_768  # longest command, prompt or reply kept in the session record
_SURROGATE = re.compile("[\ud800-\udfff]")
_SEPARATORS = ";&|\n()`"
_SEPARATOR = re.compile("[;&|\n()`]")
# What may stand between a separator and a step's program: blanks, assignments, wrappers.
_PREFIX = re.compile(r"\s*(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|sudo|doas|env|nice|nohup|time|command|exec|xargs)\s+)*")
PREFIX_CHARS = 16_384  # how far back a hit's step prefix is read


def clean_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (the same object when there is none)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def clean(value: Any) -> Any:
    """Clean every string (keys too) of a parsed JSON value in place; iterative, so depth costs nothing."""
    if isinstance(value, str):
        return clean_text(value)
    stack = [value] if isinstance(value, dict | list) else []
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for index, item in enumerate(node):
                if isinstance(item, str):
                    node[index] = clean_text(item)
                elif isinstance(item, dict | list):
                    stack.append(item)
            continue
        for key in list(node):
            item = node[key]
            if isinstance(item, str):
                node[key] = clean_text(item)
            elif isinstance(item, dict | list):
                stack.append(item)
            if isinstance(key, str) and clean_text(key) is not key:
                node[clean_text(key)] = node.pop(key)
    return value


def stored(text: str | None, limit: int = STORED_TEXT) -> str | None:
    """A long text as kept in the record: its head and its tail (a command's last step is often the test run)."""
    if text is None or len(text) <= limit:
        return text
    tail = limit // 8
    return text[: limit - tail] + "\n" + text[-tail:]


class CommandViews(NamedTuple):
    """The parts of a command that are parsed (the head first) and the keywords left unread."""

    parts: tuple[str, ...]
    unread: frozenset[str] = frozenset()
    length: int = 0


def command_keywords(rules: Iterable[Mapping[str, Any]]) -> set[str]:
    """Words without which no armed command rule can match: its program, else its subcommand, args or flags.

    The shell reader normalises programs (`pip3`, `/usr/bin/pip`, `python -m pip` are `pip`), and
    each of those spellings contains the program's name, which is what the scan looks for.
    """
    words: set[str] = set()
    for rule in rules:
        check_value = rule.get("check")
        check: dict[str, Any] = check_value if isinstance(check_value, dict) else {}
        if check.get("kind") != "forbidden_command" or not isinstance(check.get("params"), dict):
            continue
        params = check["params"]
        program = params.get("program")
        if isinstance(program, str) and program:
            words |= {"sudo", "doas"} if program == "sudo" else {program.lower()}
            if program.lower() == "python":
                words.add("py")
            continue
        found = _strings(params.get("subcommand")) + _strings(params.get("args"))
        flags = params.get("flags") if isinstance(params.get("flags"), list) else []
        found += [alias for group in flags for alias in _strings(group)[:1]]
        words |= {w.lower() for w in found}  # a rule naming nothing matches any command: the head shows one
    return words


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    return [item for item in value if isinstance(item, str) and item] if isinstance(value, list) else []


def command_views(command: str, keywords: Iterable[str]) -> CommandViews:
    """The command when it is short; else its head and one window per keyword hit in the rest."""
    if len(command) <= HEAD_CHARS:
        return CommandViews((command,), length=len(command))
    head = command[:HEAD_CHARS]
    words = sorted({w.lower() for w in keywords if w}, key=len, reverse=True)
    if not words:
        return CommandViews((head,), length=len(command))
    # One case-sensitive pass over a lowered copy: an IGNORECASE alternation is ~100 times slower.
    lowered = command.lower()
    text = lowered if len(lowered) == len(command) else command
    pattern = re.compile("|".join(re.escape(w) for w in words))
    parts = [head]
    unread: set[str] = set()
    position = HEAD_CHARS - WINDOW_CHARS // 4  # a step cut by the head's end is read whole in a window
    looked = 0
    while True:
        hit = pattern.search(text, position)
        if hit is None:
            break
        looked += 1
        if len(parts) > MAX_WINDOWS or looked > MAX_LOOKS:
            unread |= {w for w in words if text.find(w, hit.start()) >= 0}
            break
        start = _segment_start(text, hit.start())
        if start is None:
            # The hit sits in a step longer than a window: which program runs it is out of reach.
            unread.add(hit.group(0))
            after = _SEPARATOR.search(text, hit.end())
            position = after.end() if after else len(text)
            continue
        stop = _segment_stop(text, hit.end())
        if command[start:stop].strip():
            parts.append(command[start:stop])
        position = max(stop, hit.end())
    return CommandViews(tuple(parts), frozenset(unread), len(command))


def _segment_start(text: str, at: int) -> int | None:
    """Where the step holding position `at` starts: just after the nearest separator, if one is near.

    Past that, a word preceded only by blanks, `NAME=value` assignments and wrappers (`sudo`, `env`
    …) back to a separator (or the start) within `PREFIX_CHARS` is the step's program: padding a
    forbidden program must not hide it. Both searches run in C over a bounded slice, so a hit costs
    the same however the prefix is built.
    """
    low = max(at - WINDOW_CHARS // 2, 0)
    cut = max(text.rfind(ch, low, at) for ch in _SEPARATORS)
    if cut >= 0:
        return cut + 1
    low = max(at - PREFIX_CHARS, 0)
    cut = max(text.rfind(ch, low, at) for ch in _SEPARATORS)
    if cut < 0 and low > 0:
        return None
    return at if _PREFIX.fullmatch(text, cut + 1, at) else None


def _segment_stop(command: str, at: int) -> int:
    high = min(at + WINDOW_CHARS // 2, len(command))
    found = _SEPARATOR.search(command, at, high)
    return found.start() if found else high
