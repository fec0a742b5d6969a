"""Actions forbidden in prose without naming their program: "never open a PR" is `gh pr create`.

The phrases live in `data/commands.toml` ([[actions]]). A phrase compiles only in a negated clause
("don't", "never", "must not"), and only when nothing but "ask first" follows it: "never open a PR
without running the tests" says more than the command, so it stays guidance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from heedful.rules.compile.qualifiers import ASK_ONLY
from heedful.rules.compile.words import NEGATED, spec
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec
from heedful.rules.vocabulary import command_table


@dataclass(frozen=True)
class Action:
    phrase: re.Pattern[str]
    params: dict[str, Any]


@lru_cache(maxsize=1)
def actions() -> tuple[Action, ...]:
    out = []
    for entry in command_table().get("actions", []):
        params: dict[str, Any] = {"program": entry["program"]}
        for key in ("subcommand", "flags", "args", "synonyms"):
            if entry.get(key):
                params[key] = entry[key]
        out.append(Action(lazy(rf"\b{entry['phrase']}(?![\w-])", re.I), params))  # built from cached code
    return tuple(out)


_CLAUSE_BREAK = lazy(r"[.;:!?]|,\s+(?:and|but|then|so)\b|\s(?:and|but|then)\s(?!never|not|don)", re.I)
_AUTONOMOUS = lazy(r"\b(?:autonomously|on your own|by yourself|unprompted|unasked)\b", re.I)
_TRAILER = lazy(
    r"^(?:\s*(?:(?:by|for) (?:yourself|you)|yourself|ever|again|anymore|at all|please|on (?:this|the|any) "
    r"(?:repo|repository|project)|in (?:this|the) (?:repo|repository|project)|here))*\s*$",
    re.I,
)


# "never delete files, move them to the trash", "...; move them to ./attic/ instead": the replacement may follow.
_MOVED_INSTEAD = lazy(
    r"^[,;]?\s*(?:(?:and|just|instead|but|rather)\s+)?(?:move|put|send|throw)\s+(?:them|it|files?|things|everything)?\s*"
    r"(?:in|into|to)\s+(?P<where>(?:the\s+|a\s+)?(?:trash|bin|recycle bin|wastebasket)|`?[\w./~-]*/[\w./~-]*`?)"
    r"(?:\s+(?:first|instead))?$",
    re.I,
)
# "never merge main into your branch; rebase instead": what to do instead narrows nothing, it is the alternative
_DO_INSTEAD = lazy(
    r"^[,;]?\s*(?:(?:just|but|and)\s+)?"
    r"(?:instead\s*,?\s*(?P<first>[\w`./ -]{2,40})|(?P<alt>[\w`./ -]{2,40}?)\s+instead)$",
    re.I,
)
_BIN = lazy(r"(?:the\s+|a\s+)?(?:trash|bin|recycle bin|wastebasket)$", re.I)


def action_checks(text: str) -> list[CheckSpec]:
    """Checks for the forbidden actions the rule names by what they do."""
    out: list[CheckSpec] = []
    for action in actions():
        for match in action.phrase.finditer(text):
            before = _CLAUSE_BREAK.split(text[: match.start()])[-1]
            if not NEGATED.search(before):
                continue
            after = _AUTONOMOUS.sub(" ", text[match.end() :]).strip(" .!,;")
            moved = _MOVED_INSTEAD.match(after) if action.params.get("program") == "rm" else None
            instead = None if moved else _DO_INSTEAD.match(after)
            if after and not (ASK_ONLY.match(after) or _TRAILER.match(after) or moved or instead):
                continue
            params = {
                k: [list(g) for g in v] if k == "flags" else list(v) if isinstance(v, list) else v
                for k, v in action.params.items()
            }
            if instead:
                params["alternatives"] = [(instead.group("first") or instead.group("alt")).strip(" `")]
            if moved:
                where = moved.group("where")
                params["alternatives"] = ["trash" if _BIN.match(where) else f"mv to {where.strip('`')}"]
            if not any(existing.params == params for existing in out):
                out.append(spec("forbidden_command", params))
    return out
