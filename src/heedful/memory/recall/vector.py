"""The vector route: an exact cosine scan of one user's embeddings (one matrix product).

A raw excerpt's vector is made from the turn with the one before it (see indexing.py), so an
answer is found through the question it follows.

The names of the people the memory is about (persons.py: named in many of the user's items, and
the speakers of most items naming them, not topics such as "Flask") are left out of the question
before it is embedded, as the keyword route leaves them out of its
query. Every stored turn carries its speaker's name, and a question's vector that holds a name
ranks short turns that are little more than that name ("Thanks, Gina!") above the turns that
answer it; without the name, the vector ranks by what is asked about. Measured with MiniLM on
LoCoMo @10: conversations 0-4 77.5 -> 78.5, held out 5-9 72.8 -> 76.0 (multi-hop 36.0 -> 40.4,
open-domain 36.5 -> 37.4, single-hop 85.6 -> 90.4, adversarial 86.6 -> 89.0, temporal 64.6 -> 64.3).
Putting "I" and "my" in the names' place (the turns speak in the first person) reached 78.8 on
0-4 but stayed at 76.0 held out, and adding half of the named question's vector 78.2 on 0-4: both
left out.
"""

from __future__ import annotations

import re

from heedful.memory.recall.query import keywords
from heedful.memory.recall.routes import EMPTY, Ranking, RouteContext


def run(ctx: RouteContext) -> Ranking:
    if ctx.embedder is None or not ctx.analysis.text.strip():
        return EMPTY
    query = ctx.embedder.embed([without_names(ctx.analysis.text, ctx.people)])[0]
    return ctx.ranking(ctx.search.vector_positions(ctx.index, query, ctx.depth))


def without_names(text: str, names: tuple[str, ...]) -> str:
    """`text` without `names` (and their possessive), unless nothing but names and stop words would be left.

    without_names("What do Melanie's kids like?", ("melanie",))  ->  "What do kids like?"
    """
    if not names:
        return text
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(name) for name in names) + r")(?:['’]s)?\b", re.IGNORECASE)
    stripped = " ".join(pattern.sub(" ", text).split())
    return stripped if keywords(stripped) else text
