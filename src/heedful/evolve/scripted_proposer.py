"""A scripted proposer: reads the failure traces and changes the parameters by three fixed rules.

    python -m heedful.evolve.scripted_proposer   (run in a proposal workspace)

1. Gold turns that recall ranked within the reader's first K but the context left out mean the
   context keeps too few items: keep K excerpts.
2. Otherwise, when most missed gold turns were never recalled at all and facts are not
   extracted: extract them (a fact restates a turn in plain words, "I'm hoping to" as "plans to",
   which the question's words may find where the turn's did not).
3. Otherwise, gold turns recalled just below the cut: weigh more the route that ranked most of
   them best (by half, at most 10).
It prints its hypothesis and edits harness/params.json in place, or changes nothing. It stands in
for a coding agent (any command that edits the workspace works) and is what runs offline.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

WEIGHT_STEP = 1.5
MAX_WEIGHT = 10.0


def propose(workspace: Path) -> str:
    summary = json.loads((workspace / "traces" / "summary.json").read_text(encoding="utf-8"))
    params_path = workspace / "harness" / "params.json"
    params = json.loads(params_path.read_text(encoding="utf-8"))
    defaults = json.loads((workspace / "harness" / "recall_defaults.json").read_text(encoding="utf-8"))
    k = int(str(summary["metric"]).rsplit("@", 1)[1])
    traces = [
        json.loads(line)
        for line in (workspace / "traces" / "development.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    missed = [g for t in traces for g in t["gold_evidence"] if g["context_rank"] is None or g["context_rank"] > k]
    left_out = [g for g in missed if g["context_rank"] is None and (g["recall_rank"] or k + 1) <= k]
    if left_out and params["max_excerpts"] < k:
        hypothesis = (
            f"{len(left_out)} of {len(missed)} missed gold turns were recalled within the first {k} items but the"
            f" context kept only {params['max_excerpts']} excerpts: keep {k}."
        )
        params["max_excerpts"] = k
    elif 2 * sum(g["recall_rank"] is None for g in missed) > len(missed) and not params.get("extract_facts"):
        never = sum(g["recall_rank"] is None for g in missed)
        hypothesis = (
            f"{never} of {len(missed)} missed gold turns were never recalled: extract facts from every message, whose"
            " plain restatements may match the questions' words where the turns did not."
        )
        params["extract_facts"] = True
    else:
        best: Counter[str] = Counter()
        for gold in missed:
            if gold["recall_rank"] is not None and gold["routes"]:
                best[min(gold["routes"], key=lambda name: gold["routes"][name]["rank"])] += 1
        if not best:
            return "no hypothesis: the missed gold turns were never recalled; nothing changed"
        route, count = best.most_common(1)[0]
        weights = {**defaults["weights"], **params["recall_weights"]}
        new = round(min(MAX_WEIGHT, weights[route] * WEIGHT_STEP), 3)
        if new == weights[route]:
            return f"no hypothesis: the {route} route is already at its largest weight; nothing changed"
        params["recall_weights"] = {**params["recall_weights"], route: new}
        hypothesis = (
            f"{count} of {len(missed)} missed gold turns were ranked best by the {route} route but fell below the cut:"
            f" weigh it {new} (was {weights[route]})."
        )
    params_path.write_text(json.dumps(params, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return hypothesis


def main() -> None:
    print(propose(Path.cwd()))


if __name__ == "__main__":
    main()
