"""Codex hooks: the same layer, answering only in fields Codex accepts.

Codex rejects `ask`, `continue`, `stopReason` and `suppressOutput` on PreToolUse, has no
`hookSpecificOutput` on Stop, and requires Stop to print JSON (an empty object allows).
Artifact feedback goes through `additionalContext`, which keeps the tool's own output visible
(a PostToolUse `decision: block` would replace it).
"""

from __future__ import annotations

from heedful.enforce.results import Outcome
from heedful.integrations.claude_code import ClaudeCodeRenderer

PLATFORM = "codex"
EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


class CodexRenderer(ClaudeCodeRenderer):
    """Codex accepts the same fields except PostToolUse's block, and every Stop must print JSON."""

    def fail_open(self, event: str | None) -> str:
        return "{}" if event in (None, "Stop") else ""

    def post_tool(self, outcome: Outcome) -> str:
        # Feedback goes in additionalContext, which keeps the tool's output visible to the agent.
        return self.context("PostToolUse", outcome.message)

    def stop(self, outcome: Outcome) -> str:
        return super().stop(outcome) or "{}"


RENDERER = CodexRenderer()
