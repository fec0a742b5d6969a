"""Does a compiled check match the labelled one? Same kind and the same key parameters.

One matcher for every benchmark: the compilation-coverage score's (`heedful.rules.coverage`).

>>> check_matches({"kind": "forbidden_command", "params": {"program": "git", "subcommand": "push"}},
...               {"kind": "forbidden_command", "params": {"program": "git", "subcommand": ["push"]}})
True
>>> check_matches({"kind": "forbidden_path", "params": {"globs": ["migrations/**"]}},
...               {"kind": "forbidden_path", "params": {"globs": ["migrations/"]}})
True
"""

from __future__ import annotations

from typing import Any

from heedful.rules.coverage import same_params


def check_matches(label: dict[str, Any], produced: dict[str, Any]) -> bool:
    kind = label.get("kind")
    return kind == produced.get("kind") and same_params(
        str(kind), label.get("params") or {}, produced.get("params") or {}
    )


__all__ = ["check_matches"]
