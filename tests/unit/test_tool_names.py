"""Every platform's tool names map to the evidence the checks read, so `rules check` on a raw payload
builds what the hook builds."""

from __future__ import annotations

import pytest

from heedful.enforce.tools import tool_class


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Bash", "shell"),
        ("run_shell_command", "shell"),  # Gemini CLI
        ("Shell", "shell"),  # Cursor
        ("write_file", "write"),
        ("replace", "edit"),  # Gemini CLI
        ("StrReplace", "edit"),  # Cursor
        ("apply_patch", "patch"),
        ("WebSearch", "other"),
    ],
)
def test_each_platform_tool_name_has_its_class(name: str, kind: str) -> None:
    assert tool_class(name) == kind
