"""`heedful jobs ...` and `heedful worker`: the leased background queue."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from heedful.commands.common import HomeOption, JsonOption, emit, fail, opened

app = typer.Typer(help="Background jobs (learning, extraction, Dream).", no_args_is_help=True)
console = Console(stderr=True)


@app.command()
def drain(
    lease: Annotated[float, typer.Option(help="Lease length in seconds.")] = 600.0,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run every pending job to completion, then exit (scripts and tests use this to wait)."""
    from heedful.worker import drain as drain_jobs

    with opened(home) as hf:
        stats = drain_jobs(hf, lease_seconds=lease)
        data = {"done": stats.done, "failed": stats.failed, "errors": stats.errors, "counts": hf.store.jobs.counts()}
        emit(data, as_json, lambda d: typer.echo(f"done {d['done']}, failed {d['failed']}"))
        if stats.failed:
            raise typer.Exit(1)


@app.command("list")
def list_(
    state: Annotated[str | None, typer.Option(help="pending, running, done or failed.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many, newest first.")] = 50,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """List jobs with their state, attempts and last error."""
    from typing import get_args, get_type_hints

    from heedful.store.records import JobRecord

    states = get_args(get_type_hints(JobRecord)["state"])
    if state is not None and state not in states:  # a typo is an error, not an empty list
        fail(f"unknown state {state!r}; choose from {', '.join(states)}")
    with opened(home) as hf:
        jobs = hf.store.jobs.list(state=state, limit=limit)
        data = [
            {
                "id": j.id,
                "user_id": j.user_id,
                "kind": j.kind,
                "state": j.state,
                "attempts": j.attempts,
                "last_error": j.last_error,
                "created_at": j.created_at,
                "updated_at": j.updated_at,
            }
            for j in jobs
        ]

        def render(rows: list[dict[str, Any]]) -> None:
            if not rows:
                typer.echo("nothing yet" if state is None else f"no {state} job")
                return
            table = Table("id", "kind", "user", "state", "attempts", "error")
            for r in rows:
                table.add_row(r["id"], r["kind"], r["user_id"], r["state"], str(r["attempts"]), r["last_error"] or "")
            Console().print(table)

        emit(data, as_json, render)


def worker(
    poll: Annotated[float, typer.Option(help="Seconds between polls when idle.")] = 1.0,
    lease: Annotated[float, typer.Option(help="Lease length in seconds.")] = 600.0,
    idle_exit: Annotated[
        float | None, typer.Option("--idle-exit", help="Exit after this many idle seconds (default: never).")
    ] = None,
    home: HomeOption = None,
) -> None:
    """Work on queued jobs until stopped (Ctrl-C); run several for more throughput."""
    from heedful.worker import serve

    with opened(home) as hf:
        try:
            stats = serve(hf, poll_seconds=poll, lease_seconds=lease, max_idle_seconds=idle_exit)
        except KeyboardInterrupt:
            return
        console.print(f"worker exiting: done {stats.done}, failed {stats.failed}")
