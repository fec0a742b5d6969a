"""`heedful demo`: the whole idea in a minute, offline, in a throw-away home."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from heedful.commands.common import JsonOption, emit, opened


def demo(
    home: Annotated[
        Path | None, typer.Option("--home", help="Keep the demo's home here (default: a temporary folder).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Show a correction learned once and enforced later, and a memory that supersedes and forgets."""
    from heedful.demo import run_demo

    with tempfile.TemporaryDirectory(prefix="heedful-demo-") as scratch:
        where = home or Path(scratch) / "home"
        # The demo's own SQLite file even when a PostgreSQL database is configured: it writes a demo user.
        with opened(where, {"store.url": "sqlite", "store.path": "heedful.db"}) as hf:
            report = run_demo(hf, Path(scratch) / "work")
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
