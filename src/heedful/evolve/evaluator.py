"""The fixed evaluator of `heedful evolve`: splits, the offline reader and the acceptance rule.

Frozen: its SHA-256 is recorded in heedful.evolve.freeze and checked before every run, and a
candidate whose diff touches it is refused. Changing it is a deliberate human act (update the
recorded hash in the same commit), never something a proposed harness patch can do.

Splits are declared once per benchmark, by user (a LoCoMo conversation is one user): a
development split that is traced and shown to the proposer, and two user-disjoint validation
halves that are never traced. The offline reader is evidence recall@K over the packed context:
the share of a question's gold evidence turns among the first K items the context lists.
A candidate is accepted only if it gains on both validation halves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from heedful.errors import InputError

if TYPE_CHECKING:
    from heedful.api import Heedful
    from heedful.harness.context import MemoryContext, ParamHarness

SplitName = Literal["development", "validation_a", "validation_b"]
VALIDATION: tuple[SplitName, SplitName] = ("validation_a", "validation_b")
SPLIT_NAMES: tuple[SplitName, ...] = ("development", *VALIDATION)
K = 10
BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 20260101


@dataclass(frozen=True, slots=True)
class Splits:
    unit: str
    development: tuple[int, ...]
    validation_a: tuple[int, ...]
    validation_b: tuple[int, ...]

    def part(self, name: SplitName, per_split: int | None = None) -> tuple[int, ...]:
        """The split's units in declared order; with `per_split`, only its first units (a smaller run)."""
        units: tuple[int, ...] = getattr(self, name)
        return units[:per_split] if per_split else units


# LoCoMo: 10 conversations, each one user. 0-4 were already used to tune recall (see the README), so
# they are the development split; 5-9 are halved into validation users nobody inspects.
SPLITS: dict[str, Splits] = {
    "locomo": Splits(unit="conversation", development=(0, 1, 2, 3, 4), validation_a=(5, 6, 7), validation_b=(8, 9)),
}


@dataclass(frozen=True, slots=True)
class Question:
    unit: int
    user: str
    question: str
    answer: str
    category: int
    evidence: tuple[str, ...]


@dataclass(slots=True)
class Unit:
    """One user of the benchmark: its questions, its speakers, and its message ids -> turn ids once ingested."""

    index: int
    user: str
    speakers: list[str]
    questions: list[Question]
    turns: dict[str, str]  # turn id -> text
    conversation: dict[str, object] = field(repr=False, default_factory=dict)
    dia_of: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class QuestionScore:
    question: Question
    recall: float
    context_turns: tuple[str, ...]  # the turn ids the context lists, in its order
    gold_ranks: dict[str, int | None]  # gold turn -> 1-based position in the context (None: absent)


@dataclass(slots=True)
class SplitScore:
    split: SplitName
    harness: str
    scores: list[QuestionScore]

    @property
    def recall(self) -> float:
        return round(100 * float(np.mean([s.recall for s in self.scores])), 2) if self.scores else 0.0


@dataclass(frozen=True, slots=True)
class Comparison:
    split: SplitName
    questions: int
    current: float
    candidate: float
    gain: float
    ci_low: float
    ci_high: float

    def to_json(self) -> dict[str, object]:
        return {
            "split": self.split,
            "questions": self.questions,
            "current": self.current,
            "candidate": self.candidate,
            "gain": self.gain,
            "ci95": [self.ci_low, self.ci_high],
        }


def splits_for(bench: str) -> Splits:
    if bench not in SPLITS:
        raise InputError(f"no splits are declared for benchmark {bench!r}; declared: {', '.join(SPLITS)}")
    return SPLITS[bench]


def load_units(data_path: Path, indices: tuple[int, ...]) -> list[Unit]:
    """The benchmark's users at `indices`, with their questions that cite evidence (the others score nothing)."""
    from heedful.bench.locomo import parse_evidence, sessions, turn_text

    try:
        conversations = json.loads(data_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the benchmark data {data_path}: {exc}") from exc
    if not isinstance(conversations, list) or max(indices, default=0) >= len(conversations):
        raise InputError(f"{data_path} holds fewer users than the declared splits need ({max(indices) + 1})")
    units = []
    for index in indices:
        sample = conversations[index]
        user = f"locomo-{index}"
        turns = {
            str(turn.get("dia_id")): turn_text(turn)
            for _, _, session in sessions(sample["conversation"])
            for turn in session
        }
        questions = [
            Question(
                unit=index,
                user=user,
                question=str(qa["question"]),
                answer=str(qa.get("answer", qa.get("adversarial_answer", ""))),
                category=int(qa.get("category", 0)),
                evidence=tuple(parse_evidence(qa.get("evidence", []))),
            )
            for qa in sample["qa"]
        ]
        speakers = [str(sample["conversation"].get(key, "")) for key in ("speaker_a", "speaker_b")]
        kept = [q for q in questions if q.evidence]
        units.append(Unit(index, user, [s for s in speakers if s], kept, turns, sample["conversation"]))
    return units


def ingest(hf: Heedful, units: list[Unit]) -> None:
    """Every turn as a raw message (no extraction): the memory every harness version reads."""
    from heedful.bench.locomo import sessions, turn_text
    from heedful.memory.write import NewMessage

    for unit in units:
        messages, dia_ids = [], []
        for number, started, turns in sessions(unit.conversation):
            for position, turn in enumerate(turns):
                messages.append(
                    NewMessage(
                        text=turn_text(turn) or ".",
                        session_id=f"session-{number}",
                        at=started + timedelta(seconds=30 * position),
                        speaker=turn.get("speaker"),
                    )
                )
                dia_ids.append(str(turn.get("dia_id")))
        added = hf.memory.add(unit.user, messages, extract=False)
        unit.dia_of = dict(zip(added.message_ids, dia_ids, strict=True))


def score_question(harness: ParamHarness, hf: Heedful, unit: Unit, question: Question) -> QuestionScore:
    return read_context(harness.build(hf, unit.user, question.question), unit, question)


def read_context(built: MemoryContext, unit: Unit, question: Question) -> QuestionScore:
    """The offline reader: which gold turns the built context lists among its first K items."""
    listed = list(dict.fromkeys(unit.dia_of[m] for ids in built.sources for m in ids if m in unit.dia_of))
    gold = set(question.evidence)
    recall = len(gold & set(listed[:K])) / len(gold)
    ranks = {turn: (listed.index(turn) + 1 if turn in listed else None) for turn in question.evidence}
    return QuestionScore(question, recall, tuple(listed), ranks)


def score(harness: ParamHarness, hf: Heedful, units: list[Unit], split: SplitName) -> SplitScore:
    return SplitScore(split, harness.name, [score_question(harness, hf, u, q) for u in units for q in u.questions])


def bootstrap_gain(current: SplitScore, candidate: SplitScore) -> tuple[float, float]:
    """95% interval of the mean paired gain (points), resampling questions with a fixed seed."""
    a = np.array([s.recall for s in current.scores])
    b = np.array([s.recall for s in candidate.scores])
    if len(a) != len(b) or not len(a):
        raise InputError("the two harnesses were not scored on the same questions")
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    picks = rng.integers(0, len(a), size=(BOOTSTRAP_SAMPLES, len(a)))
    gains = 100 * (b[picks] - a[picks]).mean(axis=1)
    low, high = np.percentile(gains, [2.5, 97.5])
    return round(float(low), 2), round(float(high), 2)


def compare(current: SplitScore, candidate: SplitScore) -> Comparison:
    low, high = bootstrap_gain(current, candidate)
    return Comparison(
        split=current.split,
        questions=len(current.scores),
        current=current.recall,
        candidate=candidate.recall,
        gain=round(candidate.recall - current.recall, 2),
        ci_low=low,
        ci_high=high,
    )


def acceptance(comparisons: list[Comparison]) -> tuple[bool, str]:
    """The pre-registered rule: a strict gain on every validation half."""
    if {c.split for c in comparisons} != set(VALIDATION):
        raise InputError("the acceptance rule needs both validation halves")
    losing = [c for c in comparisons if c.gain <= 0]
    if losing:
        parts = ", ".join(f"{c.split} {c.gain:+.2f}" for c in losing)
        return False, f"no gain on every validation half ({parts} points recall@{K})"
    parts = ", ".join(f"{c.split} {c.gain:+.2f} [{c.ci_low:+.2f}, {c.ci_high:+.2f}]" for c in comparisons)
    return True, f"gains on both validation halves ({parts} points recall@{K})"
