"""The lexicon's signals about one message, as numbers a learned admission model can weigh.

The hand-written lexicon stays the source of human-readable reasons; here its matches become
features beside the sentence embedding, so that the model decides how much each one counts
instead of the order of a chain of `if`s. Pure and cheap: regular expressions only.
"""

from __future__ import annotations

import itertools
import math
import re
import zlib
from collections.abc import Callable

from heedful.rules import detect
from heedful.rules import lexicon as lx

_PROGRAMS = re.compile(
    r"\b(?:pip3?|uv|poetry|pipenv|conda|npm|npx|pnpm|yarn|bun|deno|node|git|gh|docker|podman|kubectl|helm|"
    r"terraform|make|cargo|go|pytest|tox|ruff|black|mypy|eslint|prettier|tsc|jest|vitest|grep|rg|ripgrep|find|fd|"
    r"sed|awk|curl|wget|sudo|doas|rm|chmod|brew|apt(?:-get)?|dnf|yum|aws|gcloud|az|ssh|rsync|python3?|bash|zsh)\b",
    re.IGNORECASE,
)
_PATHISH = re.compile(r"(?:`[^`]+`|\b[\w-]+/[\w./*-]*|\*\.\w+|\.\w{2,5}\b|\b[\w-]+\.(?:py|js|ts|md|json|ya?ml|toml|"
                      r"lock|sh|env|txt|sql|cfg|ini)\b)")
_COMPLAINT = re.compile(r"\b(?:you keep|again|every ?time|how many times|i (?:already )?told you|stop \w+ing|"
                        r"you always|you never|why do you|why did you|ugh|seriously)\b", re.IGNORECASE)
_MODAL = re.compile(r"\b(?:always|never|must|should|shall|need to|have to|make sure|ensure)\b", re.IGNORECASE)
_NOW = re.compile(r"\b(?:now|here|this|these|that|it|the)\b", re.IGNORECASE)
_SPECIFIC_TASK = re.compile(r"\b(?:fix|add|implement|create|write|update|refactor|rename|move|debug|investigate|"
                            r"look at|check|review|run|build|deploy|merge|push|commit)\b (?:the|this|that|my|a|an)\b",
                            re.IGNORECASE)
_GENERAL = re.compile(r"\b(?:any|all|every|each|anything|everything|everywhere|whenever|ever|in general|default)\b",
                      re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(?:i|we|our|us|my)\b", re.IGNORECASE)
_SECOND_PERSON = re.compile(r"\b(?:you|your|u|ur)\b", re.IGNORECASE)
_FACT_ABOUT_REPO = re.compile(r"\b(?:this|the|our) (?:repo|repository|project|codebase|service|app|package|team)\b"
                              r"(?:'s)? (?:is|are|uses|runs|targets|needs|has|follows|prefers|ships|lives)\b",
                              re.IGNORECASE)
_DECISIONS = ("persist", "task_local", "underspecified", "none")


def _flag(pattern: re.Pattern[str]) -> Callable[[str], float]:
    return lambda plain: 1.0 if pattern.search(plain) else 0.0


SIGNALS: tuple[tuple[str, Callable[[str], float]], ...] = (
    ("lasting", _flag(lx.LASTING)),
    ("task_local", _flag(lx.TASK_LOCAL)),
    ("not_task_local", _flag(lx.NOT_TASK_LOCAL)),
    ("vague", _flag(lx.VAGUE)),
    ("retract", _flag(lx.RETRACT)),
    ("project", _flag(lx.PROJECT)),
    ("directive", _flag(lx.DIRECTIVE)),
    ("generic_correction", _flag(lx.GENERIC_CORRECTION)),
    ("artifact_specific", _flag(lx.ARTIFACT_SPECIFIC)),
    ("negation", _flag(lx.NEGATION)),
    ("ack", lambda plain: 1.0 if lx.ACK.match(plain) else 0.0),
    ("question", lambda plain: 1.0 if detect.is_question(plain) else 0.0),
    ("question_mark", lambda plain: 1.0 if "?" in plain else 0.0),
    ("program", _flag(_PROGRAMS)),
    ("pathish", _flag(_PATHISH)),
    ("complaint", _flag(_COMPLAINT)),
    ("modal", _flag(_MODAL)),
    ("specific_task", _flag(_SPECIFIC_TASK)),
    ("general", _flag(_GENERAL)),
    ("first_person", _flag(_FIRST_PERSON)),
    ("second_person", _flag(_SECOND_PERSON)),
    ("repo_fact", _flag(_FACT_ABOUT_REPO)),
    ("deictic", lambda plain: min(len(_NOW.findall(plain)), 4) / 4.0),
    ("exclamation", lambda plain: 1.0 if "!" in plain else 0.0),
    ("words", lambda plain: min(math.log1p(len(plain.split())) / 5.0, 1.5)),
    ("sentences", lambda plain: min(len(re.findall(r"[.!?;](?:\s|$)", plain)), 6) / 6.0),
    ("lowercase_start", lambda plain: 1.0 if plain[:1].islower() else 0.0),
)
NAMES: tuple[str, ...] = (*(name for name, _ in SIGNALS), "paste", "has_signal",
                          *(f"lexicon_{d}" for d in _DECISIONS))


def signals(text: str) -> list[float]:
    """The feature values named by `NAMES`, in that order."""
    plain = detect.normalise(text)
    values = [fn(plain) for _, fn in SIGNALS]
    values.append(1.0 if detect.looks_like_paste(text) else 0.0)
    values.append(1.0 if detect.has_signal(text) else 0.0)
    lexicon_decision = detect.admit(text).decision
    values.extend(1.0 if lexicon_decision == d else 0.0 for d in _DECISIONS)
    return values


def fired(text: str) -> list[str]:
    """The names of the binary signals that fired (for reasons)."""
    return [name for name, value in zip(NAMES, signals(text), strict=True) if value == 1.0]


NGRAM_BUCKETS = 2048
_TOKEN = re.compile(r"[a-z0-9']+|[?!]")


def ngram_buckets(text: str, buckets: int = NGRAM_BUCKETS) -> list[int]:
    """Hashed word unigrams, bigrams and the first word: a learned vocabulary of markers
    ("just this once", "from now on", "no ... ever") that the weights, not a list, decide on."""
    words = _TOKEN.findall(detect.normalise(text).lower())
    if not words:
        return []
    grams = {*words, *(f"{a} {b}" for a, b in itertools.pairwise(words)), f"^{words[0]}"}
    return sorted({zlib.crc32(g.encode("utf-8", "replace")) % buckets for g in grams})
