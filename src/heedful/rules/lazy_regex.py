"""Regular expressions compiled on their first use, not at import, from a cache of their compiled code.

The learner's modules (the interpreter, the compiler, the facet reader) hold some four hundred
patterns; `re` compiles in Python, and compiling them all at import cost a short command such as
`rules learn` tens of milliseconds, while one correction uses a fraction of them. `lazy(pattern,
flags)` stands in for `re.compile(pattern, flags)`: the first attribute asked of it (`search`,
`sub`, `flags` ...) compiles the pattern, and the compiled pattern's attributes are then kept on the
object itself, so every later call costs what it costs on a compiled pattern (no indirection).

Even compiled on use, a correction needs a few hundred of them (every family of checks is tried), and
parsing a pattern costs fifty times what building it from its code does. So the code `re` makes for
each lazy pattern (the list of opcodes `_sre` runs) is kept in a file of the cache folder, one per
Python build and `_sre` code format, and a later process builds the pattern from it: the same code,
so the very same pattern (`==` on patterns compares their code). The file is read on the first lazy
compile and written back at exit when the process compiled patterns it did not hold; an unreadable,
stale or damaged file, or an interpreter whose `re` internals differ, only means compiling as `re` does.

It is a stand-in for a pattern's methods and attributes, not a `re.Pattern`: pass it to no `re.*`
function (`re.sub(p, ...)`) and test it with no `isinstance` (the tests hold the modules to that).
"""

from __future__ import annotations

import _sre
import array
import atexit
import marshal
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any, cast

# What a compiled pattern offers; all are copied onto the stand-in when it compiles.
_ATTRIBUTES = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")
_VALUES = ("flags", "groups", "groupindex")
# Patterns kept at most (the lazy patterns are the modules' own, a few hundred; the bound keeps a file small
# should a caller ever make lazy patterns from changing text).
CACHE_LIMIT = 4096
# One pattern's code: its final flags, group count, group index, index of groups, and the opcodes (uint32 bytes).
_Entry = tuple[int, int, dict[str, int], tuple[str | None, ...], bytes]
_CODE_TYPE = "I" if array.array("I").itemsize == _sre.CODESIZE else "L"


class _CodeCache:
    """The compiled code of lazy patterns, read from and written to one file of the cache folder."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, int], _Entry] | None = None
        self._added = 0
        self._path: Path | None = None
        self._lock = threading.Lock()

    def _load(self) -> dict[tuple[str, int], _Entry]:
        entries: dict[tuple[str, int], _Entry] = {}
        try:
            from heedful.embed.cache import cache_dir

            name = f"regex-{sys.implementation.cache_tag}-{sys.hexversion:x}-{_sre.MAGIC}-{_sre.CODESIZE}.marshal"
            self._path = cache_dir() / name
            loaded = marshal.loads(self._path.read_bytes())
            if isinstance(loaded, dict):
                entries = loaded
        except Exception:  # no file yet, or one this code cannot read: compile as `re` does
            pass
        return entries

    def compiled(self, pattern: str, flags: int) -> re.Pattern[str]:
        flags = int(flags)  # a `re.RegexFlag` is an int the file format does not know
        if flags & re.DEBUG:  # prints as it compiles: nothing to keep
            return re.compile(pattern, flags)
        with self._lock:
            if self._entries is None:
                self._entries = self._load()
            entry = self._entries.get((pattern, flags))
        if entry is not None:
            try:
                return _build(pattern, entry)
            except Exception:  # a damaged entry (`_sre` checks the code it is given): compile it afresh
                pass
        try:
            entry = _code_of(pattern, flags)
        except re.error:  # a bad pattern fails where it is used, as `re.compile` would
            raise
        except Exception:  # `re` internals unlike those of 3.11-3.13: no cache, plain `re.compile`
            return re.compile(pattern, flags)
        with self._lock:
            if len(self._entries) < CACHE_LIMIT and self._path is not None:
                self._entries[(pattern, flags)] = entry
                self._added += 1
                if self._added == 1:
                    atexit.register(self.save)
        return _build(pattern, entry)

    def save(self) -> None:
        """Write the entries back (atomically: a concurrent reader sees a whole file) when this process added any."""
        with self._lock:
            if not self._added or self._path is None or self._entries is None:
                return
            entries, self._added = dict(self._entries), 0
        try:
            data = marshal.dumps(entries)
            self._path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            partial = self._path.with_name(f".{self._path.name}.{os.getpid()}.tmp")
            partial.write_bytes(data)
            partial.replace(self._path)
        except (OSError, ValueError):  # a read-only or full disk: the next process compiles them again
            pass


def _code_of(pattern: str, flags: int) -> _Entry:
    """What `re._compiler.compile` hands `_sre.compile` for this pattern (the parse and the code generation)."""
    from re import _compiler, _parser  # type: ignore[attr-defined]  # the internals `re.compile` runs

    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    final_flags = flags | parsed.state.flags
    return final_flags, parsed.state.groups - 1, groupindex, tuple(indexgroup), array.array(_CODE_TYPE, code).tobytes()


def _build(pattern: str, entry: _Entry) -> re.Pattern[str]:
    flags, groups, groupindex, indexgroup, code = entry
    return cast(
        "re.Pattern[str]",
        _sre.compile(pattern, flags, array.array(_CODE_TYPE, code).tolist(), groups, groupindex, indexgroup),
    )


_CACHE = _CodeCache()


class _LazyPattern:
    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        # only names the instance does not hold yet reach here; dunder look-ups (copy, pickle) are not patterns'
        if name.startswith("__") or "_flags" not in self.__dict__:
            raise AttributeError(name)
        compiled = _CACHE.compiled(self.pattern, self._flags)
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
