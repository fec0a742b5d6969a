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
from typing import TYPE_CHECKING, Any, Literal

from heedful.enforce import bounds, judge, messages
from heedful.enforce.judge import Evaluate
from heedful.enforce.ledger import SessionView
from heedful.enforce.override import override
from heedful.enforce.results import Outcome

if TYPE_CHECKING:
    from heedful.enforce.results import Judgment
    from heedful.store.enforce_records import ActiveRule, LogAction, LogEntry, TurnState

__all__ = ["ACTIONS", "AppealReviewer", "Decider", "Outcome"]

# (the fresh judgment, the evidence, the agent's appeal) -> (overturn, reason)
AppealReviewer = Callable[["Judgment", dict[str, Any], str], tuple[bool, str]]
Intervention = Literal["deny", "feedback", "revise"]
ACTIONS: dict[str, Intervention] = {"pre_action": "deny", "artifact": "feedback", "delivery": "revise"}
RENDER: dict[Intervention, Callable[[list[Judgment], int, int], str]] = {
    "deny": messages.deny,
    "feedback": messages.feedback,
    "revise": messages.revise,
}


class Decider:
    def __init__(
        self, evaluate: Evaluate, budget: int, appeal_reviewer: AppealReviewer | None, write: Callable[..., None]
    ) -> None:
        self.evaluate = evaluate
        self.budget = budget
        self.appeal_reviewer = appeal_reviewer
        self.write = write  # (op, session id, **data): a write to store after the answer

    def _review_appeal(self, fresh: Judgment, evidence: dict[str, Any], appeal: str) -> tuple[bool, str]:
        if self.appeal_reviewer is not None:
            return self.appeal_reviewer(fresh, evidence, appeal)
        if judge.review_offline(fresh):
            return True, f"re-check passed: {fresh['reason']}"
        return False, f"re-check gave {fresh['result']}: {fresh['reason']}"

    def decide(
        self,
        view: SessionView,
        turn: TurnState,
        stage: str,
        candidate: str,
        rules: list[ActiveRule],
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
        entries: list[LogEntry] = []
        by_rule = {j["rule_id"]: j for j in judgments}
        for rule_id, appeal_text in appeals or []:
            fresh = by_rule.get(rule_id)
            if fresh is None:
                entries.append(
                    {
                        "stage": stage,
                        "candidate": candidate,
                        "rule_id": rule_id,
                        "action": "appeal_refused",
                        "detail": appeal_text,
                        "reason": "no check of this rule applies to the reply",
                    }
                )
            elif view.appeals(turn_id, rule_id) >= 1:
                entries.append(
                    {
                        "stage": stage,
                        "candidate": candidate,
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
                        "stage": stage,
                        "candidate": candidate,
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
                    "stage": stage,
                    "candidate": candidate,
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
        entries += [_entry(j, stage, candidate, "unknown") for j in unknown]
        violations: list[Judgment] = []
        for j in effective:
            if j["result"] != "violated":
                continue
            # The user's current request overrides the rule for this turn: it yields, no repair is used.
            said = override({"kind": j["kind"], "params": j["params"]}, turn["prompt"])
            if said:
                entries.append(_entry(j, stage, candidate, "yielded", f"the user asked: {said}"))
                continue
            violations.append({**j, "hint": messages.hint(j["kind"], j["params"], j["quotes"])})
        if not violations and not entries:
            return Outcome()
        return self._intervene(view, turn_id, stage, candidate, entries, violations, unknown, note_active, before_write)

    def _claim(self, view: SessionView, turn_id: str) -> int | None:
        """Use one repair of the turn's budget (read now, stored later): the new count, or None when spent."""
        turn = view.turn(turn_id)
        used = int(turn["revisions"] or 0) if turn is not None else 0
        if used >= self.budget:
            return None
        self.write("claim", view.session_id, turn=turn_id, budget=self.budget)
        return used + 1

    def _intervene(
        self,
        view: SessionView,
        turn_id: str,
        stage: str,
        candidate: str,
        entries: list[LogEntry],
        violations: list[Judgment],
        unknown: list[Judgment],
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
                spent = "repair budget spent; a forbidden action is still denied"
                entries += [_entry(v, stage, candidate, "deny", spent) for v in violations]
                outcome = Outcome("deny", messages.deny(violations, self.budget, self.budget), tuple(violations))
            elif used is None:
                spent = "repair budget spent: recorded and let through"
                entries += [_entry(v, stage, candidate, "unresolved", spent) for v in violations]
                outcome = Outcome("allow", None, tuple(violations))
            else:
                action: Intervention = "deny" if before_write else ACTIONS[stage]
                detail = "continuation after a revision request" if note_active else ""
                entries += [_entry(v, stage, candidate, action, detail) for v in violations]
                outcome = Outcome(action, RENDER[action](violations, used, self.budget), tuple(violations))
        elif unknown and stage != "delivery":
            outcome = Outcome("allow", messages.reminder(unknown))
        if entries:
            self.write("log", view.session_id, turn=turn_id, entries=entries)
        return outcome


def _unread(judgments: list[Judgment], rules: list[ActiveRule], views: bounds.CommandViews) -> list[Judgment]:
    """A rule whose keyword occurs past the part read is unknown there, not passed (unless already violated)."""
    by_id = {rule["id"]: rule for rule in rules}
    out: list[Judgment] = []
    for judgment in judgments:
        rule = by_id.get(judgment["rule_id"])
        missed = (bounds.command_keywords([rule]) if rule is not None else set()) & views.unread
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


def _entry(judgment: Judgment, stage: str, candidate: str, action: LogAction, detail: str = "") -> LogEntry:
    """The log row of a judgment: the rule, what was found, and what was done about it."""
    return {
        "stage": stage,
        "candidate": candidate,
        "rule_id": judgment["rule_id"],
        "rule_text": judgment["rule_text"],
        "kind": judgment["kind"],
        "result": judgment["result"],
        "reason": judgment["reason"],
        "quotes": judgment["quotes"],
        "action": action,
        "detail": detail,
    }
