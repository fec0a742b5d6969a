"""The candidate log: every candidate and every adoption, one JSON line each, append-only.

`HOME/evolve/log.jsonl` (0600). Lines are only ever appended; a line that cannot be read is
reported, never rewritten. Each round's traces and workspace stay under `HOME/evolve/runs/ID/`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from heedful.errors import InputError
from heedful.evolve.clusters import FailureCluster
from heedful.evolve.files import append_private

LOG_FILE = "log.jsonl"
EVOLVE_DIR = "evolve"
Decision = Literal["accepted", "rejected", "refused"]


class CandidateRecord(BaseModel):
    """One candidate, whatever became of it."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["candidate"] = "candidate"
    id: str
    at: str
    round: int
    bench: str
    data_sha256: str
    embedder: str
    per_split: int | None
    per_user: int | None = None  # questions kept per user (None: all)
    evaluator_sha256: str
    base: str
    proposer: dict[str, Any]
    diff: str
    params_changed: dict[str, Any] | None = None
    layout_changed: bool = False  # the candidate changed the layout's code
    critic: dict[str, Any] | None = None
    clusters: list[FailureCluster] = []  # the traced failures, clustered by the critic (or the built-in rule)
    clustered_by: Literal["built-in", "critic"] | None = None
    development: dict[str, Any]
    validation: list[dict[str, Any]] = []
    second_reader: list[dict[str, Any]] = []  # the guarding reader's comparisons, when one ran
    readers: dict[str, str] = {}  # metric -> what it is
    decision: Decision
    reason: str
    version: str | None = None  # the harness version an accepted candidate became


class AdoptionRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["adoption"] = "adoption"
    at: str
    version: str
    previous: str


def evolve_dir(home: Path) -> Path:
    return home / EVOLVE_DIR


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def append(home: Path, record: CandidateRecord | AdoptionRecord) -> None:
    append_private(evolve_dir(home) / LOG_FILE, record.model_dump_json())


def read(home: Path) -> list[CandidateRecord | AdoptionRecord]:
    path = evolve_dir(home) / LOG_FILE
    if not path.exists():
        return []
    records: list[CandidateRecord | AdoptionRecord] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            model = AdoptionRecord if data.get("kind") == "adoption" else CandidateRecord
            records.append(model.model_validate(data))
        except (ValueError, ValidationError) as exc:
            raise InputError(f"{path} line {number} cannot be read: {str(exc).splitlines()[0]}") from exc
    return records
