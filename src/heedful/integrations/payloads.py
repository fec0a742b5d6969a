"""Hook payloads shaped exactly like the platforms' (for benchmarks, tests and `heedful hook --example`).

Field names follow the Claude Code hooks reference and Codex's hook input schemas; Codex adds
`model` and `turn_id`, and its apply_patch carries the patch text in `tool_input.command`.
Gemini CLI's follow its hooks reference (`docs/hooks/reference.md`: base fields `session_id`,
`transcript_path`, `cwd`, `hook_event_name`, `timestamp`); Cursor's its hooks documentation
(`conversation_id`, `generation_id`, `model`, `cursor_version`, `workspace_roots`, ...).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def claude(event: str, session: str, cwd: str, **fields: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": f"{Path.home()}/.claude/projects/example/{session}.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event,
    }
    if event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        payload["tool_use_id"] = fields.pop("tool_use_id", f"toolu_{time.monotonic_ns()}")
    if event == "Stop":
        payload["stop_hook_active"] = fields.pop("stop_hook_active", False)
    if event == "SessionStart":
        payload.pop("permission_mode")
        payload["source"] = fields.pop("source", "startup")
    payload.update(fields)
    return payload


def claude_bash(session: str, cwd: str, command: str, event: str = "PreToolUse", **fields: Any) -> dict[str, Any]:
    tool_input = {"command": command, "description": "Run a command", "timeout": 120000, "run_in_background": False}
    extra: dict[str, Any] = {}
    if event == "PostToolUse":
        extra["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False, "isImage": False}
        extra["duration_ms"] = 12
    return claude(event, session, cwd, tool_name="Bash", tool_input=tool_input, **{**extra, **fields})


def claude_write(
    session: str, cwd: str, path: str, content: str, event: str = "PreToolUse", **fields: Any
) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if event == "PostToolUse":
        extra["tool_response"] = {"filePath": path, "success": True}
        extra["duration_ms"] = 5
    return claude(
        event,
        session,
        cwd,
        tool_name="Write",
        tool_input={"file_path": path, "content": content},
        **{**extra, **fields},
    )


def codex(event: str, session: str, cwd: str, turn: str | None = None, **fields: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": None,
        "cwd": cwd,
        "hook_event_name": event,
        "model": "gpt-5-codex",
    }
    if event != "SessionStart":
        payload["permission_mode"] = "default"
        payload["turn_id"] = turn or "turn-1"
    else:
        payload["source"] = fields.pop("source", "startup")
    if event in ("PreToolUse", "PostToolUse"):
        payload["tool_use_id"] = fields.pop("tool_use_id", f"call_{time.monotonic_ns()}")
    if event == "Stop":
        payload["stop_hook_active"] = fields.pop("stop_hook_active", False)
    payload.update(fields)
    return payload


def gemini(event: str, session: str, cwd: str, **fields: Any) -> dict[str, Any]:
    """A Gemini CLI hook payload: BeforeTool/AfterTool carry `tool_name`, `tool_input` (AfterTool
    `tool_response` = {llmContent, returnDisplay, error?}); BeforeAgent `prompt`; AfterAgent `prompt`,
    `prompt_response`, `stop_hook_active`; SessionStart `source`."""
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": f"{Path.home()}/.gemini/tmp/example/chats/session-{session}.json",
        "cwd": cwd,
        "hook_event_name": event,
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
    }
    if event == "SessionStart":
        payload["source"] = fields.pop("source", "startup")
    if event == "AfterAgent":
        payload["stop_hook_active"] = fields.pop("stop_hook_active", False)
    if event == "AfterTool" and "tool_response" not in fields:
        payload["tool_response"] = {"llmContent": "ok", "returnDisplay": "ok"}
    payload.update(fields)
    return payload


def cursor(event: str, conversation: str, root: str, generation: str = "gen-1", **fields: Any) -> dict[str, Any]:
    """A Cursor hook payload: beforeShellExecution `command`, `cwd`; preToolUse/postToolUse `tool_name`,
    `tool_input`, `tool_use_id` (post: `tool_output`, `duration_ms`); beforeSubmitPrompt `prompt`;
    afterAgentResponse `text`; stop `status`, `loop_count`."""
    payload: dict[str, Any] = {
        "conversation_id": conversation,
        "generation_id": generation,
        "model": "gpt-5",
        "hook_event_name": event,
        "cursor_version": "1.105.1",
        "workspace_roots": [root],
        "user_email": "user@example.com",
        "transcript_path": f"{Path.home()}/.cursor/projects/example/agent-transcripts/{conversation}.jsonl",
    }
    if event in ("preToolUse", "postToolUse", "postToolUseFailure", "beforeShellExecution", "afterShellExecution"):
        payload["cwd"] = fields.pop("cwd", root)
    if event in ("preToolUse", "postToolUse", "postToolUseFailure"):
        payload["tool_use_id"] = fields.pop("tool_use_id", f"tool_{time.monotonic_ns()}")
    if event == "stop":
        payload["status"] = fields.pop("status", "completed")
        payload["loop_count"] = fields.pop("loop_count", 0)
    payload.update(fields)
    return payload


def hook_command(platform: str) -> list[str]:
    return [sys.executable, "-m", "heedful.hookmain", platform]


def run_hook(
    platform: str, payload: Mapping[str, Any] | str | bytes, env: Mapping[str, str], timeout: float = 60
) -> tuple[int, str, str, float]:
    """Run the real hook command once: (exit code, stdout, stderr, elapsed ms)."""
    if isinstance(payload, Mapping):
        data = json.dumps(payload).encode("utf-8")
    else:
        data = payload.encode("utf-8") if isinstance(payload, str) else payload
    started = time.perf_counter()
    done = subprocess.run(hook_command(platform), input=data, capture_output=True, env=dict(env), timeout=timeout)
    elapsed = (time.perf_counter() - started) * 1000
    return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"), elapsed


def hook_env(home: Path | str, user: str | None = None, worker: bool = False, **extra: str) -> dict[str, str]:
    """The environment for a hook subprocess against `home` (other HEEDFUL_* settings removed)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_") and k != "CLAUDE_PROJECT_DIR"}
    env["HEEDFUL_HOME"] = str(home)
    env["HEEDFUL_HOOK_WORKER"] = "1" if worker else "0"
    if user:
        env["HEEDFUL_USER"] = user
    env.update(extra)
    return env
