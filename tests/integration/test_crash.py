"""Crash safety with real processes killed by SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from heedful.api import Heedful

INGEST = textwrap.dedent(
    """
    import sys
    from heedful.api import Heedful
    hf = Heedful.open(sys.argv[1], embedder="hashing")
    n = 0
    while True:
        result = hf.memory.add("alice", f"I have {n} blue marbles in jar {n}", flush=True)
        print(result.message_ids[0], result.events[0].fact_id, flush=True)  # acknowledged
        n += 1
    """
)


def test_sigkill_mid_ingest_loses_nothing_acknowledged(home: Path) -> None:
    Heedful.open(home, embedder="hashing").close()  # create and migrate first
    process = subprocess.Popen(
        [sys.executable, "-c", INGEST, str(home)], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    acknowledged: list[tuple[str, str]] = []
    assert process.stdout is not None
    while len(acknowledged) < 25:
        line = process.stdout.readline()
        assert line, "the ingesting process died early"
        message_id, fact_id = line.split()
        acknowledged.append((message_id, fact_id))
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    with Heedful.open(home, embedder="hashing") as hf:
        messages = {m.id for m in hf.store.memory.messages("alice")}
        facts = hf.store.memory.get_facts("alice", [fact for _, fact in acknowledged])
        assert all(message in messages for message, _ in acknowledged)
        assert len(facts) == len(acknowledged)
        assert hf.settings.store.is_postgres or hf.store.db.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


SLOW_HANDLER = textwrap.dedent(
    """
    import time

    def run(hf, job):
        print("started", job.id, flush=True)
        time.sleep(120)
    """
)
WORKER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[2])
    from heedful import worker
    from heedful.api import Heedful
    worker.HANDLERS["test.slow"] = "slow_handler:run"
    hf = Heedful.open(sys.argv[1], embedder="hashing")
    worker.run_one(hf, "doomed-worker", lease_seconds=1.0)
    """
)


def test_a_killed_workers_job_is_reclaimed(home: Path, tmp_path: Path) -> None:
    (tmp_path / "slow_handler.py").write_text(SLOW_HANDLER)
    with Heedful.open(home, embedder="hashing") as hf:
        job_id = hf.store.jobs.enqueue("alice", "test.slow", {})
    process = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(home), str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    assert process.stdout.readline().split() == ["started", job_id]
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    with Heedful.open(home, embedder="hashing") as hf:
        running = hf.store.jobs.get(job_id)
        assert running is not None and running.state == "running" and running.lease_owner == "doomed-worker"
        deadline = time.monotonic() + 30
        reclaimed = None
        while reclaimed is None and time.monotonic() < deadline:
            reclaimed = hf.store.jobs.claim("rescuer", lease_seconds=60)
            time.sleep(0.2)
        assert reclaimed is not None and reclaimed.id == job_id
        assert reclaimed.attempts == 2 and reclaimed.lease_owner == "rescuer"
