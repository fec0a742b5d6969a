"""`heedful bench selection --misses`: where the hook's selection loses recall and precision, by kind.

For each left-out source (the same folds as the main report) the hook selects from one library per
task, with the rules' stored readings, within its token budget and uncapped. Every relevant rule it
misses is counted once, by the path that makes it relevant and the reading that failed:

- path: `every` (it governs every answer), `code` (a coding habit for a task that changes code: the
  only activity they share is `code`), `topical` (another activity they share);
- cause: `budget` (selected uncapped, cut by the budget), `rule` (the rule's reading of the shared
  activity, or of every answer, is below 0.5), `task` (the task's reading is), `both`, or `scorer`
  (both readings hold it, the pair scorer still says no).

False positives are counted by the reach of the rule shown. `task_oracle` is the same hook with each
task read as its labels say (the facets of its `involves`, words and languages as read): what a
perfect reading of the request could add, with the rules' readings unchanged; `rule_oracle` reads
the rules as labelled instead, `both_oracle` both (the pair scorer and the budget unchanged). Only counts leave
this module, never a rule's text, so the one source nobody tuned on can be examined by kind without
being read row by row.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from heedful.rules.selection_corpus import Corpus, RuleItem, TaskItem
from heedful.rules.selection_model import CODE, EVERY, Reading, SelectionModel
from heedful.rules.selection_readings import StoredReading, content_key

CAUSES = ("budget", "rule", "task", "both", "scorer")
# the hook as shipped, and with the tasks, the rules or both read as labelled (within the budget unless uncapped)
BOUNDS = ("hook", "hook_uncapped", "task_oracle", "task_oracle_uncapped", "rule_oracle", "both_oracle")
PATHS = (EVERY, CODE, "topical")


def path(corpus: Corpus, task: TaskItem, rule: RuleItem) -> str:
    """Why a relevant rule is relevant: every answer, a coding habit, or another shared activity."""
    if EVERY in rule.governs:
        return EVERY
    shared = set(rule.governs) & set(task.involves)
    return CODE if shared == {CODE} else "topical"


def labelled(model: SelectionModel, task: TaskItem, read: Reading) -> Reading:
    """`read` with its facets replaced by the task's labels (the bound of a perfect task reader)."""
    facets = tuple(0.0 if name == EVERY else float(name in task.involves) for name in model.facet_names)
    return Reading(facets, read.languages, read.words, read.lexicon)


def labelled_rules(
    model: SelectionModel, rules: list[RuleItem], stored: dict[str, StoredReading]
) -> dict[str, StoredReading]:
    """Each rule's reading with its facets replaced by its labels (the bound of a perfect rule reader)."""
    out = {}
    for item in rules:
        key = content_key(item.text, item.condition)
        kept = stored.get(key)
        read = kept.reading() if kept is not None else model.read_rule(item.text, item.condition)
        facets = tuple(float(name in item.governs) for name in model.facet_names)
        out[key] = StoredReading(facets, read.languages, read.lexicon, read.words, True)
    return out


def cause(model: SelectionModel, rule: Reading, task: Reading, item: RuleItem, involves: list[str]) -> str:
    """Which reading failed for a relevant rule the uncapped hook did not select."""
    if EVERY in item.governs:
        return "rule"  # every-answer rules are selected on the rule's reading alone
    shared = [model.facet_names.index(f) for f in set(item.governs) & set(involves) if f in model.facet_names]
    if not shared:
        return "scorer"  # relevant by an explicit pair label, not by a shared activity
    best = max(shared, key=lambda k: rule.facets[k] * task.facets[k])
    low_rule, low_task = rule.facets[best] < 0.5, task.facets[best] < 0.5
    return "both" if low_rule and low_task else "rule" if low_rule else "task" if low_task else "scorer"


def tally(
    corpus: Corpus,
    model: SelectionModel,
    stored: dict[str, StoredReading],
    tasks: list[TaskItem],
    counted: set[str],
    libraries: list[list[RuleItem]],
) -> dict[str, Any]:
    """Misses by path and cause, false positives by reach, and the task-oracle bound, over `tasks` x
    `libraries`; only rules whose ids are in `counted` count."""
    from heedful.enforce import select as hook_select

    misses: dict[str, Counter[str]] = {p: Counter() for p in PATHS}
    false_positives: Counter[str] = Counter()
    totals = {name: [0, 0, 0] for name in BOUNDS}
    told = labelled_rules(model, [r for library in libraries for r in library], stored)
    for library in libraries:
        dicts = [
            {"id": r.id, "text": r.text, "condition": r.condition, "status": "guidance", "scope": "global"}
            for r in library
        ]
        by_id = {r.id: r for r in library}
        for task in tasks:
            languages = set(task.languages) or None
            read = model.read_task(task.text, languages)
            oracle = labelled(model, task, read)
            gold = {r.id for r in library if r.id in counted and corpus.relevant(task, r)}
            picks = {
                "hook": hook_select.select(dicts, task.text, languages, scorer=model, readings=stored),
                "hook_uncapped": hook_select.select(
                    dicts, task.text, languages, scorer=model, budget=None, readings=stored
                ),
                "task_oracle": hook_select.select(
                    dicts, task.text, languages, scorer=model, readings=stored, task=oracle
                ),
                "task_oracle_uncapped": hook_select.select(
                    dicts, task.text, languages, scorer=model, budget=None, readings=stored, task=oracle
                ),
                "rule_oracle": hook_select.select(dicts, task.text, languages, scorer=model, readings=told),
                "both_oracle": hook_select.select(
                    dicts, task.text, languages, scorer=model, readings=told, task=oracle
                ),
            }
            chosen = {name: {r["id"] for r in rules if r["id"] in counted} for name, rules in picks.items()}
            for name, ids in chosen.items():
                totals[name][0] += len(ids & gold)
                totals[name][1] += len(ids)
                totals[name][2] += len(gold)
            for rule_id in gold - chosen["hook"]:
                item = by_id[rule_id]
                if rule_id in chosen["hook_uncapped"]:
                    why = "budget"
                else:
                    kept = stored.get(content_key(item.text, item.condition))
                    rule = kept.reading() if kept is not None else model.read_rule(item.text, item.condition)
                    why = cause(model, rule, read, item, task.involves)
                misses[path(corpus, task, item)][why] += 1
            for shown in picks["hook"]:
                if shown["id"] in counted and shown["id"] not in gold:
                    false_positives[str(shown["reach"])] += 1
    return {
        **{
            name: {"recall": round(100 * h / max(g, 1), 1), "precision": round(100 * h / max(s, 1), 1)}
            for name, (h, s, g) in totals.items()
        },
        "misses": {p: {c: misses[p][c] for c in CAUSES if misses[p][c]} for p in PATHS},
        "false_positives": dict(sorted(false_positives.items())),
    }


def run(size: int = 500, orders: int = 1, folds: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The misses report for each left-out source (`folds` limits it, as in the main report)."""
    import typer

    from heedful.bench.selection import Embeddings, _libraries, fold_model
    from heedful.embed import load_embedder
    from heedful.rules.selection_corpus import load_corpus

    corpus = load_corpus()
    embeddings = Embeddings(corpus, load_embedder("minilm"))
    report: dict[str, Any] = {"library": size, "orders": orders, "left_out": {}}
    for kind, sources in (("tasks", corpus.task_sources()), ("rules", corpus.rule_sources())):
        for source in sources:
            name = f"{kind}:{source}"
            if (kind == "rules" and source == "generated") or (folds is not None and name not in folds):
                continue
            typer.echo(f"leaving out {name}", err=True)
            fold = fold_model(corpus, embeddings, kind, source)
            libraries = [_libraries(corpus.rules, fold.first, size, order) for order in range(orders)]
            report["left_out"][name] = tally(corpus, fold.model, fold.stored, fold.eval_tasks, fold.counted, libraries)
    return report


def render(report: dict[str, Any]) -> list[str]:
    lines = [f"selection misses by kind, {report['library']} rules, {report['orders']} order(s), recall/precision"]
    for fold, row in report["left_out"].items():
        figures = ", ".join(f"{name} {row[name]['recall']}/{row[name]['precision']}" for name in BOUNDS)
        lines.append(f"  left out {fold}: {figures}")
        for p, causes in row["misses"].items():
            if causes:
                lines.append(f"    missed {p}: " + ", ".join(f"{c} {n}" for c, n in causes.items()))
        shown = ", ".join(f"{reach} {n}" for reach, n in row["false_positives"].items())
        lines.append(f"    shown but not relevant: {shown or 'none'}")
    return lines
