"""The labelled admission corpus: every source, one typed row per message.

Sources kept in the package (`bench/corpus/*.jsonl`, format in its README): lines of real
agent-instruction files, corrections derived from them, and messages written in several voices.
The previous team's labelled set (`bench/data/corrections_*.jsonl`) is one more source. Real
negatives are read from the shared benchmark data at run time and never stored here: the
verbatim user intents of SWE-Together (task requests, questions, task-bound corrections) and a
deterministic sample of LoCoMo dialogue turns (chit-chat).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
TEAM_DIR = Path(__file__).resolve().parent / "data"
# The shared benchmark data beside the checkout, or wherever HEEDFUL_SHARED_DATA points (a worktree
# or an installed package has no checkout beside it).
SHARED_DATA = Path(
    os.environ.get("HEEDFUL_SHARED_DATA") or Path(__file__).resolve().parents[3].parent / "shared" / "data"
)
TEAM_SPLITS = ("tune", "heldout", "heldout2")
# Instruction-file lines that are not directives are headings, descriptions and examples: in chat
# they would be facts or noise, so only the directives (lasting rules) join the admission corpus.
ADMISSION_LINE_KINDS = ("directive",)
LOCOMO_SAMPLE = 900


@dataclass(frozen=True)
class CorpusRow:
    id: str
    source: str
    text: str
    decision: str
    scope: str | None = None
    rules: tuple[dict[str, Any], ...] = ()
    rule_count: int = 0
    condition: bool = False
    retraction: bool = False
    derived: bool = False
    provenance: dict[str, Any] = field(default_factory=dict)
    previous: str | None = None  # dialogue sources: the user's prior turn in the same session
    points_back: bool = False  # the turn resolves against `previous` ("update the rule to do this going forward")

    @property
    def checkable_rules(self) -> list[dict[str, Any]]:
        return [r for r in self.rules if isinstance(r.get("check"), dict)]


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise ValueError(f"{path.name}:{number}: not JSON ({exc})") from exc
    return rows


def _from_corpus(raw: dict[str, Any]) -> CorpusRow:
    rules = tuple(r for r in raw.get("rules") or [] if isinstance(r, dict))
    return CorpusRow(
        id=str(raw["id"]),
        source=str(raw["source"]),
        text=str(raw["text"]),
        decision=str(raw["decision"]),
        scope=raw.get("scope"),
        rules=rules,
        rule_count=len(rules),
        condition=any(r.get("condition") for r in rules),
        retraction=bool(raw.get("retraction")),
        derived=bool(raw.get("derived")),
        provenance=dict(raw.get("provenance") or {}),
        previous=raw.get("previous") if isinstance(raw.get("previous"), str) else None,
        points_back=bool(raw.get("points_back")),
    )


def corpus_rows(directory: Path = CORPUS_DIR) -> list[CorpusRow]:
    """Every row of the packaged sources (instruction-file lines: directives only)."""
    rows: list[CorpusRow] = []
    for path in sorted(directory.glob("*.jsonl")):
        for raw in _read_jsonl(path):
            if "line_kind" in raw and raw["line_kind"] not in ADMISSION_LINE_KINDS:
                continue
            rows.append(_from_corpus(raw))
    return rows


def team_rows() -> list[CorpusRow]:
    rows = []
    for split in TEAM_SPLITS:
        path = TEAM_DIR / f"corrections_{split}.jsonl"
        for raw in _read_jsonl(path):
            rows.append(
                CorpusRow(
                    id=f"team-{raw['id']}",
                    source="team",
                    text=raw["text"],
                    decision=raw["decision"],
                    scope=raw.get("scope"),
                    rule_count=int(raw.get("rules") or 0),
                    condition=bool(raw.get("condition")),
                    retraction=bool(raw.get("retraction")),
                    provenance={"split": split},
                )
            )
    return rows


# SWE-Together's intent kinds: questions and context are not instructions; the rest are requests
# bound to the task at hand (including its task-bound corrections).
_SWE_DECISION = {"question": "none", "context": "none"}


def swe_together_rows(data: Path = SHARED_DATA / "swe_together") -> list[CorpusRow]:
    """Real user intents: the user's verbatim excerpt and the dataset's one-line statement of the
    intent (an imperative written by its extractor); empty when the data is absent."""
    rows: list[CorpusRow] = []
    for path in sorted((data / "tasks").glob("*/oracle_intents.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for intent in doc.get("intents", []):
            if not isinstance(intent, dict):
                continue
            kind = str(intent.get("intent_kind"))
            for field_name, suffix in (("verbatim_excerpt", "v"), ("text", "s")):
                text = intent.get(field_name)
                if not isinstance(text, str) or not text.strip():
                    continue
                rows.append(
                    CorpusRow(
                        id=f"swe-{path.parent.name}-{intent.get('intent_id')}-{suffix}",
                        source="swe_together",
                        text=text.strip(),
                        decision=_SWE_DECISION.get(kind, "task_local"),
                        provenance={
                            "task": path.parent.name,
                            "intent_id": intent.get("intent_id"),
                            "kind": kind,
                            "field": field_name,
                        },
                    )
                )
    return rows


def locomo_rows(path: Path = SHARED_DATA / "locomo" / "locomo10.json", sample: int = LOCOMO_SAMPLE) -> list[CorpusRow]:
    """An evenly spaced sample of LoCoMo dialogue turns (chit-chat: no instruction)."""
    if not path.is_file():
        return []
    turns: list[tuple[str, str]] = []
    for conversation in json.loads(path.read_text(encoding="utf-8")):
        sessions = conversation.get("conversation", {})
        for key in sorted(k for k in sessions if k.startswith("session_") and isinstance(sessions[k], list)):
            for turn in sessions[key]:
                text = turn.get("text") if isinstance(turn, dict) else None
                if isinstance(text, str) and len(text.split()) >= 3:
                    turns.append((str(turn.get("dia_id")), text))
    step = max(1, len(turns) // sample)
    return [
        CorpusRow(id=f"locomo-{dia}", source="locomo", text=text, decision="none", provenance={"dia_id": dia})
        for dia, text in turns[::step][:sample]
    ]


# Sources kept out of training and of the leave-one-source-out folds until a later stop: the shipped
# model never saw them, so its figures on them (`unseen` in the report) are the ones that count.
HELD_OUT_SOURCES = (
    "dialogues_b",
    "instructions_c",
    "dialogues_e",
    "instructions_d",
    "instructions_e",
    "dialogues_f",
    "instructions_f",
    "instructions_g",
    "dialogues_g",
    "instructions_h",
    "tracker_quotes_c",
    "instructions_i",
    "instructions_j",
    "instructions_k",
)


def all_rows(shared: Path | None = None, sources: Iterable[str] | None = None) -> list[CorpusRow]:
    """Every source (the shared ones only when their data is present); the held-out sources only
    when `sources` names them."""
    base = shared or SHARED_DATA
    rows = (
        corpus_rows()
        + team_rows()
        + swe_together_rows(base / "swe_together")
        + locomo_rows(base / "locomo" / "locomo10.json")
    )
    wanted = set(sources) if sources is not None else None
    return [r for r in rows if (r.source in wanted if wanted is not None else r.source not in HELD_OUT_SOURCES)]


# The replays' taught corrections that must stay lasting rules: the end-to-end contract the admission
# model's operating point is chosen under (`heedful.rules.admission_operating`). Teach items say what
# they teach in `learn`; a retraction is the lexicon's call and not the model's, so it is not here.
REPLAY_DIR = TEAM_DIR
CONTRACT_LEARN = ("lasting", "supersede")


def contract(directory: Path = REPLAY_DIR) -> list[tuple[str, str | None]]:
    """The prompts of every replay file's teach and retrain items marked as lasting corrections, each with
    the scope its replay events imply: blocked in a project it was not taught in, global; allowed there
    but blocked where it was taught, project; else None (the events do not say)."""
    items: dict[str, str | None] = {}
    for path in sorted(directory.rglob("replay_*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        teach = [i for i in [*doc.get("teach", []), *doc.get("retrain", [])] if isinstance(i, dict)]
        events = [e for e in [*doc.get("replay", []), *doc.get("after", [])] if isinstance(e, dict)]
        taught_in = str(doc.get("project") or "app")
        for item in teach:
            if item.get("learn") not in CONTRACT_LEARN or not isinstance(item.get("prompt"), str):
                continue
            own = [e for e in events if item.get("tag") and e.get("tag") == item.get("tag")]
            elsewhere = {e.get("expect") for e in own if e.get("project") != taught_in}
            here = {e.get("expect") for e in own if e.get("project") == taught_in}
            scope = (
                "global" if "block" in elsewhere else "project" if "allow" in elsewhere and "block" in here else None
            )
            items.setdefault(item["prompt"], scope)
    return list(items.items())


def contract_texts(directory: Path = REPLAY_DIR) -> list[str]:
    return [text for text, _ in contract(directory)]
