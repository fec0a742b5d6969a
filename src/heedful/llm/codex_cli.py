"""`codex-cli[:MODEL]`: Codex's `codex exec` as the model (its login, no API key needed).

    codex exec --json -s read-only --skip-git-repo-check --ephemeral --disable hooks
               --output-last-message FILE [-m MODEL] -

The prompt goes on stdin (`-`); the answer is the last agent message, which Codex writes to FILE.
The read-only sandbox keeps the run from changing anything; `--disable hooks` keeps heedful's own
hooks (and any others) from running in the child; `--ephemeral` leaves no session behind. The
JSONL events on stdout give the token usage and, on failure, Codex's own error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from heedful.llm.agent_cli import SYSTEM_PROMPT, AgentCLIModel, CLIStatus, Finished, first_line, installed, probe
from heedful.llm.structured import ModelError, Reply, TransientModelError

ANSWER_FILE = "answer.txt"
_TRANSIENT = re.compile(r"\b(429|500|502|503|504|rate.?limit|overloaded|timed? ?out)\b", re.IGNORECASE)


class CodexCLIModel(AgentCLIModel):
    provider = "codex-cli"
    command = "codex"
    product = "Codex"
    preamble = SYSTEM_PROMPT  # Codex keeps its own system prompt: say first what this run is for

    def argv(self, work: Path) -> list[str]:
        argv = [str(self.binary), "exec", "--json", "--sandbox", "read-only", "--skip-git-repo-check", "--ephemeral"]
        argv += ["--disable", "hooks", "--color", "never", "--output-last-message", str(work / ANSWER_FILE)]
        if self.model:
            argv += ["--model", self.model]
        return [*argv, "-"]

    def reply(self, finished: Finished, work: Path) -> Reply:
        events = _events(finished.stdout)
        answer_file = work / ANSWER_FILE
        text = answer_file.read_text(encoding="utf-8", errors="replace") if answer_file.exists() else ""
        failure = _failure(events)
        if finished.returncode != 0 or failure or not text.strip():
            said = failure or first_line(finished.stderr) or "no answer"
            if _TRANSIENT.search(said):
                raise TransientModelError(f"codex exec: {said}")
            raise ModelError(f"codex-cli failed (exit {finished.returncode}): {said}{_login_hint(self.binary)}")
        usage: dict[str, Any] = {}
        for event in events:
            if event.get("type") == "turn.completed" and isinstance(event.get("usage"), dict):
                usage = event["usage"]
        return Reply(
            text=text,
            finish_reason="stop",
            prompt_tokens=int(usage.get("input_tokens") or 0),
            completion_tokens=int(usage.get("output_tokens") or 0),
        )


def _events(stdout: str) -> list[dict[str, Any]]:
    events = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict):
            events.append(data)
    return events


def _failure(events: list[dict[str, Any]]) -> str:
    """Codex's own reason for a failed turn (warnings reported as error items do not count)."""
    for event in reversed(events):
        kind = event.get("type")
        if kind == "turn.completed":  # errors before it were retries that recovered
            return ""
        if kind == "turn.failed":
            error = event.get("error")
            return first_line(str(error.get("message") if isinstance(error, dict) else error))
        if kind == "error":
            return first_line(str(event.get("message") or "error"))
    return ""


def _login_hint(binary: Path) -> str:
    """Say so when Codex is not logged in: the likeliest cause of a failed run."""
    done = probe([str(binary), "login", "status"])
    if done is not None and done.returncode != 0 and "not logged in" in (done.stdout + done.stderr).lower():
        return " (Codex is not logged in: run `codex login`)"
    return ""


def status() -> CLIStatus:
    """Found, its version, and whether it is logged in (`codex login status`), without a model call."""
    found = installed("codex-cli", "codex", "Codex")
    if isinstance(found, CLIStatus):
        return found
    binary, version = found
    auth = probe([str(binary), "login", "status"])
    logged_in = None if auth is None else auth.returncode == 0
    login = {
        True: "logged in",
        False: "not logged in (`codex login`), unless a model provider in its config.toml has its own key",
        None: "login unknown",
    }[logged_in]
    return CLIStatus("codex-cli", "codex", str(binary), version, logged_in, f"{version} at {binary}, {login}")


__all__ = ["CodexCLIModel", "status"]
