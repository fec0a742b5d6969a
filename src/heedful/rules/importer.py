"""`heedful rules import`: the rules people already wrote down, through the same pipeline as a correction.

    report = import_rules(hf, "me", ["CLAUDE.md"], dry_run=True)

Each directive of an instruction file (see `import_detect`) is interpreted into atomic candidates
(the interpretation step, evidence verified against the line), resolved, compiled and validated
(`compile_candidate`) exactly as a correction's would be; the evidence is the quote with its file
and line. The whole import is one library version.

Re-importing compares the file's directives with the rules this file produced before (`Origin`
in `source_text`), line text by line text: an unchanged line is a noop (a moved one only records
its new line number), a changed line updates or supersedes its rules, a removed line retracts the
rules it produced and only those. A candidate that an existing rule already states is `covered`
and creates nothing; one that contradicts a rule from elsewhere is stored `inactive`, so the
user's own corrections are never changed by an import.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np

from heedful.llm import run_step
from heedful.rules.import_detect import Detection, detect
from heedful.rules.import_files import Target, targets
from heedful.rules.import_lists import join_command_lists
from heedful.rules.import_match import card, exported_rule, related, relocate
from heedful.rules.import_origin import (
    LIBRARY_KIND,
    OP_PREFIX,
    Origin,
    display_path,
    owned_origin,
    read_stamps,
    stamp,
    stamps_key,
    write_stamps,
)
from heedful.rules.import_parse import Unit, parse
from heedful.rules.import_report import FileReport, ImportOp, ImportReport, LineReport, RuleOutcome
from heedful.rules.interpret import verify_evidence
from heedful.rules.library import compile_candidate, normalise_project, restate, row_for, rule_from_row
from heedful.rules.models import LIVE_STATUSES, Candidate, RuleStatus
from heedful.rules.parts import RuleParts
from heedful.rules.steps import ResolveInput, ResolveStep, interpreted

if TYPE_CHECKING:
    from heedful.api import Heedful
    from heedful.store.records import RuleRow


def import_rules(
    hf: Heedful, user: str, paths: Sequence[str | Path], project: str | Path | None = None, dry_run: bool = False
) -> ImportReport:
    """Import instruction files for `user`; with `dry_run` report what would happen and change nothing."""
    files = targets(list(paths), normalise_project(project))
    run = _Import(RuleParts.of(hf), user)
    reports = [run.file(target) for target in files]
    version = None
    if run.rows and not dry_run:
        names = ", ".join(display_path(str(t.path), t.project) for t in files)
        version = hf.store.rules.commit(user, LIBRARY_KIND, f"import {names}"[:120], run.rows)
        from heedful.rules.selection_readings import refresh

        refresh(run.parts, user)  # each imported rule's selection reading, stored for the hook
    if not dry_run:
        _record_stamps(hf, user, files)
    return ImportReport(dry_run=dry_run, library_version=version, files=reports)


def _record_stamps(hf: Heedful, user: str, files: Sequence[Target]) -> None:
    """Remember each file as imported, for SessionStart's "changed since it was imported" notice."""
    key = stamps_key(user)
    stamps = read_stamps(hf.store.get_meta(key))
    for target in files:
        stamps[str(target.path)] = stamp(target.path, target.text, target.scope, target.project)
    hf.store.set_meta(key, write_stamps(stamps))


def _listed(intro_line: int) -> Detection:
    """An item of a list of commands, read with the line that introduces it."""
    return Detection(False, f"a command of the list line {intro_line} introduces")


def _outcome(op: ImportOp, row: RuleRow, reason: str) -> RuleOutcome:
    check = row.check_spec
    return RuleOutcome(
        op=op,
        rule_id=row.id,
        text=row.text,
        status=row.status,
        reason=reason,
        check=None if check is None else {k: check.get(k) for k in ("kind", "stage", "params")},
    )


class _Import:
    """One import run: the library as it stands, and the revisions this run will commit."""

    def __init__(self, parts: RuleParts, user: str) -> None:
        self.parts = parts
        self.user = user
        self.repo = parts.repo
        self.live: list[RuleRow] = self.repo.rules_at(
            user, self.repo.latest_version(user), statuses=LIVE_STATUSES, any_project=True, with_embeddings=True
        )
        self.owned: dict[str, list[tuple[Origin, RuleRow]]] = {}
        for row in self.live:
            origin = owned_origin(row.source_text, row.op)
            if origin is not None:
                self.owned.setdefault(origin.file, []).append((origin, row))
        self.rows: list[RuleRow] = []
        self.created: list[RuleRow] = []
        self.touched: set[str] = set()

    # -- one file ------------------------------------------------------------------------------
    def file(self, target: Target) -> FileReport:
        file = str(target.path)
        units, absorbed = join_command_lists(parse(target.text))
        found = [
            (unit, _listed(absorbed[unit.line]) if unit.kind == "item" and unit.line in absorbed else detect(unit))
            for unit in units
        ]
        directives = [unit for unit, detection in found if detection.directive]
        lines = {
            id(unit): LineReport(line=unit.line, text=unit.text, directive=detection.directive, reason=detection.reason)
            for unit, detection in found
        }
        old: dict[tuple[int, str], list[RuleRow]] = {}
        for origin, row in sorted(self.owned.get(file, []), key=lambda item: item[0].line):
            old.setdefault((origin.line, origin.text), []).append(row)
        keys = list(old)
        matcher = difflib.SequenceMatcher(a=[text for _, text in keys], b=[u.text for u in directives], autojunk=False)
        removed: list[LineReport] = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for key, unit in zip(keys[i1:i2], directives[j1:j2], strict=True):
                    lines[id(unit)].rules = self._unchanged(target, unit, key[0], old[key])
                continue
            pool = [row for key in keys[i1:i2] for row in old[key]]
            for offset, unit in enumerate(directives[j1:j2]):
                # The diff pairs a rewritten line with the old line at the same place in the block.
                paired = old[keys[i1 + offset]] if i1 + offset < i2 else []
                lines[id(unit)].rules = self._read(target, unit, pool, paired)
            for key in keys[i1:i2]:
                left = {row.id for row in pool}
                gone = [row for row in old[key] if row.id in left]
                if gone:
                    removed.append(
                        LineReport(
                            line=key[0],
                            text=key[1],
                            directive=True,
                            removed=True,
                            reason="the line is no longer in the file",
                            rules=[self._retract(target, row, key) for row in gone],
                        )
                    )
        ordered = sorted([*lines.values(), *removed], key=lambda report: (report.line, not report.removed))
        return FileReport(
            file=file,
            display=display_path(file, target.project),
            scope=target.scope,
            project=target.project,
            lines=ordered,
        )

    def _origin(self, target: Target, unit: Unit) -> Origin:
        return Origin(file=str(target.path), line=unit.line, text=unit.text)

    def _unchanged(self, target: Target, unit: Unit, old_line: int, rows: list[RuleRow]) -> list[RuleOutcome]:
        if old_line == unit.line:
            return [_outcome("noop", row, "the line is unchanged") for row in rows]
        origin = self._origin(target, unit)
        out = []
        for row in rows:
            evidence = [relocate(quote, origin.location(target.project)) for quote in row.evidence]
            rule = rule_from_row(row)
            moved = row_for(
                row.id,
                self.user,
                self.repo.next_rule_version(self.user, row.id),
                restate(rule, evidence=evidence),
                row.scope,
                row.project,
                rule.status,
                rule.check,
                OP_PREFIX + "move",
                f"moved from line {old_line} to line {unit.line}",
                origin.source_text(),
                supersedes=row.supersedes,
                embedding=row.embedding,
            )
            self._add(moved)
            out.append(_outcome("moved", moved, moved.reason))
        return out

    def _retract(self, target: Target, row: RuleRow, key: tuple[int, str]) -> RuleOutcome:
        reason = f"line {key[0]} of {display_path(str(target.path), target.project)} was removed or changed"
        retracted = row_for(
            row.id,
            self.user,
            self.repo.next_rule_version(self.user, row.id),
            restate(rule_from_row(row)),
            row.scope,
            row.project,
            "retracted",
            None,
            "retract",
            reason,
            row.source_text,
            supersedes=row.supersedes,
        )
        self._add(retracted)
        return _outcome("retract", retracted, reason)

    # -- reading a directive -------------------------------------------------------------------
    def _candidates(self, unit: Unit) -> list[Candidate]:
        exported = exported_rule(unit)
        if exported is not None:
            return [exported]
        candidates = interpreted(self.parts.model, unit.text)
        return [c for c in candidates if not c.vague and verify_evidence(c, [unit.text])]

    def _read(
        self, target: Target, unit: Unit, pool: list[RuleRow], paired: Sequence[RuleRow] = ()
    ) -> list[RuleOutcome]:
        """A new or changed line: each candidate updates, supersedes or joins the rules it replaces."""
        candidates = self._candidates(unit)
        if not candidates:
            return [RuleOutcome(op="skipped", reason="no rule could be read from the line in its own words")]
        origin = self._origin(target, unit)
        location = origin.location(target.project)
        vectors = self.parts.embedder.embed([" ".join([c.text, c.condition or ""]) for c in candidates])
        out = []
        for candidate, vector in zip(candidates, vectors, strict=True):
            candidate = candidate.model_copy(update={"evidence": [f"{location}: {q}" for q in candidate.evidence]})
            out.append(self._resolve(target, origin, candidate, vector, pool, paired))
        return out

    def _resolve(
        self,
        target: Target,
        origin: Origin,
        candidate: Candidate,
        vector: np.ndarray,
        pool: list[RuleRow],
        paired: Sequence[RuleRow] = (),
    ) -> RuleOutcome:
        if pool:
            decision, previous = self._decide(candidate, vector, pool)
            if previous is not None and decision in ("noop", "update", "supersede"):
                pool[:] = [row for row in pool if row.id != previous.id]
                if decision == "supersede":
                    return self._new(target, origin, candidate, vector, supersedes=previous)
                return self._revise(target, origin, candidate, vector, previous)
        visible = [
            row
            for row in [*self.live, *self.created]
            if row.id not in self.touched and (row.scope == "global" or row.project == target.project)
        ]
        decision, existing = self._decide(candidate, vector, visible)
        fresh = existing is not None and any(row.id == existing.id for row in self.created)
        if existing is not None and decision == "noop":
            where = "imported earlier in this run" if fresh else "already in the library"
            return _outcome("covered", existing, f"rule {existing.id} ({where}) already says this")
        rewritten = [row for row in paired if any(row.id == left.id for left in pool)]
        if rewritten:  # the line was rewritten into something else: its rule gives way to the new one
            pool[:] = [row for row in pool if row.id != rewritten[0].id]
            return self._new(target, origin, candidate, vector, supersedes=rewritten[0])
        if existing is not None and decision == "supersede" and not fresh:
            return self._new(target, origin, candidate, vector, conflict=existing)
        return self._new(target, origin, candidate, vector)

    def _decide(self, candidate: Candidate, vector: np.ndarray, rows: list[RuleRow]) -> tuple[str, RuleRow | None]:
        near, similarities = related(candidate, vector, rows)
        if not near:
            return "new", None
        decision = run_step(
            self.parts.model,
            ResolveStep(),
            ResolveInput(candidate=candidate, related=[card(r) for r in near], similarities=similarities),
        )
        return decision.op, next((r for r in near if r.id == decision.target_id), None)

    # -- writing revisions ---------------------------------------------------------------------
    def _add(self, row: RuleRow) -> None:
        self.rows.append(row)
        self.touched.add(row.id)

    def _revise(
        self, target: Target, origin: Origin, candidate: Candidate, vector: np.ndarray, previous: RuleRow
    ) -> RuleOutcome:
        same = (candidate.text, candidate.condition, candidate.exceptions) == (
            previous.text,
            previous.condition,
            previous.exceptions,
        )
        status: RuleStatus
        if same:  # the line changed around this rule: keep its check, record the new line
            status, check, reason = (
                cast(RuleStatus, previous.status),  # a stored row's status is one of the literal set
                rule_from_row(previous).check,
                "the line changed, this rule did not",
            )
        else:
            outcome = compile_candidate(self.parts.model, candidate)
            status, check, reason = outcome.status, outcome.check, f"the line changed; {outcome.reason}"
        row = row_for(
            previous.id,
            self.user,
            self.repo.next_rule_version(self.user, previous.id),
            candidate,
            previous.scope,
            previous.project,
            status,
            check,
            OP_PREFIX + "update",
            reason,
            origin.source_text(),
            supersedes=previous.supersedes,
            embedding=vector,
        )
        self._add(row)
        return _outcome("update", row, reason)

    def _new(
        self,
        target: Target,
        origin: Origin,
        candidate: Candidate,
        vector: np.ndarray,
        supersedes: RuleRow | None = None,
        conflict: RuleRow | None = None,
    ) -> RuleOutcome:
        rule_id = self.parts.new_id()
        status: RuleStatus
        if conflict is not None:  # never change a rule from elsewhere: keep this one, switched off
            status, check = "inactive", None
            reason = f"contradicts rule {conflict.id} ({conflict.text!r}), which stays; edit one of them to decide"
        else:
            outcome = compile_candidate(self.parts.model, candidate)
            status, check, reason = outcome.status, outcome.check, outcome.reason
        op: ImportOp = "new"
        if supersedes is not None:
            op = "supersede"
            old = row_for(
                supersedes.id,
                self.user,
                self.repo.next_rule_version(self.user, supersedes.id),
                restate(rule_from_row(supersedes)),
                supersedes.scope,
                supersedes.project,
                "superseded",
                None,
                OP_PREFIX + "supersede",
                f"superseded by {rule_id}: the line changed",
                supersedes.source_text,
                supersedes=supersedes.supersedes,
                superseded_by=rule_id,
            )
            self._add(old)
        row = row_for(
            rule_id,
            self.user,
            1,
            candidate,
            target.scope,
            target.project,
            status,
            check,
            OP_PREFIX + op,
            reason,
            origin.source_text(),
            supersedes=None if supersedes is None else supersedes.id,
            embedding=vector,
        )
        self._add(row)
        self.created.append(row)
        return _outcome("conflict" if conflict is not None else op, row, reason)


__all__ = ["import_rules"]
