"""`rules check` and the hook build the same evidence from the same tool call, so they judge alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.api import Heedful
from heedful.enforce import tools
from heedful.enforce.engine import for_heedful

PATCH = "*** Begin Patch\n*** Add File: migrations/001.sql\n+CREATE TABLE t (id INTEGER);\n*** End Patch\n"
CALLS = [
    ("apply_patch", {"command": PATCH}),  # Codex: the patch in `command`
    ("apply_patch", {"input": PATCH}),
    ("Bash", {"command": f"apply_patch <<'EOF'\n{PATCH}EOF\n"}),  # Codex: a shell-wrapped patch
    ("Bash", {"command": "echo 'CREATE TABLE t;' > migrations/001.sql"}),
]


@pytest.mark.parametrize(("tool", "tool_input"), CALLS)
def test_rules_check_and_the_hook_agree(hf: Heedful, tmp_path: Path, tool: str, tool_input: dict[str, str]) -> None:
    hf.rules.learn("me", "Never edit files under migrations/", project=tmp_path)
    enforcer = for_heedful(hf, "me", "codex")
    enforcer.user_prompt("s1", "add the first migration", str(tmp_path))
    hook = enforcer.pre_tool("s1", tool, tool_input, str(tmp_path))
    payload = {"action": {"tool_name": tool, "tool_input": tool_input}}  # a hook payload's fields, as given
    checked = hf.rules.check("me", "pre_action", payload, project=tmp_path)
    assert hook.decision == "deny" and checked.blocked, (hook, checked.judgments)
    flat = {"action": {"tool": tool, **tool_input}}
    assert hf.rules.check("me", "pre_action", flat, project=tmp_path).blocked


def test_one_builder_for_every_action_shape() -> None:
    built = tools.action("apply_patch", {"command": PATCH})
    assert tools.evidence_action({"tool_name": "apply_patch", "tool_input": {"command": PATCH}}) == built
    assert tools.evidence_action({"tool": "apply_patch", "command": PATCH}) == built
    assert tools.evidence_action({"tool": "Bash", "command": "ls", "branch": "main"}) == {
        "tool": "Bash",
        "input": {"command": "ls", "branch": "main"},
    }


def test_a_patch_is_read_as_the_files_it_would_leave(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"debug": false,\n "name": "x"}\n')
    patch = (
        '*** Begin Patch\n*** Add File: new.json\n+{"debug": true}\n*** Update File: a.json\n@@\n'
        '-{"debug": false,\n+{"debug": true,\n  "name": "x"}\n*** Delete File: old.txt\n*** End Patch\n'
    )
    added, updated = tools.patched_artifacts(patch, str(tmp_path))
    assert added == {"path": str(tmp_path / "new.json"), "content": '{"debug": true}\n', "kind": "text"}
    assert updated["content"] == '{"debug": true,\n "name": "x"}\n'
    stale = "*** Begin Patch\n*** Update File: a.json\n@@\n-nothing like this\n+x\n*** End Patch\n"
    assert tools.patched_artifacts(stale, str(tmp_path)) == []  # a hunk that does not match: not guessed


def test_a_shell_wrapped_patch_is_checked_before_it_is_applied(hf: Heedful, tmp_path: Path) -> None:
    """Codex applies `apply_patch <<'EOF'` itself and sends no PostToolUse: the artifact is judged beforehand."""
    hf.rules.learn("me", "`debug` must never be `true` in config.json files", project=tmp_path)
    enforcer = for_heedful(hf, "me", "codex")
    enforcer.user_prompt("s1", "write the config", str(tmp_path))
    bad = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: config.json\n+{\"debug\": true}\n*** End Patch\nEOF\n"
    denied = enforcer.pre_tool("s1", "Bash", {"command": bad}, str(tmp_path))
    assert denied.decision == "deny" and "`debug` is `true`" in (denied.message or "")
    good = bad.replace("true", "false")
    assert enforcer.pre_tool("s1", "Bash", {"command": good}, str(tmp_path)).decision == "allow"
