"""For a question about the present, the newest statements on the question's subject come first. Pure.

Raw messages carry no supersession links, yet people restate a number, a date or a plan as it
changes ("the API now averages 250 ms", a week after "it responds in 400 ms"). Both statements
share the question's words, and the older one often ranks higher (it was the longer discussion).
When a question asks about the present ("what is", "how many ... have I", "when is ... scheduled",
"what time should I ...") and not about an earlier state, two items among the first `window` that
each hold a share of the question's content words (weighted by idf, `coverage`) are taken for two
statements on one subject, and the best-ranked newer one is placed just above the older (with
`every`, all of them, the newest first).

An update is usually said in passing, inside a message about something else ("... considering the
commits merged into main, which have now reached 165, ..."), so it often holds less of the question
and ranks below the window. A newer message of the user's own (`changed`, chosen by the caller)
that says a value changed and gives it ("extended to April 5", "has grown to 165", "the new daily
quota of 1,200") and holds a share of the question is therefore looked for deeper
(`change_depth`), and every such statement goes above the older one, the newest first. For a
question that states the present ("what is", "how many ... have I") and, since a later round, for a
modal one ("what deadline should I aim for?", `RecallConfig.modal_changes`): on BEAM (MiniLM, all
20 conversations) 35 -> 37 of 39 updated messages above the originals (94.9%; 1-10: 19 -> 20 of 20,
11-20: 16 -> 17 of 19), BEAM @5/@10/@20 33.2/47.8/57.6 -> 33.3/47.9/57.8, LoCoMo @5/@10/@25
unchanged (66.0/77.2/85.2). Only the miss of conversation 10 was read to choose it.

Settings chosen on BEAM conversations 1-10 (knowledge-update questions, hashing embedder), held
out: 11-20. Modal questions, and a lower share and ratio, took the updated message above the
original from 53.8% to 56.4% (BEAM @5 29.7 -> 29.3, @10 43.2 -> 42.9). Moving every newer
restatement, the newest first (`every`; `RecallConfig.every_restatement`), reaches 71.8% (tuning
16 of 20, held out 12 of 19) but costs BEAM @5 six points (29.7 -> 23.6): the newer statements
above the original are more often other messages on the subject than the update. Pulling
restatements from below the window reached 74% and cost BEAM @10 ten points: left out.

Statements of a changed value from the first 30 (MiniLM, all 20 conversations): 51.3% -> 89.7% of
the updated messages above the originals (conversations 1-10: 65 -> 95; 11-20: 37 -> 84), BEAM @5
33.3 -> 33.2, @10 47.8 -> 47.8, @20 57.6 -> 57.6. With the hashing embedder 56% -> 82%. Moving only
the best-ranked statement instead of every one: 72% (hashing). Without the value required: the
same share, LoCoMo @5 1.2 points lower (conversations 0-4); with it, LoCoMo is unchanged. Some of
the later choices (word forms such as "rescheduled", the 0.2 share) were made after reading
failures from conversations 11-20 too, so those are not a clean held-out half.

    asks_about_now(words("How many commits have been merged into main?"))  ->  True
    asks_about_now(words("When did Anna move to Lisbon?"))                  ->  False
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from heedful.memory.recall.fusion import Fused

_PRESENT = frozenset("is are am do does have has what's where's when's who's how's isn't aren't".split())
# A modal asks what to do from now on ("what time should I join the call?"): the present state holds.
_MODAL = frozenset("should shall will can must won't can't shouldn't".split())
_PAST = frozenset("was were did had wasn't weren't didn't hadn't".split())
_NOW = frozenset("current currently now latest still nowadays anymore".split())
# Words that state a change of a value or a plan ("has grown to 165", "the new deadline", "extended
# to", "down to 12 hours"): most updates say one, few original statements do (29 and 11 of BEAM's 39).
# In chat between people they are common ("something new", "now I'm ready"): with the value required
# as well, LoCoMo stays where it was (conversations 0-4, @5: 65.8 before, 64.6 without it, 65.6 with it).
_CHANGE = re.compile(
    r"\b(?:now|new|newly|recently|latest|instead|no\s+longer|(?:up|down)\s+to|grown|grew|reached|dropped"
    r"|(?:updat|chang|increas|decreas|extend|switch|revis|rais|adjust|shift|reschedul|postpon|expand|reduc"
    r"|shorten|lengthen|improv|mov|push|drop)(?:e|es|ed|ing|s)?)\b",
    re.IGNORECASE,
)
# Tuned on BEAM conversations 1-10 (knowledge-update questions), held out: 11-20.
WINDOW = 10
# How deep a newer statement of a change on the question's subject is looked for (it goes above the
# older statement it updates, inside the window).
CHANGE_DEPTH = 30
# A statement of a change is on the subject with less of the question: it names the value, not the topic.
CHANGE_SHARE = 0.2
SUBJECT_SHARE = 0.3
# The newer item may hold less of the question than the older one and still be its restatement: an
# update is often said in passing, inside a message about something else.
COVERAGE_RATIO = 0.5


def asks_about_now(question_words: Sequence[str], *, modal: bool = True) -> bool:
    """True when the question's first auxiliary verb is in the present tense (or, with `modal`, is a
    modal), or it says "now"."""
    if any(word in _NOW for word in question_words):
        return True
    for word in question_words:
        if word in _PRESENT or (modal and word in _MODAL):
            return True
        if word in _PAST:
            return False
    return False


# The changed value itself: a number, a date, a time, an amount.
_VALUE = re.compile(r"\d")


def states_a_change(text: str) -> bool:
    """True when `text` says that a value changed and gives one ("extended to April 5", "has grown to 165")."""
    return _VALUE.search(text) is not None and _CHANGE.search(text) is not None


def newest_on_subject(
    fused: list[Fused],
    coverage: np.ndarray,
    started: np.ndarray,
    *,
    window: int = WINDOW,
    depth: int | None = None,
    share: float = SUBJECT_SHARE,
    ratio: float = COVERAGE_RATIO,
    every: bool = False,
    changed: np.ndarray | None = None,
    change_depth: int = CHANGE_DEPTH,
    change_share: float = CHANGE_SHARE,
) -> list[Fused]:
    """`fused` with every item in the first `window` preceded by the best-ranked newer item that
    restates it within the first `depth` (with `every`, all of them, the newest first).
    `coverage[i]`: the share of the question item i holds; `started[i]`: when it was said. b
    restates a when both hold at least `share` of the question and b at least `ratio` of what a holds,
    or when b, within the first `change_depth`, states a change (`changed[b]`) and holds at least
    `change_share` of the question."""
    near = window if depth is None else depth
    deep = changed is not None and bool(changed[:change_depth].any())
    head = min(max(near, change_depth if deep else 0), len(fused), len(coverage))
    if head < 2:
        return fused
    cover, when = coverage[:head], started[:head]
    on_subject = cover >= share
    alike = (cover[None, :] >= ratio * cover[:, None]) & (np.arange(head) < near)[None, :]
    if deep and changed is not None:
        alike |= (np.asarray(changed[:head], dtype=bool) & (np.arange(head) < change_depth))[None, :]
        on_subject = on_subject | (np.asarray(changed[:head], dtype=bool) & (cover >= change_share))
    # restates[a, b]: b ranks below a, both on subject, b holds nearly as much of the question (or states
    # a change), b is newer
    restates = np.triu(on_subject[:, None] & on_subject[None, :] & alike & (when[None, :] > when[:, None]), 1)
    restates[min(window, head) :] = False
    if not restates.any():
        return fused
    moved: set[int] = set()
    ordered: list[Fused] = []
    for rank in range(head):
        if rank in moved:
            continue
        newer = [int(later) for later in np.flatnonzero(restates[rank]) if int(later) not in moved]
        if not every:  # every statement of a change (rather than a reply or a mention), or the best-ranked one
            newer = [later for later in newer if deep and changed is not None and changed[later]] or newer[:1]
        for later in sorted(newer, key=lambda other: -int(when[other])):  # the newest first
            if later not in moved:
                ordered.append(fused[later])
                moved.add(later)
        ordered.append(fused[rank])
        moved.add(rank)
    return ordered + fused[head:]
