"""Failure traces: one JSON line per development question the current harness misses.

A trace carries what the proposer needs to form a hypothesis: the question, the context the
reader saw, the reader's result (which gold turns were listed and where), the gold answer and
evidence turns, and recall's explanation of where each gold turn stood (its rank in the full
recall, the routes that found it and their ranks, its state) or that recall never found it.
Each trace has an id (`user:qN`, N the question's place in that user's list) and the step where
its evidence was lost (`heedful.evolve.clusters`); a gold turn that recall did not return is
looked up once more in a recall without item limit or budget, to tell which of the two lost it.
Only the development split is ever traced.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from heedful.evolve.clusters import gold_failure, question_failure
from heedful.evolve.evaluator import K, SplitScore, read_context
from heedful.evolve.files import write_private

if TYPE_CHECKING:
    from heedful.api import Heedful
    from heedful.evolve.evaluator import Question, QuestionScore, Unit
    from heedful.harness.context import MemoryContext, ParamHarness

TRACES_FILE = "development.jsonl"
SUMMARY_FILE = "summary.json"
WIDE_LIMIT = 500  # items of the recall without limits (the largest recall_limit a version may set)
WIDE_BUDGET = 10_000_000  # tokens: no budget


@dataclass(frozen=True, slots=True)
class TraceSet:
    """The traces of one round: where they are, and the development score they came from."""

    folder: Path
    harness: str
    questions: int
    failures: int
    recall: float
    gold_positions: dict[str, int]  # where the missed gold turns stood, by bucket

    def to_json(self) -> dict[str, object]:
        return {
            "folder": str(self.folder),
            "harness": self.harness,
            "questions": self.questions,
            "failures": self.failures,
            "recall": self.recall,
            "gold_positions": self.gold_positions,
        }


def position_bucket(context_rank: int | None, recall_rank: int | None) -> str:
    """Where a missed gold turn stood: listed but after K, recalled but left out, or never recalled."""
    if context_rank is not None:
        return f"in the context after item {K}"
    if recall_rank is None:
        return "not recalled"
    band = f"1-{K}" if recall_rank <= K else (f"{K + 1}-{2 * K}" if recall_rank <= 2 * K else f"{2 * K + 1}+")
    return f"recalled at rank {band}, left out of the context"


def trace(
    trace_id: str,
    built: MemoryContext,
    unit: Unit,
    result: QuestionScore,
    wide: dict[str, int] | None = None,
    item_limit: int = 0,
) -> dict[str, object]:
    """One missed question. `wide`: gold turn -> its rank in a recall without item limit or budget;
    `item_limit`: the items the version's recall returns."""
    from heedful.bench.locomo import CATEGORIES

    question: Question = result.question
    recalled = built.recalled.items if built.recalled else []
    where: dict[str, tuple[int, dict[str, dict[str, float]], str]] = {}
    for rank, item in enumerate(recalled, start=1):
        for message_id in item.source_message_ids:
            turn = unit.dia_of.get(message_id)
            if turn and turn not in where:
                routes = {n: {"rank": h.rank, "contribution": round(h.contribution, 5)} for n, h in item.routes.items()}
                where[turn] = (rank, routes, item.state)
    gold = []
    for turn in question.evidence:
        recall_rank, routes, state = where.get(turn, (None, {}, None))  # type: ignore[arg-type]
        wide_rank = (wide or {}).get(turn)
        gold.append(
            {
                "turn": turn,
                "text": unit.turns.get(turn, ""),
                "context_rank": result.gold_ranks.get(turn),
                "recall_rank": recall_rank,
                "unlimited_recall_rank": wide_rank if recall_rank is None else recall_rank,
                "routes": routes,
                "state": state,
                "where": position_bucket(result.gold_ranks.get(turn), recall_rank),
                "failure": gold_failure(result.gold_ranks.get(turn), recall_rank, wide_rank, item_limit, K),
            }
        )
    analysis = built.recalled.analysis if built.recalled else {}
    return {
        "id": trace_id,
        "failure": question_failure([g["failure"] for g in gold]),  # type: ignore[misc]
        "user": unit.user,
        "question": question.question,
        "category": CATEGORIES.get(question.category, str(question.category))
        if isinstance(question.category, int)
        else question.category,
        "gold_answer": question.answer,
        "gold_evidence": gold,
        "reader": {"metric": f"evidence recall@{K}", "score": round(result.recall, 3)},
        "context_turns": list(result.context_turns),
        "context": built.text,
        "recall": {
            "query": built.recalled.query if built.recalled else question.question,
            "items": len(recalled),
            "budget_tokens": built.recalled.budget_tokens if built.recalled else None,
            "used_tokens": built.recalled.used_tokens if built.recalled else None,
            "analysis": analysis,
        },
    }


def item_limit(harness: ParamHarness, enumeration: bool) -> int:
    """How many items the version's recall returns for a question (recall's own rule when unset)."""
    from heedful.memory.recall.budget import DEFAULT_MAX_ITEMS, ENUMERATION_FACTOR

    if harness.params.recall_limit is not None:
        return harness.params.recall_limit
    return DEFAULT_MAX_ITEMS * (ENUMERATION_FACTOR if enumeration else 1)


def unlimited_ranks(harness: ParamHarness, hf: Heedful, unit: Unit, question: str, turns: list[str]) -> dict[str, int]:
    """Where `turns` rank in the version's recall without item limit or token budget (absent: not found)."""
    wide = harness.recaller(hf).recall(
        unit.user, harness.params.expand_query(question), limit=WIDE_LIMIT, budget_tokens=WIDE_BUDGET
    )
    ranks: dict[str, int] = {}
    for rank, item in enumerate(wide.items, start=1):
        for message_id in item.source_message_ids:
            turn = unit.dia_of.get(message_id)
            if turn in turns and turn not in ranks:
                ranks[turn] = rank
    return ranks


def write_traces(harness: ParamHarness, hf: Heedful, units: list[Unit], folder: Path) -> TraceSet:
    """Score the development split and write one trace per missed question (files private to the user)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    scores = SplitScore("development", harness.name, [])
    buckets: Counter[str] = Counter()
    failures = 0
    lines: list[str] = []
    for unit in units:
        for number, question in enumerate(unit.questions):
            built = harness.build(hf, unit.user, question.question)
            result = read_context(built, unit, question)
            scores.scores.append(result)
            if result.recall >= 1.0:
                continue
            failures += 1
            returned = {
                unit.dia_of.get(m)
                for item in (built.recalled.items if built.recalled else [])
                for m in item.source_message_ids
            }
            lost = [turn for turn in question.evidence if turn not in returned]
            wide = unlimited_ranks(harness, hf, unit, question.question, lost) if lost else {}
            limit = item_limit(harness, bool(built.recalled and built.recalled.enumeration))
            record = trace(f"{unit.user}:q{number}", built, unit, result, wide, limit)
            for gold in record["gold_evidence"]:  # type: ignore[attr-defined]
                if gold["context_rank"] is None or gold["context_rank"] > K:
                    buckets[gold["where"]] += 1
            lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    write_private(folder / TRACES_FILE, "".join(lines))
    traces = TraceSet(folder, harness.name, len(scores.scores), failures, scores.recall, dict(buckets.most_common()))
    summary = {**traces.to_json(), "folder": "traces", "metric": f"evidence recall@{K}"}
    write_private(folder / SUMMARY_FILE, json.dumps(summary, indent=2) + "\n")
    return traces
