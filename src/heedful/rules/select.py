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

from heedful.llm import Model, OfflineModel, run_step
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


_EXCEPTION_LEAD = re.compile(r"^(?:unless|except(?: for| when| in| if)?|but not (?:for|in|when))\s+", re.IGNORECASE)


_LEADING_CONDITION = re.compile(r"^((?:when(?:ever)?|if|for|in) [^,]{3,80}),", re.IGNORECASE)


def select(
    rules: Sequence[Rule],
    vectors: np.ndarray | None,
    query: str,
    query_vector: np.ndarray | None,
    cosine_threshold: float = COSINE_THRESHOLD,
    keyword_threshold: float = KEYWORD_THRESHOLD,
    project_languages: set[str] | None = None,
    model: Model | None = None,
) -> Selection:
    """Judge every rule against the request, a batch at a time; `vectors` rows align with `rules`.

    Each batch is one `SelectStep`: the offline path is `judge_card` below; a model would read
    the same cards (with their cosine and keyword scores as hints).
    """
    from heedful.rules.steps import SelectCard, SelectInput, SelectStep

    out = Selection()
    documents = [stems(rule_text_for_matching(rule)) for rule in rules]
    idf = inverse_document_frequency(documents)
    query_words = stems(query)
    languages_hint = sorted(project_languages) if project_languages is not None else None
    for start in range(0, len(rules), BATCH_SIZE):
        out.batches += 1
        batch = list(rules[start : start + BATCH_SIZE])
        cards = []
        for offset, rule in enumerate(batch):
            index = start + offset
            cosine = 0.0
            if vectors is not None and query_vector is not None and index < len(vectors):
                cosine = float(np.dot(vectors[index], query_vector))
            cards.append(SelectCard(id=rule.id, text=rule.text, condition=rule.condition, exceptions=rule.exceptions,
                                    cosine=cosine, keyword=keyword_score(query_words, documents[index], idf)))
        step_input = SelectInput(query=query, project_languages=languages_hint, cards=cards,
                                 cosine_threshold=cosine_threshold, keyword_threshold=keyword_threshold)
        try:
            answer = run_step(model or OfflineModel(), SelectStep(), step_input)
        except Exception:  # a model that cannot answer: this batch is judged offline instead
            answer = run_step(OfflineModel(), SelectStep(), step_input)
        verdicts = {d.id: d for d in answer.decisions}
        for rule, card in zip(batch, cards, strict=True):
            decision = verdicts.get(rule.id)
            selected = decision is not None and decision.applies
            why = decision.why if decision is not None else "not examined"
            score = max(card.cosine / cosine_threshold, card.keyword / keyword_threshold) + (1.0 if selected else 0.0)
            item = Scored(rule, score, card.cosine, card.keyword, selected, why)
            (out.rules if selected else out.rejected).append(item)
    out.rules.sort(key=lambda s: s.score, reverse=True)
    return out


def judge_card(
    query: str, text: str, condition: str | None, exceptions: list[str], cosine: float, keyword: float,
    project_languages: set[str] | None, cosine_threshold: float = COSINE_THRESHOLD,
    keyword_threshold: float = KEYWORD_THRESHOLD,
) -> tuple[bool, str]:
    """(applies, why) for one rule card: the offline selector."""
    query_words = stems(query)
    query_facets = facets(query, task=True)
    available = languages(query) or project_languages
    for exception in exceptions:
        words = stems(_EXCEPTION_LEAD.sub("", exception))
        if words and words <= query_words:
            return False, f"exception applies: {exception}"
    matching = " ".join([text, condition or ""])
    named = languages(matching)
    if named and available is not None and not named & available:
        return False, f"names {', '.join(sorted(named))}, which this task and project do not use"
    if condition is None:
        lead = _LEADING_CONDITION.match(text)
        condition = lead.group(1) if lead else None
    if condition and not (stems(condition) & query_words or facets(condition) & query_facets):
        return False, f"its condition ({condition}) does not hold for this task"
    if always_applies(text):
        return True, "governs every reply"
    shared = facets(matching) & query_facets
    if shared:
        return True, f"governs {', '.join(sorted(shared))}"
    if cosine >= cosine_threshold:
        return True, f"close in meaning (cosine {cosine:.2f})"
    if keyword >= keyword_threshold:
        return True, f"shares key words (overlap {keyword:.2f})"
    return False, f"not related (cosine {cosine:.2f}, keywords {keyword:.2f})"
