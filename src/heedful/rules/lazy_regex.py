"""Regular expressions compiled on their first use, not at import.

The learner's modules (the interpreter, the compiler, the facet reader) hold some four hundred
patterns; `re` compiles in Python, and compiling them all at import cost a short command such as
`rules learn` tens of milliseconds, while one correction uses a fraction of them. `lazy(pattern,
flags)` stands in for `re.compile(pattern, flags)`: the first attribute asked of it (`search`,
`sub`, `flags` ...) compiles the pattern, and the compiled pattern's attributes are then kept on the
object itself, so every later call costs what it costs on a compiled pattern (no indirection).

It is a stand-in for a pattern's methods and attributes, not a `re.Pattern`: pass it to no `re.*`
function (`re.sub(p, ...)`) and test it with no `isinstance` (the tests hold the modules to that).
"""

from __future__ import annotations

import re
from typing import Any, cast

# What a compiled pattern offers; all are copied onto the stand-in when it compiles.
_ATTRIBUTES = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")
_VALUES = ("flags", "groups", "groupindex")


class _LazyPattern:
    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        # only names the instance does not hold yet reach here; dunder look-ups (copy, pickle) are not patterns'
        if name.startswith("__") or "_flags" not in self.__dict__:
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        for attribute in (*_ATTRIBUTES, *_VALUES):
            self.__dict__[attribute] = getattr(compiled, attribute)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r}, {self._flags})"


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, done when the pattern is first used (typed as the pattern it stands for)."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))


def given_flags(pattern: re.Pattern[str]) -> int:
    """The flags a pattern was made with, read without compiling it (a compiled pattern's own flags, which add
    `re.UNICODE` and inline flags, otherwise)."""
    return pattern._flags if isinstance(pattern, _LazyPattern) else pattern.flags


def is_compiled(pattern: re.Pattern[str]) -> bool:
    """Whether a pattern made by `lazy` has been compiled yet (a compiled `re.Pattern` always has)."""
    return not isinstance(pattern, _LazyPattern) or "search" in pattern.__dict__
