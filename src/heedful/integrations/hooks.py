"""The hook event loop shared by every platform: payload in, the platform's answer out.

Claude Code and Codex send the same field names (`hook_event_name`, `session_id`, `cwd`, `prompt`,
`tool_name`, `tool_input`, `tool_response`, `tool_use_id`, `stop_hook_active`,
`last_assistant_message`; Codex adds `turn_id`, recent Claude Code `prompt_id`); Gemini CLI and
Cursor name events and fields differently, and their adapters (`gemini.normalize`,
`cursor.normalize`) turn a payload into these events first. The platforms differ in what they
accept back, which each adapter's `Renderer` decides. Every string of a payload is made valid text
first (a lone surrogate or a byte that is not UTF-8 becomes U+FFFD), so that odd input is judged
like any other. Anything unexpected fails open.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Protocol

from heedful.enforce.bounds import clean
from heedful.enforce.results import Outcome

if TYPE_CHECKING:
    from heedful.enforce.engine import Enforcer


class Renderer(Protocol):
    def fail_open(self, event: str | None) -> str: ...
    def context(self, event: str, text: str | None) -> str: ...
    def pre_tool(self, outcome: Outcome) -> str: ...
    def post_tool(self, outcome: Outcome) -> str: ...
    def stop(self, outcome: Outcome) -> str: ...


class Runtime(Protocol):
    """What an event needs of the hook process (`heedful.enforce.runtime.HookRuntime`)."""

    @property
    def enforcer(self) -> Enforcer: ...
    def start_worker(self) -> None: ...


def parse(raw: bytes | str) -> dict[str, Any] | None:
    """The payload as a JSON object with every string valid text (lone surrogates and bad bytes -> U+FFFD)."""
    try:
        try:
            payload = json.loads(raw)
        except UnicodeDecodeError:  # not UTF-8 throughout: read what is, mark what is not
            payload = json.loads(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw)
    except (ValueError, RecursionError):
        return None
    return clean(payload) if isinstance(payload, dict) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def dispatch(runtime: Runtime, payload: dict[str, Any], render: Renderer) -> str:
    """Handle one event; raises on internal errors (the caller fails open)."""
    event = _text(payload.get("hook_event_name"))
    session_id = _text(payload.get("session_id"))
    if event is None or session_id is None:
        return render.fail_open(event)
    cwd = _text(payload.get("cwd")) or os.getcwd()
    turn = _text(payload.get("turn_id")) or _text(payload.get("prompt_id"))
    if event == "SessionStart":
        return render.context(event, runtime.enforcer.session_start(session_id, cwd))
    if event == "PreCompact":  # the context is about to be summarised: the rules shown so far go with it
        runtime.enforcer.compacting(session_id)
        return render.fail_open(event)
    if event == "UserPromptSubmit":
        prompt = _text(payload.get("prompt"))
        if prompt is None:
            return render.fail_open(event)
        result = runtime.enforcer.user_prompt(session_id, prompt, cwd, turn)
        if result.job:
            runtime.start_worker()
        return render.context(event, result.context)
    tool_name = _text(payload.get("tool_name"))
    tool_input = payload.get("tool_input")
    tool_use_id = _text(payload.get("tool_use_id"))
    if event == "PreToolUse":
        if tool_name is None or not isinstance(tool_input, dict):
            return render.fail_open(event)
        return render.pre_tool(runtime.enforcer.pre_tool(session_id, tool_name, tool_input, cwd, turn, tool_use_id))
    if event in ("PostToolUse", "PostToolUseFailure"):
        if tool_name is None or not isinstance(tool_input, dict):
            return render.fail_open(event)
        outcome = runtime.enforcer.post_tool(
            session_id,
            tool_name,
            tool_input,
            payload.get("tool_response"),
            cwd,
            turn,
            tool_use_id,
            ok=event == "PostToolUse",
        )
        return render.post_tool(outcome)
    if event == "Stop":
        message = payload.get("last_assistant_message")
        active = payload.get("stop_hook_active") is True
        return render.stop(
            runtime.enforcer.stop(session_id, message if isinstance(message, str) else None, cwd, turn, active)
        )
    return render.fail_open(event)
