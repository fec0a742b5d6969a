"""A worker process for the PostgreSQL crash and concurrency tests (run as a script).

    python store_worker.py URL OWNER drain          claim until the queue stays empty; record each job's effect
    python store_worker.py URL OWNER hold READY     claim one job, heartbeat it, touch READY, never finish
    python store_worker.py URL OWNER write COUNT    COUNT rounds of: enqueue a job, commit a rule, set a meta key

A job's effect (a row in `effects`) and its completion commit in one transaction, so a job whose
lease was lost leaves no effect: "done once" is checked by counting effects per job.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from heedful.store.postgres import PostgresStore
from heedful.store.records import RuleRow

LEASE = 1.0


class LeaseLost(Exception):
    pass


def drain(store: PostgresStore, owner: str) -> None:
    idle_since = time.monotonic()
    while time.monotonic() - idle_since < 1.5:
        job = store.jobs.claim(owner, lease_seconds=LEASE * 10)
        if job is None:
            time.sleep(0.02)
            continue
        idle_since = time.monotonic()
        try:
            with store.transaction() as conn:
                conn.execute("INSERT INTO effects (job_id, owner) VALUES (?, ?)", (job.id, owner))
                if not store.jobs.complete(job.id, owner, {"by": owner}):
                    raise LeaseLost(job.id)
        except LeaseLost:
            continue  # another worker took it over: its effect is the one that counts


def hold(store: PostgresStore, owner: str, ready: Path) -> None:
    job = store.jobs.claim(owner, lease_seconds=LEASE)
    assert job is not None, "nothing to claim"

    def beat() -> None:
        while store.jobs.heartbeat(job.id, owner, LEASE):
            time.sleep(LEASE / 4)

    threading.Thread(target=beat, daemon=True).start()
    ready.write_text(job.id)
    time.sleep(3600)  # killed by the test


def write(store: PostgresStore, owner: str, count: int) -> None:
    for index in range(count):
        store.jobs.enqueue("team", "memory.flush", {"writer": owner, "index": index})
        version = store.rules.next_rule_version("team", f"r-{owner}-{index}")
        row = RuleRow(
            id=f"r-{owner}-{index}", user_id="team", scope="global", project=None, version=version,
            text=f"rule {index} of {owner}", condition=None, exceptions=[], evidence=[], status="checked",
            check_spec=None, op="new", reason="", source_text="", supersedes=None, superseded_by=None,
            library_version=0, created_at="", rule_created_at="",
        )  # fmt: skip
        store.rules.commit("team", "learn", f"{owner} {index}", [row])
        store.set_meta(f"{owner}-{index}", str(index))


def main() -> None:
    url, owner, mode, *rest = sys.argv[1:]
    store = PostgresStore(url, pool_size=2)
    try:
        if mode == "drain":
            drain(store, owner)
        elif mode == "hold":
            hold(store, owner, Path(rest[0]))
        elif mode == "write":
            write(store, owner, int(rest[0]))
        else:
            raise SystemExit(f"unknown mode {mode!r}")
    finally:
        store.close()


if __name__ == "__main__":
    main()
