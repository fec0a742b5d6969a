"""Crash and concurrency on PostgreSQL, with real processes: a killed worker, 4 workers, 8 writers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("psycopg", reason="the postgres extra is not installed (pip install 'heedful[postgres]')")

from heedful.store.postgres import PostgresStore

WORKER = Path(__file__).with_name("store_worker.py")


@pytest.fixture
def queue(pg_store: PostgresStore) -> Iterator[PostgresStore]:
    pg_store.db.execute("CREATE TABLE effects (job_id TEXT NOT NULL, owner TEXT NOT NULL)")
    yield pg_store


def start(url: str, owner: str, mode: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), url, owner, mode, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str], timeout: float = 120) -> None:
    _, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err


def effects(store: PostgresStore) -> dict[str, int]:
    rows = store.db.fetchall("SELECT job_id, COUNT(*) AS n FROM effects GROUP BY job_id")
    return {row["job_id"]: int(row["n"]) for row in rows}


def test_a_killed_worker_s_job_is_reclaimed_and_done_once(queue: PostgresStore, pg_url: str, tmp_path: Path) -> None:
    job_id = queue.jobs.enqueue("alice", "memory.flush", {})
    ready = tmp_path / "ready"
    holder = start(pg_url, "doomed", "hold", str(ready))
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert holder.poll() is None, holder.communicate()[1]
        assert time.monotonic() < deadline, "the worker never claimed its job"
        time.sleep(0.05)
    time.sleep(1.5)  # longer than the lease: only the heartbeats keep it
    assert queue.jobs.claim("thief", lease_seconds=60) is None
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=30)
    finish(start(pg_url, "rescuer", "drain"))
    job = queue.jobs.get(job_id)
    assert job is not None and job.state == "done" and job.attempts == 2 and job.result == {"by": "rescuer"}
    assert effects(queue) == {job_id: 1}


def test_four_workers_drain_a_thousand_jobs_each_exactly_once(queue: PostgresStore, pg_url: str) -> None:
    with queue.transaction():
        ids = [queue.jobs.enqueue(f"user{index % 7}", "memory.flush", {"index": index}) for index in range(1000)]
    started = time.monotonic()
    workers = [start(pg_url, f"w{index}", "drain") for index in range(4)]
    for worker in workers:
        finish(worker)
    elapsed = time.monotonic() - started
    assert effects(queue) == dict.fromkeys(ids, 1)
    assert queue.jobs.counts() == {"done": 1000}
    owners = queue.db.fetchall("SELECT owner, COUNT(*) AS n FROM effects GROUP BY owner")
    assert len(owners) >= 2, owners  # the work was shared, not done by one worker while the others waited
    print(f"4 workers drained 1000 jobs in {elapsed:.1f}s (with start-up and 1.5s idle wait)")


def test_eight_writers_lose_nothing(pg_store: PostgresStore, pg_url: str) -> None:
    rounds = 40
    writers = [start(pg_url, f"p{index}", "write", str(rounds)) for index in range(8)]
    for writer in writers:
        finish(writer)
    total = 8 * rounds
    assert pg_store.jobs.counts() == {"pending": total}
    payloads: set[Any] = {(job.payload["writer"], job.payload["index"]) for job in pg_store.jobs.list(limit=total)}
    assert len(payloads) == total
    versions = [version.version for version in pg_store.rules.library_versions("team")]
    assert versions == list(range(1, total + 1))  # every commit got its own version, none overwritten
    latest = pg_store.rules.rules_at("team", total)
    assert len(latest) == total  # each version carried every earlier rule forward
    keys = pg_store.db.fetchone("SELECT COUNT(*) AS n FROM meta WHERE key LIKE 'p%'")
    assert keys is not None and keys["n"] == total
