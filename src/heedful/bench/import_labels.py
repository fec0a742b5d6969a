"""Does a compiled check match the labelled one? Same kind and the same key parameters.

>>> check_matches({"kind": "forbidden_command", "params": {"program": "git", "subcommand": "push"}},
...               {"kind": "forbidden_command", "params": {"program": "git", "subcommand": ["push"]}})
True
>>> check_matches({"kind": "forbidden_path", "params": {"globs": ["migrations/**"]}},
...               {"kind": "forbidden_path", "params": {"globs": ["migrations/"]}})
True
"""

from __future__ import annotations

from typing import Any


def _words(value: Any) -> set[str]:
    if value is None:
        return set()
    items = value if isinstance(value, list) else [value]
    return {str(item).strip().lower() for item in items if str(item).strip()}


def _glob(text: str) -> str:
    return text.strip().removeprefix("./").removesuffix("/**").removesuffix("/*").rstrip("/").lower()


def _flags(label: list[list[str]], produced: list[list[str]]) -> bool:
    return all(any(set(group) & set(other) for other in produced) for group in label)


def _commands(label: list[str], produced: list[str]) -> bool:
    found = [c.lower() for c in produced]
    return all(any(want.lower() in have or have in want.lower() for have in found) for want in label)


def check_matches(label: dict[str, Any], produced: dict[str, Any]) -> bool:
    if label.get("kind") != produced.get("kind"):
        return False
    want, have = label.get("params") or {}, produced.get("params") or {}
    kind = label["kind"]
    if kind == "forbidden_command":
        return (
            str(want.get("program", "")).lower() == str(have.get("program", "")).lower()
            and _words(want.get("subcommand")) <= _words(have.get("subcommand"))
            and _flags(want.get("flags") or [], have.get("flags") or [])
            and _words(want.get("args")) <= _words(have.get("args")) | _words(have.get("subcommand"))
        )
    if kind in ("forbidden_path", "staged_path", "workspace_leftovers"):
        return bool({_glob(g) for g in want.get("globs") or []} & {_glob(g) for g in have.get("globs") or []})
    if kind == "commit_message":
        forbid_ok = _words(want.get("forbid")) <= _words(have.get("forbid"))
        return forbid_ok and bool(want.get("require")) == bool(have.get("require"))
    if kind == "required_event":
        return _commands(list(want.get("commands") or []), list(have.get("commands") or []))
    if kind == "reply_word_limit":
        return abs(int(want.get("limit", 0)) - int(have.get("limit", 0))) <= 1
    if kind == "reply_count_limit":
        return want.get("unit") == have.get("unit") and want.get("limit") == have.get("limit")
    if kind == "reply_forbidden_text":
        return bool(_words(want.get("patterns")) & _words(have.get("patterns")))
    if kind == "reply_json_fields":
        return _words(want.get("fields")) == _words(have.get("fields"))
    if kind == "field_value":
        return want.get("path") == have.get("path") and want.get("value") == have.get("value")
    return want == have


__all__ = ["check_matches"]
