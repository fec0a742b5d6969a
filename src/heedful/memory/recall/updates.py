"""For a question about the present, the newest statement on the question's subject comes first. Pure.

Raw messages carry no supersession links, yet people restate a number, a date or a plan as it
changes ("the API now averages 250 ms", a week after "it responds in 400 ms"). Both statements
share the question's words, and the older one often ranks higher (it was the longer discussion).
When a question asks about the present ("what is", "how many ... have I", "when is ... scheduled")
and not about an earlier state, two items among the first `window` that each hold a large share of
the question's content words (weighted by idf, `coverage`) are taken for two statements on one
subject, and the newer one is placed just above the older. Nothing leaves the window, so recall at
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
SUBJECT_SHARE = 0.5
# The newer item may hold somewhat less of the question than the older one and still be its restatement.
COVERAGE_RATIO = 0.75


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
    """`fused` with the items on the question's subject inside the first `window` put newest first, in
    the places they held (`coverage[i]`: the share of the question item i holds; `started[i]`: when it
    was said). An item is on the subject when it holds at least `share` of the question and at
    least `ratio` of what the best-covering item in the window holds; the others keep their places."""
    head = min(window, len(fused))
    if head < 2:
        return fused
    cover, when = coverage[:head], started[:head]
    on_subject = np.flatnonzero((cover >= share) & (cover >= ratio * cover.max()))
    if len(on_subject) < 2:
        return fused
    newest = on_subject[np.argsort(-when[on_subject], kind="stable")]
    ordered = list(fused)
    for place, item in zip(on_subject, newest, strict=True):
        ordered[int(place)] = fused[int(item)]
    return ordered
