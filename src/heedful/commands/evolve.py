"""`heedful evolve`: the outer loop that proposes harness versions and keeps only what a fixed evaluator accepts.

heedful evolve [--proposer NAME|CMD] [--critic NAME|CMD] [--rounds N] [--bench locomo|beam] [--json]
heedful evolve log [--json]
heedful evolve versions [--json]
heedful evolve adopt VERSION
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.commands.common import HomeOption, JsonOption, check_home, emit, fail, load_cli_settings, user_errors


def _locomo() -> tuple[Path, str]:
    from heedful.bench.locomo import DEFAULT_DATA

    return DEFAULT_DATA, "LoCoMo"


def _beam() -> tuple[Path, str]:
    from heedful.bench.beam import DEFAULT_DATA

    return DEFAULT_DATA, "BEAM-100K"


# Benchmarks with declared splits (heedful.evolve.evaluator.SPLITS): their default data and name.
DRIVERS = {"locomo": _locomo, "beam": _beam}

app = typer.Typer(
    help="Improve the memory harness offline: propose from failure traces, screen, accept on held-out users.",
    invoke_without_command=True,
)


@app.callback()
def evolve(
    ctx: typer.Context,
    proposer: Annotated[
        str | None,
        typer.Option(
            "--proposer",
            help="claude (default when installed), codex, scripted (offline) or a shell command run in the workspace.",
        ),
    ] = None,
    critic: Annotated[
        str | None,
        typer.Option(
            "--critic",
            help="codex, claude or a shell command that answers a JSON verdict (the static check always runs).",
        ),
    ] = None,
    rounds: Annotated[int, typer.Option("--rounds", min=1, max=50, help="Rounds to run.")] = 1,
    bench: Annotated[
        str, typer.Option("--bench", help="locomo (default) or beam: whose declared splits to use.")
    ] = "locomo",
    data: Annotated[Path | None, typer.Option("--data", help="The benchmark data (default: ../shared/data).")] = None,
    embedder: Annotated[
        str | None, typer.Option("--embedder", help="minilm (default) or hashing, for the benchmark's memory.")
    ] = None,
    per_split: Annotated[
        int | None, typer.Option("--per-split", min=1, help="Only the first N users of each split (a quick run).")
    ] = None,
    per_user: Annotated[
        int | None,
        typer.Option("--per-user", min=1, help="Only the first N questions of each user (for a slow model reader)."),
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", min=1, help="Seconds the proposer and the critic may take each.")
    ] = 1800,
    reader: Annotated[
        str | None,
        typer.Option(
            "--reader", help="A model (provider:model, or `configured`) answering from the context; its F1 decides."
        ),
    ] = None,
    second_reader: Annotated[
        str | None,
        typer.Option("--second-reader", help="A second model that may lose at most 1 point (default: evidence)."),
    ] = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Improve the memory harness offline: propose from failure traces, screen, accept on held-out users.

    Each round traces the current harness on the development users, runs the proposer in an
    isolated git workspace, screens its diff (a static shortcut check and the --critic command),
    then scores current against candidate on two validation halves nobody traced. A candidate is
    accepted only if it gains on both; it becomes a new version, the default only after `adopt`.
    """
    if ctx.invoked_subcommand is not None:
        return
    from heedful.bench.report import resolve_data
    from heedful.evolve.agents import critic_command, default_critic, default_proposer, proposer_command
    from heedful.evolve.loop import EvolveConfig, run

    where = check_home(home)
    say = (lambda _: None) if as_json else (lambda line: typer.echo(line, err=True))
    with user_errors():
        chosen = None
        if proposer is None:
            proposer = default_proposer()
            critic = critic or default_critic(proposer)
            chosen = (
                f"proposer: {proposer}, critic: {critic or 'the static check only'} (--proposer scripted stays offline)"
            )
        if bench not in DRIVERS:
            fail(f"no evolve driver for benchmark {bench!r}; available: {', '.join(DRIVERS)}")
        default_data, label = DRIVERS[bench]()
        config = EvolveConfig(
            home=where,
            data=resolve_data(data, default_data, label),
            bench=bench,
            proposer=proposer_command(proposer),
            critic=critic_command(critic),
            rounds=rounds,
            embedder=embedder or load_cli_settings(where).embedder.name,
            per_split=per_split,
            per_user=per_user,
            timeout=timeout,
            reader=reader,
            second_reader=second_reader,
        )
        if chosen:
            say(chosen)
        records = run(config, say)
    emit([r.model_dump() for r in records], as_json, _print_candidates)


def _print_candidates(records: list[dict[str, Any]]) -> None:
    for record in records:
        _print_candidate(record)


def _print_candidate(record: dict[str, Any]) -> None:
    typer.echo(f"{record['id']}  base {record['base']}  {record['decision'].upper()}")
    if record.get("params_changed"):
        for key, change in record["params_changed"].items():
            typer.echo(f"  {key}: {json.dumps(change['from'])} -> {json.dumps(change['to'])}")
    development = record["development"]
    typer.echo(
        f"  development: recall@10 {development['recall']} ({development['failures']} of"
        f" {development['questions']} questions missed, traced)"
    )
    _print_clusters(record.get("clusters") or [], record.get("clustered_by"))
    for note in (record.get("critic") or {}).get("notes") or []:
        typer.echo(f"  critic: {note}")
    for half in [*(record.get("validation") or []), *(record.get("second_reader") or [])]:
        low, high = half["ci95"]
        metric = half.get("metric", "evidence")
        typer.echo(
            f"  {half['split']} ({metric}): {half['current']} -> {half['candidate']} ({half['gain']:+.2f},"
            f" 95% CI [{low:+.2f}, {high:+.2f}], {half['questions']} questions)"
        )
    typer.echo(f"  reason: {record['reason']}")
    if record.get("version"):
        typer.echo(f"  stored as harness {record['version']}; make it the default with `heedful evolve adopt`")


SHOWN_CLUSTERS = 8
SHOWN_IDS = 3


def _print_clusters(clusters: list[dict[str, Any]], by: str | None) -> None:
    """The failure clusters, largest first: label, count and the first trace ids."""
    if not clusters:
        return
    typer.echo(f"  failure clusters ({'by the critic' if by == 'critic' else 'built-in'}):")
    for item in clusters[:SHOWN_CLUSTERS]:
        ids = list(item.get("traces") or [])
        more = f", +{len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else ""
        listed = f" ({', '.join(ids[:SHOWN_IDS])}{more})" if ids else ""
        typer.echo(f"    {item['count']:>4}  {item['label']}{listed}")
    if len(clusters) > SHOWN_CLUSTERS:
        rest = sum(int(c["count"]) for c in clusters[SHOWN_CLUSTERS:])
        typer.echo(f"          ... {len(clusters) - SHOWN_CLUSTERS} smaller clusters ({rest} failures); see --json")


@app.command("log")
def show_log(home: HomeOption = None, as_json: JsonOption = False) -> None:
    """Every candidate and adoption so far, oldest first."""
    from heedful.evolve import log

    where = check_home(home)
    with user_errors():
        records = [r.model_dump() for r in log.read(where)]

    def render(rows: list[dict[str, Any]]) -> None:
        if not rows:
            typer.echo("no candidates yet; run `heedful evolve`")
        for row in rows:
            if row["kind"] == "adoption":
                typer.echo(f"{row['at']}  ADOPTED {row['version']} (was {row['previous']})")
            else:
                _print_candidate(row)

    emit(records, as_json, render)


@app.command("versions")
def versions(home: HomeOption = None, as_json: JsonOption = False) -> None:
    """The harness versions, what each changes from v1, and which is the default."""
    from heedful.harness.versions import default_version, describe, stored_versions

    where = check_home(home)
    with user_errors():
        default = default_version(where)
        rows = [describe(v) | {"default": v.name == default} for v in stored_versions(where).values()]

    def render(items: list[dict[str, Any]]) -> None:
        for item in items:
            mark = "*" if item["default"] else " "
            base = f" from {item['base']}" if item["base"] else ""
            typer.echo(f"{mark} {item['name']}{base}: {json.dumps(item['changed']) if item['changed'] else 'defaults'}")

    emit(rows, as_json, render)


@app.command("adopt")
def adopt(
    version: Annotated[str, typer.Argument(help="The harness version to make the default, e.g. v2.")],
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Make a harness version the default (recorded in the log)."""
    from heedful.evolve import log
    from heedful.harness.versions import adopt as adopt_version

    where = check_home(home)
    with user_errors():
        previous = adopt_version(version, where)
        log.append(where, log.AdoptionRecord(at=log.now_text(), version=version, previous=previous))
    result = {"version": version, "previous": previous}
    emit(result, as_json, lambda d: typer.echo(f"default harness: {d['version']} (was {d['previous']})"))
