"""More of a newcomer's first hour: a typo in a filter is an error, not an empty list, and an empty
queue says so in words (real `python -m heedful` subprocesses against temporary homes)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_cli


def test_an_unknown_job_state_is_one_line(tmp_path: Path) -> None:
    done = run_cli("jobs", "list", "--state", "bogus", home=tmp_path / "home")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: unknown state 'bogus'") and "pending" in lines[0]


def test_a_job_limit_below_one_is_one_line(tmp_path: Path) -> None:
    done = run_cli("jobs", "list", "--limit", "0", "--json", home=tmp_path / "home")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "--limit" in lines[0]


def test_an_empty_queue_says_nothing_yet(tmp_path: Path) -> None:
    home = tmp_path / "home"
    text = run_cli("jobs", "list", home=home)
    assert (text.returncode, text.stdout.strip()) == (0, "nothing yet"), text.stderr
    failed = run_cli("jobs", "list", "--state", "failed", home=home)
    assert (failed.returncode, failed.stdout.strip()) == (0, "no failed job")
    as_json = run_cli("jobs", "list", "--json", home=home)
    assert as_json.returncode == 0 and json.loads(as_json.stdout) == []
