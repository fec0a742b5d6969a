"""What the enforcement layer hands back and passes around, typed.

Results are `NamedTuple`s and JSON-shaped records (judgments here; sessions, turns, rules, events
and log rows in `heedful.store.enforce_records`) are `TypedDict`s, not dataclasses or pydantic
models: a hook process imports this on every event, and `dataclasses` (through `inspect`) or
pydantic would cost it more than the rest of its start-up. A `TypedDict` is a plain dict at run
time, so judgments and log entries go into the spool file and the store as they are; the hook
path imports them for type checking only (import them under `if TYPE_CHECKING:`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypedDict

if TYPE_CHECKING:
    from heedful.rules.checks.verdict import Result

    # Types only: a judgment is a plain dict at run time, and a hook need not build these classes.
    class _JudgmentBase(TypedDict):
        rule_id: str
        rule_text: str
        kind: str | None
        params: dict[str, Any]
        stage: str
        result: Result
        reason: str
        quotes: list[str]

    class Judgment(_JudgmentBase, total=False):
        """One checked rule judged on one candidate; `held` when an earlier violation stands, `hint` on a violation."""

        held: bool
        hint: str


__all__ = ["AppealOutcome", "AppealResult", "Decision", "Outcome", "PromptResult"]

Decision = Literal["allow", "deny", "feedback", "revise"]
AppealOutcome = Literal["appeal_refused", "appeal_upheld", "appeal_overturned", "no_judgment"]


class Outcome(NamedTuple):
    """What to answer: allow (optionally with a note for the agent), deny, feedback or revise."""

    decision: Decision = "allow"
    message: str | None = None
    violations: tuple[Judgment, ...] = ()


class PromptResult(NamedTuple):
    """A user prompt's turn: the library version it adopted, the rules shown, the learning job queued."""

    turn: str
    library_version: int
    job: str | None = None
    selected: tuple[str, ...] = ()
    context: str | None = None


class AppealResult(NamedTuple):
    rule_id: str
    outcome: AppealOutcome
    decision: Decision
    message: str | None
