"""The learning step: one user message in, at most one new library version out.

Only the user's own words count: text they quote or paste (`quoting.own_words`) is left out before
admission, interpretation and retraction. The learning itself (admit, interpret, ground, resolve,
compile, commit) is `learn_steps`; this module stays light so that the embedder, which every
message with words of the user's own is admitted with, starts loading (in a thread of its own, see
`embed.minilm`) before the learner's modules (the steps, the compiler, numpy) are imported.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from heedful.errors import InputError
from heedful.rules.models import ContextMessage, LearnResult
from heedful.rules.quoting import own_words

if TYPE_CHECKING:
    from heedful.rules.parts import RuleParts


def parse_context(context: Any) -> list[ContextMessage]:
    """Context as a list of {role, text} (or a JSON string of one); bad shapes are an InputError."""
    if context is None:
        return []
    if isinstance(context, str):
        try:
            context = json.loads(context)
        except ValueError as exc:
            raise InputError("the context must be a JSON list of {role, text} messages") from exc
    if not isinstance(context, list):
        raise InputError("the context must be a JSON list of {role, text} messages")
    out = []
    for index, item in enumerate(context):
        if isinstance(item, ContextMessage):
            out.append(item)
            continue
        text = item.get("text", item.get("content")) if isinstance(item, dict) else None
        if not isinstance(text, str):
            raise InputError(f"context message {index} needs a role and a text")
        role = item.get("role", "user")
        if role not in ("user", "assistant", "tool", "system"):
            raise InputError(f"context message {index} has an unknown role {role!r}")
        out.append(ContextMessage(role=role, text=text))
    return out


def learn(
    parts: RuleParts,
    user: str,
    text: str,
    project: str | None,
    context: list[ContextMessage],
    proposed_by: str | None = None,
) -> LearnResult:
    """One message in, at most one library version out. `proposed_by` (e.g. "mcp"): every change is a proposal."""
    own = own_words(text)
    kinds = ", ".join(sorted({r.kind for r in own.removed}))
    left_out = (
        [f"left out {len(own.removed)} quoted or pasted passage(s) ({kinds}): not the user's instruction"]
        if own.changed
        else []
    )
    if own.empty:
        return LearnResult(decision="none", scope=None, reasons=left_out)
    _ = parts.embedder  # admission reads the words with it: its load overlaps the imports below
    from heedful.rules.learn_steps import learn_words

    return learn_words(parts, user, text, own.text, left_out, project, context, proposed_by)


__all__ = ["learn", "parse_context"]
