"""The README's first command: `heedful demo` must show every step behaving as stated."""

from __future__ import annotations

import json
from collections.abc import Callable
from subprocess import CompletedProcess


def test_demo_runs_offline_and_every_step_holds(cli: Callable[..., CompletedProcess[str]]) -> None:
    result = cli("demo", "--json", embedder="minilm")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True
    titles = [step["title"] for step in report["steps"]]
    assert any("corrects the agent once" in t for t in titles)
    assert any("request to forget" in t for t in titles)
    assert all(step["ok"] for step in report["steps"])
