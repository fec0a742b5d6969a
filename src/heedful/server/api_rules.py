"""`/v1/rules/...` and `/v1/log`: the `heedful rules` commands and `heedful log` over HTTP, same JSON.

Each route names the operation's typed result (`rules/results.py`, `rules/models.py`) as its
response model, so FastAPI checks every answer against it and the OpenAPI schema documents the
shape `--json` prints.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from heedful.errors import InputError
from heedful.rules.listing import PublicRule
from heedful.rules.models import CheckReport, LearnResult, RuleSelection
from heedful.rules.results import Approval, LibraryUndo, RuleChange, RuleDetail, RuleRevision
from heedful.server import shapes
from heedful.server.auth import CallerDep, StateDep

router = APIRouter(tags=["rules"])


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ContextMessage(Body):
    role: Literal["user", "assistant"]
    text: str


class LearnBody(Body):
    text: str = Field(min_length=1, description="The user's message.")
    project: str | None = Field(None, description="Absolute project path; none: only a global rule can result.")
    context: list[ContextMessage] | None = None
    source: Literal["user", "assistant", "tool", "file", "system"] = "user"


class EditBody(Body):
    text: str | None = None
    condition: str | None = Field(None, description="'' clears it.")
    exceptions: list[str] | None = Field(None, description="Replaces every exception; [] clears them.")
    approve: bool = False


class SelectBody(Body):
    task: str = Field(min_length=1)
    message: str | None = None
    project: str | None = None
    session: str | None = None
    turn: str | None = None


class CheckBody(Body):
    stage: Literal["pre_action", "artifact", "delivery"]
    evidence: dict[str, Any]
    project: str | None = None
    session: str | None = None
    turn: str | None = None


def absolute(project: str | None) -> str | None:
    """A project as the service takes it: an absolute path (the server's working folder means nothing to a client)."""
    if project is not None and not PurePosixPath(project).is_absolute():
        raise InputError(f"the project must be an absolute path, not {project!r}")
    return project


@router.post("/v1/rules/learn", summary="Examine one user message and store what should last: `rules learn --json`.")
def learn(body: LearnBody, who: CallerDep, state: StateDep) -> LearnResult:
    context = [m.model_dump() for m in body.context] if body.context is not None else None
    with state.use() as hf:
        return hf.rules.learn(who.user, body.text, project=absolute(body.project), context=context, source=body.source)


@router.get("/v1/rules", summary="List rules: `rules list --json`.")
def list_rules(
    who: CallerDep,
    state: StateDep,
    project: Annotated[str | None, Query(description="Only global rules and this project's.")] = None,
    all: Annotated[bool, Query(description="Include retracted and superseded rules.")] = False,
) -> list[PublicRule]:
    with state.use() as hf:
        return hf.rules.list(who.user, project=absolute(project), include_all=all)


@router.post(
    "/v1/rules/select", summary="The rules that apply to a task: `rules select --json`.", response_model=RuleSelection
)
def select(body: SelectBody, who: CallerDep, state: StateDep) -> RuleSelection:
    with state.use() as hf:
        return hf.rules.select(
            who.user, body.task, message=body.message, project=absolute(body.project), session=body.session,
            turn=body.turn,
        )  # fmt: skip


@router.post(
    "/v1/rules/check",
    summary="Run one stage's checks on an observation: `rules check --json`.",
    response_model=CheckReport,
)
def check(body: CheckBody, who: CallerDep, state: StateDep) -> CheckReport:
    with state.use() as hf:
        return hf.rules.check(
            who.user, body.stage, body.evidence, project=absolute(body.project), session=body.session, turn=body.turn
        )


@router.post(
    "/v1/rules/undo",
    summary="Undo the latest change to the rule library: `rules undo --json`.",
    response_model=LibraryUndo,
)
def undo(who: CallerDep, state: StateDep) -> LibraryUndo:
    with state.use() as hf:
        return hf.rules.undo(who.user)


@router.get("/v1/rules/{rule_id}", summary="One rule in full: `rules show --json`.", response_model=RuleDetail)
def show(rule_id: str, who: CallerDep, state: StateDep) -> RuleDetail:
    with state.use() as hf:
        return hf.rules.show(who.user, rule_id)


@router.get(
    "/v1/rules/{rule_id}/history",
    summary="Every revision of a rule: `rules history --json`.",
    response_model=list[RuleRevision],
)
def history(rule_id: str, who: CallerDep, state: StateDep) -> list[RuleRevision]:
    with state.use() as hf:
        return hf.rules.history(who.user, rule_id)


@router.patch(
    "/v1/rules/{rule_id}",
    summary="Revise a rule in the user's words: `rules edit --json`.",
    response_model=Approval | RuleChange,
)
def edit(rule_id: str, body: EditBody, who: CallerDep, state: StateDep) -> RuleChange | Approval:
    with state.use() as hf:
        return hf.rules.edit(
            who.user, rule_id, text=body.text, condition=body.condition, exceptions=body.exceptions,
            approve=body.approve,
        )  # fmt: skip


@router.post(
    "/v1/rules/{rule_id}/approve",
    summary="Approve what waits as needs_user: `rules edit --approve --json`.",
    response_model=Approval | RuleChange,
)
def approve(rule_id: str, who: CallerDep, state: StateDep) -> RuleChange | Approval:
    with state.use() as hf:
        return hf.rules.edit(who.user, rule_id, approve=True)


@router.post(
    "/v1/rules/{rule_id}/retract",
    summary="Withdraw a rule or reject a proposal: `rules retract --json`.",
    response_model=RuleChange,
)
def retract(rule_id: str, who: CallerDep, state: StateDep) -> RuleChange:
    with state.use() as hf:
        return hf.rules.retract(who.user, rule_id)


@router.get("/v1/log", tags=["log"], summary="What was blocked or flagged, per session, and why: `log --json`.")
def log(
    who: CallerDep,
    state: StateDep,
    session: str | None = None,
    limit: Annotated[int, Query(ge=1, le=10_000)] = 200,
) -> dict[str, Any]:
    with state.use() as hf:
        return shapes.log_json(hf, who.user, session, limit=limit)


@router.get("/v1/whoami", tags=["keys"], summary="The key's id, its user and the user it acts for.")
def whoami(who: CallerDep) -> dict[str, Any]:
    return {"key_id": who.key.id, "key_user": who.key.user_id, "admin": who.key.admin, "user": who.user}
