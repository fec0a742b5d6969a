"""The web UI under /ui: server-rendered pages and plain forms, over the same facade as the API.

Log in with an API key (a signed, HttpOnly, SameSite=Strict cookie); every form carries a CSRF
token bound to that cookie. Pages show the user the key acts for; an admin key acts for its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from heedful.errors import HeedfulError
from heedful.server import shapes
from heedful.server.auth import spend, state_of
from heedful.server.keys import verify_key
from heedful.server.session import SESSION_COOKIE, csrf_ok, csrf_token, read_session, sign_session
from heedful.server.state import Caller, ServerState

router = APIRouter(prefix="/ui", include_in_schema=False)
templates = Jinja2Templates(directory=Path(__file__).parent / "templates")
STATES = ("current", "superseded", "forgotten")


class LoginNeeded(Exception):
    """Raised by `viewer`: the app answers with a redirect to the login page."""


def viewer(request: Request) -> Caller:
    state = state_of(request)
    key_id = read_session(state.secret, request.cookies.get(SESSION_COOKIE), time.time())
    if key_id is None:
        raise LoginNeeded
    with state.lock:
        key = state.keys.get(key_id)
    if key is None or not key.active:
        raise LoginNeeded
    spend(state, key)
    return Caller(key=key, user=key.user_id)


ViewerDep = Annotated[Caller, Depends(viewer)]


def checked_form(request: Request, csrf: Annotated[str, Form()] = "") -> None:
    """Every state-changing form: the CSRF token must belong to this session's cookie."""
    if not csrf_ok(state_of(request).secret, request.cookies.get(SESSION_COOKIE), csrf):
        raise HTTPException(403, "the form's CSRF token is missing or stale; reload the page")


CsrfDep = Annotated[None, Depends(checked_form)]


def page(request: Request, name: str, who: Caller | None, status: int = 200, **context: Any) -> HTMLResponse:
    cookie = request.cookies.get(SESSION_COOKIE)
    token = csrf_token(state_of(request).secret, cookie) if cookie else ""
    context.update(who=who, csrf=token, notice=request.query_params.get("notice"))
    return templates.TemplateResponse(request, name, context, status_code=status)


def back(to: str, notice: str) -> RedirectResponse:
    return RedirectResponse(f"{to}?notice={quote(notice)}", status_code=303)


def act(request: Request, who: Caller, to: str, done: str, change: Callable[[Any], object]) -> Response:
    """Run one change under the lock and go back to `to`; heedful's own error is shown, nothing changed."""
    state: ServerState = state_of(request)
    try:
        with state.use() as hf:
            change(hf)
    except HeedfulError as exc:
        return back(to, f"error: {exc}")
    return back(to, done)


# -- login -------------------------------------------------------------------------------------
@router.get("/login")
def login_form(request: Request) -> HTMLResponse:
    return page(request, "login.html", None)


@router.post("/login")
def login(request: Request, key: Annotated[str, Form()] = "") -> Response:
    state = state_of(request)
    with state.lock:
        record = verify_key(state.keys, key.strip())
    if record is None:
        return page(request, "login.html", None, status=401, error="that key is unknown or revoked")
    response = RedirectResponse("/ui/memories", status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        sign_session(state.secret, record.id, time.time()),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )
    return response


@router.post("/logout")
def logout(request: Request, _: CsrfDep) -> Response:
    response = RedirectResponse("/ui/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("/")
def home(who: ViewerDep) -> RedirectResponse:
    return RedirectResponse("/ui/memories", status_code=303)


# -- memories ----------------------------------------------------------------------------------
@router.get("/memories")
def memories(request: Request, who: ViewerDep, q: str = "") -> HTMLResponse:
    state = state_of(request)
    recalled: dict[str, Any] | None = None
    error = None
    with state.use() as hf:
        rows = shapes.memory_list_json(hf, who.user, include_inactive=True)
        if q.strip() and rows:
            try:
                recalled = hf.memory.recall(who.user, q, limit=10).to_json(explain=True)
            except HeedfulError as exc:
                error = str(exc)
    groups = {name: [r for r in rows if r["state"] == name] for name in STATES}
    return page(request, "memories.html", who, groups=groups, q=q, recalled=recalled, error=error)


@router.get("/memories/{fact_id}")
def memory(request: Request, fact_id: str, who: ViewerDep) -> HTMLResponse:
    try:
        with state_of(request).use() as hf:
            history = hf.memory.history(who.user, fact_id).to_json()
    except HeedfulError as exc:
        return page(request, "error.html", who, status=404, error=str(exc))
    return page(request, "memory.html", who, history=history)


@router.post("/memories/{fact_id}/correct")
def correct(request: Request, fact_id: str, who: ViewerDep, _: CsrfDep, text: Annotated[str, Form()] = "") -> Response:
    return act(request, who, "/ui/memories", "corrected", lambda hf: hf.memory.correct(who.user, fact_id, text))


@router.post("/memories/{fact_id}/delete")
def delete(request: Request, fact_id: str, who: ViewerDep, _: CsrfDep) -> Response:
    return act(request, who, "/ui/memories", "deleted", lambda hf: hf.memory.delete(who.user, fact_id))


@router.post("/memory/forget")
def forget(request: Request, who: ViewerDep, _: CsrfDep, text: Annotated[str, Form()] = "") -> Response:
    return act(request, who, "/ui/memories", "forgotten", lambda hf: hf.memory.forget(who.user, text))


@router.post("/memory/undo")
def undo_memory(request: Request, who: ViewerDep, _: CsrfDep) -> Response:
    return act(request, who, "/ui/memories", "undone", lambda hf: hf.memory.undo(who.user))


# -- rules -------------------------------------------------------------------------------------
@router.get("/rules")
def rules(request: Request, who: ViewerDep, all: bool = False) -> HTMLResponse:
    with state_of(request).use() as hf:
        listed = hf.rules.list(who.user, include_all=all)
    waiting = [r for r in listed if r["status"] == "needs_user"]
    others = [r for r in listed if r["status"] != "needs_user"]
    return page(request, "rules.html", who, waiting=waiting, rules=others, all=all)


def trial_evidence(stage: str, text: str, path: str) -> dict[str, Any]:
    """What the user typed on a rule's page, as the observation `rules check` reads for that stage."""
    if stage == "pre_action":
        return {"action": {"tool": "Bash", "command": text}}
    if stage == "artifact":
        return {"artifact": {"path": path or "file.txt", "content": text, "kind": "text"}}
    return {"delivery": text}


@router.get("/rules/{rule_id}")
def rule(request: Request, rule_id: str, who: ViewerDep, trial: str = "", path: str = "") -> HTMLResponse:
    """One rule; with `trial`, its check run on that command, file content or reply (nothing is stored)."""
    verdict = None
    try:
        with state_of(request).use() as hf:
            shown = hf.rules.show(who.user, rule_id)
            versions = [revision.model_dump(mode="json") for revision in hf.rules.history(who.user, rule_id)]
            check = shown.check
            if trial and check and shown.status == "checked":
                evidence = trial_evidence(check["stage"], trial, path)
                report = hf.rules.check(who.user, check["stage"], evidence, project=shown.project, rule_ids=[rule_id])
                verdict = next((j.model_dump(mode="json") for j in report.judgments), None)
    except HeedfulError as exc:
        return page(request, "error.html", who, status=404, error=str(exc))
    rule = shown.model_dump(mode="json")  # the template reads the `rules show --json` shape
    return page(request, "rule.html", who, rule=rule, versions=versions, trial=trial, path=path, verdict=verdict)


@router.post("/rules/{rule_id}/approve")
def approve(request: Request, rule_id: str, who: ViewerDep, _: CsrfDep) -> Response:
    return act(request, who, "/ui/rules", "approved", lambda hf: hf.rules.edit(who.user, rule_id, approve=True))


@router.post("/rules/{rule_id}/retract")
def retract(request: Request, rule_id: str, who: ViewerDep, _: CsrfDep) -> Response:
    return act(request, who, "/ui/rules", "retracted", lambda hf: hf.rules.retract(who.user, rule_id))


@router.post("/rules/{rule_id}/edit")
def edit(
    request: Request,
    rule_id: str,
    who: ViewerDep,
    _: CsrfDep,
    text: Annotated[str, Form()] = "",
    condition: Annotated[str, Form()] = "",
    exceptions: Annotated[str, Form(description="one per line")] = "",
) -> Response:
    lines = [line.strip() for line in exceptions.splitlines() if line.strip()]
    return act(
        request, who, f"/ui/rules/{quote(rule_id)}", "saved as a new version",
        lambda hf: hf.rules.edit(who.user, rule_id, text=text or None, condition=condition, exceptions=lines),
    )  # fmt: skip


@router.post("/rules/undo")
def undo_rules(request: Request, who: ViewerDep, _: CsrfDep) -> Response:
    return act(request, who, "/ui/rules", "undone", lambda hf: hf.rules.undo(who.user))


# -- enforcement log ---------------------------------------------------------------------------
@router.get("/log")
def enforcement_log(request: Request, who: ViewerDep, session: str | None = None) -> HTMLResponse:
    try:
        with state_of(request).use() as hf:
            data = shapes.log_json(hf, who.user, session or None)
    except HeedfulError as exc:
        return page(request, "error.html", who, status=404, error=str(exc))
    turns: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for entry in data["entries"]:
        turns.setdefault((entry["session_id"], entry["turn_id"]), []).append(entry)
    return page(request, "log.html", who, data=data, turns=turns)
