"""Codex hooks: the same layer, answering only in fields Codex accepts.

Codex rejects `ask`, `continue`, `stopReason` and `suppressOutput` on PreToolUse, has no
`hookSpecificOutput` on Stop, and requires Stop to print JSON (an empty object allows).
Artifact feedback goes through `additionalContext`, which keeps the tool's own output visible
(a PostToolUse `decision: block` would replace it).
"""

from __future__ import annotations

import json

from heedful.enforce.engine import Outcome

PLATFORM = "codex"
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


def _json(data: dict[str, object]) -> str:
    return json.dumps(data, ensure_ascii=False)


class CodexRenderer:
    def fail_open(self, event: str | None) -> str:
        return "{}" if event in (None, "Stop") else ""

    def context(self, event: str, text: str | None) -> str:
        if not text:
            return ""
        return _json({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})

    def pre_tool(self, outcome: Outcome) -> str:
        if outcome.decision == "deny":
            return _json({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                 "permissionDecisionReason": outcome.message or ""}})
        return self.context("PreToolUse", outcome.message)

    def post_tool(self, outcome: Outcome) -> str:
        return self.context("PostToolUse", outcome.message)

    def stop(self, outcome: Outcome) -> str:
        if outcome.decision == "revise":
            return _json({"decision": "block", "reason": outcome.message or ""})
        return "{}"


RENDERER = CodexRenderer()
