"""The execution layer: turns, evidence per stage, judgments and interventions for one user.

    enforcer = Enforcer(repo, "me", evaluate, platform="claude-code")
    enforcer.user_prompt("s1", "add a dependency", cwd)       # adopt, select, queue learning
    enforcer.pre_tool("s1", "Bash", {"command": "pip install x"}, cwd)   # -> Outcome("deny", ...)

A turn adopts one rule-library version and keeps it (and the selected rules) until the next user
prompt. Interventions share a repair budget of 3 per turn across rules and stages; an artifact or
reply violation found after that is recorded as unresolved and let through, while a forbidden
action is still denied. Platform adapters turn an `Outcome`
into the platform's answer; nothing here knows a payload format.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from heedful.enforce import judge, messages, tools
from heedful.enforce.judge import Evaluate

# (the fresh judgment, the evidence, the agent's appeal) -> (overturn, reason)
AppealReviewer = Callable[[dict[str, Any], dict[str, Any], str], tuple[bool, str]]

REPAIR_BUDGET = 3
MAX_LEARN_TEXT = 20_000
MAX_CONTEXT_TEXT = 4_000
ACTIONS = {"pre_action": "deny", "artifact": "feedback", "delivery": "revise"}


class Outcome:
    """What to answer: allow (optionally with a note for the agent), deny, feedback or revise."""

    __slots__ = ("decision", "message", "violations")

    def __init__(self, decision: str = "allow", message: str | None = None,
                 violations: list[dict[str, Any]] | None = None) -> None:
        self.decision = decision
        self.message = message
        self.violations = violations or []

    def __repr__(self) -> str:
        return f"Outcome({self.decision!r}, {self.message!r})"


class Enforcer:
    def __init__(self, repo: Any, user_id: str, evaluate: Evaluate, platform: str = "claude-code",
                 budget: int = REPAIR_BUDGET, project_dir: str | None = None,
                 appeal_reviewer: AppealReviewer | None = None) -> None:
        self.repo = repo
        self.appeal_reviewer = appeal_reviewer
        self.user = user_id
        self.evaluate = evaluate
        self.platform = platform
        self.budget = budget
        self.project_dir = project_dir
        self._rules: dict[tuple[int, str | None], list[dict[str, Any]]] = {}

    # -- sessions, turns, rules ----------------------------------------------------------------
    def _session(self, session_id: str, cwd: str) -> dict[str, Any]:
        found = self.repo.session(self.user, session_id)
        if found is not None and found.get("project"):
            return found
        project = tools.project_root(cwd, self.project_dir)
        return self.repo.ensure_session(self.user, session_id, self.platform, project)

    def _turn(self, session: dict[str, Any], turn_hint: str | None) -> dict[str, Any]:
        """The turn an event belongs to; a turn opened without a prompt when none is known."""
        session_id = session["session_id"]
        turn_id = turn_hint or session.get("current_turn")
        if turn_id:
            found = self.repo.turn(self.user, session_id, turn_id)
            if found is not None:
                return found
        turn_id = turn_id or _new_turn_id()
        version = self.repo.pin(self.user, session_id, turn_id)
        return self.repo.start_turn(self.user, session_id, turn_id, version, None, [])

    def rules(self, library_version: int, project: str | None) -> list[dict[str, Any]]:
        key = (library_version, project)
        if key not in self._rules:
            self._rules[key] = self.repo.active_rules(self.user, library_version, project)
        return self._rules[key]

    def _checked(self, turn: dict[str, Any], project: str | None, stage: str) -> list[dict[str, Any]]:
        return [r for r in self.rules(int(turn["library_version"]), project)
                if r.get("status") == "checked" and (r.get("check") or {}).get("stage") == stage]

    # -- events --------------------------------------------------------------------------------
    def session_start(self, session_id: str, cwd: str) -> str | None:
        from heedful.enforce import select

        session = self._session(session_id, cwd)
        version = self.repo.latest_library_version(self.user)
        return select.session_index(self.rules(version, session.get("project")), session.get("project"))

    def user_prompt(self, session_id: str, prompt: str, cwd: str, turn_hint: str | None = None) -> dict[str, Any]:
        """Adopt the library for a new turn, select its rules, queue the prompt for learning."""
        session = self._session(session_id, cwd)
        project = session.get("project")
        if _is_own_text(prompt):
            turn = self._turn(session, turn_hint)
            return {"turn": turn["turn_id"], "context": None, "job": None, "library_version": turn["library_version"]}
        turn_id = turn_hint or _new_turn_id()
        version = self.repo.pin(self.user, session_id, turn_id)
        rules = self.rules(version, project)
        from heedful.enforce import select
        from heedful.rules.facets import detect_languages

        chosen = select.select(rules, prompt, detect_languages(project))
        context = [{"role": role, "text": text[-MAX_CONTEXT_TEXT:]}
                   for role, text in (("user", session.get("last_prompt")), ("assistant", session.get("last_reply")))
                   if isinstance(text, str) and text.strip()]
        self.repo.start_turn(self.user, session_id, turn_id, version, prompt, [r["id"] for r in chosen])
        job = None
        if prompt.strip() and len(prompt) <= MAX_LEARN_TEXT:
            job = self.repo.enqueue_job(self.user, "rules.learn", {
                "text": prompt, "project": project, "context": context, "source": "user"})
        armed = sum(1 for r in rules if r.get("status") == "checked")
        return {"turn": turn_id, "library_version": version, "job": job, "selected": [r["id"] for r in chosen],
                "context": select.turn_context(chosen, version, armed)}

    def pre_tool(self, session_id: str, tool_name: str, tool_input: dict[str, Any], cwd: str,
                 turn_hint: str | None = None, tool_use_id: str | None = None) -> Outcome:
        session = self._session(session_id, cwd)
        project = session.get("project")
        turn = self._turn(session, turn_hint)
        outcome = self._pre_action(session_id, turn, project, tool_name, tool_input)
        if outcome.decision != "deny" and tool_use_id and tools.written_paths(tool_name, tool_input):
            # whether each file existed before the write, so that PostToolUse can tell a creation
            self.repo.set_pending(self.user, session_id, tool_use_id, tools.existed_before(tool_name, tool_input, cwd))
        return outcome

    def _pre_action(self, session_id: str, turn: dict[str, Any], project: str | None, tool_name: str,
                    tool_input: dict[str, Any]) -> Outcome:
        rules = self._checked(turn, project, "pre_action")
        if not rules:
            return Outcome()
        evidence: dict[str, Any] = {"project": project, "action": tools.action(tool_name, tool_input)}
        command = evidence["action"]["input"].get("command")
        if isinstance(command, str) and "git" in command:
            branch = tools.git_branch(project)
            if branch:
                evidence["branch"] = branch
        if turn.get("prompt"):
            evidence["task"] = turn["prompt"]
        candidate = judge.candidate_id("pre_action", evidence["action"])
        return self._decide(session_id, turn, "pre_action", candidate, rules, evidence)

    def post_tool(self, session_id: str, tool_name: str, tool_input: dict[str, Any], tool_response: Any, cwd: str,
                  turn_hint: str | None = None, tool_use_id: str | None = None, ok: bool = True) -> Outcome:
        session = self._session(session_id, cwd)
        project = session.get("project")
        turn = self._turn(session, turn_hint)
        existed = self.repo.pop_pending(self.user, session_id, tool_use_id) if tool_use_id else None
        found = tools.events(tool_name, tool_input, tool_response, project, cwd, existed, ok)
        for event in found:
            if tool_use_id:
                event["tool_use_id"] = tool_use_id
        self.repo.record_events(self.user, session_id, turn["turn_id"], found)
        rules = self._checked(turn, project, "artifact")
        if not rules or not ok:
            return Outcome()
        outcomes = []
        for artifact in tools.artifacts(tool_name, tool_input, cwd):
            evidence = {"project": project, "artifact": artifact}
            candidate = judge.candidate_id("artifact", artifact)
            outcomes.append(self._decide(session_id, turn, "artifact", candidate, rules, evidence))
        blocking = [o for o in outcomes if o.decision != "allow"]
        return blocking[0] if blocking else next((o for o in outcomes if o.message), Outcome())

    def stop(self, session_id: str, message: str | None, cwd: str, turn_hint: str | None = None,
             stop_hook_active: bool = False) -> Outcome:
        """Delivery checks on the candidate reply and the turn's events; handles appeals in the reply.

        `stop_hook_active` (a continuation caused by an earlier revision request) is honoured by
        the turn's repair budget: revisions are re-checked, and once the budget is spent the reply
        goes through with its violations recorded as unresolved.
        """
        session = self._session(session_id, cwd)
        project = session.get("project")
        turn = self._turn(session, turn_hint)
        text = message if isinstance(message, str) else ""
        if text:
            self.repo.save_reply(self.user, session_id, text)
        rules = self._checked(turn, project, "delivery")
        if not rules:
            return Outcome()
        clean, appeals = messages.appeals_in(text)
        events = self.repo.events(self.user, session_id, turn["turn_id"])
        created = [e["path"] for e in events if e.get("created") and isinstance(e.get("path"), str)]
        evidence: dict[str, Any] = {"project": project, "delivery": clean, "events": events,
                                    "workspace": tools.present(created, project, cwd)}
        if turn.get("prompt"):
            evidence["task"] = turn["prompt"]
        candidate = judge.candidate_id("delivery", clean)
        return self._decide(session_id, turn, "delivery", candidate, rules, evidence, appeals=appeals,
                            note_active=stop_hook_active)

    def appeal(self, session_id: str, rule_id: str, evidence_text: str, message: str, cwd: str) -> dict[str, Any]:
        """Appeal a delivery judgment from code rather than in the reply; same rules as an in-reply appeal."""
        outcome = self.stop(session_id, f"{message}\nheedful-appeal {rule_id}: {evidence_text}", cwd)
        entries = [e for e in self.repo.entries(self.user, session_id, limit=20)
                   if e.get("rule_id") == rule_id and str(e.get("action", "")).startswith("appeal_")]
        return {"rule_id": rule_id, "outcome": entries[-1]["action"] if entries else "no_judgment",
                "decision": outcome.decision, "message": outcome.message}

    def _review_appeal(self, fresh: dict[str, Any], evidence: dict[str, Any], appeal: str) -> tuple[bool, str]:
        if self.appeal_reviewer is not None:
            return self.appeal_reviewer(fresh, evidence, appeal)
        if judge.review_offline(fresh):
            return True, f"re-check passed: {fresh['reason']}"
        return False, f"re-check gave {fresh['result']}: {fresh['reason']}"

    # -- deciding ------------------------------------------------------------------------------
    def _decide(self, session_id: str, turn: dict[str, Any], stage: str, candidate: str,
                rules: list[dict[str, Any]], evidence: dict[str, Any],
                appeals: list[tuple[str, str]] | None = None, note_active: bool = False) -> Outcome:
        turn_id = turn["turn_id"]
        judgments = judge.run_checks(rules, stage, evidence, self.evaluate)
        standing = self.repo.standing(self.user, session_id, turn_id, stage, candidate)
        base = {"stage": stage, "candidate": candidate}
        entries: list[dict[str, Any]] = []
        by_rule = {j["rule_id"]: j for j in judgments}
        for rule_id, appeal_text in appeals or []:
            fresh = by_rule.get(rule_id)
            if fresh is None:
                entries.append({**base, "rule_id": rule_id, "action": "appeal_refused", "detail": appeal_text,
                                "reason": "no check of this rule applies to the reply"})
            elif self.repo.appeals(self.user, session_id, turn_id, rule_id) >= 1:
                entries.append({**base, "rule_id": rule_id, "rule_text": fresh["rule_text"], "action": "appeal_refused",
                                "detail": appeal_text, "reason": "one appeal per rule per delivery"})
            else:
                overturn, why = self._review_appeal(fresh, evidence, appeal_text)
                if overturn:
                    standing[rule_id] = "overturned"
                entries.append({**base, "rule_id": rule_id, "rule_text": fresh["rule_text"],
                                "action": "appeal_overturned" if overturn else "appeal_upheld",
                                "result": "pass" if overturn else fresh["result"], "detail": appeal_text,
                                "reason": why})
        effective, cleared = judge.settle(judgments, standing)
        for rule_id in cleared:
            entries.append({**base, "rule_id": rule_id, "rule_text": by_rule[rule_id]["rule_text"],
                            "action": "cleared", "result": by_rule[rule_id]["result"],
                            "reason": by_rule[rule_id]["reason"]})
        unknown = [j for j in effective if j["result"] == "unknown"]
        if unknown:
            noted = self.repo.noted_unknown(self.user, session_id, turn_id)
            unknown = [j for j in unknown if j["rule_id"] not in noted]
        entries += [{**base, **_entry(j), "action": "unknown"} for j in unknown]
        violations = [{**j, "hint": messages.hint(j["kind"], j["params"], j["quotes"])}
                      for j in effective if j["result"] == "violated"]
        outcome = Outcome()
        if not violations and not entries:
            return outcome
        with self.repo.transaction():
            return self._intervene(session_id, turn_id, stage, base, entries, violations, unknown, note_active)

    def _intervene(self, session_id: str, turn_id: str, stage: str, base: dict[str, Any],
                   entries: list[dict[str, Any]], violations: list[dict[str, Any]], unknown: list[dict[str, Any]],
                   note_active: bool) -> Outcome:
        outcome = Outcome()
        if violations:
            used = self.repo.claim_revision(self.user, session_id, turn_id, self.budget)
            if used is None and stage == "pre_action":
                # The budget bounds revision loops; it never lets a forbidden action run. A deny costs
                # the user nothing, while a `git push --force` let through may cost a lot.
                entries += [{**base, **_entry(v), "action": "deny",
                             "detail": "repair budget spent; a forbidden action is still denied"} for v in violations]
                outcome = Outcome("deny", messages.deny(violations, self.budget, self.budget), violations)
            elif used is None:
                entries += [{**base, **_entry(v), "action": "unresolved",
                             "detail": "repair budget spent: recorded and let through"} for v in violations]
                outcome = Outcome("allow", None, violations)
            else:
                action = ACTIONS[stage]
                render = {"deny": messages.deny, "feedback": messages.feedback, "revise": messages.revise}[action]
                detail = "continuation after a revision request" if note_active else ""
                entries += [{**base, **_entry(v), "action": action, "detail": detail} for v in violations]
                outcome = Outcome(action, render(violations, used, self.budget), violations)
        elif unknown and stage != "delivery":
            outcome = Outcome("allow", messages.reminder(unknown))
        if entries:
            self.repo.log(self.user, session_id, turn_id, entries)
        return outcome


def _new_turn_id() -> str:
    from heedful.ids import new_id

    return new_id("t")


def _entry(judgment: dict[str, Any]) -> dict[str, Any]:
    return {key: judgment.get(key) for key in ("rule_id", "rule_text", "kind", "result", "reason", "quotes")}


def _is_own_text(prompt: str) -> bool:
    """A continuation prompt made from heedful's own revision request is not the user's word."""
    head = prompt[:400]
    return "(heedful)" in head and ("Before this reply is final" in head or "This tool call was not run" in head)


def env_project_dir(platform: str) -> str | None:
    return os.environ.get("CLAUDE_PROJECT_DIR") if platform == "claude-code" else None


def for_heedful(hf: Any, user_id: str | None = None, platform: str = "api") -> Enforcer:
    """An `Enforcer` on an open `Heedful` (the full store; use the hook runtime for fast start-up).

    With a model configured, appeals are reviewed by it; offline, only a pass on re-check overturns.
    """
    from heedful.rules.checks import evaluate

    reviewer = None
    if not hf.model.offline:
        from heedful.enforce.appeal import model_reviewer

        reviewer = model_reviewer(hf.model)
    return Enforcer(hf.store.enforce, (user_id or hf.settings.user.default).strip(), evaluate, platform,
                    appeal_reviewer=reviewer)
