"""The keyword route: BM25 over the user's own statements and term statistics (store/sqlite/terms.py).

Two refinements over a plain BM25 query:

- terms that occur in a large share of this user's items (their own name, the name of the person
  they talk to most) are left out of the query: they say little about which item is meant, and
  only above a share of the user's own rows is a name that common;
- a raw excerpt also takes a part of the score of the two turns before it in the same session
  (half of the one just before, a quarter of the one before that), because a question is often
  answered by a turn that follows the one sharing its words ("What inspired you?" -> "I painted
  this after I visited ...").
"""

from __future__ import annotations

from heedful.memory.recall.query import fts_expression
from heedful.memory.recall.routes import EMPTY, Ranking, RouteContext

COMMON_SHARE = 0.05
# Below this many items, shares say little and every term is kept.
MIN_ROWS_TO_PRUNE = 100
PREVIOUS_WEIGHT = 0.5
FOLLOWING_TURNS = 2
NAMES_ONLY = True
SHORT_TURN_CHARS = 600


def run(ctx: RouteContext) -> Ranking:
    terms = ctx.analysis.terms
    if not terms:
        return EMPTY
    kept = terms
    names = set(ctx.analysis.entities) if NAMES_ONLY else set(terms)
    if len(ctx.index) >= MIN_ROWS_TO_PRUNE and names & set(terms):
        shares = {t: ctx.search.term_share(ctx.user_id, fts_expression([t])) if t in names else 0.0 for t in terms}
        kept = [t for t in terms if shares[t] <= COMMON_SHARE]
        if not kept or all(t in names and shares[t] == 0 for t in kept):
            kept = terms
    expression = fts_expression(kept)
    if not expression:
        return EMPTY
    hits = ctx.search.keyword_positions(ctx.index, expression, ctx.depth)
    if PREVIOUS_WEIGHT <= 0 or not hits:
        return ctx.ranking(hits)
    following, lengths = ctx.index.following, ctx.index.lengths
    combined = dict(hits)
    for here, score in hits:
        after = int(following[here])
        weight = PREVIOUS_WEIGHT
        for _ in range(FOLLOWING_TURNS):
            if after < 0 or (SHORT_TURN_CHARS and lengths[after] > SHORT_TURN_CHARS):
                break
            combined[after] = combined.get(after, 0.0) + weight * score
            after = int(following[after])
            weight *= PREVIOUS_WEIGHT
    ids = ctx.index.ids
    ranked = sorted(combined.items(), key=lambda pair: (-pair[1], ids[pair[0]]))
    return ctx.ranking(ranked[: ctx.depth])
