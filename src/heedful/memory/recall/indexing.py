"""What the write path stores for recall: the entities, places and excerpt text of a message.

Pure functions; recall's query analysis uses the same ones so that both sides agree.
"""

from __future__ import annotations

import re

_CAPITALISED = re.compile(r"\b([A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")
_PLACE = re.compile(r"\b(?:in|at|to|from|near|visit(?:ed|ing)?)\s+((?:the\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")
# Capitalised only because they open a sentence (or are days and months): not names.
_COMMON_TEXT = """
    i i'm i've i'll i'd a an the and but or so if when what where who why how yes no hey hi hello
    thanks thank oh wow well okay ok my your our their his her its this that these those it we you they
    he she me us them is are was were be been do does did have has had can could will would should
    may might must just also really very too not please sure great good nice awesome cool right
    monday tuesday wednesday thursday friday saturday sunday january february march april may june july
    august september october november december today yesterday tomorrow
    yeah yep yup nope hmm haha lol omg congrats congratulations glad sorry sounds hope love loved
    definitely absolutely totally exactly wait look see hey there here after before then now once
    sometimes maybe perhaps anyway plus also because since although though while as at in on of for
    with by from to about into over all any some every each both many much more most other such
    what's that's it's there's here's let's don't didn't can't won't isn't wasn't
    """
_NOT_NAMES = frozenset(_COMMON_TEXT.split())


def normalize_entity(name: str) -> str:
    return " ".join(name.lower().replace("’", "'").split()).removesuffix("'s")


def extract_entities(text: str, speaker: str | None = None) -> list[str]:
    """Names mentioned in `text` (capitalised runs that are not common words), plus the speaker."""
    found: list[str] = []
    if speaker:
        found.append(normalize_entity(speaker))
    for match in _CAPITALISED.finditer(text):
        words = [w for w in match.group(1).split() if w.lower().strip("'’") not in _NOT_NAMES]
        if not words:
            continue
        name = normalize_entity(" ".join(words))
        if len(name) > 1 and name not in found:
            found.append(name)
    return found


def extract_places(text: str) -> list[str]:
    places = []
    for match in _PLACE.finditer(text):
        place = normalize_entity(match.group(1).removeprefix("the "))
        if place and place not in _NOT_NAMES and place not in places:
            places.append(place)
    return places


def excerpt_statement(text: str, speaker: str | None) -> str:
    """The stored text of a raw excerpt: the speaker's name keeps 'who said it' searchable."""
    return f"{speaker}: {text}" if speaker else text


# How much of the previous turn an excerpt's vector sees: its end, where a question usually is.
# Kept short so that a long previous turn cannot push the turn itself past the model's input limit.
PREVIOUS_CONTEXT_CHARS = 300


def excerpt_embedding_text(text: str, speaker: str | None, previous: str | None) -> str:
    """What the excerpt's vector is made from: the turn, after the end of the one before it."""
    current = excerpt_statement(text, speaker)
    if not previous:
        return current
    context = previous if len(previous) <= PREVIOUS_CONTEXT_CHARS else "…" + previous[-PREVIOUS_CONTEXT_CHARS:]
    return f"{context}\n{current}"
