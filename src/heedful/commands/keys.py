"""`heedful keys ...`: API keys for `heedful serve` (create prints the key once; only a hash is kept)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from heedful.commands.common import HomeOption, JsonOption, emit, opened, user_errors

app = typer.Typer(help="API keys for `heedful serve`: create, list, revoke.", no_args_is_help=True)
console = Console()


def _repo(hf: Any) -> Any:

    return hf.store.keys


@app.command()
def create(
    user: Annotated[str, typer.Option("--user", "-u", help="The user the key acts for.")],
    admin: Annotated[
        bool, typer.Option("--admin", help="May act for any user named in the X-Heedful-User header.")
    ] = False,
    label: Annotated[str | None, typer.Option("--label", help="A note to tell keys apart.")] = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create a key and print it once: it cannot be shown again (only its hash is stored)."""
    from heedful.server.keys import create_key

    with opened(home) as hf, user_errors():
        issued = create_key(_repo(hf), user, admin=admin, label=label)

        def render(d: dict[str, Any]) -> None:
            typer.echo(d["key"])
            kind = "admin key" if d["admin"] else "key"
            typer.echo(f"{kind} {d['id']} for user {d['user']!r}: keep it now, it is not shown again", err=True)

        emit(issued.to_json(), as_json, render)


@app.command("list")
def list_keys(
    user: Annotated[str | None, typer.Option("--user", "-u", help="Only this user's keys.")] = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """List keys (ids, users, admin, created, revoked); never the keys themselves."""
    with opened(home) as hf, user_errors():
        data = [record.to_json() for record in _repo(hf).list(user)]

        def render(rows: list[dict[str, Any]]) -> None:
            if not rows:
                console.print("[dim]no key yet (`heedful keys create --user U`)[/dim]")
                return
            table = Table("id", "user", "admin", "label", "created", "revoked")
            for row in rows:
                table.add_row(
                    row["id"], row["user"], "yes" if row["admin"] else "", row["label"] or "",
                    row["created_at"][:19], (row["revoked_at"] or "")[:19],
                )  # fmt: skip
            console.print(table)

        emit(data, as_json, render)


@app.command()
def revoke(
    key_id: Annotated[str, typer.Argument(help="The key's id (from `heedful keys list`), e.g. k-1a2b3c4d5e6f.")],
    reason: Annotated[str | None, typer.Option("--reason", help="Why, for the record.")] = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Revoke a key: refused from the next request on (the key stays in the record, marked revoked)."""
    from heedful.server.keys import revoke_key

    with opened(home) as hf, user_errors():
        record = revoke_key(_repo(hf), key_id, reason)
        emit(record.to_json(), as_json, lambda d: console.print(f"revoked {d['id']} (user {d['user']!r})"))
