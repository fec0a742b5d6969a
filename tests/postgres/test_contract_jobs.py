"""The job queue contract, on SQLite and on PostgreSQL: leases, heartbeats, reclaim, attempts."""

from __future__ import annotations

import time
from typing import Any


def test_claim_complete_and_no_double_claim(store: Any) -> None:
    jobs = store.jobs
    job_id = jobs.enqueue("alice", "memory.flush", {"n": 1})
    assert jobs.pending_exists("alice", "memory.flush") and not jobs.pending_exists("bob", "memory.flush")
    first = jobs.claim("w1", lease_seconds=60)
    assert first is not None and first.id == job_id and first.attempts == 1 and first.payload == {"n": 1}
    assert first.state == "running" and first.lease_owner == "w1"
    assert jobs.claim("w2", lease_seconds=60) is None  # leased to w1
    assert not jobs.complete(job_id, "w2")  # not w2's to complete
    assert jobs.complete(job_id, "w1", {"ok": True})
    done = jobs.get(job_id)
    assert done is not None and done.state == "done" and done.result == {"ok": True} and done.lease_owner is None
    assert not jobs.complete(job_id, "w1")  # once only
    assert jobs.get("j-missing") is None


def test_claims_go_oldest_first_and_filter_by_kind(store: Any) -> None:
    jobs = store.jobs
    first = jobs.enqueue("alice", "memory.flush", {})
    learn = jobs.enqueue("alice", "rules.learn", {})
    second = jobs.enqueue("bob", "memory.flush", {})
    claimed = jobs.claim("w", 60, kinds=["rules.learn"])
    assert claimed is not None and claimed.id == learn
    assert [job.id for job in (jobs.claim("w", 60), jobs.claim("w", 60))] == [first, second]  # type: ignore[union-attr]
    assert jobs.claim("w", 60) is None


def test_an_expired_lease_is_reclaimed(store: Any) -> None:
    jobs = store.jobs
    job_id = jobs.enqueue("alice", "memory.flush", {})
    assert jobs.claim("dead-worker", lease_seconds=0.05) is not None
    time.sleep(0.1)
    again = jobs.claim("w2", lease_seconds=60)
    assert again is not None and again.id == job_id and again.attempts == 2 and again.lease_owner == "w2"
    assert not jobs.heartbeat(job_id, "dead-worker", 60)  # the old owner lost it
    assert not jobs.complete(job_id, "dead-worker")
    assert jobs.heartbeat(job_id, "w2", 60)


def test_a_heartbeat_keeps_the_lease(store: Any) -> None:
    jobs = store.jobs
    job_id = jobs.enqueue("alice", "memory.flush", {})
    assert jobs.claim("w1", lease_seconds=0.3) is not None
    for _ in range(3):
        time.sleep(0.15)
        assert jobs.heartbeat(job_id, "w1", 0.3)
    assert jobs.claim("w2", lease_seconds=60) is None


def test_failures_are_kept_with_their_error_and_retried_up_to_the_limit(store: Any) -> None:
    jobs = store.jobs
    job_id = jobs.enqueue("alice", "memory.flush", {}, max_attempts=2)
    claimed = jobs.claim("w", lease_seconds=60)
    assert claimed is not None
    jobs.fail(job_id, "w", "boom once")
    retry = jobs.get(job_id)
    assert retry is not None and retry.state == "pending" and retry.last_error == "boom once"
    assert jobs.claim("w", lease_seconds=60) is not None
    jobs.fail(job_id, "w", "boom")
    job = jobs.get(job_id)
    assert job is not None and job.state == "failed" and job.attempts == 2 and job.last_error == "boom"
    assert jobs.claim("w", lease_seconds=60) is None


def test_a_lost_last_attempt_is_recorded_as_failed(store: Any) -> None:
    jobs = store.jobs
    job_id = jobs.enqueue("alice", "memory.flush", {}, max_attempts=1)
    later = jobs.enqueue("alice", "memory.flush", {})
    assert jobs.claim("dead", lease_seconds=0.01) is not None
    time.sleep(0.05)
    claimed = jobs.claim("w", lease_seconds=60)
    assert claimed is not None and claimed.id == later  # the lost one is skipped, the next one taken
    lost = jobs.get(job_id)
    assert (
        lost is not None and lost.state == "failed" and lost.last_error == "worker lost its lease on the last attempt"
    )


def test_list_and_counts(store: Any) -> None:
    jobs = store.jobs
    ids = [jobs.enqueue(user, "memory.flush", {}) for user in ("alice", "bob", "alice")]
    claimed = jobs.claim("w", 60)
    assert claimed is not None
    jobs.complete(claimed.id, "w")
    assert jobs.counts() == {"done": 1, "pending": 2}
    assert [job.id for job in jobs.list()] == ids[::-1]
    assert [job.id for job in jobs.list(state="pending", user_id="alice")] == [ids[2]]
    assert [job.id for job in jobs.list(limit=1)] == [ids[2]]
