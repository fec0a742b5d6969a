"""Cursor hooks (`.cursor/hooks.json`): its payloads read as the shared events, answers in Cursor's fields.

    sessionStart         -> SessionStart      (answer: additional_context)
    beforeSubmitPrompt   -> UserPromptSubmit  (answer: continue; Cursor cannot add context here)
    beforeShellExecution -> PreToolUse Bash   (answer: permission deny, user_message, agent_message)
    afterShellExecution  -> PostToolUse Bash  (observed: the command is recorded)
    preToolUse           -> PreToolUse        (file tools: Write, StrReplace, Delete, ...)
    postToolUse(Failure) -> PostToolUse(Failure) (answer: additional_context, the artifact feedback)
    afterFileEdit        -> PostToolUse Edit  (observed; for Cursor versions without postToolUse)
    afterAgentResponse   -> the reply text, kept until this generation's `stop`
    stop                 -> Stop              (answer: followup_message, sent as the next user message)

Cursor's `stop` carries no reply text, so the text of `afterAgentResponse` is kept per conversation
under HEEDFUL_HOME/run/cursor-replies/ and read (and removed) by `stop`. A continuation caused by a
followup has `loop_count` > 0, which is `stop_hook_active`. The conversation is the session; there
is no turn id to pass (a followup starts a new generation but continues the same turn).
Allowing is an empty object, never `permission: "allow"`, which would skip Cursor's own approval.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from heedful.enforce.results import Outcome
from heedful.integrations import replies

PLATFORM = "cursor"
EVENTS = (
    "sessionStart",
    "beforeSubmitPrompt",
    "beforeShellExecution",
    "afterShellExecution",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "afterAgentResponse",
    "stop",
)
FILE_TOOLS_MATCHER = "Write|StrReplace|Edit|MultiEdit|Delete|EditNotebook"
MATCHERS = {
    "preToolUse": FILE_TOOLS_MATCHER,
    "postToolUse": FILE_TOOLS_MATCHER,
    "postToolUseFailure": FILE_TOOLS_MATCHER,
}
SHARED_EVENT = {
    "sessionStart": "SessionStart",
    "beforeSubmitPrompt": "UserPromptSubmit",
    "beforeShellExecution": "PreToolUse",
    "afterShellExecution": "PostToolUse",
    "preToolUse": "PreToolUse",
    "postToolUse": "PostToolUse",
    "postToolUseFailure": "PostToolUseFailure",
    "afterFileEdit": "PostToolUse",
    "stop": "Stop",
}
TOOLS = {"Shell": "Bash", "Write": "Write", "StrReplace": "Edit", "Edit": "Edit", "MultiEdit": "MultiEdit"}
REPLIES = "cursor-replies"


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def tool_call(name: str, tool_input: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(tool name, input) in the shape the checks read: Write's `contents` is `content`, a Delete is a patch."""
    given = dict(tool_input)
    path = _text(given.get("file_path")) or _text(given.get("path")) or _text(given.get("target_file"))
    if name == "Delete" and path:
        return "apply_patch", {"patch": f"*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n"}
    shared = TOOLS.get(name, name)
    if path and shared in ("Write", "Edit", "MultiEdit"):
        given["file_path"] = path
    if shared == "Write" and "content" not in given and isinstance(given.get("contents"), str):
        given["content"] = given["contents"]
    return shared, given


def normalize(payload: dict[str, Any], home: Path | None = None) -> dict[str, Any] | None:
    """A Cursor payload as the shared event payload; None for an event answered with `{}` and nothing else.

    `afterAgentResponse` keeps the reply (under `home`) for `stop`; a `stop` that did not complete
    (aborted, error) asks for nothing.
    """
    native = _text(payload.get("hook_event_name"))
    conversation = _text(payload.get("conversation_id")) or _text(payload.get("session_id"))
    if native is None or conversation is None:
        return None
    roots = payload.get("workspace_roots")
    root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0] else None
    cwd = _text(payload.get("cwd")) or root or os.getcwd()
    if native == "afterAgentResponse":
        text = _text(payload.get("text"))
        if text is not None and home is not None:
            replies.keep(home, REPLIES, conversation, text)
        return None
    event = SHARED_EVENT.get(native)
    if event is None:
        return None
    out: dict[str, Any] = {"hook_event_name": event, "session_id": conversation, "cwd": cwd}
    if event == "UserPromptSubmit":
        out["prompt"] = payload.get("prompt")
    elif native in ("beforeShellExecution", "afterShellExecution"):
        out["tool_name"], out["tool_input"] = "Bash", {"command": payload.get("command")}
        if native == "afterShellExecution":
            out["tool_response"] = {"output": payload.get("output")}
    elif native == "afterFileEdit":
        path = _text(payload.get("file_path"))
        if path is None:
            return None
        out["tool_name"], out["tool_input"] = "Edit", {"file_path": path, "edits": payload.get("edits")}
        out["tool_response"] = None
    elif event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        name, tool_input = _text(payload.get("tool_name")), payload.get("tool_input")
        if isinstance(tool_input, str):  # MCP tools send their arguments as a JSON string
            with contextlib.suppress(ValueError):
                tool_input = json.loads(tool_input)
        if name is None or not isinstance(tool_input, dict):
            return None
        out["tool_name"], out["tool_input"] = tool_call(name, tool_input)
        out["tool_use_id"] = payload.get("tool_use_id")
        if event != "PreToolUse":
            out["tool_response"] = payload.get("tool_output")
    elif event == "Stop":
        if payload.get("status") not in (None, "completed"):
            return None
        out["last_assistant_message"] = replies.read(home, REPLIES, conversation, remove=True) if home else None
        loops = payload.get("loop_count")
        out["stop_hook_active"] = isinstance(loops, int) and loops > 0
    return out


class CursorRenderer:
    def fail_open(self, event: str | None) -> str:
        return _json({"continue": True}) if event == "UserPromptSubmit" else "{}"

    def context(self, event: str, text: str | None) -> str:
        if event == "UserPromptSubmit":  # beforeSubmitPrompt accepts only continue / user_message
            return _json({"continue": True})
        if not text:
            return "{}"
        if event == "PreToolUse":
            return _json({"agent_message": text})
        return _json({"additional_context": text})

    def pre_tool(self, outcome: Outcome) -> str:
        if outcome.decision == "deny":
            message = outcome.message or ""
            shown = " ".join(message.splitlines()[:2])  # the notice and the first rule broken, for the user
            return _json({"permission": "deny", "user_message": shown, "agent_message": message})
        return self.context("PreToolUse", outcome.message)

    def post_tool(self, outcome: Outcome) -> str:
        return self.context("PostToolUse", outcome.message)

    def stop(self, outcome: Outcome) -> str:
        if outcome.decision == "revise":
            return _json({"followup_message": outcome.message or ""})
        return "{}"


RENDERER = CursorRenderer()
