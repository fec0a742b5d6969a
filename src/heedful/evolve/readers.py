"""Model readers for the evaluator: a configured model answers each question from the built context.

Offline, the evaluator's only reader is the evidence metric. With `--reader MODEL` a model answers
(prompt: `llm/prompts/answer_from_memory.py`) and its token F1 is the score a candidate must raise
on both halves; `--second-reader MODEL` (or, without it, the evidence metric) may lose at most a
point. Models are built as everywhere else (`provider[:model]`), their calls logged to the home.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from heedful.evolve.evaluator import EVIDENCE, Question, Reader

if TYPE_CHECKING:
    from heedful.harness.context import MemoryContext
    from heedful.llm.protocol import Model

FIRST = "reader"
SECOND = "second_reader"
CONFIGURED = "configured"  # the home's own model settings


def model_reader(model: Model) -> Reader:
    from heedful.llm.prompts import answer_from_memory

    def read(built: MemoryContext, question: Question) -> str:
        messages = answer_from_memory.messages(question.question, built.text)
        return model.structured(messages, answer_from_memory.Answer).answer

    return read


@dataclass(frozen=True, slots=True)
class ReaderPlan:
    """Which readers run, and which metric decides and which guards."""

    readers: dict[str, Reader]
    first: str  # the metric that must gain on both halves
    second: str | None  # the metric that may lose at most a point (None: no guard)
    names: dict[str, str]  # metric -> what it is, for the log


def plan(reader: str | None, second_reader: str | None, home: Path) -> ReaderPlan:
    """Build the readers named by `--reader` / `--second-reader`: a model spec (`provider:model`), or
    `configured` for the model the home's settings name (with its endpoint); offline: evidence only."""
    from heedful.config import load_settings
    from heedful.errors import InputError
    from heedful.llm.factory import build_model, load_model

    if second_reader and not reader:
        raise InputError("--second-reader needs --reader (the first reader it guards)")
    usage = home / "logs" / "model-usage.jsonl"
    readers: dict[str, Reader] = {}
    names = {EVIDENCE: "evidence recall (offline reader)"}
    for metric, spec in ((FIRST, reader), (SECOND, second_reader)):
        if spec:
            if spec == CONFIGURED:
                model = load_model(load_settings(home).model, log_dir=usage.parent)
            else:
                model = build_model(spec, usage_path=usage)
            if model.offline:
                raise InputError(f"the reader {spec!r} is the offline model, which cannot answer questions")
            readers[metric] = model_reader(model)
            names[metric] = f"{model.name} answers, token F1"
    if not readers:
        return ReaderPlan({}, EVIDENCE, None, names)
    return ReaderPlan(readers, FIRST, SECOND if SECOND in readers else EVIDENCE, names)
