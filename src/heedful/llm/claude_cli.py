"""`claude-cli[:MODEL]`: Claude Code's `claude -p` as the model (its login, no API key needed).

    claude -p --output-format json [--model MODEL] --tools "" --safe-mode --system-prompt ...

The prompt goes on stdin; `--output-format json` prints one result object whose `result` is the
answer. `--tools ""` offers no tools; `--safe-mode` loads no hooks, plugins, MCP servers or
CLAUDE.md (so heedful's own hooks cannot fire in the child); `--no-session-persistence` leaves no
session behind. Login and model selection work as in the user's own runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from heedful.llm.agent_cli import SYSTEM_PROMPT, AgentCLIModel, CLIStatus, Finished, first_line, installed, probe
from heedful.llm.structured import ModelError, Reply, TransientModelError

TRANSIENT_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}


class ClaudeCLIModel(AgentCLIModel):
    provider = "claude-cli"
    command = "claude"
    product = "Claude Code"

    def argv(self, work: Path) -> list[str]:
        argv = [str(self.binary), "-p", "--output-format", "json"]
        if self.model:
            argv += ["--model", self.model]
        return [
            *argv,
            "--tools",
            "",
            "--safe-mode",
            "--strict-mcp-config",
            "--disable-slash-commands",
            "--no-session-persistence",
            "--system-prompt",
            SYSTEM_PROMPT,
        ]

    def reply(self, finished: Finished, work: Path) -> Reply:
        result = _result_object(finished.stdout)
        if result is None:
            said = first_line(finished.stderr) or first_line(finished.stdout) or "nothing"
            raise ModelError(f"claude-cli: `claude -p` printed no JSON result (exit {finished.returncode}): {said}")
        text = str(result.get("result") or "")
        if result.get("is_error"):
            if "not logged in" in text.lower() or "/login" in text:
                raise ModelError(
                    "claude-cli: Claude Code is not logged in: run `claude` and /login, or set ANTHROPIC_API_KEY"
                )
            status = result.get("api_error_status")
            if isinstance(status, int) and status in TRANSIENT_STATUS:
                raise TransientModelError(f"claude -p: HTTP {status}: {first_line(text)}")
            raise ModelError(f"claude-cli failed: {first_line(text) or result.get('subtype') or 'an error'}")
        found = result.get("usage")
        usage: dict[str, Any] = found if isinstance(found, dict) else {}
        return Reply(
            text=text,
            finish_reason="length" if result.get("stop_reason") == "max_tokens" else result.get("stop_reason"),
            prompt_tokens=int(usage.get("input_tokens") or 0),
            completion_tokens=int(usage.get("output_tokens") or 0),
        )


def _result_object(stdout: str) -> dict[str, Any] | None:
    """The `type: result` object `--output-format json` prints (the last JSON line that is one)."""
    for line in reversed(stdout.strip().splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and ("result" in data or data.get("type") == "result"):
            return data
    return None


def status() -> CLIStatus:
    """Found, its version, and whether it is logged in (`claude auth status`), without a model call."""
    found = installed("claude-cli", "claude", "Claude Code")
    if isinstance(found, CLIStatus):
        return found
    binary, version = found
    auth = probe([str(binary), "auth", "status"])
    logged_in: bool | None = None
    if auth is not None:
        try:
            logged_in = bool(json.loads(auth.stdout).get("loggedIn"))
        except (ValueError, AttributeError):
            logged_in = None
    login = {True: "logged in", False: "not logged in: run `claude` and /login", None: "login unknown"}[logged_in]
    detail = f"{version} at {binary}, {login}"
    return CLIStatus("claude-cli", "claude", str(binary), version, logged_in, detail, login_decides=True)


__all__ = ["ClaudeCLIModel", "status"]
