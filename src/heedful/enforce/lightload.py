"""Load the few modules a hook needs without running heavy package initialisers.

`heedful.store` and `heedful.store.sqlite` import numpy in their `__init__` (through the memory
and rule repositories), and the check kinds import `heedful.rules.models`, which builds pydantic
models. A hook process needs neither: it needs the SQLite connection, the enforcement repository
and the pure check functions. `load_enforce_store()` and `load_database_module()` import those
submodules under bare stand-ins for their parent packages and then remove the stand-ins, so a later
ordinary import still runs the real package code. `load_check_kinds(light=True)` gives the check kinds a minimal
`heedful.rules.models` (only `Case`, `Result`, `Stage`, `Verdict`, which is all they import) when
the real one is not loaded yet; the stand-in is removed again after the import.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any, Literal

_MODELS = "heedful.rules.models"


@contextmanager
def _bare_packages(names: list[str]) -> Iterator[None]:
    installed: list[tuple[str, ModuleType]] = []
    for name in names:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None:
            raise ImportError(f"cannot find {name}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        installed.append((name, module))
    try:
        yield
    finally:
        for name, module in reversed(installed):
            if sys.modules.get(name) is module:
                del sys.modules[name]


def load_enforce_store() -> ModuleType:
    """`heedful.store.sqlite.enforce`, imported without numpy."""
    with _bare_packages(["heedful.store", "heedful.store.sqlite"]):
        return importlib.import_module("heedful.store.sqlite.enforce")


def load_database_module() -> ModuleType:
    """`heedful.store.sqlite.db` (with its migrations package), imported without numpy."""
    with _bare_packages(["heedful.store", "heedful.store.sqlite"]):
        module = importlib.import_module("heedful.store.sqlite.db")
        importlib.import_module("heedful.store.sqlite.migrations")
    return module


class _Verdict:
    __slots__ = ("quotes", "reason", "result")

    def __init__(self, result: str, reason: str, quotes: list[str] | None = None) -> None:
        self.result = result
        self.reason = reason
        self.quotes = list(quotes or [])

    def __repr__(self) -> str:
        return f"Verdict({self.result!r}, {self.reason!r}, {self.quotes!r})"


class _Case:
    __slots__ = ("evidence", "expected", "note", "stage")

    def __init__(self, stage: str, evidence: dict[str, Any], expected: str, note: str = "") -> None:
        self.stage = stage
        self.evidence = evidence
        self.expected = expected
        self.note = note


def _light_models() -> ModuleType:
    module = types.ModuleType(_MODELS, "Minimal stand-in used while loading the check kinds in a hook process.")
    module.Verdict = _Verdict  # type: ignore[attr-defined]
    module.Case = _Case  # type: ignore[attr-defined]
    module.Result = Literal["pass", "violated", "not_applicable", "unknown"]  # type: ignore[attr-defined]
    module.Stage = Literal["pre_action", "artifact", "delivery"]  # type: ignore[attr-defined]
    return module


def load_check_kinds(light: bool = False) -> ModuleType:
    """`heedful.rules.checks`; with `light`, loaded without pydantic when that is still possible."""
    name = "heedful.rules.checks"
    if name in sys.modules or not light or _MODELS in sys.modules:
        return importlib.import_module(name)
    stand_in = _light_models()
    sys.modules[_MODELS] = stand_in
    try:
        checks = importlib.import_module(name)
    finally:
        if sys.modules.get(_MODELS) is stand_in:
            del sys.modules[_MODELS]
    _share_command_parsing()
    return checks


def _share_command_parsing() -> None:
    """In a hook process every command check reads the same command line: parse it once.

    The kinds bind `simple_commands` at import; each binding is replaced by one memoised wrapper
    (the parse is pure and its result is only iterated).
    """
    from functools import lru_cache

    shell = importlib.import_module("heedful.rules.shell")
    cached = lru_cache(maxsize=64)(shell.simple_commands)
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("heedful.rules.checks.") and (
                getattr(module, "simple_commands", None) is shell.simple_commands):
            module.simple_commands = cached  # type: ignore[attr-defined]
