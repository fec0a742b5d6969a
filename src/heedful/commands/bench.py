"""`heedful bench ...`: the benchmarks, each printing a report (or JSON with `--json`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import import_module
from typing import Any

import typer

from heedful.commands.common import fail
from heedful.errors import HeedfulError

app = typer.Typer(
    help="Benchmarks: recall (locomo, beam), rule learning (corrections, selection), enforcement, start-up.",
    no_args_is_help=True,
)

# name -> module under heedful.bench exposing a typer-compatible `cli` function.
BENCHMARKS = {
    "locomo": "locomo",
    "beam": "beam",
    "corrections": "corrections",
    "selection": "selection",
    "replay": "replay",
    "hooks": "hooks",
    "scale": "scale",
    "scale-postgres": "scale_postgres",
    "import": "import_bench",
    "startup": "startup",
    "serve": "serve",
}

# Where the external data of a benchmark comes from (it is never shipped): said when it is missing.
DATA_SOURCES = {
    "locomo": "LoCoMo-10 is data/locomo10.json of github.com/snap-research/LoCoMo",
    "beam": "BEAM-100K is chats/100K of github.com/mohammadtavakoli78/BEAM, each chat.json gzipped to chat.json.gz",
}


def _one_line_errors(name: str, command: Callable[..., Any]) -> Callable[..., Any]:
    """The benchmark, with heedful's own errors as one `error:` line (exit 2) instead of a traceback."""

    @functools.wraps(command)  # Typer reads the options from the wrapped signature
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except HeedfulError as exc:
            source = DATA_SOURCES.get(name)
            fail(f"{exc} ({source})" if source and "data" in str(exc) else str(exc))

    return run


for name, module in BENCHMARKS.items():
    try:
        command = import_module(f"heedful.bench.{module}").cli
    except ModuleNotFoundError as exc:
        if exc.name != f"heedful.bench.{module}":
            raise  # a dependency is missing: show it rather than hide the benchmark
        continue  # a benchmark whose module is not part of this build
    app.command(name)(_one_line_errors(name, command))
