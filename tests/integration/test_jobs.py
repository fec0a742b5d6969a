"""The leased job queue: claims, heartbeats, reclaiming expired leases, counted attempts."""

from __future__ import annotations

import time

from heedful.api import Heedful
from heedful.worker import HANDLERS, drain, run_one


def test_claim_complete_and_no_double_claim(hf: Heedful) -> None:
    jobs = hf.store.jobs
    job_id = jobs.enqueue("alice", "memory.flush", {})
    first = jobs.claim("w1", lease_seconds=60)
    assert first is not None and first.id == job_id and first.attempts == 1
    assert jobs.claim("w2", lease_seconds=60) is None  # leased to w1
    assert not jobs.complete(job_id, "w2")  # not w2's to complete
    assert jobs.complete(job_id, "w1", {"ok": True})
    assert jobs.get(job_id).state == "done"  # type: ignore[union-attr]


def test_an_expired_lease_is_reclaimed(hf: Heedful) -> None:
    jobs = hf.store.jobs
    job_id = jobs.enqueue("alice", "memory.flush", {})
    assert jobs.claim("dead-worker", lease_seconds=0.05) is not None
    time.sleep(0.1)
    again = jobs.claim("w2", lease_seconds=60)
    assert again is not None and again.id == job_id and again.attempts == 2 and again.lease_owner == "w2"
    assert not jobs.heartbeat(job_id, "dead-worker", 60)  # the old owner lost it
    assert jobs.heartbeat(job_id, "w2", 60)


def test_failures_are_kept_with_their_error_and_retried_up_to_the_limit(hf: Heedful) -> None:
    jobs = hf.store.jobs
    job_id = jobs.enqueue("alice", "memory.flush", {}, max_attempts=2)
    for _ in range(2):
        claimed = jobs.claim("w", lease_seconds=60)
        assert claimed is not None
        jobs.fail(job_id, "w", "boom")
    job = jobs.get(job_id)
    assert job is not None and job.state == "failed" and job.attempts == 2 and job.last_error == "boom"
    assert jobs.claim("w", lease_seconds=60) is None


def test_a_lost_last_attempt_is_recorded_as_failed(hf: Heedful) -> None:
    jobs = hf.store.jobs
    job_id = jobs.enqueue("alice", "memory.flush", {}, max_attempts=1)
    assert jobs.claim("dead", lease_seconds=0.01) is not None
    time.sleep(0.05)
    assert jobs.claim("w", lease_seconds=60) is None
    assert jobs.get(job_id).state == "failed"  # type: ignore[union-attr]


def test_drain_runs_real_handlers_and_records_errors(hf: Heedful) -> None:
    hf.memory.add("alice", "I live in Berlin")  # buffered, not extracted yet
    hf.store.jobs.enqueue("alice", "memory.flush", {})
    hf.store.jobs.enqueue("nobody", "memory.flush", {}, max_attempts=1)  # unknown user: fails
    stats = drain(hf)
    assert stats.done == 1 and stats.failed == 1
    assert "unknown user" in stats.errors[0]
    assert [f.statement for f in hf.memory.list("alice")] == ["The user lives in Berlin"]
    assert run_one(hf, "w") is None


def test_every_handler_resolves() -> None:
    from heedful.worker import resolve_handler

    for kind in HANDLERS:
        assert callable(resolve_handler(kind))


def test_dream_is_scheduled_for_idle_users_with_new_messages(hf: Heedful) -> None:
    from datetime import timedelta

    from heedful.memory.jobs import schedule_dreams
    from heedful.timeutil import now

    hf.memory.add("alice", "I live in Berlin")
    hf.memory.add("bob", "I live in Oslo")
    assert schedule_dreams(hf) == []  # both just spoke: not idle yet
    later = now() + timedelta(hours=2)
    assert sorted(schedule_dreams(hf, now=later)) == ["alice", "bob"]
    assert schedule_dreams(hf, now=later) == []  # already pending: not queued twice
    drain(hf)
    assert schedule_dreams(hf, now=later + timedelta(hours=2)) == []  # nothing new since Dream
    hf.memory.add("alice", "I moved to Lisbon")
    assert schedule_dreams(hf, now=later + timedelta(hours=4)) == ["alice"]
