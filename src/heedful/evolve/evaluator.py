"""The fixed evaluator of `heedful evolve`: splits, the offline reader and the acceptance rule.

Frozen: its SHA-256 is recorded in heedful.evolve.freeze and checked before every run, and a
candidate whose diff touches it is refused. Changing it is a deliberate human act (update the
recorded hash in the same commit), never something a proposed harness patch can do.

Splits are declared once per benchmark, by user (a LoCoMo conversation is one user): a
development split that is traced and shown to the proposer, and two user-disjoint validation
halves that are never traced. Each version is scored on memory written its own way (`ingest`:
raw messages, or through its offline extraction and retraction rules). The offline reader is
evidence recall@K over the packed context: the share of a question's gold evidence turns among
the first K items the context lists.
A candidate is accepted only if it gains on both validation halves.
"""

from __future__ import annotations

import dataclasses
import json
import re
import string
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from heedful.errors import InputError

if TYPE_CHECKING:
    from heedful.api import Heedful
    from heedful.harness.context import MemoryContext, ParamHarness
    from heedful.harness.params import HarnessParams

SplitName = Literal["development", "validation_a", "validation_b"]
VALIDATION: tuple[SplitName, SplitName] = ("validation_a", "validation_b")
SPLIT_NAMES: tuple[SplitName, ...] = ("development", *VALIDATION)
K = 10
BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 20260101
MAX_SECOND_READER_LOSS = 1.0  # points, over both validation halves together
EVIDENCE = "evidence"  # the offline reader's metric name
# A reader answers a question from the context a harness built.
Reader = Callable[["MemoryContext", "Question"], str]


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
# BEAM-100K: 20 conversations (folders 1-20, in numeric order), each one user; 1-10 were used to
# tune recall, so they are the development split; 11-15 and 16-20 are the validation halves.
SPLITS: dict[str, Splits] = {
    "locomo": Splits(unit="conversation", development=(0, 1, 2, 3, 4), validation_a=(5, 6, 7), validation_b=(8, 9)),
    "beam": Splits(
        unit="conversation",
        development=tuple(range(10)),
        validation_a=tuple(range(10, 15)),
        validation_b=tuple(range(15, 20)),
    ),
}
# The fields a BEAM question keeps its reference answer in, by ability.
BEAM_ANSWERS = ("answer", "ideal_answer", "ideal_response", "ideal_summary", "expected_compliance")


@dataclass(frozen=True, slots=True)
class Question:
    unit: int
    user: str
    question: str
    answer: str
    category: int | str  # LoCoMo's number, BEAM's ability name
    evidence: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BenchMessage:
    """One message of a benchmark user, as it is stored: its id in the data, text, session, time, role."""

    turn: str
    text: str
    session: str
    at: datetime
    role: str = "user"
    speaker: str | None = None


@dataclass(slots=True)
class Unit:
    """One user of the benchmark: its questions, its speakers, and its message ids -> turn ids once ingested."""

    index: int
    user: str
    speakers: list[str]
    questions: list[Question]
    turns: dict[str, str]  # turn id -> text
    messages: list[BenchMessage] = field(repr=False, default_factory=list)
    dia_of: dict[str, str] = field(default_factory=dict)  # stored message id -> turn id, in one ingested memory


@dataclass(frozen=True, slots=True)
class QuestionScore:
    question: Question
    recall: float
    context_turns: tuple[str, ...]  # the turn ids the context lists, in its order
    gold_ranks: dict[str, int | None]  # gold turn -> 1-based position in the context (None: absent)
    answers: dict[str, tuple[str, float]] = field(default_factory=dict)  # reader -> (its answer, token F1)

    def value(self, metric: str) -> float:
        """This question's score on `metric`: evidence recall, or a reader's F1."""
        return self.recall if metric == EVIDENCE else self.answers[metric][1]


@dataclass(slots=True)
class SplitScore:
    split: SplitName
    harness: str
    scores: list[QuestionScore]

    @property
    def recall(self) -> float:
        return self.mean(EVIDENCE)

    def mean(self, metric: str) -> float:
        return round(100 * float(np.mean([s.value(metric) for s in self.scores])), 2) if self.scores else 0.0


@dataclass(frozen=True, slots=True)
class Comparison:
    split: SplitName
    metric: str
    questions: int
    current: float
    candidate: float
    gain: float
    ci_low: float
    ci_high: float

    def to_json(self) -> dict[str, object]:
        return {
            "split": self.split,
            "metric": self.metric,
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


def load_units(data_path: Path, indices: tuple[int, ...], bench: str = "locomo") -> list[Unit]:
    """The benchmark's users at `indices`, with their questions that cite evidence (the others score nothing)."""
    if bench == "beam":
        return _beam_units(data_path, indices)
    return _locomo_units(data_path, indices)


def _locomo_units(data_path: Path, indices: tuple[int, ...]) -> list[Unit]:
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
        messages = [
            BenchMessage(
                turn=str(turn.get("dia_id")),
                text=turn_text(turn) or ".",
                session=f"session-{number}",
                at=started + timedelta(seconds=30 * position),
                speaker=turn.get("speaker"),
            )
            for number, started, turns in sessions(sample["conversation"])
            for position, turn in enumerate(turns)
        ]
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
        turns = {m.turn: m.text for m in messages}
        units.append(Unit(index, user, [s for s in speakers if s], kept, turns, messages))
    return units


def _beam_units(root: Path, indices: tuple[int, ...]) -> list[Unit]:
    import gzip

    from heedful.bench.beam import conversation_dirs, messages_of, source_ids
    from heedful.memory.write import MAX_MESSAGE_CHARS

    folders = conversation_dirs(root) if root.is_dir() else []
    if not folders:
        raise InputError(f"{root} is not a BEAM-100K folder (one folder per conversation, each with chat.json.gz)")
    if max(indices, default=0) >= len(folders):
        raise InputError(f"{root} holds fewer users than the declared splits need ({max(indices) + 1})")
    units = []
    for index in indices:
        folder = folders[index]
        user = f"beam-{folder.name}"
        try:
            chat = json.loads(gzip.decompress((folder / "chat.json.gz").read_bytes()))
            asked = json.loads((folder / "probing_questions.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read the benchmark data {folder}: {exc}") from exc
        messages = [
            BenchMessage(turn=chat_id, text=text.strip()[:MAX_MESSAGE_CHARS] or ".", session=f"batch-{batch}",
                         at=moment, role=role)
            for chat_id, role, text, moment, batch in messages_of(chat)
        ]  # fmt: skip
        questions = [
            Question(
                unit=index,
                user=user,
                question=str(item["question"]),
                answer=str(next((item[key] for key in BEAM_ANSWERS if item.get(key)), "")),
                category=str(ability),
                evidence=tuple(source_ids(item.get("source_chat_ids"))),
            )
            for ability, items in asked.items()
            for item in items
        ]
        kept = [q for q in questions if q.evidence]
        units.append(Unit(index, user, [], kept, {m.turn: m.text for m in messages}, messages))
    return units


def ingest(hf: Heedful, units: list[Unit], params: HarnessParams | None = None) -> list[Unit]:
    """Store every message of each unit as the version writes memory: raw, or (with `extract_facts`)
    through its offline extraction and retraction rules. Returns the units with their stored message ids."""
    from heedful.harness.params import HarnessParams
    from heedful.memory.adjudicate import AdjudicateStep
    from heedful.memory.extract import ExtractStep
    from heedful.memory.write import MemoryWriter, NewMessage

    params = params or HarnessParams()
    writer = MemoryWriter(hf, ExtractStep(params.extraction), AdjudicateStep(params.retraction))
    stored = []
    for unit in units:
        new = [
            NewMessage(
                text=m.text,
                session_id=m.session,
                at=m.at,
                role="assistant" if m.role == "assistant" else "user",
                speaker=m.speaker,
            )
            for m in unit.messages
        ]
        added = writer.add(unit.user, new, extract=params.extract_facts, flush=params.extract_facts)
        dia_of = dict(zip(added.message_ids, [m.turn for m in unit.messages], strict=True))
        stored.append(dataclasses.replace(unit, dia_of=dia_of))
    return stored


def score_question(
    harness: ParamHarness, hf: Heedful, unit: Unit, question: Question, readers: dict[str, Reader] | None = None
) -> QuestionScore:
    built = harness.build(hf, unit.user, question.question)
    result = read_context(built, unit, question)
    for name, reader in (readers or {}).items():
        prediction = reader(built, question)
        result.answers[name] = (prediction, answer_f1(prediction, question.answer))
    return result


def read_context(built: MemoryContext, unit: Unit, question: Question) -> QuestionScore:
    """The offline reader: which gold turns the built context lists among its first K items."""
    listed = list(dict.fromkeys(unit.dia_of[m] for ids in built.sources for m in ids if m in unit.dia_of))
    gold = set(question.evidence)
    recall = len(gold & set(listed[:K])) / len(gold)
    ranks = {turn: (listed.index(turn) + 1 if turn in listed else None) for turn in question.evidence}
    return QuestionScore(question, recall, tuple(listed), ranks)


def _answer_tokens(text: str) -> list[str]:
    lowered = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return re.sub(r"\b(a|an|the|and)\b", " ", lowered).split()


def answer_f1(prediction: str, gold: str) -> float:
    """Token F1 of an answer against the gold one, normalised as LoCoMo does (case, punctuation, articles)."""
    predicted, expected = _answer_tokens(prediction), _answer_tokens(gold)
    if not predicted or not expected:
        return float(predicted == expected)
    common = sum((Counter(predicted) & Counter(expected)).values())
    if not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def score(
    harness: ParamHarness, hf: Heedful, units: list[Unit], split: SplitName, readers: dict[str, Reader] | None = None
) -> SplitScore:
    scores = [score_question(harness, hf, u, q, readers) for u in units for q in u.questions]
    return SplitScore(split, harness.name, scores)


def bootstrap_gain(current: SplitScore, candidate: SplitScore, metric: str = EVIDENCE) -> tuple[float, float]:
    """95% interval of the mean paired gain (points), resampling questions with a fixed seed."""
    a = np.array([s.value(metric) for s in current.scores])
    b = np.array([s.value(metric) for s in candidate.scores])
    if len(a) != len(b) or not len(a):
        raise InputError("the two harnesses were not scored on the same questions")
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    picks = rng.integers(0, len(a), size=(BOOTSTRAP_SAMPLES, len(a)))
    gains = 100 * (b[picks] - a[picks]).mean(axis=1)
    low, high = np.percentile(gains, [2.5, 97.5])
    return round(float(low), 2), round(float(high), 2)


def compare(current: SplitScore, candidate: SplitScore, metric: str = EVIDENCE) -> Comparison:
    low, high = bootstrap_gain(current, candidate, metric)
    before, after = current.mean(metric), candidate.mean(metric)
    return Comparison(
        split=current.split,
        metric=metric,
        questions=len(current.scores),
        current=before,
        candidate=after,
        gain=round(after - before, 2),
        ci_low=low,
        ci_high=high,
    )


def acceptance(comparisons: list[Comparison], second: list[Comparison] | None = None) -> tuple[bool, str]:
    """The pre-registered rule: a strict gain on every validation half for the first reader, and at most
    `MAX_SECOND_READER_LOSS` points lost by the second reader over both halves together."""
    if {c.split for c in comparisons} != set(VALIDATION):
        raise InputError("the acceptance rule needs both validation halves")
    unit = "recall@" + str(K) if comparisons[0].metric == EVIDENCE else f"{comparisons[0].metric} F1"
    losing = [c for c in comparisons if c.gain <= 0]
    if losing:
        parts = ", ".join(f"{c.split} {c.gain:+.2f}" for c in losing)
        return False, f"no gain on every validation half ({parts} points {unit})"
    parts = ", ".join(f"{c.split} {c.gain:+.2f} [{c.ci_low:+.2f}, {c.ci_high:+.2f}]" for c in comparisons)
    reason = f"gains on both validation halves ({parts} points {unit})"
    if second:
        asked = sum(c.questions for c in second)
        change = round(sum(c.gain * c.questions for c in second) / asked, 2) if asked else 0.0
        if change < -MAX_SECOND_READER_LOSS:
            return False, (
                f"the second reader ({second[0].metric}) loses {-change:.2f} points over both halves"
                f" (at most {MAX_SECOND_READER_LOSS:g} allowed), although the first {reason[0].lower()}{reason[1:]}"
            )
        reason += f"; the second reader ({second[0].metric}) changes by {change:+.2f} points"
    return True, reason
