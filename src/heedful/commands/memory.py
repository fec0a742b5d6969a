"""`heedful memory ...`: add, recall, forget, list, history, correct, delete, undo, flush, dream, context."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from heedful.commands.common import HomeOption, JsonOption, UserOption, emit, fail, opened, user_errors
from heedful.errors import InputError
from heedful.server.shapes import events_json, memory_undo_json


def resolve_user(hf: Any, user: str | None) -> str:
    """--user, else the configured default; checked as every entry point checks it (never stripped)."""
    from heedful.ids import validate_user_id

    return validate_user_id(user if user is not None else hf.settings.user.default)


app = typer.Typer(help="Each user's memory: an append-only record that supersedes and forgets.", no_args_is_help=True)
console = Console()


class _FileMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["user", "assistant"] = "user"
    text: str = Field(min_length=1)
    session_id: str | None = None
    at: str | None = None
    speaker: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _content_alias(cls, data: Any) -> Any:
        if isinstance(data, dict) and "text" not in data and "content" in data:
            data = {**data, "text": data["content"]}
        return data


class _FileConversation(BaseModel):
    session_id: str | None = None
    messages: list[_FileMessage] = Field(min_length=1)


def _read_conversation(path: Path, session: str | None) -> list[Any]:
    """A JSON list of messages, or {"session_id": ..., "messages": [...]}; each message has
    role (user|assistant), text (or content), and optionally session_id, at, speaker."""
    from heedful.memory.write import NewMessage
    from heedful.timeutil import parse_user_time

    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(f"no such file: {path}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path} is not valid JSON: {exc}") from exc
    try:
        conversation = _FileConversation.model_validate({"messages": raw} if isinstance(raw, list) else raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"{path}: {where}: {first['msg']}") from exc
    return [
        NewMessage(
            text=m.text,
            role=m.role,
            session_id=m.session_id or conversation.session_id or session or "default",
            at=parse_user_time(m.at) if m.at else None,
            speaker=m.speaker,
        )
        for m in conversation.messages
    ]


def _events_table(events: list[dict[str, Any]]) -> None:
    if not events:
        console.print("[dim]stored; nothing extracted yet (buffered until a flush)[/dim]")
        return
    table = Table("op", "id", "text", "reason")
    for event in events:
        table.add_row(event["op"], event["fact_id"], event["text"], event["reason"])
    console.print(table)


@app.command()
def add(
    text: Annotated[str | None, typer.Argument(help="The message text.")] = None,
    user: UserOption = None,
    session: Annotated[str | None, typer.Option(help="Session id (default: 'default').")] = None,
    role: Annotated[str, typer.Option(help="user or assistant.")] = "user",
    at: Annotated[str | None, typer.Option(help="When it was said (ISO 8601).")] = None,
    speaker: Annotated[str | None, typer.Option(help="Speaker name, if not the user.")] = None,
    file: Annotated[Path | None, typer.Option("--file", help="A conversation JSON file instead of TEXT.")] = None,
    flush: Annotated[
        bool, typer.Option("--flush", help="Extract facts now instead of waiting for the buffer.")
    ] = False,
    background: Annotated[
        bool, typer.Option("--background", help="Deliberate background: never expired by a forget request.")
    ] = False,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Add a message (or a conversation file) to a user's memory."""
    from heedful.memory.write import NewMessage
    from heedful.timeutil import parse_user_time

    if (text is None) == (file is None):
        fail("give either TEXT or --file, not both and not neither")
    with opened(home) as hf:
        with user_errors():
            if file is not None:
                messages = _read_conversation(file, session)
            else:
                if role not in ("user", "assistant"):
                    raise InputError(f"--role must be 'user' or 'assistant', not {role!r}")
                messages = [
                    NewMessage(
                        text=text or "",
                        role=role,  # type: ignore[arg-type]
                        session_id=session or "default",
                        at=parse_user_time(at) if at else None,
                        speaker=speaker,
                    )
                ]
            result = hf.memory.add(resolve_user(hf, user), messages, flush=flush, background=background)
        data = result.to_json()
        emit(data, as_json, lambda d: _events_table(d["events"]))


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="What to recall.")],
    user: UserOption = None,
    limit: Annotated[int | None, typer.Option(help="At most this many items.")] = None,
    budget: Annotated[int | None, typer.Option(help="Token budget (default 8100).")] = None,
    as_of: Annotated[str | None, typer.Option("--as-of", help="Answer from what was valid then (ISO 8601).")] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Per item: routes, ranks, contributions.")] = False,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Recall what a user's memory holds about QUERY."""
    from heedful.timeutil import parse_user_time, to_text

    with opened(home) as hf, user_errors():
        moment = to_text(parse_user_time(as_of)) if as_of else None
        result = hf.memory.recall(resolve_user(hf, user), query, limit=limit, budget_tokens=budget, as_of=moment)
        data = result.to_json(explain=explain)

        def render(d: dict[str, Any]) -> None:
            table = Table("#", "state", "kind", "text", "routes")
            for n, item in enumerate(d["items"], 1):
                routes = item["routes"]
                shown = (
                    ", ".join(f"{k}#{v['rank']}" for k, v in routes.items())
                    if isinstance(routes, dict)
                    else ", ".join(routes)
                )
                table.add_row(str(n), item["state"], item["kind"], item["text"], shown)
            console.print(table)
            if d["timed_out"]:
                console.print(f"[yellow]routes timed out: {', '.join(d['timed_out'])}[/yellow]")

        emit(data, as_json, render)


@app.command()
def forget(
    text: Annotated[str, typer.Argument(help="What to forget, in the user's words.")],
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Expire the memories matching TEXT and leave a tombstone."""
    with opened(home) as hf, user_errors():
        data = events_json(hf.memory.forget(resolve_user(hf, user), text))
        emit(data, as_json, lambda d: _events_table(d["events"]))


@app.command("list")
def list_(
    user: UserOption = None,
    all_: Annotated[bool, typer.Option("--all", help="Include superseded and forgotten memories.")] = False,
    kind: Annotated[
        list[str] | None, typer.Option(help="fact, commitment, tombstone, summary, profile, excerpt.")
    ] = None,
    as_of: Annotated[str | None, typer.Option("--as-of", help="The record as it stood then (ISO 8601).")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the newest N.")] = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """List a user's memories (current ones unless --all)."""
    from heedful.server.shapes import memory_list_json

    with opened(home) as hf, user_errors():
        data = memory_list_json(hf, resolve_user(hf, user), kinds=kind, include_inactive=all_, as_of=as_of, limit=limit)
        filtered = bool(kind or as_of)

        def render(rows: list[dict[str, Any]]) -> None:
            if not rows:
                console.print("[dim]nothing matches[/dim]" if filtered else "[dim]nothing yet[/dim]")
                return
            table = Table("id", "state", "kind", "text", "since")
            for row in rows:
                table.add_row(row["id"], row["state"], row["kind"], row["text"], str(row["valid_from"])[:19])
            console.print(table)

        emit(data, as_json, render)


@app.command()
def history(
    fact_id: Annotated[str, typer.Argument(help="A memory id (from list or recall).")],
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """What a memory replaced, what replaced it, and every change to it."""
    with opened(home) as hf, user_errors():
        data = hf.memory.history(resolve_user(hf, user), fact_id).to_json()

        def render(d: dict[str, Any]) -> None:
            for row in d["chain"]:
                console.print(f"{row['valid_from'][:19]}  [{row['state']}] {row['text']}  ({row['id']})")
            for op in d["ops"]:
                console.print(f"  {op['at'][:19]} {op['op']} {op['fact_id']} {op['reason'] or ''}")

        emit(data, as_json, render)


@app.command()
def correct(
    fact_id: Annotated[str, typer.Argument()],
    text: Annotated[str, typer.Argument(help="The corrected statement.")],
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Correct a memory: the old statement is superseded, not rewritten."""
    with opened(home) as hf, user_errors():
        data = events_json([hf.memory.correct(resolve_user(hf, user), fact_id, text)])
        emit(data, as_json, lambda d: _events_table(d["events"]))


@app.command()
def delete(
    fact_id: Annotated[str, typer.Argument()],
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Delete a memory: it expires and stays in the record, marked deleted."""
    with opened(home) as hf, user_errors():
        data = events_json([hf.memory.delete(resolve_user(hf, user), fact_id)])
        emit(data, as_json, lambda d: _events_table(d["events"]))


@app.command()
def undo(user: UserOption = None, home: HomeOption = None, as_json: JsonOption = False) -> None:
    """Undo the newest change to a user's memory (the undo is recorded too)."""
    with opened(home) as hf, user_errors():
        data = memory_undo_json(hf, resolve_user(hf, user))
        emit(data, as_json, lambda d: console.print(f"undid {len(d['undone'])} change(s)"))


@app.command()
def flush(user: UserOption = None, home: HomeOption = None, as_json: JsonOption = False) -> None:
    """Extract facts from everything in the user's buffer now."""
    with opened(home) as hf, user_errors():
        data = events_json(hf.memory.flush(resolve_user(hf, user)))
        emit(data, as_json, lambda d: _events_table(d["events"]))


@app.command()
def dream(
    user: UserOption = None,
    enqueue: Annotated[bool, typer.Option("--enqueue", help="Only queue the job for a worker.")] = False,
    due: Annotated[
        bool, typer.Option("--due", help="Queue Dream for every user who is due (idle an hour with new messages).")
    ] = False,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Consolidate: flush, summarise sessions, rebuild the profile (as a leased job)."""
    from heedful.memory.jobs import schedule_dreams
    from heedful.worker import drain

    with opened(home) as hf, user_errors():
        if due:
            queued = schedule_dreams(hf)
            stats = drain(hf) if not enqueue else None
            emit(
                {"queued": queued, "done": stats.done if stats else 0, "failed": stats.failed if stats else 0},
                as_json,
                lambda d: console.print(f"Dream queued for {len(d['queued'])} user(s)"),
            )
            return
        user_id = hf.memory.require_user(resolve_user(hf, user))
        job_id = hf.store.jobs.enqueue(user_id, "memory.dream", {})
        if not enqueue:
            drain(hf)
        job = hf.store.jobs.get(job_id)
        assert job is not None
        data = {"job_id": job_id, "state": job.state, "result": job.result, "error": job.last_error}
        emit(data, as_json, _render_dream)
        if job.state == "failed":
            raise typer.Exit(1)


def _render_dream(d: dict[str, Any]) -> None:
    from heedful.memory.results import DreamResult

    if d["state"] != "done":
        console.print(f"dream job {d['job_id']}: {d['state']}" + (f" ({escape(d['error'])})" if d["error"] else ""))
        return
    result = DreamResult.model_validate(d["result"])  # what the job stored: `run_dream`'s dump
    profile = "rebuilt" if result.profile_rebuilt else "unchanged"
    console.print(
        f"dream job {d['job_id']} done: {result.summaries} session summaries, profile {profile},"
        f" {result.flushed_events} memory changes from the buffer"
    )


@app.command()
def context(
    words: Annotated[list[str], typer.Argument(help="QUESTION, or with --options: OPTION... QUESTION.")],
    user: UserOption = None,
    options: Annotated[bool, typer.Option("--options", help="The words before QUESTION are answer options.")] = False,
    option: Annotated[list[str] | None, typer.Option("--option", help="One answer option (repeatable).")] = None,
    harness: Annotated[str | None, typer.Option(help="Harness version (default: the current one).")] = None,
    as_of: Annotated[str | None, typer.Option("--as-of", help="Build it from what was valid then (ISO 8601).")] = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Build what an answering model should read to answer QUESTION from memory."""
    from heedful.harness import get_harness
    from heedful.timeutil import parse_user_time, to_text

    choices = list(option or [])
    if options:
        if len(words) < 2:
            fail("--options needs at least one option followed by the QUESTION")
        choices.extend(words[:-1])
        question = words[-1]
    else:
        question = " ".join(words)
    if not question.strip():
        fail("the question is empty")
    with opened(home) as hf, user_errors():
        moment = to_text(parse_user_time(as_of)) if as_of else None
        chosen = get_harness(harness, hf.settings.home)
        built = chosen.build(hf, resolve_user(hf, user), question, options=choices or None, as_of=moment)
        emit(built.to_json(), as_json, lambda d: typer.echo(d["text"]))


@app.command("purge-secrets")
def purge_secrets(
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list the rows that hold a secret.")] = False,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Mask secrets stored before redaction covered them, in every user's rows (the one sanctioned
    rewrite of append-only rows; it is recorded, without the secrets, and the file is compacted)."""
    from heedful.store.sqlite import SQLiteStore

    with opened(home) as hf, user_errors():
        if isinstance(hf.store, SQLiteStore):
            from heedful.store.sqlite.purge import purge_secrets as purge

            report = purge(hf.store.db, dry_run=dry_run).to_json()
        else:  # PostgreSQL: the same report; the guard triggers are off only inside its transaction
            from heedful.store.postgres import PostgresStore
            from heedful.store.postgres.purge import purge_secrets as purge_postgres

            if not isinstance(hf.store, PostgresStore):
                fail(f"purge-secrets does not know the store at {hf.settings.database}")
            report = purge_postgres(hf.store.db, dry_run=dry_run).to_json()

        def render(d: dict[str, Any]) -> None:
            verb = "would rewrite" if d["dry_run"] else "rewrote"
            where = ", ".join(f"{table}: {count}" for table, count in d["tables"].items()) or "nothing to purge"
            console.print(
                f"{verb} {d['rows']} row(s) ({where})" + (f"; recorded as {d['purge_id']}" if d["purge_id"] else "")
            )

        emit(report, as_json, render)
