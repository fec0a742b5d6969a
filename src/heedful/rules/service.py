"""RuleService: learn, list, select, check, show, edit, retract, history, undo, export, adopt.

    hf = Heedful.open(home)
    hf.rules.learn("me", "never push to main")
    hf.rules.check("me", "pre_action", {"action": {"tool": "Bash", "command": "git push origin main"}})

Every write is one new immutable library version; a turn adopts one version and keeps it.
"""

from __future__ import annotations

import builtins
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.config import MAX_MESSAGE_CHARS
from heedful.errors import InputError, NotFoundError
from heedful.memory.redact import redact
from heedful.rules.listing import (
    ACTIVE_STATUSES,
    LIVE_STATUSES,
    PublicRule,
    listed_rule,
    normalise_project,
    rows_in_scope,
)
from heedful.rules.parts import RuleParts
from heedful.rules.proposals import Proposal, proposal_of

# Reading the library (`list`, `pending`, `adopt`) needs only `listing`: the pydantic models, the
# check kinds and the compiler load with the first operation that builds or compiles a rule.
if TYPE_CHECKING:
    import numpy as np

    from heedful.rules.models import CheckReport, ContextMessage, LearnResult, Rule, RuleSelection, RuleStatus, Source
    from heedful.rules.results import (
        Approval,
        LibraryUndo,
        RetractionProposal,
        RuleChange,
        RuleDetail,
        RuleExport,
        RuleRevision,
        RuleView,
    )
    from heedful.store.protocols import RuleStore

MAX_TEXT = MAX_MESSAGE_CHARS  # one limit for every message, defined in config
SOURCES: tuple[Source, ...] = ("user", "assistant", "tool", "file", "system")  # every `Source`


def _user(user_id: str) -> str:
    from heedful.ids import validate_user_id  # the one check every entry point shares

    return validate_user_id(user_id)


class RuleService:
    def __init__(self, parts: RuleParts) -> None:
        self.parts = parts

    @property
    def _repo(self) -> RuleStore:
        return self.parts.repo

    # -- learning ------------------------------------------------------------------------------
    def learn(
        self,
        user_id: str,
        text: str,
        project: str | Path | None = None,
        context: list[ContextMessage] | list[dict[str, Any]] | None = None,
        source: str = "user",
        proposed_by: str | None = None,
    ) -> LearnResult:
        """Examine one message; store what should last. Only `source="user"` can change rules.

        `proposed_by` names a channel that relays the user's words without being the user (the MCP
        server: the agent calls it): every change it would make is held as a proposal (`needs_user`).
        """
        started = time.perf_counter()
        user = _user(user_id)
        if not isinstance(text, str) or not text.strip():
            raise InputError("the message is empty")
        if len(text) > MAX_TEXT:
            raise InputError(f"the message is longer than {MAX_TEXT} characters")
        if source not in SOURCES:
            raise InputError(f"unknown source {source!r}; one of: {', '.join(SOURCES)}")
        if source == "user":
            _ = self.parts.embedder  # starts the embedder's load (a thread) before the learner's imports
        from heedful.rules import learn as learning  # the learner (numpy, the steps) loads only to learn
        from heedful.rules.models import LearnResult

        messages = learning.parse_context(context)
        project_path = normalise_project(project)
        if source != "user":
            return LearnResult(
                decision="none",
                scope=None,
                reasons=[
                    f"text from the {source} is data, not the user's instruction: it never creates or changes a rule"
                ],
            )
        if proposed_by is not None and (not isinstance(proposed_by, str) or not proposed_by.isidentifier()):
            raise InputError("proposed_by must be a short name such as 'mcp'")
        # Secrets are masked before the learner (and the embedder or a model) reads the message.
        text = redact(text).text
        messages = [m.model_copy(update={"text": redact(m.text).text}) for m in messages]
        result = learning.learn(self.parts, user, text, project_path, messages, proposed_by=proposed_by)
        refresh_readings(self.parts, user)  # each new rule's selection reading, stored for the hook
        result.elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
        return result

    # -- reading -------------------------------------------------------------------------------
    def version_for(self, user_id: str, session: str | None = None, turn: str | None = None) -> int:
        from heedful.rules.library import version_for

        return version_for(self._repo, user_id, session, turn)

    def adopt(self, user_id: str, session: str, turn: str) -> int:
        """Pin the latest library version for this user turn (idempotent within the turn)."""
        user = _user(user_id)
        if not session or not turn:
            raise InputError("adopting a library version needs a session id and a turn id")
        return int(self._repo.pin(user, str(session), str(turn)))

    def rules(
        self,
        user_id: str,
        project: str | Path | None = None,
        include_all: bool = False,
        library_version: int | None = None,
        statuses: tuple[str, ...] | None = None,
        with_embeddings: bool = False,
    ) -> list[Rule]:
        from heedful.rules.library import rule_from_row

        user = _user(user_id)
        version = self._repo.latest_version(user) if library_version is None else library_version
        wanted = statuses if statuses is not None else (None if include_all else LIVE_STATUSES)
        rows = rows_in_scope(
            self._repo,
            user,
            version,
            normalise_project(project),
            statuses=wanted,
            any_project=project is None,
            with_embeddings=with_embeddings,
        )
        return [rule_from_row(row) for row in rows]

    def list(self, user_id: str, project: str | Path | None = None, include_all: bool = False) -> list[PublicRule]:
        """Rules as `rules list --json` shows them; a pending proposal and its target name each other."""
        user = _user(user_id)
        rows = rows_in_scope(
            self._repo,
            user,
            self._repo.latest_version(user),
            normalise_project(project),
            statuses=None if include_all else LIVE_STATUSES,
            any_project=project is None,
        )
        rules = [listed_rule(row) for row in rows]
        pending = {p.rule_id: p for p in self.pending(user)}
        waiting: dict[str, builtins.list[str]] = {}
        for proposal in pending.values():
            if proposal.target:
                waiting.setdefault(proposal.target, []).append(proposal.rule_id)
        for rule in rules:
            if rule["id"] in pending:
                rule["proposal"] = pending[rule["id"]].public()
            if rule["id"] in waiting:
                rule["pending"] = waiting[rule["id"]]
        return rules

    def pending(self, user_id: str) -> builtins.list[Proposal]:
        """Changes waiting for the user's approval (every project)."""
        user = _user(user_id)
        rows = self._repo.rules_at(user, self._repo.latest_version(user), statuses=("needs_user",), any_project=True)
        return [p for p in (proposal_of(row) for row in rows) if p is not None]

    def get(self, user_id: str, rule_id: str) -> Rule:
        from heedful.rules.library import rule_from_row

        user = _user(user_id)
        row = self._repo.rule_at(user, rule_id, self._repo.latest_version(user))
        if row is None:
            raise NotFoundError(f"no rule {rule_id!r} for user {user!r}")
        return rule_from_row(row)

    # The operations below answer with their typed result (see `rules/results.py`); its
    # `model_dump(mode="json")` is the CLI's `--json` and the HTTP API's body.
    def show(self, user_id: str, rule_id: str) -> RuleDetail:
        """`RuleDetail`: the rule, why it is as it is, its validation cases and its number of revisions."""
        from heedful.rules.results import RuleDetail

        rule = self.get(user_id, rule_id)
        detail = {
            **rule.public(),
            "reason": rule.reason,
            "source_text": rule.source_text,
            "cases": [] if rule.check is None else rule.check.cases,
            "history": len(self._repo.history(rule.user_id, rule_id)),
        }
        return RuleDetail.model_validate(detail)

    def history(self, user_id: str, rule_id: str) -> builtins.list[RuleRevision]:
        """`RuleRevision` per stored revision, oldest first."""
        from heedful.rules.results import RuleRevision

        user = _user(user_id)
        rows = self._repo.history(user, rule_id)
        if not rows:
            raise NotFoundError(f"no rule {rule_id!r} for user {user!r}")
        fields = RuleRevision.model_fields
        return [RuleRevision.model_validate({name: getattr(r, name) for name in fields}) for r in rows]

    # -- selection and checking (rules/service_checks.py) ----------------------------------------
    def select(
        self,
        user_id: str,
        task: str,
        message: str | None = None,
        project: str | Path | None = None,
        session: str | None = None,
        turn: str | None = None,
    ) -> RuleSelection:
        """The applicable active rules for a task, and every checked rule in scope."""
        from heedful.rules.service_checks import select_rules

        return select_rules(self.parts, user_id, task, message, project, session, turn)

    def check(
        self,
        user_id: str,
        stage: str,
        evidence: dict[str, Any],
        project: str | Path | None = None,
        session: str | None = None,
        turn: str | None = None,
        rule_ids: builtins.list[str] | None = None,
    ) -> CheckReport:
        """Every checked rule of the stage judged on the evidence; `blocked` when any check is violated."""
        from heedful.rules.service_checks import check_evidence

        return check_evidence(self.parts, user_id, stage, evidence, project, session, turn, rule_ids)

    # -- people editing rules ------------------------------------------------------------------
    def edit(
        self,
        user_id: str,
        rule_id: str,
        text: str | None = None,
        condition: str | None = None,
        exceptions: builtins.list[str] | None = None,
        approve: bool = False,
    ) -> RuleChange | Approval:
        """A new revision from the user's own edit (their words are its evidence); recompiled.

        With `approve` alone: what `approve` answers (`Approval` of a proposal)."""
        rule = self.get(user_id, rule_id)
        if rule.status in ("retracted", "superseded"):
            raise InputError(f"rule {rule_id} is {rule.status}; learn a new rule instead")
        if approve and text is None and condition is None and exceptions is None:
            return self.approve(user_id, rule_id)
        proposal = self._proposal(rule.user_id, rule.id)
        if proposal is not None and proposal.change != "new":
            raise InputError(
                f"{rule_id} is a proposed {proposal.change} of {proposal.target}: approve it with "
                f"--approve alone, or reject it with `heedful rules retract {rule_id}`"
            )
        if text is not None and not text.strip():
            raise InputError("the rule text is empty")
        changes: dict[str, Any] = {}
        if text is not None and text.strip() != rule.text:
            changes["text"] = text.strip()
        if condition is not None and (condition.strip() or None) != rule.condition:
            changes["condition"] = condition.strip() or None
        if exceptions is not None and [e.strip() for e in exceptions if e.strip()] != rule.exceptions:
            changes["exceptions"] = [e.strip() for e in exceptions if e.strip()]
        if not changes and not (approve and rule.status == "needs_user"):
            raise InputError("nothing to change: give a new text, condition or exceptions")
        return self._revise(rule, changes, approve)

    def _revise(self, rule: Rule, changes: dict[str, Any], approve: bool) -> RuleChange:
        from heedful.rules.library import compile_candidate, restate, row_for
        from heedful.rules.results import RuleChange

        quotes = [q for q in (changes.get("text"), changes.get("condition"), *changes.get("exceptions", [])) if q]
        candidate = restate(rule, **changes)
        candidate = candidate.model_copy(update={"evidence": list(dict.fromkeys([*rule.evidence, *quotes]))})
        outcome_status: RuleStatus
        if rule.status == "needs_user" and not approve:
            outcome_status, check, reason = "needs_user", None, rule.reason
        else:
            outcome = compile_candidate(self.parts.model, candidate)
            outcome_status, check, reason = outcome.status, outcome.check, outcome.reason
        row = row_for(
            rule.id,
            rule.user_id,
            self._repo.next_rule_version(rule.user_id, rule.id),
            candidate,
            rule.scope,
            rule.project,
            outcome_status,
            check,
            "update",
            reason,
            "edited by the user" if changes else "approved by the user",
            supersedes=rule.supersedes,
            embedding=self._embed_one(candidate.text, candidate.condition),
        )
        version = self._repo.commit(
            rule.user_id, "approve" if approve and not changes else "edit", f"edit {rule.id}", [row]
        )
        refresh_readings(self.parts, rule.user_id)
        return RuleChange(library_version=version, rule=self._view(rule.user_id, rule.id))

    def _view(self, user_id: str, rule_id: str) -> RuleView:
        from heedful.rules.results import RuleView

        return RuleView.of(self.get(user_id, rule_id).public())

    def approve(self, user_id: str, rule_id: str) -> RuleChange | Approval:
        """The user's approval: apply a pending proposal (by its id or its target's) or activate a held rule.

        `Approval` of a proposal, `RuleChange` of a held rule."""
        from heedful.rules.library import rule_from_row
        from heedful.rules.proposals import approval_rows
        from heedful.rules.results import Approval

        user = _user(user_id)
        latest = self._repo.latest_version(user)
        row = self._repo.rule_at(user, rule_id, latest)
        if row is None:
            raise NotFoundError(f"no rule {rule_id!r} for user {user!r}")
        proposal = proposal_of(row)
        if proposal is None and row.status != "needs_user":
            waiting = [p for p in self.pending(user) if p.target == rule_id]
            if len(waiting) != 1:
                raise InputError(
                    f"rule {rule_id} is {row.status}: nothing waits for approval"
                    if not waiting
                    else f"several changes of {rule_id} wait for approval: approve one of "
                    f"{', '.join(p.rule_id for p in waiting)}"
                )
            proposal = waiting[0]
            row = self._repo.rule_at(user, proposal.rule_id, latest)
            if row is None:
                raise NotFoundError(f"no rule {proposal.rule_id!r} for user {user!r}")
        if proposal is None:  # a rule held because it would weaken a safeguard
            return self._revise(rule_from_row(row), {}, approve=True)
        rows = approval_rows(self._repo, self.parts.model, user, proposal, row)
        for new in rows:
            if new.status in ACTIVE_STATUSES:
                new.embedding = self._embed_one(new.text, new.condition)
        version = self._repo.commit(user, "approve", f"approve {proposal.change} {proposal.rule_id}", rows)
        refresh_readings(self.parts, user)
        applied = proposal.target if proposal.change in ("retract", "update") else proposal.rule_id
        return Approval(
            library_version=version, approved=proposal.public(), rule=self._view(user, applied or proposal.rule_id)
        )

    def propose_retract(self, user_id: str, rule_id: str, reason: str, source: str) -> RetractionProposal:
        """A retraction someone other than the user asks for: held until the user approves it."""
        from heedful.rules.results import RetractionProposal

        rule = self.get(user_id, rule_id)
        if rule.status in ("retracted", "superseded"):
            raise InputError(f"rule {rule_id} is already {rule.status}")
        if self._proposal(rule.user_id, rule.id) is not None:
            raise InputError(f"{rule_id} is itself a proposal; only the user can approve or reject it")
        waiting = next((p for p in self.pending(rule.user_id) if p.change == "retract" and p.target == rule.id), None)
        if waiting is None:
            from heedful.rules.proposals import retraction_row

            row = retraction_row(
                self.parts.new_id(), rule.user_id, rule, [], source, reason.strip() or "no reason given", reason
            )
            version = self._repo.commit(rule.user_id, "learn", f"propose retract {rule.id}", [row])
            waiting = proposal_of(row)
        else:
            version = self._repo.latest_version(rule.user_id)
        assert waiting is not None
        return RetractionProposal(
            library_version=version,
            proposal=waiting.public(),
            rule=self._view(user_id, rule_id),
            note=f"the rule stays in force until the user approves: heedful rules edit {waiting.rule_id} --approve",
        )

    def _proposal(self, user: str, rule_id: str) -> Proposal | None:
        row = self._repo.rule_at(user, rule_id, self._repo.latest_version(user))
        return None if row is None else proposal_of(row)

    def retract(self, user_id: str, rule_id: str, reason: str = "retracted by the user") -> RuleChange:
        from heedful.rules.library import restate, row_for
        from heedful.rules.results import RuleChange

        rule = self.get(user_id, rule_id)
        if rule.status in ("retracted", "superseded"):
            raise InputError(f"rule {rule_id} is already {rule.status}")
        if self._proposal(rule.user_id, rule.id) is not None:
            reason = "rejected by the user" if reason == "retracted by the user" else reason
        row = row_for(
            rule.id,
            rule.user_id,
            self._repo.next_rule_version(rule.user_id, rule.id),
            restate(rule),
            rule.scope,
            rule.project,
            "retracted",
            None,
            "retract",
            reason,
            reason,
        )
        version = self._repo.commit(rule.user_id, "retract", f"retract {rule.id}", [row])
        return RuleChange(library_version=version, rule=self._view(user_id, rule_id))

    def undo(self, user_id: str) -> LibraryUndo:
        """Undo the latest library version (as a new version that restores the one before)."""
        from heedful.rules.results import LibraryUndo

        user = _user(user_id)
        done = self._repo.undo(user)
        if done is None:
            raise InputError("nothing to undo")
        refresh_readings(self.parts, user)  # a reading pruned since is made again
        return LibraryUndo(undone=done[0], library_version=done[1])

    def export(
        self,
        user_id: str,
        directory: str | Path,
        project: str | Path | None = None,
        agents_file: str | Path | None = None,
    ) -> RuleExport:
        """One Markdown file per live rule (plus an index), and optionally an AGENTS.md section."""
        from heedful.rules.library import agents_section, markdown, markdown_name
        from heedful.rules.results import RuleExport

        rules = self.rules(user_id, project)
        target = Path(directory).expanduser()
        if target.exists() and not target.is_dir():
            raise InputError(f"{target} exists and is not a directory")
        target.mkdir(parents=True, exist_ok=True)
        written = []
        for rule in rules:
            path = target / markdown_name(rule)
            path.write_text(markdown(rule), encoding="utf-8")
            written.append(str(path))
        index = ["# Learned rules", ""] + [f"- [{r.text}]({markdown_name(r)}) — {r.status}, {r.scope}" for r in rules]
        (target / "INDEX.md").write_text("\n".join(index) + "\n", encoding="utf-8")
        if agents_file is not None:
            active = [r for r in rules if r.status in ACTIVE_STATUSES]
            Path(agents_file).expanduser().write_text(agents_section(active), encoding="utf-8")
        return RuleExport(
            directory=str(target),
            files=written,
            count=len(written),
            agents_file=None if agents_file is None else str(agents_file),
        )

    def _embed_one(self, text: str, condition: str | None) -> np.ndarray:
        return self.parts.embedder.embed([" ".join([text, condition or ""])])[0]


__all__ = ["RuleService", "normalise_project"]


def refresh_readings(parts: RuleParts, user_id: str) -> None:
    """Store the selection reading of every live rule that lacks one (loaded only when a rule changed)."""
    from heedful.rules.selection_readings import refresh

    refresh(parts, user_id)
