"""`heedful serve`: the HTTP API, its OpenAPI page (/docs) and the web UI (/ui)."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from heedful.commands.common import HomeOption, cli_overrides, fail, opened

SERVE_EXTRA = "heedful serve needs the serve extra: pip install 'heedful[serve]'"


def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on (loopback unless you mean otherwise).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option("--port", help="TCP port.")] = 8765,
    workers: Annotated[int, typer.Option("--workers", help="Worker processes (each opens the database).")] = 1,
    rate: Annotated[float, typer.Option("--rate", help="Requests per second per key, sustained.")] = 20.0,
    burst: Annotated[int, typer.Option("--burst", help="Requests per key allowed at once above the rate.")] = 40,
    home: HomeOption = None,
) -> None:
    """Serve the HTTP API (/v1, OpenAPI at /docs) and the web UI (/ui); every request needs an API key."""
    try:
        import fastapi  # noqa: F401
        import jinja2  # noqa: F401
        import python_multipart  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        fail(SERVE_EXTRA)
    if not 0 < port < 65536:
        fail(f"--port must be between 1 and 65535, not {port}")
    if workers < 1:
        fail(f"--workers must be at least 1, not {workers}")
    if rate <= 0 or burst < 1:
        fail("--rate must be positive and --burst at least 1")
    from heedful.config import child_environment
    from heedful.server.app import BURST_ENV, RATE_ENV

    # Open (and migrate) the home once here, so a problem with it is one line rather than one per worker.
    with opened(home) as hf:
        settings = hf.settings
        if not hf.store.keys.list(include_revoked=False):
            typer.echo("no API key yet: make one with `heedful keys create --user U`", err=True)
    # uvicorn starts each worker from an import string, so each builds its app from the settings it reads
    # itself (config.toml and the environment); this command's own options reach them in the environment
    # of the server process, which replaces this one (same pid, so signals reach it directly).
    env = child_environment(cli_overrides())
    env.update({"HEEDFUL_HOME": str(settings.home), RATE_ENV: str(rate), BURST_ENV: str(burst)})
    typer.echo(f"heedful serving on http://{host}:{port} (API /v1, docs /docs, UI /ui); Ctrl-C stops", err=True)
    command = [sys.executable, "-m", "uvicorn", "heedful.server.app:app_from_env", "--factory"]
    command += ["--host", host, "--port", str(port), "--workers", str(workers)]
    command += ["--log-level", "warning", "--no-access-log"]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, command, env)
