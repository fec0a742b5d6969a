"""A lasting wish that names no behaviour: what makes a complaint too vague to become a rule.

"be more careful with the infra stuff", "do the testing thing we talked about", "Your commits could be
better. Please sort that out from now on." are meant to last, but nothing in them says what to do: a
manner with no action ("properly", "nicer", "smarter"), a pointer at context the message does not hold
("like last time", "the one from before", "you know which"), a placeholder noun ("stuff", "that sort of
thing"), or a trigger nobody can observe ("when it's ready"). A concrete anchor (a program, a flag, a
path, a number, quoted text) is what a vague one lacks. Pure and cheap: regular expressions only.
"""

from __future__ import annotations

import re

from heedful.rules import detect

_MANNER = re.compile(
    r"\b(?:properly|proper|better|nicer|cleaner|neater|tidier|smarter|more careful|careful|carefully|"
    r"thoughtful|sensible|appropriate|appropriately|correctly|the right way|the proper way|the correct way|"
    r"weird|sloppy|messy|a mess|overdo|overthink|less \w+|more \w+ly|good practice|best practices?|"
    r"the process|the rules|our way|how we work|how we do|respect it|sort (?:that|it) out)\b"
)
_POINTER = re.compile(
    r"\b(?:last time|last week|before|previous(?:ly)?|earlier|the other (?:way|approach|one|day)|"
    r"we (?:talked|discussed|agreed|said)|i (?:explained|mentioned|showed|said|asked)|like we always|"
    r"as we always|you know (?:which|what|how|the)|the usual|as usual|like i asked|what you did|"
    r"the thing (?:you|we|about)|the one from|that (?:sort|kind|type) of thing|matters previously)\b"
)
_PLACEHOLDER = re.compile(r"\b(?:stuff|things?|matters|it|that|this|them|those)\b")
_UNOBSERVABLE_TRIGGER = re.compile(
    r"\b(?:when|once|after) (?:it'?s|it is|we'?re|we are|the \w+ is|everything is|things are|you'?re) "
    r"(?:ready|done|finished|complete|stable|over|out|live|shipped|merged|released|mature|settled)\b"
)
_CONCRETE = re.compile(
    r"`[^`]+`|\"[^\"]+\"|\b[\w-]+\.[a-z]{1,5}\b|\b[\w.-]+/[\w./-]+|(?:^|\s)--?[a-z][\w-]*|\d|"
    r"\b(?:git|npm|pip|uv|yarn|pnpm|docker|sudo|grep|rg|make|pytest|ruff|eslint|prettier|curl|tabs|spaces|"
    r"emojis?|main|master)\b"
)
_DURABLE = re.compile(
    r"\b(?:from now on|going forward|in future|in the future|next time|always|never|anymore|any more|"
    r"keep doing|from here on)\b"
)
_WORD = re.compile(r"[a-z][a-z'-]+")

NAMES: tuple[str, ...] = (
    "vague_manner",
    "vague_pointer",
    "vague_placeholders",
    "vague_unobservable_trigger",
    "vague_concrete",
    "vague_durable_without_anchor",
    "vague_manner_without_anchor",
    "vague_pointer_without_anchor",
)


def values(text: str) -> list[float]:
    """The features named by `NAMES`, each in [0, 1]."""
    lower = detect.normalise(text).lower()
    manner = bool(_MANNER.search(lower))
    pointer = bool(_POINTER.search(lower))
    concrete = bool(_CONCRETE.search(lower))
    words = max(len(_WORD.findall(lower)), 1)
    placeholders = min(len(_PLACEHOLDER.findall(lower)) / words * 4.0, 1.0)
    return [
        float(manner),
        float(pointer),
        placeholders,
        float(bool(_UNOBSERVABLE_TRIGGER.search(lower))),
        float(concrete),
        float(bool(_DURABLE.search(lower)) and not concrete),
        float(manner and not concrete),
        float(pointer and not concrete),
    ]
