"""`heedful bench startup`: CPU time next to wall time, measured with byte-code as after an install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_startup_reports_cpu_time_and_uses_byte_code(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    # Set here as in some shells and CI images: the benchmark must not measure compiling every module.
    env.update({"HEEDFUL_HOME": str(tmp_path / "home"), "PYTHONDONTWRITEBYTECODE": "1"})
    done = subprocess.run(
        [sys.executable, "-m", "heedful", "bench", "startup", "--runs", "3", "--learn-runs", "0", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    base = report["baseline"]
    assert base["median_cpu_ms"] > 0 and base["cpu_ratio"] == 1.0
    for case in report["cases"]:
        assert case["median_cpu_ms"] > 0
        assert case["cpu_ratio"] == pytest.approx(case["median_cpu_ms"] / base["median_cpu_ms"], abs=0.01)
    assert report["learn"] is None


def test_startup_runs_with_byte_code_whatever_the_shell_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from heedful.bench.startup import _environment

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    env = _environment(tmp_path / "home")
    assert "PYTHONDONTWRITEBYTECODE" not in env and env["HEEDFUL_HOME"] == str(tmp_path / "home")
