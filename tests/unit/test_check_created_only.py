"""forbidden_path with `created_only`: a rule against creating files of a kind leaves existing ones editable.

"Don't create new markdown files" used to compile to a path check on `*.md` that also blocked editing README.md
when the user asked for it; now an edit in place passes and a file the action may create is still blocked.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compile_cases import compiled
from heedful.enforce.messages import hint
from heedful.rules.checks import evaluate

PARAMS = {"globs": ["*.md"], "outside_project": False, "created_only": True}
PROJECT = "/srv/app"


def _result(action: dict[str, Any], params: dict[str, Any] = PARAMS) -> str:
    return evaluate("forbidden_path", params, "pre_action", {"project": PROJECT, "action": action}).result


def _patch(*lines: str) -> dict[str, Any]:
    return {"tool": "apply_patch", "input": {"patch": "\n".join(["*** Begin Patch", *lines, "*** End Patch"])}}


@pytest.mark.parametrize(
    "action",
    [
        {"tool": "Edit", "file_path": f"{PROJECT}/README.md"},
        {"tool": "MultiEdit", "file_path": "docs/guide.md"},
        _patch("*** Update File: README.md", "@@", "-old", "+new"),
    ],
)
def test_an_edit_in_place_passes(action: dict[str, Any]) -> None:
    assert _result(action) == "pass"
    # without created_only the same edit is the violation it always was
    assert _result(action, {**PARAMS, "created_only": False}) == "violated"


@pytest.mark.parametrize(
    "action",
    [
        {"tool": "Write", "file_path": f"{PROJECT}/SUMMARY.md"},
        {"tool": "Bash", "command": "cat > NOTES.md <<'EOF'\nnotes\nEOF"},
        _patch("*** Add File: CHANGES.md", "+new"),
        _patch("*** Update File: README.md", "@@", "-a", "+b", "*** Add File: PLAN.md", "+plan"),
    ],
)
def test_a_file_the_action_may_create_is_blocked(action: dict[str, Any]) -> None:
    assert _result(action) == "violated"


@settings(max_examples=60, deadline=None)
@given(tool=st.text(max_size=12), path=st.text(max_size=40))
def test_never_raises(tool: str, path: str) -> None:
    assert _result({"tool": tool, "file_path": path}) in {"pass", "violated", "unknown", "not_applicable"}


def test_creation_rules_compile_with_created_only_and_edit_rules_without() -> None:
    for rule in ("Don't create new markdown files.", "Stop creating README files.", "never create new .md files"):
        kind, params = compiled(rule)
        assert kind == "forbidden_path" and params.get("created_only") is True, rule
    kind, params = compiled("Never edit generated files under src/gen/.")
    assert kind == "forbidden_path" and "created_only" not in params


def test_the_deny_says_to_use_an_existing_file() -> None:
    step = hint("forbidden_path", PARAMS, [])
    assert "create" in step and "existing file" in step
