"""Deciding on one candidate: its judgments, settled against the turn's log, become an intervention.

    decider = Decider(evaluate, budget=3, appeal_reviewer=None, write=enforcer_write)
    decider.decide(view, turn, "pre_action", candidate, rules, [evidence])   # -> Outcome("deny", ...)

It only reads (through a `SessionView`, which includes writes not stored yet); the log entries and
the used repair it decides on go to `write`, to be stored after the answer. The repair budget is
read the same way, so a spent budget is honoured even while the database is locked elsewhere, and
a forbidden action is denied whether or not any budget is left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from heedful.enforce import bounds, judge, messages
from heedful.enforce.judge import Evaluate
from heedful.enforce.ledger import SessionView
from heedful.enforce.override import override

# (the fresh judgment, the evidence, the agent's appeal) -> (overturn, reason)
AppealReviewer = Callable[[dict[str, Any], dict[str, Any], str], tuple[bool, str]]
ACTIONS = {"pre_action": "deny", "artifact": "feedback", "delivery": "revise"}


class Outcome:
    """What to answer: allow (optionally with a note for the agent), deny, feedback or revise."""

    __slots__ = ("decision", "message", "violations")

    def __init__(
        self, decision: str = "allow", message: str | None = None, violations: list[dict[str, Any]] | None = None
    ) -> None:
        self.decision = decision
        self.message = message
        self.violations = violations or []

    def __repr__(self) -> str:
        return f"Outcome({self.decision!r}, {self.message!r})"


class Decider:
    def __init__(
        self, evaluate: Evaluate, budget: int, appeal_reviewer: AppealReviewer | None, write: Callable[..., None]
    ) -> None:
        self.evaluate = evaluate
        self.budget = budget
        self.appeal_reviewer = appeal_reviewer
        self.write = write  # (op, session id, **data): a write to store after the answer

    def _review_appeal(self, fresh: dict[str, Any], evidence: dict[str, Any], appeal: str) -> tuple[bool, str]:
        if self.appeal_reviewer is not None:
            return self.appeal_reviewer(fresh, evidence, appeal)
        if judge.review_offline(fresh):
            return True, f"re-check passed: {fresh['reason']}"
        return False, f"re-check gave {fresh['result']}: {fresh['reason']}"

    def decide(
        self,
        view: SessionView,
        turn: dict[str, Any],
        stage: str,
        candidate: str,
        rules: list[dict[str, Any]],
        evidences: list[dict[str, Any]],
        appeals: list[tuple[str, str]] | None = None,
        note_active: bool = False,
        unread: bounds.CommandViews | None = None,
        before_write: bool = False,
    ) -> Outcome:
        turn_id = turn["turn_id"]
        evidence = evidences[0]
        judgments = judge.run_checks_on_parts(rules, stage, evidences, self.evaluate)
        if unread is not None and unread.unread:
            judgments = _unread(judgments, rules, unread)
        standing = view.standing(turn_id, stage, candidate)
        base = {"stage": stage, "candidate": candidate}
        entries: list[dict[str, Any]] = []
        by_rule = {j["rule_id"]: j for j in judgments}
        for rule_id, appeal_text in appeals or []:
            fresh = by_rule.get(rule_id)
            if fresh is None:
                entries.append(
                    {
                        **base,
                        "rule_id": rule_id,
                        "action": "appeal_refused",
                        "detail": appeal_text,
                        "reason": "no check of this rule applies to the reply",
                    }
                )
            elif view.appeals(turn_id, rule_id) >= 1:
                entries.append(
                    {
                        **base,
                        "rule_id": rule_id,
                        "rule_text": fresh["rule_text"],
                        "action": "appeal_refused",
                        "detail": appeal_text,
                        "reason": "one appeal per rule per delivery",
                    }
                )
            else:
                overturn, why = self._review_appeal(fresh, evidence, appeal_text)
                if overturn:
                    standing[rule_id] = "overturned"
                entries.append(
                    {
                        **base,
                        "rule_id": rule_id,
                        "rule_text": fresh["rule_text"],
                        "action": "appeal_overturned" if overturn else "appeal_upheld",
                        "result": "pass" if overturn else fresh["result"],
                        "detail": appeal_text,
                        "reason": why,
                    }
                )
        effective, cleared = judge.settle(judgments, standing)
        for rule_id in cleared:
            entries.append(
                {
                    **base,
                    "rule_id": rule_id,
                    "rule_text": by_rule[rule_id]["rule_text"],
                    "action": "cleared",
                    "result": by_rule[rule_id]["result"],
                    "reason": by_rule[rule_id]["reason"],
                }
            )
        unknown = [j for j in effective if j["result"] == "unknown"]
        if unknown:
            noted = view.noted_unknown(turn_id)
            unknown = [j for j in unknown if j["rule_id"] not in noted]
        entries += [{**base, **_entry(j), "action": "unknown"} for j in unknown]
        violations = []
        for j in effective:
            if j["result"] != "violated":
                continue
            # The user's current request overrides the rule for this turn: it yields, no repair is used.
            said = override({"kind": j["kind"], "params": j["params"]}, turn.get("prompt"))
            if said:
                entries.append({**base, **_entry(j), "action": "yielded", "detail": f"the user asked: {said}"})
                continue
            violations.append({**j, "hint": messages.hint(j["kind"], j["params"], j["quotes"])})
        if not violations and not entries:
            return Outcome()
        return self._intervene(view, turn_id, stage, base, entries, violations, unknown, note_active, before_write)

    def _claim(self, view: SessionView, turn_id: str) -> int | None:
        """Use one repair of the turn's budget (read now, stored later): the new count, or None when spent."""
        turn = view.turn(turn_id)
        used = int((turn or {}).get("revisions") or 0)
        if used >= self.budget:
            return None
        self.write("claim", view.session_id, turn=turn_id, budget=self.budget)
        return used + 1

    def _intervene(
        self,
        view: SessionView,
        turn_id: str,
        stage: str,
        base: dict[str, Any],
        entries: list[dict[str, Any]],
        violations: list[dict[str, Any]],
        unknown: list[dict[str, Any]],
        note_active: bool,
        before_write: bool = False,
    ) -> Outcome:
        """`before_write`: an artifact judged before it is written (a deny, not feedback on a done write)."""
        outcome = Outcome()
        if violations:
            used = self._claim(view, turn_id)
            if used is None and stage == "pre_action":
                # The budget bounds revision loops; it never lets a forbidden action run. A deny costs
                # the user nothing, while a `git push --force` let through may cost a lot.
                entries += [
                    {
                        **base,
                        **_entry(v),
                        "action": "deny",
                        "detail": "repair budget spent; a forbidden action is still denied",
                    }
                    for v in violations
                ]
                outcome = Outcome("deny", messages.deny(violations, self.budget, self.budget), violations)
            elif used is None:
                entries += [
                    {
                        **base,
                        **_entry(v),
                        "action": "unresolved",
                        "detail": "repair budget spent: recorded and let through",
                    }
                    for v in violations
                ]
                outcome = Outcome("allow", None, violations)
            else:
                action = "deny" if before_write else ACTIONS[stage]
                render = {"deny": messages.deny, "feedback": messages.feedback, "revise": messages.revise}[action]
                detail = "continuation after a revision request" if note_active else ""
                entries += [{**base, **_entry(v), "action": action, "detail": detail} for v in violations]
                outcome = Outcome(action, render(violations, used, self.budget), violations)
        elif unknown and stage != "delivery":
            outcome = Outcome("allow", messages.reminder(unknown))
        if entries:
            self.write("log", view.session_id, turn=turn_id, entries=entries)
        return outcome


def _unread(
    judgments: list[dict[str, Any]], rules: list[dict[str, Any]], views: bounds.CommandViews
) -> list[dict[str, Any]]:
    """A rule whose keyword occurs past the part read is unknown there, not passed (unless already violated)."""
    by_id = {rule["id"]: rule for rule in rules}
    out = []
    for judgment in judgments:
        missed = bounds.command_keywords([by_id.get(judgment["rule_id"], {})]) & views.unread
        if missed and judgment["result"] != "violated":
            judgment = {
                **judgment,
                "result": "unknown",
                "reason": (
                    f"the command is {views.length} characters long; later uses of {', '.join(sorted(missed))} "
                    "were not read"
                ),
            }
        out.append(judgment)
    return out


def _entry(judgment: dict[str, Any]) -> dict[str, Any]:
    return {key: judgment.get(key) for key in ("rule_id", "rule_text", "kind", "result", "reason", "quotes")}
