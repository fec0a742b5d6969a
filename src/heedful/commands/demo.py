"""`heedful demo`: the whole idea in a minute, offline, in a throw-away home."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from heedful.commands.common import JsonOption, emit, load_cli_settings, opened


def demo(
    home: Annotated[
        Path | None, typer.Option("--home", help="Keep the demo's home here (default: a temporary folder).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Show a correction learned once and enforced later, and a memory that supersedes and forgets.

    Offline, in a throw-away SQLite home; with a PostgreSQL database configured (HEEDFUL_DATABASE_URL
    or `[store] url`), there, as a demo user of its own."""
    import secrets

    from heedful.demo import USER, run_demo

    with tempfile.TemporaryDirectory(prefix="heedful-demo-") as scratch:
        where = home or Path(scratch) / "home"
        shared = (load_cli_settings(where).store.url or "").startswith(("postgresql://", "postgres://"))
        # A configured PostgreSQL database is used, with a demo user of its own for this run; otherwise
        # the demo's own SQLite file in its home.
        overrides = None if shared else {"store.url": "sqlite", "store.path": "heedful.db"}
        user = f"{USER}-{secrets.token_hex(4)}" if shared else USER
        with opened(where, overrides) as hf:
            report = run_demo(hf, Path(scratch) / "work", user)
    console = Console()

    def render(data: dict[str, Any]) -> None:
        for step in data["steps"]:
            mark = "[green]✓[/green]" if step["ok"] else "[red]✗[/red]"
            console.print(f"{mark} [bold]{step['title']}[/bold]")
            if step["detail"]:
                console.print(f"    {step['detail']}")
            console.print(f"    expected: {step['expected']}  ·  observed: {step['observed']}")
        verdict = "[green]all steps behaved as expected[/green]" if data["ok"] else "[red]some steps did not[/red]"
        console.print(f"\n{verdict}")

    emit(report, as_json, render)
    if not report["ok"]:
        raise typer.Exit(1)
