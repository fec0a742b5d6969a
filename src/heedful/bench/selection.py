"""`heedful bench selection`: recall and precision of rule selection as the library grows.

Core rules (`data/selection_rules.jsonl`) and tasks labelled with the core rules that apply
(`data/selection_tasks.jsonl`, a tune and a held-out split) are mixed with generated distractor
rules: rules for other languages and tools, rules from outside software work, and rules scoped
to other projects. At each library size (default 50 / 200 / 500) and for several shuffled rule
orders, every task is run through the same selector the service uses; recall and precision are
micro-averaged over tasks. Distractors are not applicable to any task by construction, so a
selected distractor counts as a false positive, as does a selected core rule the task's label
does not list.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.rules.models import Rule
from heedful.rules.select import COSINE_THRESHOLD, KEYWORD_THRESHOLD, select

DATA_DIR = Path(__file__).resolve().parent / "data"
PROJECT = "/bench/project"
PROJECT_LANGUAGES = {"python", "typescript"}  # the benchmark project: a Python service with a TypeScript frontend

_LANGUAGES = [
    "Kotlin", "Swift", "Haskell", "Elixir", "Scala", "Clojure", "Erlang", "OCaml", "Perl", "Zig", "Nim", "Dart",
    "Lua", "R", "Julia", "MATLAB", "Fortran", "COBOL", "Groovy", "PowerShell", "Solidity", "F#", "Crystal",
    "Racket", "Ada", "Pascal", "VHDL", "Verilog", "Prolog", "Objective-C", "Elm", "Gleam",
]
_LANGUAGE_TEMPLATES = [
    "When writing {x}, prefer immutable values.",
    "In {x} code, keep modules under 300 lines.",
    "Format {x} files with the standard {x} formatter.",
    "Put {x} tests next to the code they test.",
    "Avoid global mutable state in {x} programs.",
    "Document every exported {x} function with an example.",
    "Commit the {x} dependency lockfile.",
    "Name {x} constants in upper case.",
    "Compile {x} with all warnings enabled.",
]
_TOOLS = [
    "Terraform modules", "Ansible playbooks", "Kubernetes manifests", "Helm charts", "Unity scenes",
    "Blender scripts", "LaTeX papers", "Excel macros", "Arduino sketches", "Android Gradle builds",
    "iOS storyboards", "Jenkins pipelines", "Nginx configs", "Bazel BUILD files", "Protobuf schemas",
    "Grafana dashboards", "Airflow DAGs", "dbt models", "Vim configs", "Emacs packages",
]
_TOOL_TEMPLATES = [
    "When editing {x}, validate them before applying.",
    "Keep {x} in their own directory.",
    "Add a short header comment to {x}.",
    "Review {x} changes with a second person.",
    "Never duplicate values across {x}; reference shared variables.",
]
_LIFE = [
    "When I ask for a poem, make it rhyme.", "Plan trips with at least one rest day.",
    "Write birthday messages in a warm, informal tone.", "Convert recipe quantities to grams.",
    "Suggest vegetarian options first for restaurant picks.", "Keep workout plans under 45 minutes.",
    "Use Celsius for weather.", "When drafting emails to my landlord, be formal.",
    "Recommend books with a short spoiler-free summary.", "For travel budgets, show prices in euros.",
    "Summarise podcasts in three bullet points.", "When planning meals, avoid peanuts.",
    "Write cover letters on one page.", "Use 24-hour time for schedules.", "Translate French menus literally.",
    "When suggesting gifts, keep them under fifty dollars.", "Describe paintings by colour first.",
    "Give chess advice in algebraic notation.", "When I ask for jokes, keep them clean.",
    "Format song lyrics with a blank line between verses.",
]


def load(name: str) -> list[dict[str, Any]]:
    text = (DATA_DIR / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def distractors(seed: int = 7) -> list[Rule]:
    """Rules that apply to none of the tasks: other languages and tools, life, other projects."""
    texts = [t.format(x=lang) for lang in _LANGUAGES for t in _LANGUAGE_TEMPLATES]
    texts += [t.format(x=tool) for tool in _TOOLS for t in _TOOL_TEMPLATES]
    texts += _LIFE
    rules = [Rule(id=f"d{i:04d}", user_id="bench", text=text, scope="global", status="guidance")
             for i, text in enumerate(texts)]
    core = load("selection_rules.jsonl")
    for i, row in enumerate(core):  # the same rules, but for other projects: scope must exclude them
        rules.append(Rule(id=f"p{i:04d}", user_id="bench", text=row["text"], scope="project",
                          project=f"/elsewhere/project-{i % 5}", status="guidance"))
    random.Random(seed).shuffle(rules)
    return rules


def core_rules() -> list[Rule]:
    return [Rule(id=row["id"], user_id="bench", text=row["text"], scope="global", status="guidance")
            for row in load("selection_rules.jsonl")]


def _in_scope(rule: Rule) -> bool:
    return rule.scope == "global" or rule.project == PROJECT


def evaluate(
    embedder: Any, sizes: tuple[int, ...], orders: int, split: str, cosine: float, keyword: float
) -> dict[str, Any]:
    tasks = [t for t in load("selection_tasks.jsonl") if split == "all" or t["split"] == split]
    core = core_rules()
    pool = distractors()
    all_rules = core + pool
    texts = [" ".join([r.text, r.condition or ""]) for r in all_rules]
    vectors = embedder.embed(texts) if embedder is not None else None
    index = {rule.id: i for i, rule in enumerate(all_rules)}
    queries = [" ".join(p for p in (t["task"], t.get("message") or "") if p) for t in tasks]
    query_vectors = embedder.embed(queries) if embedder is not None else None
    out: dict[str, Any] = {}
    for size in sizes:
        hits = selected_total = gold_total = 0
        per_order = []
        elapsed: list[float] = []
        for order in range(orders):
            library = core + pool[: max(0, size - len(core))]
            random.Random(1000 + order).shuffle(library)
            visible = [r for r in library if _in_scope(r)]
            matrix = None if vectors is None else vectors[[index[r.id] for r in visible]]
            order_hits = order_selected = order_gold = 0
            for t_index, task in enumerate(tasks):
                started = time.perf_counter()
                query_vector = None if query_vectors is None else query_vectors[t_index]
                chosen = select(visible, matrix, queries[t_index], query_vector, cosine, keyword,
                                project_languages=PROJECT_LANGUAGES)
                elapsed.append((time.perf_counter() - started) * 1000)
                picked = {s.rule.id for s in chosen.rules}
                gold = set(task["relevant"])
                order_hits += len(picked & gold)
                order_selected += len(picked)
                order_gold += len(gold)
            hits += order_hits
            selected_total += order_selected
            gold_total += order_gold
            per_order.append(round(100 * order_hits / max(order_gold, 1), 1))
        out[str(size)] = {
            "library": min(size, len(core) + len(pool)),
            "recall": round(100 * hits / max(gold_total, 1), 1),
            "precision": round(100 * hits / max(selected_total, 1), 1),
            "selected_per_task": round(selected_total / max(len(tasks) * orders, 1), 2),
            "recall_per_order": per_order,
            "select_ms_median": round(statistics.median(elapsed), 2) if elapsed else 0.0,
        }
    return out


def run(
    embedder: str = "minilm", sizes: tuple[int, ...] = (50, 200, 500), orders: int = 3,
    cosine: float = COSINE_THRESHOLD, keyword: float = KEYWORD_THRESHOLD,
) -> dict[str, Any]:
    from heedful.embed import load_embedder

    model = None if embedder == "none" else load_embedder(embedder)
    report: dict[str, Any] = {
        "embedder": embedder, "orders": orders, "thresholds": {"cosine": cosine, "keyword": keyword},
        "tasks": {s: sum(t["split"] == s for t in load("selection_tasks.jsonl")) for s in ("tune", "heldout")},
        "core_rules": len(core_rules()),
    }
    for split in ("tune", "heldout"):
        report[split] = evaluate(model, sizes, orders, split, cosine, keyword)
    return report


def _render(report: dict[str, Any]) -> None:
    typer.echo(f"selection ({report['embedder']} embedder, {report['orders']} orders, thresholds "
               f"{report['thresholds']})")
    for split in ("tune", "heldout"):
        for size, row in report[split].items():
            typer.echo(f"  {split:>7} {size:>4} rules: recall {row['recall']}%  precision {row['precision']}%  "
                       f"({row['selected_per_task']} selected per task, {row['select_ms_median']} ms)")


def cli(
    embedder: Annotated[str, typer.Option("--embedder", help="minilm, hashing, or none (keywords only).")] = "minilm",
    sizes: Annotated[str, typer.Option("--sizes", help="Comma-separated library sizes.")] = "50,200,500",
    orders: Annotated[int, typer.Option("--orders", help="Shuffled rule orders per size.")] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """Selection recall and precision at growing library sizes (tune and held-out tasks)."""
    try:
        parsed = tuple(int(s) for s in sizes.split(",") if s.strip())
    except ValueError:
        typer.echo("error: --sizes must be comma-separated integers", err=True)
        raise typer.Exit(2) from None
    if not parsed or min(parsed) <= 0 or orders <= 0:
        typer.echo("error: sizes and orders must be positive", err=True)
        raise typer.Exit(2)
    report = run(embedder=embedder, sizes=parsed, orders=orders)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        _render(report)


__all__ = ["cli", "run"]
