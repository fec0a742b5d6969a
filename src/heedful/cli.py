"""The `heedful` command. Thin: each group lives in heedful.commands and calls the facade."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from heedful import __version__
from heedful.commands import bench, demo, doctor, hook, install, jobs, log, mcp, memory, rules, train

app = typer.Typer(
    help="heedful: tell your agent once. Learned rules enforced later; memory that supersedes and forgets.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(memory.app, name="memory")
app.add_typer(rules.app, name="rules")
app.add_typer(jobs.app, name="jobs")
app.add_typer(bench.app, name="bench")
app.add_typer(train.app, name="train")
app.add_typer(hook.app, name="hook")
app.add_typer(install.install_app, name="install")
app.add_typer(install.uninstall_app, name="uninstall")
app.command("log")(log.log)
app.command("mcp")(mcp.mcp)
app.command("worker")(jobs.worker)
app.command("demo")(demo.demo)
app.command("doctor")(doctor.doctor)


@app.callback()
def root(
    model: Annotated[
        str | None,
        typer.Option("--model", help="offline, local, openai:MODEL or anthropic:MODEL, for this command only."),
    ] = None,
    embedder: Annotated[str | None, typer.Option("--embedder", help="minilm or hashing, for this command.")] = None,
) -> None:
    """Options placed before the command apply to every step it runs: `heedful --model local memory flush`."""
    if model:
        os.environ["HEEDFUL_MODEL"] = model
    if embedder:
        os.environ["HEEDFUL_EMBEDDER"] = embedder


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


def main() -> None:
    os.umask(0o077)  # the home and everything in it are private to the user
    app()
