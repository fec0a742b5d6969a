"""`heedful bench selection --session`: tokens the hook adds per turn over multi-turn sessions.

A home holds a library of guidance rules from the selection corpus (stored readings, as learning
leaves them). Sessions of consecutive prompts run through the engine's UserPromptSubmit path on a
real SQLite home, in a Python project (its tasks: every corpus task that names Python) and a
TypeScript project (likewise), drawn with a fixed seed. Each task is drawn afresh, so a session
changes topic every turn: more new rules per turn than a session that stays on one change, which
makes the later-turn figures an upper end.

Each session runs twice at each budget: `repeat`, every prompt in a new session (what the hook did
before it knew what the session had been shown: the whole budget on every turn), and `shown`, the
prompts in one session (lines already shown are left out). Per turn it reports the tokens added
(first turn and later turns, p50/p95), and selection recall: the share of the rules that apply to
the task (corpus labels) that are selected, whether shown now or earlier in the session.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Any

from heedful.bench.selection_latency import seed

MARKERS = {"python": "pyproject.toml", "typescript": "package.json"}


def _percentiles(values: list[int]) -> dict[str, int]:
    ordered = sorted(values) or [0]
    return {"p50": ordered[len(ordered) // 2], "p95": ordered[int(0.95 * (len(ordered) - 1))], "max": ordered[-1]}


def _sessions(count: int, turns: int, rng: random.Random) -> list[tuple[str, list[Any]]]:
    """(language, tasks) per session, alternating the two projects."""
    from heedful.rules.selection_corpus import load_corpus

    tasks = load_corpus().tasks
    out = []
    for i in range(count):
        language = ("python", "typescript")[i % 2]
        pool = [t for t in tasks if language in t.languages]
        out.append((language, rng.sample(pool, min(turns, len(pool)))))
    return out


def run(
    rules: int = 500,
    sessions: int = 20,
    turns: int = 10,
    budgets: tuple[tuple[int, int], ...] = ((2000, 2000), (3000, 3000)),
) -> dict[str, Any]:
    from heedful.api import Heedful
    from heedful.enforce import select
    from heedful.enforce.engine import for_heedful
    from heedful.rules.selection_corpus import load_corpus

    corpus = load_corpus()
    by_text = {rule.text: rule for rule in corpus.rules[:rules]}
    plan = _sessions(sessions, turns, random.Random(11))
    default = select.TOKEN_BUDGET, select.LATER_TOKEN_BUDGET
    report: dict[str, Any] = {"rules": rules, "sessions": sessions, "turns": turns, "budgets": {}}
    with tempfile.TemporaryDirectory(prefix="heedful-bench-session-") as temp:
        root = Path(temp)
        home = root / "home"
        seed(home, "bench", rules, stored=True)
        projects = {}
        for language, marker in MARKERS.items():
            projects[language] = (root / language).resolve()
            (projects[language] / ".git").mkdir(parents=True)
            (projects[language] / marker).write_text("{}\n", encoding="utf-8")
        with Heedful.open(home, embedder="hashing") as hf:
            enforcer = for_heedful(hf, "bench", platform="claude-code")
            ids = {
                r["id"]: by_text.get(r["text"])
                for r in enforcer.rules(hf.store.enforce.latest_library_version("bench"), None)
            }
            try:
                for first_budget, later_budget in budgets:
                    select.TOKEN_BUDGET, select.LATER_TOKEN_BUDGET = first_budget, later_budget
                    budget = f"{first_budget}/{later_budget}"
                    modes: dict[str, Any] = {}
                    for mode in ("repeat", "shown"):
                        first: list[int] = []
                        by_turn: list[list[int]] = [[] for _ in range(turns)]
                        later: list[int] = []
                        totals: list[int] = []
                        found = relevant = 0
                        for n, (language, tasks) in enumerate(plan):
                            total = 0
                            for t, task in enumerate(tasks):
                                session = f"{budget}-{mode}-{n}" + (f"-{t}" if mode == "repeat" else "")
                                result = enforcer.user_prompt(session, task.text, str(projects[language]))
                                added = select.tokens_of(result.context or "")
                                (first if t == 0 else later).append(added)
                                by_turn[t].append(added)
                                total += added
                                gold = {i for i, r in ids.items() if r is not None and corpus.relevant(task, r)}
                                relevant += len(gold)
                                found += len(gold & set(result.selected))
                            totals.append(total)
                        modes[mode] = {
                            "first_turn": _percentiles(first),
                            "later_turns": _percentiles(later),
                            "session_total_mean": round(sum(totals) / max(len(totals), 1)),
                            "mean_by_turn": [round(sum(v) / len(v)) for v in by_turn if v],
                            "recall": round(100 * found / max(relevant, 1), 1),
                        }
                    report["budgets"][budget] = modes
            finally:
                select.TOKEN_BUDGET, select.LATER_TOKEN_BUDGET = default
    return report


def render(report: dict[str, Any]) -> list[str]:
    lines = [f"{report['sessions']} sessions x {report['turns']} turns, {report['rules']} rules; tokens added p50/p95"]
    for budget, modes in report["budgets"].items():
        for mode, row in modes.items():
            first, later = row["first_turn"], row["later_turns"]
            lines.append(
                f"  budget {budget}, {mode:>6}: first turn {first['p50']}/{first['p95']}, later turns "
                f"{later['p50']}/{later['p95']}, per session {row['session_total_mean']}, recall {row['recall']}%"
            )
            lines.append(f"    mean by turn: {' '.join(map(str, row['mean_by_turn']))}")
    return lines
