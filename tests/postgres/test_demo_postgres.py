"""`HEEDFUL_DATABASE_URL=… heedful demo`: the whole demo against PostgreSQL, as a demo user of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

psycopg = pytest.importorskip("psycopg", reason="the postgres extra is not installed")


def demo(url: str, home: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update({"HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": "hashing", "HEEDFUL_DATABASE_URL": url})
    done = subprocess.run(
        [sys.executable, "-m", "heedful", "demo", "--json"], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report


def test_the_demo_runs_on_postgresql_and_its_data_is_there(pg_url: str, tmp_path: Path) -> None:
    first, second = demo(pg_url, tmp_path / "a"), demo(pg_url, tmp_path / "b")
    for report in (first, second):
        assert report["ok"] is True and report["database"] == pg_url
        assert all(step["ok"] for step in report["steps"])  # type: ignore[attr-defined]
    assert first["user"] != second["user"]  # each run is a demo user of its own on a shared database
    assert not (tmp_path / "a" / "heedful.db").exists()  # nothing went to a SQLite file
    with psycopg.connect(pg_url) as conn:
        users = {row[0] for row in conn.execute("SELECT DISTINCT user_id FROM facts")}
        rules = conn.execute("SELECT COUNT(*) FROM rules WHERE user_id = %s", (first["user"],)).fetchone()
    assert users == {first["user"], second["user"]} and rules is not None and rules[0] == 2
