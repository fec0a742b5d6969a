"""`heedful mcp [--http] [--port N] [--no-auth]`: the MCP server (stdio; or streamable HTTP on loopback)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from heedful.commands.common import HomeOption, fail, load_cli_settings, user_errors


def mcp(
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP on loopback instead of stdio.")] = False,
    host: Annotated[str, typer.Option(help="Loopback address for --http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port for --http.")] = 8765,
    no_auth: Annotated[
        bool, typer.Option("--no-auth", help="With --http: no bearer token (any local process can call).")
    ] = False,
    home: HomeOption = None,
) -> None:
    """Serve memory and rules over MCP: remember, recall, forget, list rules, propose rules, check.

    The user is the configured one (HEEDFUL_USER or user.default), never a tool argument. Over
    HTTP every request needs `Authorization: Bearer <token>`; the token is created on first use in
    the heedful home (mode 0600) and printed at start.
    """
    if no_auth and not http:
        fail("--no-auth only applies to --http")
    # The SDK stays an extra (it brings about 25 packages: starlette, uvicorn, jsonschema, ...);
    # the server imports it late, so it is looked for here, before anything starts.
    try:
        import mcp.server  # noqa: F401
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "mcp":
            fail("the MCP server needs the MCP SDK, an optional extra: pip install 'heedful[mcp]'")
        raise
    from heedful.integrations.mcp_server import serve

    def announce(line: str) -> None:
        print(line, file=sys.stderr, flush=True)  # stdout stays free for the protocol

    with user_errors():
        serve(load_cli_settings(home), http=http, host=host, port=port, auth=not no_auth, announce=announce)


app = typer.Typer(help="The MCP server.", add_completion=False)
app.command()(mcp)
