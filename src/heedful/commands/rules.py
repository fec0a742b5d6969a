"""`heedful rules ...`: learn, list, select, check, show, edit, retract, history, undo, export, adopt."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from heedful.commands import rules_import
from heedful.commands.common import HomeOption, JsonOption, UserOption, emit, fail, opened, resolve_user
from heedful.errors import InputError

if TYPE_CHECKING:
    from rich.console import Console

    from heedful.rules.models import CheckReport, RuleSelection
    from heedful.rules.results import RuleChange, RuleDetail, RuleRevision

app = typer.Typer(help="Learned rules: tell once, checked later.", no_args_is_help=True)
app.command("import")(rules_import.import_rules)


@cache
def console() -> Console:
    """The terminal, for output meant for people (rich loads only when there is something to draw)."""
    from rich.console import Console

    return Console()


def escape(text: str) -> str:
    from rich.markup import escape as rich_escape

    return rich_escape(text)


ProjectOption = Annotated[
    Path | None, typer.Option("--project", "-p", help="Project directory (default: the current directory).")
]
SessionOption = Annotated[str | None, typer.Option("--session", help="Session id (with --turn: the pinned library).")]
TurnOption = Annotated[str | None, typer.Option("--turn", help="Turn id within the session.")]
RuleArg = Annotated[str, typer.Argument(help="Rule id (from `heedful rules list`).")]


def _project(project: Path | None) -> str:
    return str((project or Path.cwd()).expanduser().resolve())


def _read_json(path: Path, what: str) -> Any:
    try:
        raw = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputError(f"no such {what} file: {path}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the {what} file {path}: {exc}") from exc
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"the {what} file {path} is not valid JSON: {exc.msg} (line {exc.lineno})") from exc


def _existing_project(project: Path | None) -> str:
    """The project a new rule is stored for: it must be a folder that exists (a typo stores nothing)."""
    resolved = _project(project)
    if not Path(resolved).is_dir():
        fail(f"--project {resolved} is not a folder that exists")
    return resolved


def _rules_table(rules: list[dict[str, Any]], empty: str = "nothing yet") -> None:
    if not rules:
        typer.echo(empty)
        return
    from rich.table import Table

    table = Table("id", "status", "scope", "rule", "check", "v")
    for rule in rules:
        check = rule["check"]["kind"] + "@" + rule["check"]["stage"] if rule.get("check") else ""
        status = rule["status"]
        if rule.get("proposal"):
            proposal = rule["proposal"]
            status += (
                f" ({proposal['change']}"
                + (f" of {proposal['target']}" if proposal["target"] else "")
                + (f", from {proposal['source']})")
            )
        if rule.get("pending"):
            status += f" (change pending: {', '.join(rule['pending'])})"
        table.add_row(rule["id"], escape(status), rule["scope"], escape(rule["text"]), check, str(rule["version"]))
    console().print(table)
    if any(rule.get("proposal") or rule["status"] == "needs_user" for rule in rules):
        console().print(
            "[dim]needs_user: nothing changes until you approve with `heedful rules edit ID --approve`"
            " (reject with `heedful rules retract ID`); the rules they would change stay in force.[/dim]"
        )


@app.command()
def learn(
    text: Annotated[str, typer.Argument(help="The user's message.")],
    project: ProjectOption = None,
    context: Annotated[
        Path | None, typer.Option("--context", help="JSON list of earlier {role, text} messages of this session.")
    ] = None,
    source: Annotated[str, typer.Option("--source", help="Who wrote TEXT: user, assistant, tool, file.")] = "user",
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Examine one user message and store what should last (synchronous)."""
    where = _existing_project(project)
    with opened(home) as hf:
        messages = _read_json(context, "context") if context is not None else None
        result = hf.rules.learn(resolve_user(hf, user), text, project=where, context=messages, source=source)
        data = result.model_dump()

        def render(d: dict[str, Any]) -> None:
            console().print(
                f"[bold]{d['decision']}[/bold]"
                + (f" ({d['scope']})" if d["scope"] else "")
                + f" — {'; '.join(d['reasons'])}"
            )
            for action in d["actions"]:
                console().print(escape(_action_line(action)))

        emit(data, as_json, render)


def _action_line(action: dict[str, Any]) -> str:
    """One learning action for people: a split names its parts (each follows as its own action)."""
    if action["op"] == "split":
        parts = ", ".join(action.get("children") or []) or "nothing"
        return f"  {'split':<10} into {parts}" + (f" — {action['reason']}" if action.get("reason") else "")
    rule = action.get("rule") or {}
    status = f" [{rule['status']}]" if rule.get("status") else ""
    return f"  {action['op']:<10} {action.get('rule_id') or ''} {rule.get('text', '')}{status}".rstrip()


def _changed_rule(change: RuleChange) -> None:
    """An edited, approved or retracted rule, as one row of the rules table."""
    _rules_table([change.rule.model_dump(mode="json")])


@app.command("list")
def list_rules(
    project: Annotated[
        Path | None, typer.Option("--project", "-p", help="Only global rules and this project's.")
    ] = None,
    include_all: Annotated[bool, typer.Option("--all", help="Include retracted and superseded rules.")] = False,
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """List rules (every project's unless --project is given)."""
    with opened(home) as hf:
        rules = hf.rules.list(
            resolve_user(hf, user), project=None if project is None else _project(project), include_all=include_all
        )
        emit(rules, as_json, lambda r: _rules_table(r, "nothing matches" if project else "nothing yet"))


@app.command("select")
def select_rules(
    task: Annotated[str, typer.Argument(help="The task description.")],
    project: ProjectOption = None,
    message: Annotated[str | None, typer.Option("--message", "-m", help="The user's latest message.")] = None,
    session: SessionOption = None,
    turn: TurnOption = None,
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """The rules that apply to a task, and the checks that stay armed."""
    with opened(home) as hf:
        selection = hf.rules.select(
            resolve_user(hf, user), task, message=message, project=_project(project), session=session, turn=turn
        )

        def render(d: RuleSelection) -> None:
            console().print(f"library version {d.library_version}: {len(d.rules)} of {d.examined} rules")
            for rule in d.rules:
                console().print(f"  {rule.id} {rule.text}  [dim]{rule.why}[/dim]")
            for check in d.checks:
                console().print(f"  check {check.kind}@{check.stage}: {check.text}")

        emit(selection, as_json, render)


@app.command()
def check(
    stage: Annotated[str, typer.Option("--stage", help="pre_action, artifact or delivery.")],
    evidence: Annotated[Path, typer.Option("--evidence", help="Observation JSON file ('-' for stdin).")],
    project: Annotated[
        Path | None,
        typer.Option("--project", "-p", help="Project directory (default: the evidence's project, else this one)."),
    ] = None,
    session: SessionOption = None,
    turn: TurnOption = None,
    fail_on_violation: Annotated[
        bool, typer.Option("--fail-on-violation", help="Exit 1 when any check is violated.")
    ] = False,
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run the checked rules of one stage on an observation: pass|violated|not_applicable|unknown."""
    with opened(home) as hf:
        observation = _read_json(evidence, "evidence")
        if not isinstance(observation, dict):
            fail("the evidence must be a JSON object (see `heedful rules check --help`)")
        where = _project(project) if project is not None or not observation.get("project") else None
        report = hf.rules.check(resolve_user(hf, user), stage, observation, project=where, session=session, turn=turn)

        def render(d: CheckReport) -> None:
            for j in d.judgments:
                quote = f"  «{j.quotes[0]}»" if j.quotes else ""
                console().print(escape(f"{j.result:<15} {j.rule_id} {j.text} — {j.reason}{quote}"))
            if not d.judgments:
                console().print(f"[dim]no checked rule at the {d.stage} stage[/dim]")

        emit(report, as_json, render)
        if fail_on_violation and report.blocked:
            raise typer.Exit(1)


@app.command()
def show(rule_id: RuleArg, user: UserOption = None, home: HomeOption = None, as_json: JsonOption = False) -> None:
    """One rule in full: evidence, check, validation cases."""
    with opened(home) as hf:
        detail = hf.rules.show(resolve_user(hf, user), rule_id)

        def render(d: RuleDetail) -> None:
            console().print(f"[bold]{d.text}[/bold]  ({d.id} v{d.version}, {d.status}, {d.scope})")
            lines: dict[str, str | list[str] | None] = {
                "condition": d.condition,
                "exceptions": d.exceptions,
                "evidence": d.evidence,
                "reason": d.reason,
            }
            for key, value in lines.items():
                if value:  # lists as sentences, not as Python's repr
                    text = "; ".join(f"«{item}»" for item in value) if isinstance(value, list) else value
                    console().print(escape(f"  {key}: {text}"))
            if d.check:
                check = d.check
                console().print(escape(f"  check: {check['kind']}@{check['stage']} {json.dumps(check['params'])}"))

        emit(detail, as_json, render)


@app.command()
def edit(
    rule_id: RuleArg,
    text: Annotated[str | None, typer.Option("--text", help="New wording.")] = None,
    condition: Annotated[str | None, typer.Option("--condition", help="New condition ('' clears it).")] = None,
    exception: Annotated[
        list[str] | None, typer.Option("--exception", help="An exception (repeat for several; replaces all).")
    ] = None,
    clear_exceptions: Annotated[bool, typer.Option("--clear-exceptions", help="Remove every exception.")] = False,
    approve: Annotated[
        bool,
        typer.Option(
            "--approve",
            help="Approve what is held as needs_user: activate the rule, or apply the proposed change or "
            "retraction (ID of the proposal, or of the rule it changes).",
        ),
    ] = False,
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Revise a rule in your own words (a new version, recompiled)."""
    with opened(home) as hf:
        exceptions = [] if clear_exceptions else exception
        change = hf.rules.edit(
            resolve_user(hf, user), rule_id, text=text, condition=condition, exceptions=exceptions, approve=approve
        )
        emit(change, as_json, _changed_rule)


@app.command()
def retract(rule_id: RuleArg, user: UserOption = None, home: HomeOption = None, as_json: JsonOption = False) -> None:
    """Withdraw a rule, or reject a pending proposal (kept in history; `undo` brings it back)."""
    with opened(home) as hf:
        change = hf.rules.retract(resolve_user(hf, user), rule_id)
        emit(change, as_json, _changed_rule)


@app.command()
def history(rule_id: RuleArg, user: UserOption = None, home: HomeOption = None, as_json: JsonOption = False) -> None:
    """Every revision of a rule, with the words that caused it."""
    with opened(home) as hf:
        revisions = hf.rules.history(resolve_user(hf, user), rule_id)

        def render(rows: list[RuleRevision]) -> None:
            from rich.table import Table

            table = Table("v", "op", "status", "text", "library", "why")
            for row in rows:
                table.add_row(str(row.version), row.op, row.status, row.text, str(row.library_version), row.reason)
            console().print(table)

        emit(revisions, as_json, render)


@app.command()
def undo(user: UserOption = None, home: HomeOption = None, as_json: JsonOption = False) -> None:
    """Undo the latest change to the rule library (as a new library version)."""
    with opened(home) as hf:
        undone = hf.rules.undo(resolve_user(hf, user))
        emit(
            undone,
            as_json,
            lambda d: console().print(f"undid library version {d.undone}; now at version {d.library_version}"),
        )


@app.command()
def export(
    directory: Annotated[Path, typer.Option("--dir", help="Directory for one Markdown file per rule.")],
    project: Annotated[
        Path | None, typer.Option("--project", "-p", help="Only global rules and this project's.")
    ] = None,
    agents: Annotated[
        Path | None, typer.Option("--agents", help="Also write guidance for AGENTS.md/CLAUDE.md.")
    ] = None,
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Export rules as reviewable Markdown (one file per rule)."""
    with opened(home) as hf:
        exported = hf.rules.export(
            resolve_user(hf, user),
            directory,
            project=None if project is None else _project(project),
            agents_file=agents,
        )
        emit(exported, as_json, lambda d: console().print(f"wrote {d.count} rule files to {d.directory}"))


@app.command()
def adopt(
    session: Annotated[str, typer.Option("--session", help="Session id.")],
    turn: Annotated[str, typer.Option("--turn", help="Turn id.")],
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Pin the current library version for a user turn (later calls in the turn get the same one)."""
    with opened(home) as hf:
        version = hf.rules.adopt(resolve_user(hf, user), session, turn)
        emit(
            {"session": session, "turn": turn, "library_version": version},
            as_json,
            lambda d: console().print(f"turn {turn} uses library version {d['library_version']}"),
        )
