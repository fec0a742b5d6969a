"""One round of `heedful evolve` on a real LoCoMo slice (the first user of each split), when the data is there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_cli
from heedful.bench.locomo import DEFAULT_DATA

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not DEFAULT_DATA.exists(), reason="LoCoMo data is not next to the repository"),
]


def test_one_round_on_locomo_with_the_scripted_proposer(home: Path) -> None:
    done = run_cli(
        "evolve",
        "--data",
        str(DEFAULT_DATA),
        "--proposer",
        "scripted",
        "--per-split",
        "1",
        "--rounds",
        "1",
        "--json",
        home=home,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    [record] = json.loads(done.stdout)
    assert record["decision"] in ("accepted", "rejected")
    assert [half["split"] for half in record["validation"]] == ["validation_a", "validation_b"]
    assert record["development"]["questions"] > 100 and record["development"]["failures"] > 0
    traces = Path(record["development"]["folder"]) / "development.jsonl"
    users = {json.loads(line)["user"] for line in traces.read_text().splitlines()}
    assert users == {"locomo-0"}  # the development user only; validation users are never traced
