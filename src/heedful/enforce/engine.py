"""The execution layer: turns, evidence per stage, judgments and interventions for one user.

    enforcer = Enforcer(repo, "me", evaluate, platform="claude-code")
    enforcer.user_prompt("s1", "add a dependency", cwd)       # adopt, select, queue learning
    enforcer.pre_tool("s1", "Bash", {"command": "pip install x"}, cwd)   # -> Outcome("deny", ...)

A turn adopts one rule-library version and keeps it (and the selected rules) until the next user
prompt. Interventions share a repair budget of 3 per turn across rules and stages; an artifact or
reply violation found after that is recorded as unresolved and let through, while a forbidden
action is still denied. Platform adapters turn an `Outcome`
into the platform's answer; nothing here knows a payload format.

Every decision is made from reads. What an event would store (the session, the turn and its
pinned version, a used repair, tool events, judgments) is collected as `Write`s: applied at the
end of each call, or, with `defer_writes` (the hook), handed over after the answer is printed, so
that a database locked by another writer delays the record, never the decision. `waiting` gives
the writes of earlier events still in the spool, which every read of a session goes through.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from heedful.config import MAX_MESSAGE_CHARS
from heedful.enforce import bounds, judge, messages, shown, tools
from heedful.enforce.decide import AppealReviewer, Decider
from heedful.enforce.judge import Evaluate
from heedful.enforce.ledger import SessionView, Write, WriteOp
from heedful.enforce.project import lineage, project_root
from heedful.enforce.results import AppealOutcome, AppealResult, Outcome, PromptResult

if TYPE_CHECKING:
    from heedful.api import Heedful
    from heedful.store.enforce_records import ActiveRule, SessionState, ToolEvent, TurnState
    from heedful.store.protocols import EnforceStore

__all__ = ["REPAIR_BUDGET", "AppealResult", "Enforcer", "Outcome", "PromptResult", "env_project_dir", "for_heedful"]
APPEAL_OUTCOMES: frozenset[str] = frozenset({"appeal_refused", "appeal_upheld", "appeal_overturned"})

REPAIR_BUDGET = 3
MAX_CONTEXT_TEXT = 4_000
Waiting = Callable[[str, str], Sequence[Write]]  # (user, session) -> writes not stored yet, oldest first
P = ParamSpec("P")
R = TypeVar("R")


def _stores_writes(method: Callable[P, R]) -> Callable[P, R]:
    """Apply the event's writes when it returns, unless the caller applies them (`defer_writes`)."""

    @functools.wraps(method)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        enforcer = args[0]
        assert isinstance(enforcer, Enforcer)
        try:
            result = method(*args, **kwargs)
        except BaseException:
            if not enforcer.defer_writes:
                enforcer.take_writes()  # a failed event stores nothing
            raise
        if not enforcer.defer_writes:
            enforcer.repo.apply(enforcer.take_writes())
        return result

    return run


class Enforcer:
    def __init__(
        self,
        repo: EnforceStore,
        user_id: str,
        evaluate: Evaluate,
        platform: str = "claude-code",
        budget: int = REPAIR_BUDGET,
        project_dir: str | None = None,
        appeal_reviewer: AppealReviewer | None = None,
        waiting: Waiting | None = None,
        defer_writes: bool = False,
    ) -> None:
        self.repo = repo
        self.waiting = waiting
        self.defer_writes = defer_writes
        self.writes: list[Write] = []
        self.appeal_reviewer = appeal_reviewer
        self.user = user_id
        self.evaluate = evaluate
        self.platform = platform
        self.budget = budget
        self.project_dir = project_dir
        self._rules: dict[tuple[int, str | None], list[ActiveRule]] = {}

    # -- writes, sessions, turns, rules -----------------------------------------------------------
    def take_writes(self) -> list[Write]:
        """The writes decided since the last call, oldest first (the caller applies or spools them)."""
        taken, self.writes = self.writes, []
        return taken

    def _write(self, op: WriteOp, session_id: str, **data: Any) -> None:
        from heedful.timeutil import now_text

        self.writes.append(Write(op=op, user=self.user, session=session_id, at=now_text(), data=data))

    def _view(self, session_id: str) -> SessionView:
        spooled = self.waiting(self.user, session_id) if self.waiting is not None else ()
        return SessionView(self.repo, self.user, session_id, spooled, self.writes)

    def _session(self, view: SessionView, session_id: str, cwd: str) -> SessionState:
        found = view.session()
        if found is not None and found["project"]:
            return found
        project = project_root(cwd, self.project_dir)
        self._write("session", session_id, platform=self.platform, project=project)
        if found is None:
            return {
                "session_id": session_id,
                "platform": self.platform,
                "project": project,
                "current_turn": None,
                "turn_count": 0,
                "last_prompt": None,
                "last_reply": None,
            }
        return {**found, "platform": found["platform"] or self.platform, "project": project}

    def _adopt(self, view: SessionView, session_id: str, turn_id: str) -> int:
        """The turn's library version: the pinned one, else the latest (pinned once the answer is out)."""
        pinned = view.pinned(turn_id)
        if pinned is not None:
            return pinned
        version = self.repo.latest_library_version(self.user)
        self._write("pin", session_id, turn=turn_id, version=version)
        return version

    def _turn(self, view: SessionView, session: SessionState, turn_hint: str | None) -> TurnState:
        """The turn an event belongs to; a turn opened without a prompt when none is known."""
        session_id = session["session_id"]
        turn_id = turn_hint or session["current_turn"]
        if turn_id:
            found = view.turn(turn_id)
            if found is not None:
                return found
        turn_id = turn_id or _new_turn_id()
        version = self._adopt(view, session_id, turn_id)
        self._write("turn", session_id, turn=turn_id, version=version, prompt=None, selected=[])
        return {"turn_id": turn_id, "library_version": version, "prompt": None, "selected": [], "revisions": 0}

    def rules(self, library_version: int, project: str | None) -> list[ActiveRule]:
        """The global rules and those stored for `project` or a directory above it."""
        key = (library_version, project)
        if key not in self._rules:
            found = self.repo.active_rules(self.user, library_version, project)
            seen = {rule["id"] for rule in found}
            for ancestor in lineage(project)[1:]:
                for rule in self.repo.active_rules(self.user, library_version, ancestor):
                    if rule["id"] not in seen and rule.get("scope") == "project":
                        seen.add(rule["id"])
                        found.append(rule)
            self._rules[key] = found
        return self._rules[key]

    def _checked(self, turn: TurnState, project: str | None, stage: str) -> list[ActiveRule]:
        return [
            r
            for r in self.rules(int(turn["library_version"]), project)
            if r["status"] == "checked" and (r["check"] or {}).get("stage") == stage
        ]

    # -- events --------------------------------------------------------------------------------
    @_stores_writes
    def session_start(self, session_id: str, cwd: str) -> str | None:
        from heedful.enforce import select

        session = self._session(self._view(session_id), session_id, cwd)
        # startup, resume, clear or compact: the rules earlier turns showed are not vouched for
        self._write("unpend", session_id, tool_use_id=shown.KEY)
        version = self.repo.latest_library_version(self.user)
        index = select.session_index(_plain(self.rules(version, session["project"])), session["project"])
        notice = self._changed_imports(session["project"])
        return "\n\n".join(part for part in (index, notice) if part) or None

    @_stores_writes
    def compacting(self, session_id: str) -> None:
        """A compaction hook (Claude Code PreCompact, Gemini CLI PreCompress): the next turn shows its rules again."""
        self._write("unpend", session_id, tool_use_id=shown.KEY)

    def _changed_imports(self, project: str | None) -> str | None:
        """Instruction files imported for this project (or globally) that changed since: say so, never import.

        Best effort: the rule index above must reach the agent even if this cannot be worked out.
        """
        try:
            from heedful.rules.import_origin import changed_files, read_stamps, stamps_key

            stamps = read_stamps(self.repo.get_meta(stamps_key(self.user)))
            changes = changed_files(stamps.values(), lineage(project))
        except Exception:
            return None
        if not changes:
            return None
        return "\n".join(f"heedful: {change.notice()}." for change in changes)

    @_stores_writes
    def user_prompt(self, session_id: str, prompt: str, cwd: str, turn_hint: str | None = None) -> PromptResult:
        """Adopt the library for a new turn, select its rules (showing only those not in the agent's context
        yet), queue the prompt for learning."""
        view = self._view(session_id)
        session = self._session(view, session_id, cwd)
        project = session["project"]
        prompt = bounds.clean_text(prompt)
        if messages.is_own_text(prompt):
            turn = self._turn(view, session, turn_hint)
            return PromptResult(turn["turn_id"], turn["library_version"])
        turn_id = turn_hint or _new_turn_id()
        version = self._adopt(view, session_id, turn_id)
        rules = self.rules(version, project)
        from heedful.enforce import select
        from heedful.rules.facets import detect_languages

        readings = select.stored_readings(self.repo.get_meta, self.user)  # each rule read once, when learned
        # the lines earlier turns showed and the agent still has are not repeated (`heedful.enforce.shown`)
        plain, record, number = _plain(rules), view.pending(shown.KEY), int(session["turn_count"] or 0) + 1
        lines = {r["id"]: select.line(r) for r in plain if record and r["id"] in record}
        earlier = shown.in_context(record, lines, number, shown.stale_after(self.platform))
        chosen = select.select(
            plain,
            prompt[: bounds.HEAD_CHARS],
            detect_languages(project),
            readings=readings,
            budget=select.LATER_TOKEN_BUDGET if earlier else select.TOKEN_BUDGET,
            shown=earlier,
        )
        fresh = {r["id"]: select.line(r) for r in chosen if not r.get("shown_before")}
        self._write("pending", session_id, tool_use_id=shown.KEY, existed=shown.updated(record, earlier, fresh, number))
        context = [
            {"role": role, "text": text[-MAX_CONTEXT_TEXT:]}
            for role, text in (("user", session["last_prompt"]), ("assistant", session["last_reply"]))
            if isinstance(text, str) and text.strip()
        ]
        self._write(
            "turn",
            session_id,
            turn=turn_id,
            version=version,
            prompt=bounds.stored(prompt),
            selected=[r["id"] for r in chosen],
        )
        job = None
        if prompt.strip() and len(prompt) <= MAX_MESSAGE_CHARS:
            from heedful.ids import new_id

            job = new_id("j")
            self._write(
                "job",
                session_id,
                id=job,
                kind="rules.learn",
                payload={"text": prompt, "project": project, "context": context, "source": "user"},
            )
        armed = sum(1 for r in rules if r["status"] == "checked")
        context_text = select.turn_context(chosen, version, armed)
        return PromptResult(turn_id, version, job, tuple(r["id"] for r in chosen), context_text)

    @_stores_writes
    def pre_tool(
        self,
        session_id: str,
        tool_name: str,
        tool_input: dict[str, Any],
        cwd: str,
        turn_hint: str | None = None,
        tool_use_id: str | None = None,
    ) -> Outcome:
        view = self._view(session_id)
        session = self._session(view, session_id, cwd)
        project = session["project"]
        turn = self._turn(view, session, turn_hint)
        command = tools.command_of(tool_input) if tools.tool_class(tool_name) == "shell" else None
        filed = messages.appeal_in_command(command) if command else None
        if filed is not None:
            # An appeal through a tool call: recorded for the turn's next delivery check, never run,
            # and never part of the reply the user reads.
            entry = {"stage": "delivery", "candidate": "", "rule_id": filed[0], "action": "filed_appeal"}
            self._write("log", session_id, turn=turn["turn_id"], entries=[{**entry, "detail": filed[1]}])
            return Outcome("deny", messages.appeal_filed(filed[0]))
        outcome = self._pre_action(view, turn, project, tool_name, tool_input, cwd)
        patch = tools.shell_patch(tool_name, tool_input) if outcome.decision != "deny" else None
        if patch is not None:
            outcome = self._before_patch(view, turn, project, patch, cwd) or outcome
        if outcome.decision != "deny" and tool_use_id and tools.written_paths(tool_name, tool_input):
            # whether each file existed before the write, so that PostToolUse can tell a creation
            self._write(
                "pending", session_id, tool_use_id=tool_use_id, existed=tools.existed_before(tool_name, tool_input, cwd)
            )
        return outcome

    def _before_patch(
        self, view: SessionView, turn: TurnState, project: str | None, patch: str, cwd: str
    ) -> Outcome | None:
        """Artifact checks on what a shell-wrapped patch would write: Codex applies it with no PostToolUse."""
        rules = self._checked(turn, project, "artifact")
        for artifact in tools.patched_artifacts(patch, cwd) if rules else []:
            evidence = {"project": project, "artifact": artifact}
            candidate = judge.candidate_id("artifact", artifact)
            outcome = self._decide(view, turn, "artifact", candidate, rules, [evidence], before_write=True)
            if outcome.decision != "allow":
                return outcome
        return None

    def _pre_action(
        self,
        view: SessionView,
        turn: TurnState,
        project: str | None,
        tool_name: str,
        tool_input: dict[str, Any],
        cwd: str | None = None,
    ) -> Outcome:
        rules = self._checked(turn, project, "pre_action")
        if not rules:
            return Outcome()
        action = tools.action(tool_name, tool_input)
        evidence: dict[str, Any] = {"project": project, "action": action}
        if cwd:
            evidence["cwd"] = cwd  # a shell command's relative paths are relative to where it runs
        command = action["input"].get("command")
        if isinstance(command, str) and "git" in command:
            branch = tools.git_branch(project)
            if branch:
                evidence["branch"] = branch
        if turn["prompt"]:
            evidence["task"] = turn["prompt"]
        if any((rule.get("check") or {}).get("kind") == "required_event" for rule in rules):
            # "run X before every commit": what ran since the last edit decides the commit itself
            evidence["events"] = self._turn_events(view, turn)
        candidate = judge.candidate_id("pre_action", action)
        if not isinstance(command, str) or len(command) <= bounds.HEAD_CHARS:
            return self._decide(view, turn, "pre_action", candidate, rules, [evidence])
        # A long command is read in bounded parts: its head, and a window around every rule keyword after it.
        views = bounds.command_views(command, bounds.command_keywords(rules))
        parts = [
            {**evidence, "action": {**action, "input": {**action["input"], "command": part}}} for part in views.parts
        ]
        return self._decide(view, turn, "pre_action", candidate, rules, parts, unread=views)

    @_stores_writes
    def post_tool(
        self,
        session_id: str,
        tool_name: str,
        tool_input: dict[str, Any],
        tool_response: Any,
        cwd: str,
        turn_hint: str | None = None,
        tool_use_id: str | None = None,
        ok: bool = True,
    ) -> Outcome:
        view = self._view(session_id)
        session = self._session(view, session_id, cwd)
        project = session["project"]
        turn = self._turn(view, session, turn_hint)
        existed = view.pending(tool_use_id) if tool_use_id else None
        if existed is not None:
            self._write("unpend", session_id, tool_use_id=tool_use_id)
        found = tools.events(tool_name, tool_input, tool_response, project, cwd, existed, ok)
        for event in found:
            if tool_use_id:
                event["tool_use_id"] = tool_use_id
            if "command" in event:
                event["command"] = bounds.stored(event["command"]) or ""
        self._write("events", session_id, turn=turn["turn_id"], events=found)
        rules = self._checked(turn, project, "artifact")
        if not rules or not ok:
            return Outcome()
        outcomes = []
        for artifact in tools.artifacts(tool_name, tool_input, cwd):
            evidence = {"project": project, "artifact": artifact}
            candidate = judge.candidate_id("artifact", artifact)
            outcomes.append(self._decide(view, turn, "artifact", candidate, rules, [evidence]))
        blocking = [o for o in outcomes if o.decision != "allow"]
        return blocking[0] if blocking else next((o for o in outcomes if o.message), Outcome())

    @_stores_writes
    def stop(
        self,
        session_id: str,
        message: str | None,
        cwd: str,
        turn_hint: str | None = None,
        stop_hook_active: bool = False,
    ) -> Outcome:
        """Delivery checks on the candidate reply and the turn's events; handles appeals in the reply.

        `stop_hook_active` (a continuation caused by an earlier revision request) is honoured by
        the turn's repair budget: revisions are re-checked, and once the budget is spent the reply
        goes through with its violations recorded as unresolved.
        """
        view = self._view(session_id)
        session = self._session(view, session_id, cwd)
        project = session["project"]
        turn = self._turn(view, session, turn_hint)
        text = bounds.clean_text(message) if isinstance(message, str) else ""
        if text:
            self._write("reply", session_id, text=bounds.stored(text))
        rules = self._checked(turn, project, "delivery")
        if not rules:
            return Outcome()
        clean, appeals = messages.appeals_in(text)
        named = {rule_id for rule_id, _ in appeals}
        appeals += [(rule_id, why) for rule_id, why in view.filed_appeals(turn["turn_id"]) if rule_id not in named]
        events = self._turn_events(view, turn)
        created = [e["path"] for e in events if e.get("created") and isinstance(e.get("path"), str)]
        evidence: dict[str, Any] = {
            "project": project,
            "delivery": clean,
            "events": events,
            "workspace": tools.present(created, project, cwd),
        }
        if turn["prompt"]:
            evidence["task"] = turn["prompt"]
        candidate = judge.candidate_id("delivery", clean)
        return self._decide(
            view, turn, "delivery", candidate, rules, [evidence], appeals=appeals, note_active=stop_hook_active
        )

    def appeal(self, session_id: str, rule_id: str, evidence_text: str, message: str, cwd: str) -> AppealResult:
        """Appeal a delivery judgment from code rather than in the reply; same rules as an in-reply appeal."""
        outcome = self.stop(session_id, f"{message}\nheedful-appeal {rule_id}: {evidence_text}", cwd)
        decided: list[AppealOutcome] = [
            e["action"]
            for e in self.repo.entries(self.user, session_id, limit=20)
            if e.get("rule_id") == rule_id and e.get("action") in APPEAL_OUTCOMES
        ]
        return AppealResult(rule_id, decided[-1] if decided else "no_judgment", outcome.decision, outcome.message)

    @staticmethod
    def _turn_events(view: SessionView, turn: TurnState) -> list[ToolEvent]:
        """The turn's tool events so far, each command bounded as stored."""
        events: list[ToolEvent] = []
        for event in view.events(turn["turn_id"]):
            if isinstance(event.get("command"), str):
                event = {**event, "command": bounds.stored(event["command"]) or ""}
            events.append(event)
        return events

    def _decide(
        self,
        view: SessionView,
        turn: TurnState,
        stage: str,
        candidate: str,
        rules: list[ActiveRule],
        evidences: list[dict[str, Any]],
        **options: Any,
    ) -> Outcome:
        decider = Decider(self.evaluate, self.budget, self.appeal_reviewer, self._write)
        return decider.decide(view, turn, stage, candidate, rules, evidences, **options)


def _plain(rules: list[ActiveRule]) -> list[dict[str, Any]]:
    """The rules as the hook-side selector (`heedful.enforce.select`) types them: plain dicts, which they are."""
    return cast("list[dict[str, Any]]", rules)


def _new_turn_id() -> str:
    from heedful.ids import new_id

    return new_id("t")


def env_project_dir(platform: str) -> str | None:
    return os.environ.get("CLAUDE_PROJECT_DIR") if platform == "claude-code" else None


def for_heedful(hf: Heedful, user_id: str | None = None, platform: str = "api") -> Enforcer:
    """An `Enforcer` on an open `Heedful` (the full store; use the hook runtime for fast start-up).

    With a model configured, appeals are reviewed by it; offline, only a pass on re-check overturns.
    """
    from heedful.rules.checks import evaluate

    reviewer = None
    if not hf.model.offline:
        from heedful.enforce.appeal import model_reviewer

        reviewer = model_reviewer(hf.model)
    return Enforcer(
        hf.store.enforce, (user_id or hf.settings.user.default).strip(), evaluate, platform, appeal_reviewer=reviewer
    )
