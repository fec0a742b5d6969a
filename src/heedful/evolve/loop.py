"""One run of the outer loop: traces, proposal, critic, fixed evaluation, record; for N rounds.

The benchmark's users are ingested into scratch homes, once per distinct way a version writes
memory (`memories.Memories`): a change to recall or layout is scored on the memory already
stored, a change to extraction or retraction on memory written its way. Each round traces the
current version on the development split, lets the proposer change a copy of its parameters,
screens the diff, checks the evaluator's hash and scores current against candidate on both
validation halves. Every candidate is logged; an
accepted one becomes the next harness version, which later rounds build on. The default
version changes only on `heedful evolve adopt`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from heedful.evolve import evaluator as ev
from heedful.evolve import log
from heedful.evolve.agents import SCRIPTED
from heedful.evolve.critic import DatasetVocabulary, review
from heedful.evolve.freeze import check_frozen
from heedful.evolve.memories import Memories
from heedful.evolve.proposer import run_proposer
from heedful.evolve.readers import ReaderPlan, plan
from heedful.evolve.traces import write_traces
from heedful.harness.context import ParamHarness
from heedful.harness.params import HarnessParams
from heedful.harness.sandbox import LayoutError, builtin_source, home_folders, layout_for
from heedful.harness.versions import default_version, get_harness, save_version


@dataclass(frozen=True, slots=True)
class EvolveConfig:
    home: Path  # where versions and the log live
    data: Path
    bench: str = "locomo"
    proposer: str = SCRIPTED
    critic: str | None = None
    rounds: int = 1
    embedder: str = "minilm"
    per_split: int | None = None  # only the first N users of each split (a smaller, still fixed, run)
    per_user: int | None = None  # only the first N questions of each user (for a slow model reader)
    timeout: float = 1800.0
    reader: str | None = None  # a model spec: answers are the first reader (offline: evidence recall)
    second_reader: str | None = None  # a model spec guarding the first (default with a reader: evidence)


def sha256_of(path: Path) -> str:
    """The data's hash: a file's bytes, or a folder's files (relative path and bytes) in sorted order."""
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        if path.is_dir():
            digest.update(file.relative_to(path).as_posix().encode() + b"\0")
        with file.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def run(config: EvolveConfig, say: Callable[[str], None] = lambda _: None) -> list[log.CandidateRecord]:
    from heedful.bench.locomo import CATEGORIES

    check_frozen()
    splits = ev.splits_for(config.bench)
    data_sha = sha256_of(config.data)
    parts = {
        name: [
            dataclasses.replace(unit, questions=unit.questions[: config.per_user or None])
            for unit in ev.load_units(config.data, splits.part(name, config.per_split), config.bench)
        ]
        for name in ev.SPLIT_NAMES
    }
    every_user = ev.load_units(
        config.data, tuple(i for name in ev.SPLIT_NAMES for i in splits.part(name)), config.bench
    )
    labels = {str(q.category) for u in every_user for q in u.questions} if config.bench == "beam" else set()
    vocabulary = DatasetVocabulary.of(every_user, [*CATEGORIES.values(), *sorted(labels)])
    readers = plan(config.reader, config.second_reader, config.home)
    hidden = (config.data,)  # what a layout's sandbox must not read, besides the home
    current = get_harness(default_version(config.home), config.home, hidden)  # a bad version file stops here
    records: list[log.CandidateRecord] = []
    with tempfile.TemporaryDirectory(prefix="heedful-evolve-") as scratch:
        memories = Memories(Path(scratch), config.embedder, parts, say)
        try:
            baseline: dict[str, ev.SplitScore] = {}
            for number in range(1, config.rounds + 1):
                record = one_round(config, memories, current, vocabulary, readers, baseline, number, data_sha, say)
                log.append(config.home, record)
                records.append(record)
                say(f"round {number}: {record.decision}: {record.reason}")
                if record.version:
                    current.close()
                    current = get_harness(record.version, config.home, hidden)
                    baseline.clear()
        finally:
            current.close()
            memories.close()
    return records


def one_round(
    config: EvolveConfig,
    memories: Memories,
    current: ParamHarness,
    vocabulary: DatasetVocabulary,
    readers: ReaderPlan,
    baseline: dict[str, ev.SplitScore],
    number: int,
    data_sha: str,
    say: Callable[[str], None],
) -> log.CandidateRecord:
    stamp = log.now_text().replace(":", "").replace("+0000", "Z")
    candidate_id = f"{stamp}-r{number}-{secrets.token_hex(2)}"
    folder = log.evolve_dir(config.home) / "runs" / candidate_id
    say(f"round {number}: tracing {current.name} on the development split")
    memory = memories.of(current.params)
    traces = write_traces(current, memory.hf, memory.parts["development"], folder / "traces")
    say(f"round {number}: {traces.failures} of {traces.questions} development questions missed; proposing")
    base_layout = current.layout_source or builtin_source()
    proposal = run_proposer(
        config.proposer, folder / "workspace", traces.folder, current.name, current.params, base_layout, config.timeout
    )
    record = log.CandidateRecord(
        id=candidate_id,
        at=log.now_text(),
        round=number,
        bench=config.bench,
        data_sha256=data_sha,
        embedder=config.embedder,
        per_split=config.per_split,
        per_user=config.per_user,
        evaluator_sha256=check_frozen(),
        base=current.name,
        proposer=proposal.to_json(),
        diff=proposal.diff,
        development=traces.to_json(),
        decision="refused",
        reason="",
    )
    if proposal.refused or proposal.params is None:
        record.reason = proposal.refused or "no parameters"
        return record
    record.params_changed = changed_params(current, proposal.params)
    record.layout_changed = proposal.layout != base_layout
    verdict = review(proposal.diff, vocabulary, config.critic, traces.folder, folder / "critic", config.timeout)
    record.critic = verdict.to_json()
    record.clusters, record.clustered_by = verdict.clusters, verdict.clustered_by
    if verdict.decision == "reject":
        record.decision = "rejected"
        record.reason = "the critic rejected it: " + "; ".join(verdict.static + verdict.reasons)
        return record
    record.evaluator_sha256 = check_frozen()  # the proposer and critic ran arbitrary commands since the last check
    layout_code = None if proposal.layout == builtin_source() else proposal.layout
    try:
        layout = layout_for(layout_code, hidden=home_folders(config.home, config.data))
    except LayoutError as exc:
        record.reason = f"the candidate's layout cannot be scored: {exc}"
        return record
    candidate = ParamHarness(f"{current.name}+{candidate_id}", proposal.params, layout, layout_code)
    comparisons, guards = [], []
    record.readers = readers.names
    try:
        written = memories.of(proposal.params)  # the same memory unless the candidate writes it differently
        for split in ev.VALIDATION:
            say(f"round {number}: scoring {current.name} and the candidate on {split}")
            if split not in baseline:
                baseline[split] = ev.score(current, memory.hf, memory.parts[split], split, readers.readers)
            scored = ev.score(candidate, written.hf, written.parts[split], split, readers.readers)
            comparisons.append(ev.compare(baseline[split], scored, readers.first))
            if readers.second:
                guards.append(ev.compare(baseline[split], scored, readers.second))
    except LayoutError as exc:
        record.reason = f"the candidate's layout failed while it was scored: {exc}"
        return record
    finally:
        candidate.close()
    record.validation = [c.to_json() for c in comparisons]
    record.second_reader = [c.to_json() for c in guards]
    accepted, record.reason = ev.acceptance(comparisons, guards or None)
    record.decision = "accepted" if accepted else "rejected"
    if accepted:
        note = f"accepted by evolve candidate {candidate_id}"
        record.version = save_version(proposal.params, current.name, note, config.home, layout_code).name
    return record


def changed_params(current: ParamHarness, params: HarnessParams) -> dict[str, object]:
    """Each changed parameter, from -> to; a changed group (extraction, retraction) by its changed fields."""
    before, after = current.params.model_dump(), params.model_dump()
    changed: dict[str, object] = {}
    for key, value in after.items():
        old = before.get(key)
        if old == value:
            continue
        if isinstance(old, dict) and isinstance(value, dict) and key in ("extraction", "retraction"):
            for field, inner in value.items():
                if old.get(field) != inner:
                    changed[f"{key}.{field}"] = {"from": old.get(field), "to": inner}
        else:
            changed[key] = {"from": old, "to": value}
    return changed
