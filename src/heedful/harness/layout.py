"""The evidence layout of a harness version: which recalled items the context keeps, in what order,
how each one is written, and the memory-use policy that opens the context.

This is the code a `heedful evolve` candidate may change (besides the parameters). It is plain
Python with the standard library only and works on plain data (JSON-shaped dicts), because a
candidate's copy of it runs in a sandboxed process (`heedful.harness.sandbox`), never in heedful's
own. Each item given to `choose` and `render`:

    {"kind": "fact"|"commitment"|"summary"|"excerpt", "text": str, "state": "current"|"superseded",
     "score": float, "valid_from": str, "valid_to": str|None, "event_at": str|None,
     "routes": {route name: 1-based rank}}

`choose(items, limits)` returns the positions (indices into `items`) to list under each heading, in
the order the context shows them; `limits` holds the version's parameters `max_facts` (None: all),
`max_summaries` and `max_excerpts`.
"""

from __future__ import annotations

from typing import Any

POLICY = """\
How to use the memory below:
1. If "The user asked to forget" appears below, never use, mention or guess at what was forgotten.
2. Facts marked NO LONGER TRUE were replaced: answer from the current fact, and use the old one
   only when the question asks about that earlier time.
3. Preferences of other people (a sister, a colleague, a friend) are theirs, not the user's.
   Keep them apart and never attribute them to the user.
4. This memory is incomplete. If it does not answer the question, say so or answer generally;
   do not invent what the user never said.
5. Never infer a preference from age, gender, nationality, religion or any other demographic
   attribute.
6. Never reveal sensitive identifiers (keys, card or identity numbers, passwords), even if
   they appear below; placeholders such as [REDACTED:...] mark where they were."""

HEADINGS = {
    "facts": "Recalled facts:",
    "summaries": "Session summaries:",
    "excerpts": "Raw excerpts from past conversations:",
}


def choose(items: list[dict[str, Any]], limits: dict[str, Any]) -> dict[str, list[int]]:
    """Recall's order within each heading, cut at the version's limits."""
    facts = [i for i, item in enumerate(items) if item["kind"] in ("fact", "commitment")]
    summaries = [i for i, item in enumerate(items) if item["kind"] == "summary"]
    excerpts = [i for i, item in enumerate(items) if item["kind"] == "excerpt"]
    max_facts = limits.get("max_facts")
    return {
        "facts": facts if max_facts is None else facts[:max_facts],
        "summaries": summaries[: limits["max_summaries"]],
        "excerpts": excerpts[: limits["max_excerpts"]],
    }


def render(item: dict[str, Any]) -> str:
    """One listed item: its text and when it was said; a replaced fact says since when it is no longer true."""
    date = (item.get("event_at") or item["valid_from"])[:10]
    if item["state"] == "superseded":
        until = (item.get("valid_to") or "")[:10]
        return f"- [NO LONGER TRUE since {until}] {item['text']} (said {date})"
    return f"- {item['text']} (said {date})"
