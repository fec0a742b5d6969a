"""The `heedful` command. Thin: each group lives in heedful.commands and calls the facade."""

from __future__ import annotations

import typer

from heedful import __version__
from heedful.commands import demo, doctor, jobs, memory, rules

app = typer.Typer(
    help="heedful: tell your agent once. Learned rules enforced later; memory that supersedes and forgets.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(memory.app, name="memory")
app.add_typer(rules.app, name="rules")
app.add_typer(jobs.app, name="jobs")
app.command("worker")(jobs.worker)
app.command("demo")(demo.demo)
app.command("doctor")(doctor.doctor)


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


def main() -> None:
    app()
