"""Which rule lines the agent still has in its context, so that a turn does not repeat them (pure).

The context the hook adds with a prompt stays in the conversation, so a later turn only needs the
lines the agent has not seen. What was shown is kept per session as {rule id: "<line hash>@<turn>"}:
the line's hash, because a rule edited since (a new library version) must be shown again, and the
turn it was shown at, to bound staleness where the client gives no signal that its context was cut.

The record is dropped when the agent's context lost those lines: on every SessionStart (Claude Code
and Codex send it with `source` startup, resume, clear and compact; Gemini CLI with startup, resume
and clear; a resumed transcript is not vouched for, so resume counts as lost) and on a compaction
hook (Claude Code's PreCompact, Gemini CLI's PreCompress). A new session has no record.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from typing import Any

# The session's record rides on the per-session key/value the hook already keeps between events
# (`pending`, keyed by tool-use id); this key can never be a client's tool-use id.
KEY = "heedful:shown"
# Clients whose hooks report every compaction (SessionStart `compact`): their record is trusted until
# then. Others re-show a rule STALE_TURNS turns after it was shown: a coding-agent turn with its tool
# output is commonly 5-20k tokens, so ten turns are about what a 128-200k window holds before the
# client must compact or truncate.
SIGNALS_COMPACTION = frozenset({"claude-code", "codex"})
STALE_TURNS = 10


def line_hash(text: str) -> str:
    """A short hash of the line shown for a rule (crc32: the hook needs change detection, not security)."""
    return format(zlib.crc32(text.encode("utf-8")), "08x")


def _parse(value: Any) -> tuple[str, int] | None:
    if not isinstance(value, str) or "@" not in value:
        return None
    digest, _, turn = value.partition("@")
    return (digest, int(turn)) if turn.isdigit() else None


def stale_after(platform: str) -> int | None:
    """Turns after which a shown rule is shown again (None: only a context-loss signal resets)."""
    return None if platform in SIGNALS_COMPACTION else STALE_TURNS


def in_context(
    record: Mapping[str, Any] | None, lines: Mapping[str, str], turn: int, stale: int | None
) -> frozenset[str]:
    """Ids of rules whose current line (`lines`: id -> line) the agent was shown and still has."""
    found: set[str] = set()
    for rule_id, value in (record or {}).items():
        parsed = _parse(value)
        if parsed is None or rule_id not in lines:
            continue
        digest, shown_at = parsed
        if digest == line_hash(lines[rule_id]) and (stale is None or turn - shown_at < stale):
            found.add(rule_id)
    return frozenset(found)


def updated(
    record: Mapping[str, Any] | None,
    kept: Iterable[str],
    fresh: Mapping[str, str],
    turn: int,
) -> dict[str, str]:
    """The record after a turn: the entries still in context (`kept`) and the lines shown now (`fresh`)."""
    keep = set(kept)
    out = {rule_id: str(value) for rule_id, value in (record or {}).items() if rule_id in keep}
    out.update({rule_id: f"{line_hash(text)}@{turn}" for rule_id, text in fresh.items()})
    return out
