"""Gemini CLI hooks: its payloads read as the shared events, answers in the fields Gemini CLI documents.

Gemini CLI (settings.json `hooks`) names the events differently and sends no tool-use or turn id:

    SessionStart -> SessionStart      BeforeAgent -> UserPromptSubmit   AfterAgent -> Stop
    BeforeTool   -> PreToolUse        AfterTool   -> PostToolUse (PostToolUseFailure when the
                                                     tool's response carries an `error`)
    PreCompress  -> PreCompact (the rules shown so far leave the context: the next turn shows them again)

Its tools are mapped to the names the checks read (`run_shell_command` -> Bash, `write_file` ->
Write, `replace` -> Edit); a shell call's `dir_path` becomes the directory the command runs in.
Answers: a deny is `decision: "deny"` with the reason (sent to the model as the tool's error);
artifact feedback is `hookSpecificOutput.additionalContext`, appended to the tool's result so the
result stays visible; a reply revision is AfterAgent's `decision: "deny"`, which rejects the reply
before it is delivered and sends the reason as the next prompt (`stop_hook_active` is then true).
Gemini CLI parses stderr when stdout is empty, so every answer is JSON (`{}` allows).

On a retry, Gemini CLI (0.61) sends as `prompt_response` every reply of the turn joined by
newlines, the rejected ones first; the reply last judged is kept per session (see `replies`) and
only what follows it is judged, so that a compliant revision is not failed for the draft before it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from heedful.enforce.results import Outcome
from heedful.integrations import replies

PLATFORM = "gemini"
EVENTS = ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "PreCompress")
SHARED_EVENT = {
    "SessionStart": "SessionStart",
    "BeforeAgent": "UserPromptSubmit",
    "BeforeTool": "PreToolUse",
    "AfterTool": "PostToolUse",
    "AfterAgent": "Stop",
    "PreCompress": "PreCompact",
}
NATIVE_EVENT = {shared: native for native, shared in SHARED_EVENT.items()} | {"PostToolUseFailure": "AfterTool"}
TOOLS = {"run_shell_command": "Bash", "write_file": "Write", "replace": "Edit"}
REPLIES = "gemini-replies"


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False)


def tool_call(name: str, tool_input: dict[str, Any], cwd: str) -> tuple[str, dict[str, Any], str]:
    """(tool name, input, working directory) in the shape the checks read."""
    shared = TOOLS.get(name, name)
    if shared == "Bash":
        folder = tool_input.get("dir_path")
        if isinstance(folder, str) and folder:
            cwd = os.path.normpath(os.path.join(cwd, os.path.expanduser(folder)))
    return shared, dict(tool_input), cwd


def revision(home: Path | None, session: str | None, text: str, retry: bool) -> str:
    """The reply to judge: on a retry, what follows the reply judged before (which is then this one)."""
    if home is None or not session:
        return text
    earlier = replies.read(home, REPLIES, session) if retry else None
    replies.keep(home, REPLIES, session, text)
    if earlier and text.startswith(earlier + "\n"):
        return text[len(earlier) + 1 :]
    return text


def normalize(payload: dict[str, Any], home: Path | None = None) -> dict[str, Any]:
    """A Gemini CLI payload as the shared event payload (unknown events pass through and fail open).

    With `home`, AfterAgent keeps the reply it judges there (see `revision`).
    """
    native = payload.get("hook_event_name")
    event = SHARED_EVENT.get(native) if isinstance(native, str) else None
    if event is None:
        return payload
    out = {k: v for k, v in payload.items() if k not in ("prompt_response", "tool_name", "tool_input", "cwd")}
    out["hook_event_name"] = event
    given = payload.get("cwd")
    cwd = given if isinstance(given, str) and given else os.getcwd()
    out["cwd"] = cwd
    name, tool_input = payload.get("tool_name"), payload.get("tool_input")
    if event in ("PreToolUse", "PostToolUse") and isinstance(name, str) and isinstance(tool_input, dict):
        out["tool_name"], out["tool_input"], out["cwd"] = tool_call(name, tool_input, cwd)
        response = payload.get("tool_response")
        if event == "PostToolUse" and isinstance(response, dict) and response.get("error"):
            out["hook_event_name"] = "PostToolUseFailure"
    if event == "Stop":
        text = payload.get("prompt_response")
        if isinstance(text, str):
            session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
            text = revision(home, session, text, payload.get("stop_hook_active") is True)
        out["last_assistant_message"] = text
    return out


class GeminiRenderer:
    def fail_open(self, event: str | None) -> str:
        return "{}"

    def context(self, event: str, text: str | None) -> str:
        if not text:
            return "{}"
        native = NATIVE_EVENT.get(event, event)
        return _json({"hookSpecificOutput": {"hookEventName": native, "additionalContext": text}})

    def pre_tool(self, outcome: Outcome) -> str:
        if outcome.decision == "deny":
            return _json({"decision": "deny", "reason": outcome.message or ""})
        return self.context("PreToolUse", outcome.message)

    def post_tool(self, outcome: Outcome) -> str:
        # additionalContext is appended to the tool's result; a deny would replace the result itself.
        return self.context("PostToolUse", outcome.message)

    def stop(self, outcome: Outcome) -> str:
        if outcome.decision == "revise":
            return _json({"decision": "deny", "reason": outcome.message or ""})
        return "{}"


RENDERER = GeminiRenderer()
