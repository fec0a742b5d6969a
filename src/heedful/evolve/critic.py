"""The critic: a built-in static shortcut check, then (optionally) a second command's JSON verdict.

The shortcut rule: no change keyed to the dataset, meaning its speakers' names, its question
wordings (any run of four words of a question), its turn, conversation or user ids, its category
labels or its multi-word answers. Only the lines a diff adds are checked. The critic command reads
the traces and the diff in a fresh folder, clusters the failures itself and prints
{"decision": "accept"|"reject", "reasons": [...], "clusters": [{"label", "traces", "count"}]};
an answer that cannot be read counts as a rejection (a gate that cannot be read does not pass).
Without a command, or when its answer has no clusters, the failures are clustered by the built-in
rule (`heedful.evolve.clusters`: the step that lost the evidence, and the question's category).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from heedful.evolve.agents import PROMPT_FILE, child_environment
from heedful.evolve.clusters import FailureCluster, answered_clusters, builtin_clusters, traced_failures
from heedful.evolve.evaluator import Unit
from heedful.evolve.files import write_private
from heedful.evolve.proposer import OUTPUT_LIMIT

Decision = Literal["accept", "reject"]
ClusteredBy = Literal["built-in", "critic"]
TEMPLATE_WORDS = 4
PROMPT_FAILURES = 40  # missed questions quoted in a critic's prompt
PROMPT_DIFF = 40_000  # characters of the diff quoted there
_WORD = re.compile(r"[\w'’]+", re.UNICODE)
_IDS = (
    (re.compile(r"\bD\d+:\d+\b"), "a turn id"),
    (re.compile(r"\bconv-\d+\b", re.IGNORECASE), "a conversation id"),
    (re.compile(r"\blocomo[-_]\d+", re.IGNORECASE), "a benchmark user id"),
    (re.compile(r"\bbeam[-_]\d+", re.IGNORECASE), "a benchmark user id"),
    (re.compile(r"\bbatch[-_]\d+\b", re.IGNORECASE), "a session id"),
    (re.compile(r"\bsession[_-]\d+\b", re.IGNORECASE), "a session id"),
)
CRITIC_BRIEF = """\
# Review a proposed harness change

`traces/development.jsonl` holds the failures the proposer saw (one JSON line each, with its
`id`); `candidate.diff` is its change. Cluster the failures yourself by their cause, then judge
the change: does it address a cause that would recur for other users, or is it keyed to this
dataset (speaker names, question templates, ids, labels, answers)? Print one JSON object:
{"decision": "accept" or "reject", "reasons": ["..."],
 "clusters": [{"label": "what these failures share", "traces": ["<id>", ...], "count": <how many>}]}
"""


@dataclass(slots=True)
class Verdict:
    decision: Decision
    static: list[str] = field(default_factory=list)  # the shortcut check's findings
    reasons: list[str] = field(default_factory=list)  # the critic command's reasons
    command: str | None = None
    exit_code: int | None = None
    output: str = ""
    # The failures, clustered: by the command when it answered clusters, else by the built-in rule
    # (kept in the log beside the verdict, see CandidateRecord.clusters).
    clusters: list[FailureCluster] = field(default_factory=list)
    clustered_by: ClusteredBy = "built-in"
    notes: list[str] = field(default_factory=list)  # what was dropped from the command's clusters

    def to_json(self) -> dict[str, object]:
        return {
            "decision": self.decision,
            "static": self.static,
            "reasons": self.reasons,
            "notes": self.notes,
            "command": self.command,
            "exit_code": self.exit_code,
            "output": self.output,
        }


@dataclass(frozen=True, slots=True)
class DatasetVocabulary:
    """What a change must not be keyed to, gathered from every user of the benchmark (not only the traced)."""

    speakers: frozenset[str]
    question_grams: frozenset[tuple[str, ...]]
    answers: frozenset[str]
    labels: frozenset[str]

    @classmethod
    def of(cls, units: list[Unit], labels: list[str]) -> DatasetVocabulary:
        speakers = {s.lower() for u in units for s in u.speakers if len(s) > 1}
        grams: set[tuple[str, ...]] = set()
        answers: set[str] = set()
        for unit in units:
            for question in unit.questions:
                words = tokens(question.question)
                grams.update(tuple(words[i : i + TEMPLATE_WORDS]) for i in range(len(words) - TEMPLATE_WORDS + 1))
                answer = " ".join(tokens(question.answer))
                if len(answer.split()) >= 2:
                    answers.add(answer)
        return cls(frozenset(speakers), frozenset(grams), frozenset(answers), frozenset(x.lower() for x in labels))


def tokens(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def added_lines(diff: str) -> list[str]:
    return [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]


def shortcut_findings(diff: str, vocabulary: DatasetVocabulary) -> list[str]:
    """Every way the lines the diff adds are keyed to the dataset (empty: none found)."""
    findings: list[str] = []
    for line in added_lines(diff):
        words = tokens(line)
        joined = " ".join(words)
        for pattern, what in _IDS:
            for match in pattern.findall(line):
                findings.append(f"keyed to {what}: {match!r}")
        for speaker in sorted(vocabulary.speakers & set(words)):
            findings.append(f"keyed to a speaker's name: {speaker!r}")
        for label in sorted(vocabulary.labels):
            if re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", line.lower()):
                findings.append(f"keyed to a category label: {label!r}")
        for i in range(len(words) - TEMPLATE_WORDS + 1):
            gram = tuple(words[i : i + TEMPLATE_WORDS])
            if gram in vocabulary.question_grams:
                findings.append(f"keyed to a question's wording: {' '.join(gram)!r}")
                break
        for answer in sorted(vocabulary.answers):
            if f" {answer} " in f" {joined} ":
                findings.append(f"keyed to a gold answer: {answer!r}")
    return list(dict.fromkeys(findings))


def verdict_object(output: str) -> dict[str, object] | None:
    """The last JSON object in the output with a valid decision, or None."""
    for line in reversed([*output.splitlines(), output]):
        start = line.find("{")
        if start < 0:
            continue
        try:
            data = json.loads(line[start : line.rfind("}") + 1])
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("decision") in ("accept", "reject"):
            return data
    return None


def parse_verdict(output: str) -> tuple[Decision, list[str]] | None:
    """The decision and reasons of the output's verdict, or None."""
    data = verdict_object(output)
    if data is None:
        return None
    decision: Decision = "accept" if data["decision"] == "accept" else "reject"
    reasons = data.get("reasons", [])
    return decision, [str(r) for r in reasons] if isinstance(reasons, list) else [str(reasons)]


def critic_prompt(diff: str, traces: Path) -> str:
    """The brief, the failures in short and the diff in one text, for a critic that reads only its prompt."""
    summary = traces / "summary.json"
    failures = summary.read_text(encoding="utf-8") if summary.is_file() else "{}"
    lines = []
    development = traces / "development.jsonl"
    if development.is_file():
        for line in development.read_text(encoding="utf-8").splitlines()[:PROMPT_FAILURES]:
            trace = json.loads(line)
            lines.append(
                f"- [{trace.get('id', '')!s}] {trace.get('question', '')!s} (gold: {trace.get('gold_answer', '')!s})"
            )
    quoted = "\n".join(lines)
    return (
        f"{CRITIC_BRIEF}\n## Where the missed evidence stood\n\n{failures}\n\n"
        f"## The first {len(lines)} missed questions\n\n{quoted}\n\n## candidate.diff\n\n{diff[:PROMPT_DIFF]}\n"
    )


def review(
    diff: str, vocabulary: DatasetVocabulary, command: str | None, traces: Path, folder: Path, timeout: float
) -> Verdict:
    static = shortcut_findings(diff, vocabulary)
    failures = traced_failures(traces / "development.jsonl")
    verdict = Verdict(
        decision="reject" if static else "accept", static=static, command=command, clusters=builtin_clusters(failures)
    )
    if command is None:
        return verdict
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    shutil.copytree(traces, folder / "traces", dirs_exist_ok=True)
    write_private(folder / "candidate.diff", diff)
    write_private(folder / "BRIEF.md", CRITIC_BRIEF)
    write_private(folder / PROMPT_FILE, critic_prompt(diff, traces))
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", command],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
            env=child_environment(),
        )
    except subprocess.TimeoutExpired:
        verdict.decision, verdict.reasons = "reject", [f"the critic did not answer within {timeout:g} s"]
        return verdict
    verdict.exit_code = done.returncode
    verdict.output = (done.stdout + ("\n" + done.stderr if done.stderr.strip() else ""))[-OUTPUT_LIMIT:]
    parsed = parse_verdict(done.stdout) if done.returncode == 0 else None
    if parsed is None:
        verdict.decision = "reject"
        verdict.reasons = [f"the critic's answer is not a JSON verdict (exit status {done.returncode})"]
        return verdict
    decision, verdict.reasons = parsed
    answered = verdict_object(done.stdout) or {}
    clusters, verdict.notes = answered_clusters(answered.get("clusters"), {str(t.get("id")) for t in failures})
    if clusters:
        verdict.clusters, verdict.clustered_by = clusters, "critic"
    if decision == "reject":
        verdict.decision = "reject"
    return verdict
