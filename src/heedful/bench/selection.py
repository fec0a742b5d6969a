"""`heedful bench selection`: leave-one-source-out recall and precision of rule selection.

The corpus (`bench/selection/`, loaded by `heedful.rules.selection_corpus`) holds rule libraries
and tasks from several sources. For each source in turn, a scorer is trained on the other sources
(the same procedure as `--train`, seed fixed) and evaluated on the left-out one:

- a task source left out: its tasks are run against libraries of 50, 200 and 500 rules drawn from
  every rule source; every selected rule counts;
- a rule source left out: every task is run against libraries that hold that source's rules (up to
  the size) filled with rules of the other sources; only the left-out source's rules count.

Both selectors are measured: the service's (`heedful.rules.select`, with MiniLM cosine) and the
hook's (`heedful.enforce.select`, no embedder), the latter with each rule's reading as stored at
learning time (read with the rule's embedding, `heedful.rules.selection_readings`), within its token
budget (`hook`; `--budgets` adds others) and uncapped, and reading rules from their words
(`hook_words`, within the budget). Each size also reports the tokens of the context the hook would add
per turn (p50/p95/max). Recall and precision are micro-averaged over tasks and shuffled library orders.
`--train` fits the shipped model on the whole corpus instead.
"""

from __future__ import annotations

import dataclasses
import json
import random
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from heedful.enforce.select import TOKEN_BUDGET
from heedful.rules.models import Rule
from heedful.rules.selection_corpus import Corpus, RuleItem, TaskItem, load_corpus

if TYPE_CHECKING:
    from heedful.rules.selection_model import SelectionModel
    from heedful.rules.selection_readings import StoredReading

# hook: within its token budget; hook_words: rules read from words, none stored (also within the budget)
NAMES = ("service", "hook", "hook_uncapped", "hook_words")
PROTOCOL = (
    "each fold's scorer is fitted without the left-out source (seed fixed, thresholds by F2 on the training "
    "pairs only, the sentence read-out's ridge penalty by cross-fitted error on the training texts); the fixed "
    "settings (features, the token budget, the general-habit floor) were set before this run, the floor and the "
    "budget after reading "
    "pooled left-out results of earlier runs, so they are not nested"
)
MODEL_DIR = Path(__file__).resolve().parents[1] / "rules" / "data"


class Embeddings:
    """MiniLM vectors of the corpus's rules and tasks, and of single words (computed once per run)."""

    def __init__(self, corpus: Corpus, embedder: Any) -> None:
        from heedful.rules.selection_train import embed_words, vocabulary

        train_texts = [r.matching_text for r in corpus.rules] + [
            t.text for t in corpus.tasks if t.source != "swe_together"
        ]
        self.embedder = str(getattr(embedder, "name", ""))
        self.words = embed_words(embedder, vocabulary(train_texts))
        rule_vectors = embedder.embed([r.matching_text for r in corpus.rules])
        task_vectors = embedder.embed([t.text for t in corpus.tasks])
        self.rules = {r.id: np.asarray(v) for r, v in zip(corpus.rules, rule_vectors, strict=True)}
        self.tasks = {t.id: np.asarray(v) for t, v in zip(corpus.tasks, task_vectors, strict=True)}


def _libraries(pool: list[RuleItem], first: list[RuleItem], size: int, order: int) -> list[RuleItem]:
    rng = random.Random(1000 + order)
    rest = [r for r in pool if r not in first]
    rng.shuffle(rest)
    chosen = list(first[:size]) + rest[: max(0, size - len(first))]
    rng.shuffle(chosen)
    return chosen


@dataclasses.dataclass
class Fold:
    """A scorer fitted without one source, the rules' readings as the store keeps them, and what is evaluated."""

    model: SelectionModel
    stored: dict[str, StoredReading]
    eval_tasks: list[TaskItem]
    counted: set[str]  # ids of the rules that count (a left-out rule source: its rules only)
    first: list[RuleItem]  # rules every library holds (a left-out rule source's)
    train_rules: int
    train_tasks: int


def fold_model(
    corpus: Corpus, embeddings: Embeddings, kind: str, source: str, trained: frozenset[str] | None = None
) -> Fold:
    """Train without `kind:source` (the `--train` procedure, seed fixed; only on the `trained` sources when
    given) and read every rule once with its embedding, as when it is learned, kept as the store keeps it."""
    from heedful.rules.selection_readings import content_key, decode, encode, read_rule
    from heedful.rules.selection_train import train

    train_rules = [
        r
        for r in corpus.rules
        if not (kind == "rules" and r.source == source) and (trained is None or r.source in trained)
    ]
    train_tasks = [
        t
        for t in corpus.tasks
        if not (kind == "tasks" and t.source == source) and (trained is None or t.source in trained)
    ]
    model = train(corpus, embeddings.words, train_rules, train_tasks, embeddings.rules, embeddings.tasks)
    model.cues.index_all()
    made = {
        content_key(r.text, r.condition): read_rule(
            model, r.text, r.condition, embeddings.rules[r.id].tolist(), embeddings.embedder
        )
        for r in corpus.rules
    }
    return Fold(
        model,
        decode(encode(model.fingerprint, made), model.fingerprint, len(model.facet_names)),
        [t for t in corpus.tasks if t.source == source] if kind == "tasks" else corpus.tasks,
        {r.id for r in corpus.rules if kind == "tasks" or r.source == source},
        [r for r in corpus.rules if r.source == source] if kind == "rules" else [],
        len(train_rules),
        len(train_tasks),
    )


def evaluate_fold(
    corpus: Corpus,
    embeddings: Embeddings,
    kind: str,
    source: str,
    sizes: tuple[int, ...],
    orders: int,
    budgets: tuple[int, ...] = (),
    pool: Corpus | None = None,
    trained: frozenset[str] | None = None,
) -> dict[str, Any]:
    """One left-out source; `budgets` adds the hook at other token budgets (`hook_<tokens>`); `pool` limits the
    libraries and tasks evaluated to some sources (the scorer is still trained on every other source)."""
    from heedful.enforce import select as hook_select
    from heedful.rules import select as service_select

    fold = fold_model(corpus, embeddings, kind, source, trained)
    model, stored = fold.model, fold.stored
    eval_tasks, counted, first = fold.eval_tasks, fold.counted, fold.first
    pool = pool or corpus
    pooled = {t.id for t in pool.tasks}
    eval_tasks = [t for t in eval_tasks if t.id in pooled]
    out: dict[str, Any] = {
        "train_rules": fold.train_rules,
        "train_tasks": fold.train_tasks,
        "eval_tasks": len(eval_tasks),
    }
    for size in sizes:
        names = NAMES + tuple(f"hook_{b}" for b in budgets)
        tally = {name: [0, 0, 0] for name in names}  # hits, selected, gold
        timings: list[float] = []
        added: list[int] = []  # tokens of the hook's added context per turn
        for order in range(orders):
            library = _libraries(pool.rules, first, size, order)
            rules = [
                Rule(id=r.id, user_id="bench", text=r.text, condition=r.condition, scope="global", status="guidance")
                for r in library
            ]
            dicts: list[dict[str, Any]] = [
                {
                    "id": r.id,
                    "text": r.text,
                    "condition": r.condition,
                    "exceptions": [],
                    "status": "guidance",
                    "scope": "global",
                }
                for r in library
            ]
            matrix = np.vstack([embeddings.rules[r.id] for r in library])
            for task in eval_tasks:
                gold = {r.id for r in library if r.id in counted and corpus.relevant(task, r)}
                languages = set(task.languages) or None
                chosen = service_select.select(
                    rules,
                    matrix,
                    task.text,
                    embeddings.tasks[task.id],
                    project_languages=languages,
                    scorer=model,
                    embedder=embeddings.embedder,
                )
                started = time.perf_counter()
                hook = hook_select.select(dicts, task.text, languages, scorer=model, readings=stored)
                timings.append((time.perf_counter() - started) * 1000)
                added.append(hook_select.tokens_of(hook_select.turn_context(hook, 1, 0) or ""))
                uncapped = hook_select.select(dicts, task.text, languages, scorer=model, budget=None, readings=stored)
                words = hook_select.select(dicts, task.text, languages, scorer=model)
                picks = [
                    ("service", {s.rule.id for s in chosen.rules}),
                    ("hook", {r["id"] for r in hook}),
                    ("hook_uncapped", {r["id"] for r in uncapped}),
                    ("hook_words", {r["id"] for r in words}),
                ]
                for budget in budgets:
                    fitted = hook_select.fit(_blocks(uncapped), budget)
                    picks.append((f"hook_{budget}", {r["id"] for r in fitted}))
                for name, picked in picks:
                    picked &= counted
                    tally[name][0] += len(picked & gold)
                    tally[name][1] += len(picked)
                    tally[name][2] += len(gold)
        out[str(size)] = {
            name: {
                "recall": round(100 * h / max(g, 1), 1),
                "precision": round(100 * h / max(s, 1), 1),
                "selected_per_task": round(s / max(len(eval_tasks) * orders, 1), 1),
                "relevant_per_task": round(g / max(len(eval_tasks) * orders, 1), 1),
            }
            for name, (h, s, g) in tally.items()
        }
        out[str(size)]["library"] = min(size, len(pool.rules))
        out[str(size)]["hook_select_ms_median"] = round(statistics.median(timings), 2) if timings else 0.0
        out[str(size)]["hook_tokens_per_turn"] = _percentiles(added)
    return out


def _blocks(selected: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """An uncapped selection (each block in rank order) regrouped by reach, to fit into another budget."""
    from heedful.enforce.select import BLOCKS

    return {reach: [r for r in selected if r["reach"] == reach] for reach in BLOCKS}


def _percentiles(values: list[int]) -> dict[str, int]:
    ordered = sorted(values) or [0]
    return {"p50": ordered[len(ordered) // 2], "p95": ordered[int(0.95 * (len(ordered) - 1))], "max": ordered[-1]}


def run(
    sizes: tuple[int, ...] = (50, 200, 500),
    orders: int = 2,
    swe_dir: Path | None = None,
    embedder: str = "minilm",
    folds: tuple[str, ...] | None = None,
    budgets: tuple[int, ...] = (),
    within: frozenset[str] | None = None,
    trained: frozenset[str] | None = None,
) -> dict[str, Any]:
    """The leave-one-source-out report; `folds` limits it to some of "tasks:SOURCE" / "rules:SOURCE";
    `budgets` adds the hook at other token budgets; `within` evaluates only on libraries and tasks of those
    sources, each fold's scorer still trained on every source but the one left out (what data from other
    sources adds, measured on an unchanged test); `trained` fits each fold's scorer on those sources only (what
    a scorer without some sources does on them)."""
    from heedful.embed import load_embedder

    corpus = load_corpus(swe_dir)
    named = (within or frozenset()) | (trained or frozenset())
    unknown = sorted(named - set(corpus.rule_sources()) - set(corpus.task_sources()))
    if unknown:
        raise ValueError(f"--within/--train-on name unknown sources: {', '.join(unknown)}")
    embeddings = Embeddings(corpus, load_embedder(embedder))
    pool = corpus
    if within is not None:
        pool = Corpus([r for r in corpus.rules if r.source in within], [t for t in corpus.tasks if t.source in within])
    report: dict[str, Any] = {
        "embedder": embedder,
        "orders": orders,
        "rules": {s: sum(r.source == s for r in corpus.rules) for s in corpus.rule_sources()},
        "tasks": {s: sum(t.source == s for t in corpus.tasks) for s in corpus.task_sources()},
        "skipped": corpus.skipped,
        "protocol": PROTOCOL,
        "token_budget": TOKEN_BUDGET,
        "within": sorted(within) if within is not None else None,
        "trained_on": sorted(trained) if trained is not None else None,
        "left_out": {},
    }
    for kind, sources in (("tasks", pool.task_sources()), ("rules", pool.rule_sources())):
        for source in sources:
            typer.echo(f"leaving out {kind}:{source}", err=True)
            if kind == "rules" and source == "generated":
                continue  # template distractors: their labels hold by construction
            if folds is not None and f"{kind}:{source}" not in folds:
                continue
            report["left_out"][f"{kind}:{source}"] = evaluate_fold(
                corpus, embeddings, kind, source, sizes, orders, budgets, pool, trained
            )
    return report


def train_shipped(swe_dir: Path | None = None) -> dict[str, Any]:
    """Fit the shipped model on the whole corpus and write it under `rules/data/`."""
    from heedful.embed import load_embedder
    from heedful.rules.selection_train import SEED, save, train

    corpus = load_corpus(swe_dir)
    embeddings = Embeddings(corpus, load_embedder("minilm"))
    model = train(corpus, embeddings.words, corpus.rules, corpus.tasks, embeddings.rules, embeddings.tasks)
    if model.sentence is not None:
        model.sentence = dataclasses.replace(model.sentence, embedder=embeddings.embedder)
    summary = {
        "seed": SEED,
        "rules": len(corpus.rules),
        "tasks": len(corpus.tasks),
        "task_sources": corpus.task_sources(),
        "rule_sources": corpus.rule_sources(),
        "words": len(model.cues.words),
    }
    save(model, MODEL_DIR, summary)
    return summary


def _render(report: dict[str, Any]) -> None:
    typer.echo(
        f"selection, leave one source out ({report['orders']} orders); rules {report['rules']}, tasks {report['tasks']}"
    )
    typer.echo(f"  protocol: {report['protocol']}")
    if report.get("within"):
        typer.echo(f"  evaluated within: {', '.join(report['within'])}")
    if report.get("trained_on"):
        typer.echo(f"  each fold trained on: {', '.join(report['trained_on'])} (less the left-out source)")
    for source, why in report["skipped"].items():
        typer.echo(f"  skipped {source}: {why}")
    for fold, result in report["left_out"].items():
        typer.echo(
            f"  left out {fold} (train {result['train_rules']} rules x {result['train_tasks']} tasks, "
            f"eval {result['eval_tasks']} tasks)"
        )
        for size in (k for k in result if k.isdigit()):
            row = result[size]
            names = [name for name in row if isinstance(row[name], dict) and "recall" in row[name]]
            parts = [f"{name} R {row[name]['recall']:5.1f}% P {row[name]['precision']:5.1f}%" for name in names]
            tokens = row["hook_tokens_per_turn"]
            typer.echo(
                f"    {size:>4} rules: "
                + " | ".join(parts)
                + f"  ({row['hook']['relevant_per_task']} relevant/task, hook {row['hook_select_ms_median']} ms, "
                f"{tokens['p50']}/{tokens['p95']} tokens p50/p95)"
            )


def _latency_line(timing: dict[str, Any]) -> str:
    prompt = timing["user_prompt_submit_ms"]
    tokens = timing["tokens_added"]["stored_readings"]
    line = (
        f"UserPromptSubmit, {timing['rules']} rules, p50: stored readings {prompt['stored_readings']['p50']} ms, "
        f"words only {prompt['words_only']['p50']} ms, python -c pass {timing['python_c_pass_ms']['p50']} ms; "
        f"tokens added p50/p95 {tokens['p50']:.0f}/{tokens['p95']:.0f}"
    )
    second, second_tokens = timing["second_turn_ms"], timing["second_turn_tokens_added"]["stored_readings"]
    line += (
        f"; second turn p50 {second['stored_readings']['p50']} ms, "
        f"tokens added p50/p95 {second_tokens['p50']:.0f}/{second_tokens['p95']:.0f}"
    )
    if "against" in prompt:
        against = timing["tokens_added"]["against"]
        line += (
            f"; {timing['against']}: {prompt['against']['p50']} ms, "
            f"tokens added p50/p95 {against['p50']:.0f}/{against['p95']:.0f}, second turn p50 "
            f"{second['against']['p50']} ms, tokens added p50/p95 "
            f"{timing['second_turn_tokens_added']['against']['p50']:.0f}/"
            f"{timing['second_turn_tokens_added']['against']['p95']:.0f}"
        )
    return line


def _session(rules: int, budgets: str, as_json: bool) -> None:
    from heedful.bench.selection_session import render
    from heedful.bench.selection_session import run as run_session
    from heedful.enforce.select import LATER_TOKEN_BUDGET, TOKEN_BUDGET

    pairs = [(TOKEN_BUDGET, LATER_TOKEN_BUDGET)]
    try:
        for text in filter(None, (b.strip() for b in budgets.split(","))):
            first, _, later = text.partition("/")
            pairs.append((int(first), int(later or first)))
    except ValueError:
        typer.echo("error: --budgets with --session takes FIRST/LATER pairs, e.g. 2000/2000,3000/1000", err=True)
        raise typer.Exit(2) from None
    if rules <= 0 or min(min(pair) for pair in pairs) <= 0:
        typer.echo("error: --rules and budgets must be positive", err=True)
        raise typer.Exit(2)
    report = run_session(rules=rules, budgets=tuple(dict.fromkeys(pairs)))
    typer.echo(json.dumps(report, indent=2) if as_json else "\n".join(render(report)))


def cli(
    sizes: Annotated[str, typer.Option("--sizes", help="Comma-separated library sizes.")] = "50,200,500",
    orders: Annotated[int, typer.Option("--orders", help="Shuffled library draws per size.")] = 2,
    train_model: Annotated[bool, typer.Option("--train", help="Train the shipped model on the whole corpus.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    only: Annotated[
        str, typer.Option("--folds", help="Comma-separated left-out sources to run, e.g. rules:instructions.")
    ] = "",
    latency: Annotated[
        bool, typer.Option("--latency", help="Time UserPromptSubmit with and without stored readings instead.")
    ] = False,
    rules: Annotated[int, typer.Option("--rules", help="Library size for --latency, --session and --misses.")] = 500,
    runs: Annotated[int, typer.Option("--runs", help="Timed runs of each for --latency.")] = 30,
    against: Annotated[
        Path | None,
        typer.Option("--against", help="For --latency: the src folder of another checkout, timed interleaved."),
    ] = None,
    budgets: Annotated[
        str,
        typer.Option(
            "--budgets",
            help="Comma-separated token budgets to report the hook at as well; with --session, FIRST/LATER pairs.",
        ),
    ] = "",
    session: Annotated[
        bool, typer.Option("--session", help="Tokens added per turn over multi-turn sessions instead.")
    ] = False,
    misses: Annotated[
        bool,
        typer.Option("--misses", help="The hook's misses by kind and the bound of perfect task readings instead."),
    ] = False,
    within: Annotated[
        str,
        typer.Option(
            "--within",
            help="Comma-separated sources whose rules and tasks alone are evaluated (training still uses the others).",
        ),
    ] = "",
    train_on: Annotated[
        str,
        typer.Option("--train-on", help="Comma-separated sources each fold's scorer is trained on (default: all)."),
    ] = "",
) -> None:
    """Selection recall and precision per left-out source, for the service's and the hook's selector."""
    if session:
        _session(rules, budgets, as_json)
        return
    folds = tuple(f.strip() for f in only.split(",") if f.strip()) or None
    if misses:
        from heedful.bench.selection_misses import render
        from heedful.bench.selection_misses import run as run_misses

        if rules <= 0 or orders <= 0:
            typer.echo("error: --rules and --orders must be positive", err=True)
            raise typer.Exit(2)
        found = run_misses(size=rules, orders=orders, folds=folds)
        typer.echo(json.dumps(found, indent=2) if as_json else "\n".join(render(found)))
        return
    if latency:
        from heedful.bench.selection_latency import run as run_latency

        if rules <= 0 or runs <= 0:
            typer.echo("error: --rules and --runs must be positive", err=True)
            raise typer.Exit(2)
        if against is not None and not (against / "heedful" / "hookmain.py").is_file():
            typer.echo(f"error: --against {against} is not a src folder holding heedful", err=True)
            raise typer.Exit(2)
        timing = run_latency(rules=rules, runs=runs, against=against)
        typer.echo(json.dumps(timing, indent=2) if as_json else _latency_line(timing))
        return
    if train_model:
        summary = train_shipped()
        typer.echo(json.dumps(summary, indent=2) if as_json else f"trained: {summary}")
        return
    try:
        parsed = tuple(int(s) for s in sizes.split(",") if s.strip())
        extra = tuple(int(b) for b in budgets.split(",") if b.strip())
    except ValueError:
        typer.echo("error: --sizes and --budgets must be comma-separated integers", err=True)
        raise typer.Exit(2) from None
    if not parsed or min(parsed) <= 0 or orders <= 0 or min(extra, default=1) <= 0:
        typer.echo("error: sizes, budgets and orders must be positive", err=True)
        raise typer.Exit(2)
    pooled = frozenset(w.strip() for w in within.split(",") if w.strip()) or None
    trained = frozenset(w.strip() for w in train_on.split(",") if w.strip()) or None
    try:
        report = run(sizes=parsed, orders=orders, folds=folds, budgets=extra, within=pooled, trained=trained)
    except ValueError as error:  # an unknown source, or a corpus row that names no line
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        _render(report)


__all__ = ["cli", "run", "train_shipped"]
