"""Rule revisions to commit in the store contract tests."""

from __future__ import annotations

from typing import Any

from heedful.store.records import RuleRow


def rule(rule_id: str, text: str, version: int = 1, **fields: Any) -> RuleRow:
    values: dict[str, Any] = {
        "id": rule_id,
        "user_id": "me",
        "scope": "global",
        "project": None,
        "version": version,
        "text": text,
        "condition": None,
        "exceptions": [],
        "evidence": ["you used pip again"],
        "status": "checked",
        "check_spec": {"kind": "command", "pattern": "pip install"},
        "op": "new" if version == 1 else "edit",
        "reason": "",
        "source_text": "use uv, not pip",
        "supersedes": None,
        "superseded_by": None,
        "library_version": 0,
        "created_at": "",
        "rule_created_at": "",
    }
    values.update(fields)
    return RuleRow(**values)
