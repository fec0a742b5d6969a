"""Query analysis: keywords and a safe FTS5 expression, entities, places, enumeration, time. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from heedful.memory.recall.indexing import extract_entities, extract_places, normalize_entity
from heedful.memory.recall.timewindow import TimeWindow, parse_window

_STOP_TEXT = """
    a about above after again against all also am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't
    down during each else ever few for from further get gets got had hadn't has hasn't have haven't having
    he he'd he'll he's her here here's hers herself him himself his how how's however i i'd i'll i'm i've
    if in into is isn't it it's its itself just let's like likely me might more most much must mustn't my
    myself no nor not now of off on once only or other ought our ours ourselves out over own per really
    same shan't she she'd she'll she's should shouldn't so some such than that that's the their theirs
    them themselves then there there's these they they'd they'll they're they've this those through to
    too under until up upon us very was wasn't we we'd we'll we're we've were weren't what what's when
    when's where where's whether which while who who's whom whose why why's will with won't would
    wouldn't yet you you'd you'll you're you've your yours yourself yourselves
    tell know think say said ever anything something thing things kind kinds type types one ones
    many recall remember mention mentioned please list every may
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_ENUMERATION = re.compile(
    r"\b(?:list(?:\s+(?:all|every|each))?|all\s+(?:the|of|my|his|her|their|our)\b|what\s+are\s+all|every"
    r"|each\s+(?:of|time)|how\s+many|how\s+often|enumerate|name\s+all|which\s+(?:\w+\s+){0,2}(?:have|has|did)"
    r"|what\s+(?:kinds?|types?|sorts?)\s+of|in\s+total|altogether)\b",
    re.IGNORECASE,
)
MAX_TERMS = 32


@dataclass(frozen=True, slots=True)
class QueryAnalysis:
    text: str
    terms: list[str]
    match_expression: str
    entities: list[str]
    places: list[str]
    enumeration: bool
    window: TimeWindow | None = None
    extras: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "terms": self.terms,
            "entities": self.entities,
            "places": self.places,
            "enumeration": self.enumeration,
            "window": None
            if self.window is None
            else {
                "start": self.window.start.isoformat(),
                "end": self.window.end.isoformat(),
                "phrase": self.window.phrase,
            },
        }


def words(text: str) -> list[str]:
    """Lower-case words with apostrophes folded ("Caroline’s" → "caroline's")."""
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def keywords(text: str) -> list[str]:
    """Content words of `text` in order, without stop words, duplicates or possessive endings."""
    found: list[str] = []
    for word in words(text):
        word = word.removesuffix("'s")
        if word in STOP_WORDS or (len(word) < 2 and not word.isdigit()):
            continue
        if word not in found:
            found.append(word)
    return found


def fts_expression(terms: Iterable[str]) -> str:
    """An FTS5 MATCH expression that ORs quoted terms; safe for any input (quotes are doubled)."""
    quoted = []
    for term in terms:
        # Keep only what the unicode61 tokenizer would index, so a term never becomes an operator.
        for token in re.findall(r"[^\W_]+", term, re.UNICODE):
            phrase = '"' + token.replace('"', '""') + '"'
            if phrase not in quoted:
                quoted.append(phrase)
            if len(quoted) >= MAX_TERMS:
                break
    return " OR ".join(quoted)


def is_enumeration(text: str) -> bool:
    return _ENUMERATION.search(text) is not None


def query_entities(text: str, known: Iterable[str] = ()) -> list[str]:
    """Names the query mentions: capitalised names, plus known multi-word names it spells out.

    A single lower-case word is not taken for a name even when a stored item has it capitalised:
    headings and sentence openings make many common words look like names.
    """
    found = [e for e in extract_entities(text) if e.lower() not in STOP_WORDS]
    # A mapping or set is looked up as it is: copying a large user's entity set per query costs.
    known_set = known if isinstance(known, set | frozenset | dict) else set(known)
    if known_set:
        tokens = [w.removesuffix("'s") for w in words(text)]
        for size in (3, 2):
            for start in range(len(tokens) - size + 1):
                candidate = normalize_entity(" ".join(tokens[start : start + size]))
                if candidate in known_set and candidate not in found:
                    found.append(candidate)
    return found


def analyze(text: str, reference: datetime, known_entities: Iterable[str] = ()) -> QueryAnalysis:
    window = parse_window(text, reference)
    terms = keywords(text)
    if window is not None:
        # The words naming the time ("1 May, 2022", "last week") are the time route's to use.
        time_words = set(words(window.phrase))
        terms = [t for t in terms if t not in time_words] or terms
    return QueryAnalysis(
        text=text,
        terms=terms,
        match_expression=fts_expression(terms),
        entities=query_entities(text, known_entities),
        places=extract_places(text),
        enumeration=is_enumeration(text),
        window=window,
    )
