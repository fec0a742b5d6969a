"""The time route: items whose event or recorded time falls in the window the question names.

A question naming no time skips this route. Items in the window share the first rank. People
often tell of an event some days after it ("last week we went camping"), so items recorded
shortly after a short window follow them at a second, shared rank.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from heedful.memory.recall.routes import EMPTY, Ranking, RouteContext
from heedful.store.sqlite.recall_index import micros_of
from heedful.timeutil import to_text

WINDOW_LIMIT = 2000
# How long after a window of up to SHORT_WINDOW an item may still be telling of it.
SHORT_WINDOW = timedelta(days=32)
TOLD_AFTER = timedelta(days=10)
AFTER_SCORE = 0.5


def run(ctx: RouteContext) -> Ranking:
    window = ctx.analysis.window
    if window is None:
        return EMPTY
    start, end = micros_of(to_text(window.start)), micros_of(to_text(window.end))
    inside = np.asarray(ctx.search.window_positions(ctx.index, start, end, WINDOW_LIMIT), dtype=np.int64)
    if window.end - window.start > SHORT_WINDOW:
        return Ranking(inside, np.ones(len(inside)))
    after = micros_of(to_text(window.end + TOLD_AFTER))
    later = np.asarray(ctx.search.window_positions(ctx.index, end, after, WINDOW_LIMIT), dtype=np.int64)
    later = later[~np.isin(later, inside)]
    return Ranking(
        np.concatenate([inside, later]), np.concatenate([np.ones(len(inside)), np.full(len(later), AFTER_SCORE)])
    )
