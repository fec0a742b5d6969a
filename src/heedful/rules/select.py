"""Selection: which active rules apply to a task. Pure scoring over precomputed vectors.

A rule (already in scope) is set aside when a stated exception is met by the request, when its
condition has nothing to do with the request, or when it names a language or platform that
neither the request nor the project uses. Otherwise it is selected when it governs every reply,
when it governs an activity the task involves (facets), or when its embedding cosine or keyword
overlap with the task and the latest message clears a threshold. Rules are examined in batches of 32, as a
model selector would see them. Checked rules are listed separately: their checks stay armed whatever the relevance,
because a check that does not apply answers not_applicable.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from heedful.rules.facets import always_applies, facets, languages
from heedful.rules.models import Rule
from heedful.rules.resolve import content_words

BATCH_SIZE = 32
COSINE_THRESHOLD = 0.42
KEYWORD_THRESHOLD = 0.34
_SUFFIX = re.compile(r"(?:ing|ed|es|s)$")


def stem(word: str) -> str:
    return _SUFFIX.sub("", word) if len(word) > 4 else word


@lru_cache(maxsize=8192)
def stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in content_words(text))


@dataclass
class Scored:
    rule: Rule
    score: float
    cosine: float
    keyword: float
    selected: bool
    why: str


@dataclass
class Selection:
    rules: list[Scored] = field(default_factory=list)
    rejected: list[Scored] = field(default_factory=list)
    batches: int = 0


def keyword_score(query: frozenset[str], rule_words: frozenset[str], idf: dict[str, float]) -> float:
    """Share of the rule's (idf-weighted) words that the request mentions."""
    if not rule_words:
        return 0.0
    total = sum(idf.get(w, 1.0) for w in rule_words)
    hit = sum(idf.get(w, 1.0) for w in rule_words & query)
    return hit / total if total else 0.0


def inverse_document_frequency(documents: Sequence[frozenset[str]]) -> dict[str, float]:
    count: dict[str, int] = {}
    for words in documents:
        for word in words:
            count[word] = count.get(word, 0) + 1
    n = max(len(documents), 1)
    return {w: math.log(1 + n / c) for w, c in count.items()}


def rule_text_for_matching(rule: Rule) -> str:
    return " ".join([rule.text, rule.condition or ""])


def exception_met(rule: Rule, query_words: frozenset[str]) -> str | None:
    for exception in rule.exceptions:
        words = stems(re.sub(r"^(?:unless|except(?: for| when| in| if)?|but not (?:for|in|when))\s+", "", exception))
        if words and words <= query_words:
            return exception
    return None


_LEADING_CONDITION = re.compile(r"^((?:when(?:ever)?|if|for|in) [^,]{3,80}),", re.IGNORECASE)


def condition_of(rule: Rule) -> str | None:
    if rule.condition:
        return rule.condition
    match = _LEADING_CONDITION.match(rule.text)
    return match.group(1) if match else None


def select(
    rules: Sequence[Rule],
    vectors: np.ndarray | None,
    query: str,
    query_vector: np.ndarray | None,
    cosine_threshold: float = COSINE_THRESHOLD,
    keyword_threshold: float = KEYWORD_THRESHOLD,
    project_languages: set[str] | None = None,
) -> Selection:
    """Score every rule against the request; `vectors` rows align with `rules`."""
    out = Selection()
    query_words = stems(query)
    query_facets = facets(query, task=True)
    available = languages(query) or project_languages
    documents = [stems(rule_text_for_matching(rule)) for rule in rules]
    idf = inverse_document_frequency(documents)
    for start in range(0, len(rules), BATCH_SIZE):
        out.batches += 1
        for offset, rule in enumerate(rules[start : start + BATCH_SIZE]):
            index = start + offset
            cosine = 0.0
            if vectors is not None and query_vector is not None and index < len(vectors):
                cosine = float(np.dot(vectors[index], query_vector))
            keyword = keyword_score(query_words, documents[index], idf)
            score = max(cosine / cosine_threshold, keyword / keyword_threshold)
            verdict = _judge(rule, query_words, query_facets, available, cosine, keyword,
                             cosine_threshold, keyword_threshold)
            selected = verdict.startswith("+")
            item = Scored(rule, score + (1.0 if selected else 0.0), cosine, keyword, selected, verdict[1:])
            (out.rules if selected else out.rejected).append(item)
    out.rules.sort(key=lambda s: s.score, reverse=True)
    return out


def _judge(
    rule: Rule, query_words: frozenset[str], query_facets: frozenset[str], available: frozenset[str] | set[str] | None,
    cosine: float, keyword: float, cosine_threshold: float, keyword_threshold: float,
) -> str:
    """'+why' when the rule applies, '-why' when it does not."""
    exception = exception_met(rule, query_words)
    if exception:
        return f"-exception applies: {exception}"
    text = rule_text_for_matching(rule)
    named = languages(text)
    if named and available is not None and not named & available:
        return f"-names {', '.join(sorted(named))}, which this task and project do not use"
    condition = condition_of(rule)
    if condition and not (stems(condition) & query_words or facets(condition) & query_facets):
        return f"-its condition ({condition}) does not hold for this task"
    if always_applies(rule.text):
        return "+governs every reply"
    shared = facets(text) & query_facets
    if shared:
        return f"+governs {', '.join(sorted(shared))}"
    if cosine >= cosine_threshold:
        return f"+close in meaning (cosine {cosine:.2f})"
    if keyword >= keyword_threshold:
        return f"+shares key words (overlap {keyword:.2f})"
    return f"-not related (cosine {cosine:.2f}, keywords {keyword:.2f})"
