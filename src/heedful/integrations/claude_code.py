"""Claude Code hooks: answers in the fields Claude Code documents for each event."""

from __future__ import annotations

import json

from heedful.enforce.results import Outcome

PLATFORM = "claude-code"
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop")


def _json(data: dict[str, object]) -> str:
    return json.dumps(data, ensure_ascii=False)


class ClaudeCodeRenderer:
    def fail_open(self, event: str | None) -> str:
        return ""

    def context(self, event: str, text: str | None) -> str:
        if not text:
            return ""
        return _json({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})

    def pre_tool(self, outcome: Outcome) -> str:
        if outcome.decision == "deny":
            return _json(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                        "permissionDecisionReason": outcome.message or "",
                    }
                }
            )
        return self.context("PreToolUse", outcome.message)

    def post_tool(self, outcome: Outcome) -> str:
        if outcome.decision == "feedback":
            return _json({"decision": "block", "reason": outcome.message or ""})
        return self.context("PostToolUse", outcome.message)

    def stop(self, outcome: Outcome) -> str:
        if outcome.decision == "revise":
            return _json({"decision": "block", "reason": outcome.message or ""})
        return ""


RENDERER = ClaudeCodeRenderer()
