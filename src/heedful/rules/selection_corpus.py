"""The selection corpus: rule libraries and tasks from several sources, with their labels (pure I/O).

Labels are given per text, not per pair: each rule lists the activities it governs (or `every`:
it governs every answer) and the languages it is bound to; each task lists the activities it
involves and its project's languages. A rule applies to a task when they share a language (or the
rule names none) and the rule governs every answer or an activity the task involves. A pair may
also be set explicitly (`applies` / `not_applies` on the task). See `bench/selection/README.md`.

SWE-Together tasks are read from the dataset at run time (only their labels ship). Rules and tasks
drawn from the learning corpus (`bench/corpus/`) name their line there (`ref`, and `rule` for one
atomic rule of a directive), so the text and its provenance live in one place.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from heedful.rules.facets import languages

CORPUS_DIR = Path(__file__).resolve().parents[1] / "bench" / "selection"
LEARNING_CORPUS = Path(__file__).resolve().parents[1] / "bench" / "corpus"
LEGACY_TASKS = Path(__file__).resolve().parents[1] / "bench" / "data" / "selection_tasks.jsonl"
DEFAULT_SWE = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "swe_together"
EVERY = "every"
RULE_FILES = (
    "rules_core.jsonl",
    "rules_voices.jsonl",
    "rules_instructions.jsonl",
    "rules_instructions_c.jsonl",
    "rules_instructions_d.jsonl",
    "rules_instructions_e.jsonl",
    "rules_instructions_f.jsonl",
)
TASK_FILES = (
    "tasks_core.jsonl",
    "tasks_everyday.jsonl",
    "tasks_swe_together.jsonl",
    "tasks_dialogues_a.jsonl",
    "tasks_dialogues_b.jsonl",
    "tasks_dialogues_c.jsonl",
    "tasks_dialogues_d.jsonl",
    "tasks_dialogues_e.jsonl",
    "tasks_dialogues_f.jsonl",
)


@dataclass
class RuleItem:
    id: str
    source: str
    text: str
    governs: list[str]
    languages: list[str]
    condition: str | None = None

    @property
    def matching_text(self) -> str:
        return " ".join(p for p in (self.text, self.condition or "") if p)

    @property
    def named(self) -> frozenset[str]:
        return languages(self.matching_text)


@dataclass
class TaskItem:
    id: str
    source: str
    text: str
    involves: list[str]
    languages: list[str]
    applies: list[str] = field(default_factory=list)
    not_applies: list[str] = field(default_factory=list)

    @property
    def available(self) -> frozenset[str]:
        return languages(self.text) | frozenset(self.languages)


@dataclass
class Corpus:
    rules: list[RuleItem]
    tasks: list[TaskItem]
    skipped: dict[str, str] = field(default_factory=dict)  # source -> why it is missing

    @property
    def activities(self) -> list[str]:
        found = {a for r in self.rules for a in r.governs} | {a for t in self.tasks for a in t.involves}
        return sorted(found - {EVERY})

    def relevant(self, task: TaskItem, rule: RuleItem) -> bool:
        if rule.id in task.applies:
            return True
        if rule.id in task.not_applies:
            return False
        if rule.languages and not set(rule.languages) & set(task.languages):
            return False
        return EVERY in rule.governs or bool(set(rule.governs) & set(task.involves))

    def rule_sources(self) -> list[str]:
        return sorted({r.source for r in self.rules})

    def task_sources(self) -> list[str]:
        return sorted({t.source for t in self.tasks})


def _rows(path: Path) -> Iterable[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def load_corpus(swe_dir: Path | None = None, generated: bool = True) -> Corpus:
    learning = _LearningCorpus()
    rules = [
        RuleItem(
            str(row["id"]),
            str(row["source"]),
            text,
            _strings(row.get("governs")),
            _strings(row.get("languages")),
            condition,
        )
        for name in RULE_FILES
        for row in _rows(CORPUS_DIR / name)
        for text, condition in [learning.rule(row)]
    ]
    if generated:
        rules += generated_rules()
    legacy = {str(row["id"]): str(row["task"]) for row in _rows(LEGACY_TASKS)}
    swe = swe_dir or Path(os.environ.get("HEEDFUL_SWE_TOGETHER_DIR") or DEFAULT_SWE)
    corpus = Corpus(rules, [])
    for name in TASK_FILES:
        for row in _rows(CORPUS_DIR / name):
            text = learning.task(row) if "ref" in row else _task_text(row, legacy, swe)
            if text is None:
                corpus.skipped[str(row["source"])] = f"dataset not found at {swe}"
                continue
            corpus.tasks.append(
                TaskItem(
                    str(row["id"]),
                    str(row["source"]),
                    text,
                    _strings(row.get("involves")),
                    _strings(row.get("languages")),
                    _strings(row.get("applies")),
                    _strings(row.get("not_applies")),
                )
            )
    return corpus


class _LearningCorpus:
    """Lines of the learning corpus by id, read once per source file (a `ref` row's source names its file)."""

    def __init__(self) -> None:
        self._files: dict[str, dict[str, dict[str, object]]] = {}

    def _line(self, row: dict[str, object]) -> dict[str, object]:
        source, ref = str(row["source"]), str(row["ref"])
        if source not in self._files:
            self._files[source] = {str(line["id"]): line for line in _rows(LEARNING_CORPUS / f"{source}.jsonl")}
        try:
            return self._files[source][ref]
        except KeyError:
            raise ValueError(f"selection corpus: {row['id']} names {ref}, not a line of {source}.jsonl") from None

    def rule(self, row: dict[str, object]) -> tuple[str, str | None]:
        """A rule's text and condition: its own, or those of the atomic rule it names."""
        if "ref" not in row:
            return str(row["text"]), str(row["condition"]) if row.get("condition") else None
        atomic = self._line(row).get("rules")
        index = int(str(row.get("rule", 0)))
        if not isinstance(atomic, list) or not 0 <= index < len(atomic):
            raise ValueError(f"selection corpus: {row['id']} names rule {index} of {row['ref']}, which has none")
        chosen = atomic[index]
        return str(chosen["text"]), str(chosen["condition"]) if chosen.get("condition") else None

    def task(self, row: dict[str, object]) -> str:
        return str(self._line(row)["text"])


def _task_text(row: dict[str, object], legacy: dict[str, str], swe: Path) -> str | None:
    if "task" in row:
        return str(row["task"])
    provenance = row.get("provenance")
    if isinstance(provenance, dict) and provenance.get("id") in legacy:
        return legacy[str(provenance["id"])]
    if "task_dir" in row:
        path = swe / "tasks" / str(row["task_dir"]) / "oracle_intents.json"
        try:
            intents = json.loads(path.read_text(encoding="utf-8"))["intents"]
        except (OSError, ValueError, KeyError):
            return None
        for intent in intents:
            if intent.get("intent_id") == row.get("intent_id"):
                return str(intent["text"])
    return None


# Distractor rules generated from templates: other languages and tools, and life outside software.
_LANGUAGES = [
    "Kotlin",
    "Swift",
    "Haskell",
    "Elixir",
    "Scala",
    "Clojure",
    "Erlang",
    "OCaml",
    "Perl",
    "Zig",
    "Dart",
    "Lua",
    "Julia",
    "MATLAB",
    "Fortran",
    "COBOL",
]
_LANGUAGE_TEMPLATES = [
    ("When writing {x}, prefer immutable values.", ["code"]),
    ("In {x} code, keep modules under 300 lines.", ["code", "refactor"]),
    ("Format {x} files with the standard {x} formatter.", ["code"]),
    ("Put {x} tests next to the code they test.", ["tests"]),
    ("Document every exported {x} function with an example.", ["docs", "code"]),
    ("Commit the {x} dependency lockfile.", ["git", "deps"]),
    ("Compile {x} with all warnings enabled.", ["code"]),
]
_TOOLS = [
    "Terraform modules",
    "Ansible playbooks",
    "Kubernetes manifests",
    "Helm charts",
    "Unity scenes",
    "Arduino sketches",
    "Jenkins pipelines",
    "Nginx configs",
    "Airflow DAGs",
    "dbt models",
]
_TOOL_TEMPLATES = [
    ("When editing {x}, validate them before applying.", ["infra"]),
    ("Keep {x} in their own directory.", ["infra"]),
    ("Review {x} changes with a second person.", ["review"]),
]
_LIFE = [
    "When I ask for a poem, make it rhyme.",
    "Plan trips with at least one rest day.",
    "Write birthday messages in a warm, informal tone.",
    "Convert recipe quantities to grams.",
    "Suggest vegetarian options first for restaurant picks.",
    "Keep workout plans under 45 minutes.",
    "Use Celsius for weather.",
    "When drafting emails to my landlord, be formal.",
    "Recommend books with a short spoiler-free summary.",
    "For travel budgets, show prices in euros.",
    "Summarise podcasts in three bullet points.",
    "When planning meals, avoid peanuts.",
    "Write cover letters on one page.",
    "Use 24-hour time for schedules.",
    "Translate French menus literally.",
    "When suggesting gifts, keep them under fifty dollars.",
    "Describe paintings by colour first.",
    "Give chess advice in algebraic notation.",
    "When I ask for jokes, keep them clean.",
    "Format song lyrics with a blank line between verses.",
]


def generated_rules(seed: int = 7) -> list[RuleItem]:
    out = []
    for lang in _LANGUAGES:
        for template, governs in _LANGUAGE_TEMPLATES:
            text = template.format(x=lang)
            out.append(RuleItem("", "generated", text, governs, sorted(languages(text))))
    for tool in _TOOLS:
        for template, governs in _TOOL_TEMPLATES:
            text = template.format(x=tool)
            out.append(RuleItem("", "generated", text, governs, sorted(languages(text))))
    out += [RuleItem("", "generated", text, [], []) for text in _LIFE]
    random.Random(seed).shuffle(out)
    for i, rule in enumerate(out):
        rule.id = f"generated-{i:03d}"
    return out
