"""Start-up: `heedful --help` and `heedful rules list` against a bare `python -c "import typer"`.

Each case is a fresh interpreter (`sys.executable`, so the same environment and the same
heedful), timed by wall clock from spawn to exit and by the CPU time it used (user + system, which
other processes on a busy machine disturb far less). Runs are interleaved (case order rotates each
round) so that a noisy neighbour slows every case alike, and medians are reported with each
case's ratio to the baseline. The target is a ratio of at most 1.5. Byte-code is written and used
as after an install (PYTHONDONTWRITEBYTECODE is dropped for the runs): otherwise every run would
compile heedful's sources and measure the compiler.

`rules learn` is reported apart: one correction, offline, in a fresh home each run; its own work
is the `elapsed_ms` the command reports (after start-up), next to the whole command's wall time and
CPU time (all its threads: the embedder loads in one of its own while the learner imports). Its
warm-up run fills the cache folder as a user's first learn does (the optimised embedding graph, the
compiled code of the learner's patterns, the parsed command table), and the timed runs read them.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated

import typer

from heedful.errors import HeedfulError

TARGET_RATIO = 1.5
LEARN_TARGET_MS = 300.0
CORRECTION = "Never commit directly to main; open a pull request instead."


@dataclass(frozen=True)
class CaseResult:
    name: str
    argv: list[str]
    median_ms: float
    min_ms: float
    ratio: float  # median over the baseline's median
    median_cpu_ms: float  # user + system time of the process
    cpu_ratio: float
    targeted: bool  # held to the target ratio (the others are shown for comparison)


@dataclass(frozen=True)
class LearnResult:
    runs: int
    median_wall_ms: float
    median_own_ms: float  # the command's own `elapsed_ms`: the learning after start-up
    median_cpu_ms: float  # user + system time of the whole command, every thread
    target_ms: float
    within_target: bool


@dataclass(frozen=True)
class StartupReport:
    python: str
    runs: int
    target_ratio: float
    baseline: CaseResult
    cases: list[CaseResult]
    within_target: bool
    learn: LearnResult | None


@dataclass(frozen=True)
class Run:
    wall_ms: float
    cpu_ms: float
    stdout: str


def _run(argv: list[str], env: dict[str, str]) -> Run:
    """One fresh process: wall and CPU time in ms, and its stdout; a failing command is an error, not a time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise HeedfulError(f"`{' '.join(argv[1:])}` exited with {done.returncode}: {last}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return Run(elapsed, cpu, done.stdout)


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["HEEDFUL_HOME"] = str(home)
    env["COLUMNS"] = "100"  # help is laid out the same whatever the terminal
    return env


def measure(runs: int = 15, learn_runs: int = 5) -> StartupReport:
    python = sys.executable
    cases = {
        "python -c 'import typer'": [python, "-c", "import typer"],
        "heedful --help": [python, "-m", "heedful", "--help"],
        "heedful rules list": [python, "-m", "heedful", "rules", "list"],
        # The floor for any command that takes an option: Typer (>= 0.2x) coerces option values
        # through pydantic, which `import typer` alone does not load.
        "heedful version": [python, "-m", "heedful", "version"],
    }
    targeted = {"heedful --help", "heedful rules list"}
    names = list(cases)
    with tempfile.TemporaryDirectory(prefix="heedful-startup-") as scratch:
        env = _environment(Path(scratch) / "home")
        for argv in cases.values():  # warm up: byte-code, page cache, and the home's database
            _run(argv, env)
        times: dict[str, list[Run]] = {name: [] for name in names}
        for round_ in range(runs):
            for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
                times[name].append(_run(cases[name], env))
        learn = _learn(python, Path(scratch), learn_runs) if learn_runs else None
    base = statistics.median(r.wall_ms for r in times[names[0]])
    base_cpu = statistics.median(r.cpu_ms for r in times[names[0]])
    results = []
    for name, measured in times.items():
        wall = statistics.median(r.wall_ms for r in measured)
        cpu = statistics.median(r.cpu_ms for r in measured)
        results.append(
            CaseResult(
                name,
                cases[name][1:],
                round(wall, 1),
                round(min(r.wall_ms for r in measured), 1),
                round(wall / base, 2),
                round(cpu, 1),
                round(cpu / base_cpu, 2) if base_cpu else 0.0,
                name in targeted,
            )
        )
    return StartupReport(
        python=python,
        runs=runs,
        target_ratio=TARGET_RATIO,
        baseline=results[0],
        cases=results[1:],
        within_target=all(r.ratio <= TARGET_RATIO for r in results[1:] if r.targeted),
        learn=learn,
    )


def _learn(python: str, scratch: Path, runs: int) -> LearnResult:
    """`rules learn` of one correction in a fresh (already created) home each run."""
    template = scratch / "learn-template"
    project = scratch / "project"
    project.mkdir()
    _run([python, "-m", "heedful", "rules", "list"], _environment(template))  # creates and migrates the home
    walls: list[float] = []
    cpus: list[float] = []
    own: list[float] = []
    for n in range(runs + 1):  # the first run is a warm-up
        home = scratch / f"learn-{n}"
        shutil.copytree(template, home)
        argv = [python, "-m", "heedful", "rules", "learn", "--json", "--project", str(project), CORRECTION]
        done = _run(argv, _environment(home))
        if n:
            walls.append(done.wall_ms)
            cpus.append(done.cpu_ms)
            own.append(float(json.loads(done.stdout)["elapsed_ms"]))
    median_own = round(statistics.median(own), 1)
    return LearnResult(
        runs,
        round(statistics.median(walls), 1),
        median_own,
        round(statistics.median(cpus), 1),
        LEARN_TARGET_MS,
        median_own <= LEARN_TARGET_MS,
    )


def print_report(report: StartupReport) -> None:
    typer.echo(f"start-up, median of {report.runs} interleaved runs ({report.python})")
    for case in [report.baseline, *report.cases]:
        note = "" if case.targeted or case is report.baseline else "  (for comparison)"
        typer.echo(
            f"  {case.name:<26} {case.median_ms:>7.1f} ms  (min {case.min_ms:.1f})  ×{case.ratio:.2f}"
            f"   CPU {case.median_cpu_ms:>6.1f} ms ×{case.cpu_ratio:.2f}{note}"
        )
    verdict = "within" if report.within_target else "NOT within"
    typer.echo(f"  {verdict} the target of ×{report.target_ratio} of the baseline for --help and rules list")
    if report.learn:
        learn = report.learn
        typer.echo(
            f"rules learn (one correction, offline), median of {learn.runs}: {learn.median_own_ms:.1f} ms of its own"
            f" work (target {learn.target_ms:.0f} ms), {learn.median_wall_ms:.1f} ms with start-up"
            f" (CPU {learn.median_cpu_ms:.1f} ms)"
        )


def cli(
    runs: Annotated[int, typer.Option("--runs", min=3, help="Interleaved rounds (each runs every case).")] = 15,
    learn_runs: Annotated[int, typer.Option("--learn-runs", min=0, help="Runs of `rules learn` (0: skip it).")] = 5,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 when a case is over the target ratio.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Start-up of `heedful --help` and `rules list` against `python -c 'import typer'`, and `rules learn`."""
    report = measure(runs, learn_runs)
    if json_output:
        typer.echo(json.dumps(asdict(report), indent=2))
    else:
        print_report(report)
    if strict and not report.within_target:
        raise typer.Exit(1)
