"""`heedful mcp [--http] [--port N]`: the MCP server (stdio by default; streamable HTTP on loopback)."""

from __future__ import annotations

from typing import Annotated

import typer

from heedful.commands.common import HomeOption, fail, user_errors


def mcp(
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP on loopback instead of stdio.")] = False,
    host: Annotated[str, typer.Option(help="Loopback address for --http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port for --http.")] = 8765,
    home: HomeOption = None,
) -> None:
    """Serve memory and rules over MCP: remember, recall, forget, list/learn/retract rules, check.

    The user is the configured one (HEEDFUL_USER or user.default), never a tool argument.
    """
    try:
        from heedful.integrations.mcp_server import serve
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "mcp":
            fail("the MCP server needs the `mcp` package: pip install 'heedful[mcp]'")
        raise
    with user_errors():
        serve(home, http=http, host=host, port=port)


app = typer.Typer(help="The MCP server.", add_completion=False)
app.command()(mcp)
