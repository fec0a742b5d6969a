"""Selection: which active rules apply to a task (API, CLI and MCP path).

A rule (already in scope) is set aside when a stated exception is met by the request or when it
names a language or platform that neither the request nor the project uses. A rule that governs
every answer (length, language, format, tone) is selected for every task, and a general coding habit
for every task that changes code (the rule's reach, read as on the hook path). Otherwise the learned
scorer of `heedful.rules.selection_model` decides from facet agreement (the activities the rule
governs and the task involves, read from the whole text's embedding mixed with per-word cues
distilled from MiniLM), keyword overlap and the embedding cosine of the rule and the request.
Rules are examined in batches of 32, as a model selector would see them; with a model configured
each batch is one `SelectStep` and the offline judgment is `judge_card` below. Checked rules are
listed separately by the service: their checks stay armed whatever the relevance, because a check
that does not apply answers not_applicable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from heedful.llm import Model, OfflineModel, run_step
from heedful.rules.models import Rule
from heedful.rules.selection_model import Reading, SelectionModel, load_service_model, overlap, stem, tokens

BATCH_SIZE = 32
COSINE_THRESHOLD = 0.42  # shown to a model selector as a hint; the offline scorer learns its own weights
KEYWORD_THRESHOLD = 0.34
_EXCEPTION_LEAD = re.compile(r"^(?:unless|except(?: for| when| in| if)?|but not (?:for|in|when))\s+", re.IGNORECASE)


@dataclass
class Scored:
    rule: Rule
    score: float
    cosine: float
    keyword: float
    selected: bool
    why: str
    kind: str = "topical"  # "every": governs every answer; "code": a general coding habit (both outside the budget)


@dataclass
class Selection:
    rules: list[Scored] = field(default_factory=list)
    rejected: list[Scored] = field(default_factory=list)
    batches: int = 0


def rule_text_for_matching(rule: Rule) -> str:
    return " ".join([rule.text, rule.condition or ""])


def exception_met(exceptions: Sequence[str], query: str) -> str | None:
    """The first exception whose every word the request mentions."""
    query_words = {stem(w) for w in tokens(query)}
    for exception in exceptions:
        words = {stem(w) for w in tokens(_EXCEPTION_LEAD.sub("", exception))}
        if words and words <= query_words:
            return exception
    return None


def select(
    rules: Sequence[Rule],
    vectors: np.ndarray | None,
    query: str,
    query_vector: np.ndarray | None,
    cosine_threshold: float = COSINE_THRESHOLD,
    keyword_threshold: float = KEYWORD_THRESHOLD,
    project_languages: set[str] | None = None,
    model: Model | None = None,
    scorer: SelectionModel | None = None,
    embedder: str | None = None,
) -> Selection:
    """Judge every rule against the request, a batch at a time; `vectors` rows align with `rules`.

    The embeddings also feed the scorer's whole-text reading when they come from the embedder it was
    trained on (`embedder`, the embedder's name; None: judged by their width alone)."""
    from heedful.rules.steps import SelectCard, SelectInput, SelectStep

    scorer = scorer or load_service_model()
    vector = [float(x) for x in query_vector] if query_vector is not None else None
    readable = scorer.sentence is not None and vector is not None and scorer.sentence.reads(vector, embedder)
    task = scorer.read_task(query, project_languages, vector if readable else None)
    out = Selection()
    languages_hint = sorted(project_languages) if project_languages is not None else None
    for start in range(0, len(rules), BATCH_SIZE):
        out.batches += 1
        batch = list(rules[start : start + BATCH_SIZE])
        cards = []
        for offset, rule in enumerate(batch):
            index = start + offset
            cosine = None
            vector = None
            if vectors is not None and query_vector is not None and index < len(vectors):
                vector = vectors[index]
                cosine = float(np.dot(vector, query_vector))
            reading = scorer.read_rule(rule.text, rule.condition, vector if readable else None)
            cards.append(
                SelectCard(
                    id=rule.id,
                    text=rule.text,
                    condition=rule.condition,
                    exceptions=rule.exceptions,
                    cosine=cosine or 0.0,
                    keyword=overlap(reading.words, task.words),
                )
            )
        verdicts: dict[str, tuple[bool, str, str, float]] = {}
        if model is not None and not isinstance(model, OfflineModel):
            step_input = SelectInput(
                query=query,
                project_languages=languages_hint,
                cards=cards,
                cosine_threshold=cosine_threshold,
                keyword_threshold=keyword_threshold,
            )
            try:
                answer = run_step(model, SelectStep(), step_input)
                verdicts = {d.id: (d.applies, d.why, "model", 1.0 if d.applies else 0.0) for d in answer.decisions}
            except Exception:  # a model that cannot answer: this batch is judged offline instead
                verdicts = {}
        for offset, (rule, card) in enumerate(zip(batch, cards, strict=True)):
            index = start + offset
            has_vector = vectors is not None and query_vector is not None and index < len(vectors)
            cosine = card.cosine if has_vector else None
            if rule.id not in verdicts:
                vector = vectors[index] if has_vector and readable else None  # type: ignore[index]
                reading = scorer.read_rule(rule.text, rule.condition, vector)
                verdicts[rule.id] = _judge(scorer, query, task, reading, rule.exceptions, cosine, card.keyword)
            applies, why, kind, score = verdicts[rule.id]
            item = Scored(rule, score, card.cosine, card.keyword, applies, why, kind)
            (out.rules if applies else out.rejected).append(item)
    out.rules.sort(key=lambda s: (s.kind != "every", s.kind != "code", -s.score))
    return out


def _judge(
    scorer: SelectionModel,
    query: str,
    task: Reading,
    rule: Reading,
    exceptions: Sequence[str],
    cosine: float | None,
    keyword: float,
) -> tuple[bool, str, str, float]:
    met = exception_met(exceptions, query)
    if met is not None:
        return False, f"exception applies: {met}", "exception", 0.0
    decision = scorer.decide(rule, task, keyword, cosine)
    return decision.applies, decision.why, decision.kind, decision.score


def judge_card(
    query: str,
    text: str,
    condition: str | None,
    exceptions: list[str],
    cosine: float,
    keyword: float,
    project_languages: set[str] | None,
    cosine_threshold: float = COSINE_THRESHOLD,
    keyword_threshold: float = KEYWORD_THRESHOLD,
) -> tuple[bool, str]:
    """(applies, why) for one rule card: the offline selector (the thresholds are a model's hints only)."""
    scorer = load_service_model()
    task = scorer.read_task(query, project_languages)
    rule = scorer.read_rule(text, condition)
    applies, why, _, _ = _judge(scorer, query, task, rule, exceptions, cosine, keyword)
    return applies, why
