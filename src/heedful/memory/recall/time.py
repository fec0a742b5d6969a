"""The time route: items whose event or recorded time falls in the window the question names.

A question naming no time skips this route. All items in the window share one rank.
"""

from __future__ import annotations

from heedful.memory.recall.routes import Ranking, RouteContext
from heedful.timeutil import to_text

WINDOW_LIMIT = 2000


def run(ctx: RouteContext) -> Ranking:
    window = ctx.analysis.window
    if window is None:
        return []
    ids = ctx.search.in_window(ctx.user_id, to_text(window.start), to_text(window.end), WINDOW_LIMIT)
    return [(fact_id, 1.0) for fact_id in ids]
