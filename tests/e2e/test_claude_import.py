"""Enforcement on day one: a realistic CLAUDE.md imported with `heedful rules import`, then the real
Claude Code (`claude -p`) against a scripted model tries what the file forbids and what it allows.

The same CLAUDE.md is shown in the README. After the file is edited, the next session's first
request carries SessionStart's notice that it changed since its import.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agent_sandbox import AgentRun, Sandbox
from e2e_checks import require
from mock_models import AnthropicMock, Turn, call, say

CLAUDE_MD = """\
# Acme billing service

A FastAPI service backed by Postgres. The code lives in `src/acme/`, the tests in `tests/`.

## Commands

- `uv run pytest -q`: run the tests.
- `uv run ruff check .`: lint.

## Rules

- Use uv, not pip, for every Python dependency (`uv add`, `uv pip install`).
- Never run `git push --force` on shared branches.
- Never edit files under `migrations/`; create a new migration with `alembic revision` instead.
- Do not use `sudo`.
- Keep functions small and give them clear names.
- Write a test for every bug you fix.

## Style

We follow PEP 8 and type every public function.
"""


def bash(command: str) -> Turn:
    return call("Bash", command=command, description="Run a command")


@dataclass
class Imported:
    box: Sandbox
    model: AnthropicMock
    imported: dict[str, Any]
    runs: list[AgentRun]


def tool_result(request: dict[str, Any]) -> dict[str, Any]:
    """The one tool_result block the latest user message that has any carries."""
    for message in reversed(request["messages"]):
        content = message["content"]
        if message["role"] == "user" and not isinstance(content, str):
            blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
            if blocks:
                (block,) = blocks
                return block
    raise AssertionError("no tool result in the request")


def text_of(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Imported]:
    require("claude")
    box = Sandbox(tmp_path_factory.mktemp("claude-import"))
    migration = box.project / "migrations" / "0002_add_invoices.sql"
    model = AnthropicMock(
        [
            bash("pip install requests"),
            bash("uv pip install requests"),
            call("Write", file_path=str(migration), content="ALTER TABLE invoices ADD COLUMN paid boolean;\n"),
            say("Installed requests with uv; the migration needs a new revision."),
            say("Hello."),
        ]
    )
    (box.project / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    box.heedful("install", "claude-code", "--project", str(box.project))
    done = box.heedful("rules", "import", "CLAUDE.md", "--json")
    runs = [box.claude("add requests and a paid column to invoices", model.url)]
    # The file is edited after the import: the next session is told so (and nothing is imported).
    (box.project / "CLAUDE.md").write_text(CLAUDE_MD + "- Never commit `.env` files.\n", encoding="utf-8")
    runs.append(box.claude("hello", model.url))
    yield Imported(box, model, json.loads(done.stdout), runs)
    box.close()
    model.close()


def test_the_import_compiles_the_checkable_lines(imported: Imported) -> None:
    (file,) = imported.imported["files"]
    checks = {
        line["line"]: rule["check"]["kind"]
        for line in file["lines"]
        for rule in line.get("rules") or []
        if rule.get("check")
    }
    assert checks == {12: "forbidden_command", 14: "forbidden_path", 15: "forbidden_command"}
    # "on shared branches" narrows the force push to branches no command line names: guidance, not a ban on
    # every force push.
    (narrowed,) = [line for line in file["lines"] if line["line"] == 13]
    assert narrowed["rules"] and not any(rule.get("check") for rule in narrowed["rules"])


def test_what_the_file_forbids_is_denied_and_what_it_allows_runs(imported: Imported) -> None:
    run = imported.runs[0]
    assert run.returncode == 0, run.stderr
    assert run.json()["result"] == "Installed requests with uv; the migration needs a new revision."
    box, requests = imported.box, imported.model.agent_requests()
    assert box.ran("pip") == [] and box.ran("uv") == ["pip install requests"]
    denied = tool_result(requests[1])
    assert denied["is_error"] is True and "Use uv, not pip" in text_of(denied), text_of(denied)
    assert "uv: ok" in text_of(tool_result(requests[2]))
    refused = tool_result(requests[3])
    assert refused["is_error"] is True and "migrations/" in text_of(refused), text_of(refused)
    assert not (box.project / "migrations").exists()


def test_the_deny_quotes_the_line_of_claude_md(imported: Imported) -> None:
    entries = [e for e in imported.box.log_entries() if e["action"] == "deny"]
    assert len(entries) == 2, [(e.get("rule_text"), e.get("reason")) for e in entries]
    reason = text_of(tool_result(imported.model.agent_requests()[1]))
    assert "pip install requests" in reason


def test_the_next_session_is_told_the_file_changed_since_its_import(imported: Imported) -> None:
    run = imported.runs[1]
    assert run.returncode == 0, run.stderr
    first = json.dumps(imported.model.agent_requests()[-1]["messages"], ensure_ascii=False)
    assert "CLAUDE.md changed since it was imported: run `heedful rules import CLAUDE.md`" in first, first[-800:]
    texts = [rule["text"] for rule in imported.box.rules()]
    assert not any(".env" in text for text in texts), texts  # the hook imported nothing


def test_the_first_session_had_no_such_notice(imported: Imported) -> None:
    first = json.dumps(imported.model.agent_requests()[0]["messages"], ensure_ascii=False)
    assert "Use uv, not pip" in first and "changed since it was imported" not in first


def test_imported_rules_live_in_the_project(imported: Imported) -> None:
    rules = imported.box.rules()
    assert {rule["project"] for rule in rules} == {str(Path(imported.box.project))}
