"""`heedful log [--session S]`: what the hooks blocked, asked to revise or let through, and why."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from heedful.commands.common import HomeOption, JsonOption, UserOption, emit, opened, resolve_user

console = Console()
LABELS = {
    "deny": "[red]denied[/red]",
    "feedback": "[yellow]feedback[/yellow]",
    "revise": "[yellow]revision asked[/yellow]",
    "unresolved": "[magenta]let through (budget spent)[/magenta]",
    "unknown": "[dim]could not check[/dim]",
    "cleared": "[green]cleared[/green]",
    "appeal_overturned": "[green]appeal overturned[/green]",
    "appeal_upheld": "[red]appeal upheld[/red]",
    "appeal_refused": "[dim]appeal refused[/dim]",
    "filed_appeal": "[dim]appeal filed[/dim]",
    "yielded": "[cyan]yielded to the user's request[/cyan]",
}


def _render(data: dict[str, Any]) -> None:
    if data["session"] is None:
        if not data["sessions"]:
            console.print("[dim]no sessions recorded yet[/dim]")
            return
        console.print("[bold]sessions[/bold] (newest first)")
        for s in data["sessions"]:
            console.print(
                f"  {escape(s['session_id'])}  {s['platform']}  {escape(str(s['project'] or ''))}  "
                f"turns {s['turn_count']}  interventions {s['interventions']}  "
                f"unresolved {s['unresolved']}  last {s['updated_at']}"
            )
        console.print()
    if not data["entries"]:
        console.print("[dim]nothing was blocked or flagged[/dim]")
        return
    current = None
    for entry in data["entries"]:
        if (entry["session_id"], entry["turn_id"]) != current:
            current = (entry["session_id"], entry["turn_id"])
            console.print(f"[bold]session {escape(entry['session_id'])}[/bold] turn {escape(entry['turn_id'])}")
        label = LABELS.get(entry["action"], entry["action"])
        rule = f"“{escape(entry['rule_text'] or '')}” [{escape(entry['rule_id'] or '')}]" if entry["rule_id"] else ""
        console.print(f"  {entry['at'][:19]} {entry['stage']:<10} {label} {rule}")
        if entry["reason"]:
            console.print(f"      why: {escape(entry['reason'])}")
        for quote in entry["quotes"][:2]:
            console.print(f"      matched: {escape(quote)}")
        if entry["detail"]:
            console.print(f"      note: {escape(entry['detail'])}")


def log(
    session: Annotated[str | None, typer.Option("--session", "-s", help="Only this session id.")] = None,
    limit: Annotated[int, typer.Option(help="At most this many entries (newest kept).")] = 200,
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show what was denied, sent back for revision or let through, per session, with the rule and the reason."""
    from heedful.server.shapes import log_json

    with opened(home) as hf:
        data = log_json(hf, resolve_user(hf, user), session, limit=limit)
        emit(data, as_json, _render)


app = typer.Typer(help="What the hooks blocked and why.", add_completion=False)
app.command()(log)
