"""For a question about the present, the newest statement on the question's subject comes first. Pure.

Raw messages carry no supersession links, yet people restate a number, a date or a plan as it
changes ("the API now averages 250 ms", a week after "it responds in 400 ms"). Both statements
share the question's words, and the older one often ranks higher (it was the longer discussion).
When a question asks about the present ("what is", "how many ... have I", "when is ... scheduled")
and not about an earlier state, two items among the first `window` that each hold a large share of
the question's content words (weighted by idf, `coverage`) are taken for two statements on one
subject, and the newer one is placed just above the older (the best-ranked such newer item, when
there are several). Nothing leaves the window, so recall at
any depth of at least `window` is unchanged; only the order inside it changes.

    asks_about_now(words("How many commits have been merged into main?"))  ->  True
    asks_about_now(words("When did Anna move to Lisbon?"))                  ->  False
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from heedful.memory.recall.fusion import Fused

_PRESENT = frozenset("is are am do does have has what's where's when's who's how's isn't aren't".split())
_PAST = frozenset("was were did had wasn't weren't didn't hadn't".split())
_NOW = frozenset("current currently now latest still nowadays anymore".split())
# Tuned on BEAM conversations 1-10 (knowledge-update questions), held out: 11-20.
WINDOW = 10
SUBJECT_SHARE = 0.4
# The newer item may hold somewhat less of the question than the older one and still be its restatement.
COVERAGE_RATIO = 0.6


def asks_about_now(question_words: Sequence[str]) -> bool:
    """True when the question's first auxiliary verb is in the present tense, or it says "now"."""
    if any(word in _NOW for word in question_words):
        return True
    for word in question_words:
        if word in _PRESENT:
            return True
        if word in _PAST:
            return False
    return False


def newest_on_subject(
    fused: list[Fused],
    coverage: np.ndarray,
    started: np.ndarray,
    *,
    window: int = WINDOW,
    share: float = SUBJECT_SHARE,
    ratio: float = COVERAGE_RATIO,
) -> list[Fused]:
    """`fused` with, inside the first `window`, an older item preceded by the best-ranked newer item
    that restates it (`coverage[i]`: the share of the question item i holds; `started[i]`: when it
    was said). b restates a when both hold at least `share` of the question and b at least `ratio`
    of what a holds."""
    head = min(window, len(fused))
    if head < 2:
        return fused
    cover, when = coverage[:head], started[:head]
    on_subject = cover >= share
    # restates[a, b]: b ranks below a, both on subject, b holds nearly as much of the question, b is newer
    restates = np.triu(
        on_subject[:, None]
        & on_subject[None, :]
        & (cover[None, :] >= ratio * cover[:, None])
        & (when[None, :] > when[:, None]),
        1,
    )
    if not restates.any():
        return fused
    moved: set[int] = set()
    ordered: list[Fused] = []
    for rank in range(head):
        if rank in moved:
            continue
        later = next((int(other) for other in np.flatnonzero(restates[rank]) if int(other) not in moved), None)
        if later is not None:
            ordered.append(fused[later])
            moved.add(later)
        ordered.append(fused[rank])
    return ordered + fused[head:]
