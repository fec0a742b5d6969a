"""Pack ranked items into a token budget. Pure.

Tokens are estimated (about four characters a token, the usual figure for English BPE
vocabularies); the estimate only has to be stable and roughly right, not exact.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

DEFAULT_BUDGET_TOKENS = 8100
DEFAULT_MAX_ITEMS = 45
# Enumeration questions ("list all ...", "how many ...") widen both limits by this factor.
ENUMERATION_FACTOR = 3


def estimate_tokens(text: str) -> int:
    """A stable estimate of how many tokens `text` costs a reader model (at least 1)."""
    return max(1, (len(text) + 3) // 4)


def pack(
    items: Sequence[T],
    tokens_of: Callable[[T], int],
    budget_tokens: int,
    max_items: int,
) -> tuple[list[T], int]:
    """Take items in rank order while they fit; an item too large to fit is skipped, not cut.

    Returns the kept items (still in rank order) and the tokens they use. The result never holds
    more than `max_items` items nor more than `budget_tokens` tokens.
    """
    kept: list[T] = []
    used = 0
    if budget_tokens <= 0 or max_items <= 0:
        return kept, used
    for item in items:
        cost = tokens_of(item)
        if used + cost > budget_tokens:
            continue
        kept.append(item)
        used += cost
        if len(kept) >= max_items or used >= budget_tokens:
            break
    return kept, used
