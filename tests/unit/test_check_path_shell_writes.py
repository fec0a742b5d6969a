"""forbidden_path sees writes made through the shell, not only Write/Edit tool calls."""

from __future__ import annotations

import pytest

from heedful.rules.checks import evaluate
from heedful.rules.shell import simple_commands
from heedful.rules.shell_writes import written_paths

RULE = {"globs": ["migrations/**"], "outside_project": False}


@pytest.mark.parametrize(
    "command",
    [
        "echo 'x' > migrations/001.sql",
        "cat a >> migrations/002.sql",
        "echo x | tee migrations/a.sql",
        "sed -i 's/a/b/' migrations/001.sql",
        "cp new.sql migrations/",
        "mv migrations/old.sql tmp/",
        "rm -f migrations/001.sql",
        "touch migrations/003.sql",
        "mkdir -p migrations/v2",
        "git rm migrations/001.sql",
        "git mv migrations/a.sql migrations/b.sql",
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: migrations/001.sql\n+create table t;\n*** End Patch\nEOF",
        "bash -lc apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: migrations/002.sql\n+x\n*** End Patch\nEOF",
    ],
)
def test_shell_writes_are_writes(command: str) -> None:
    evidence = {"project": "/srv/p", "action": {"tool": "Bash", "command": command}}
    assert evaluate("forbidden_path", RULE, "pre_action", evidence).result == "violated"


@pytest.mark.parametrize(
    "command",
    [
        "cat migrations/001.sql",
        "grep -r x migrations/",
        "ls migrations",
        "sed 's/a/b/' migrations/001.sql > out.sql",
        "pytest -q 2>&1 >/dev/null",
    ],
)
def test_reads_are_not_writes(command: str) -> None:
    evidence = {"project": "/srv/p", "action": {"tool": "Bash", "command": command}}
    assert evaluate("forbidden_path", RULE, "pre_action", evidence).result in ("pass", "not_applicable")


def test_heredoc_bodies_are_data_unless_a_shell_reads_them() -> None:
    assert [c.program for c in simple_commands("cat > notes.md <<EOF\nrm -rf /\nEOF\necho ok")] == ["cat", "echo"]
    assert [c.program for c in simple_commands("bash <<EOF\ngit push -f\nEOF")] == ["git"]
    assert written_paths("cat > notes.md <<'EOF'\ngit push\nEOF") == ["notes.md"]
