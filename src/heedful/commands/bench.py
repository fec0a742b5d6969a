"""`heedful bench ...`: the benchmarks, each printing a report (or JSON with `--json`)."""

from __future__ import annotations

from importlib import import_module

import typer

app = typer.Typer(help="Benchmarks: recall (locomo, beam), rule learning (corrections, selection), enforcement.",
                  no_args_is_help=True)

# name -> module under heedful.bench exposing a typer-compatible `cli` function.
BENCHMARKS = {
    "locomo": "locomo",
    "beam": "beam",
    "corrections": "corrections",
    "selection": "selection",
    "replay": "replay",
    "hooks": "hooks",
    "scale": "scale",
    "import": "import_bench",
}

for name, module in BENCHMARKS.items():
    try:
        command = import_module(f"heedful.bench.{module}").cli
    except ModuleNotFoundError as exc:
        if exc.name != f"heedful.bench.{module}":
            raise  # a dependency is missing: show it rather than hide the benchmark
        continue  # a benchmark whose module is not part of this build
    app.command(name)(command)
