"""`heedful bench import` over the labelled instruction files (a few files; offline)."""

from __future__ import annotations

import json
from collections.abc import Callable
from subprocess import CompletedProcess

from heedful.bench.import_bench import TUNE_REPOS, run


def test_bench_scores_both_halves_and_runs_from_the_cli(cli: Callable[..., CompletedProcess[str]]) -> None:
    report = run(limit=6)
    names = ("tune", "heldout", "heldout_b", "heldout_c", "heldout_d", "heldout_e", "heldout_f", "heldout_g")
    tune, held, batch_b, batch_c, batch_d, batch_e, batch_f, batch_g = (report["halves"][n] for n in names)
    assert tune["files"] + held["files"] == 6 and tune["files"] and held["files"]
    # the later batches, each scored as its own held-out column
    later = (batch_b, batch_c, batch_d, batch_e, batch_f, batch_g)
    assert [batch["files"] for batch in later] == [6] * len(later)
    for half in (tune, held, batch_b, batch_c, batch_d, batch_e, batch_f, batch_g):
        assert half["true_positives"] + half["false_negatives"] == half["directives"] > 0
        assert 0.5 < half["precision"] <= 1 and 0.5 < half["recall"] <= 1
    assert set(report["tune_repos"]) == set(TUNE_REPOS)
    done = cli("bench", "import", "--json", "--limit", "2")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["halves"]["tune"]["files"] >= 1
