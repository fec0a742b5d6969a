"""The parts of `heedful serve` that need no server: keys, the token bucket, session cookies, the
append-only key tables, the missing-extra error, and `heedful bench serve` end to end."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heedful.api import Heedful
from heedful.errors import InputError, NotFoundError
from heedful.server.keys import create_key, revoke_key, verify_key
from heedful.server.process import heedful_command
from heedful.server.ratelimit import RateLimiter
from heedful.server.session import csrf_ok, csrf_token, read_session, sign_session
from heedful.store.sqlite.keys import SQLiteKeyRepo

SECRET = b"s" * 48


def test_a_key_verifies_until_revoked_and_only_its_hash_is_stored(home: Path) -> None:
    with Heedful.open(home, embedder="hashing") as hf:
        repo = hf.store.keys
        issued = create_key(repo, "alice", label="laptop")
        assert verify_key(repo, issued.key) == issued.record and issued.record.label == "laptop"
        secret = issued.key.split(".")[2]
        stored = hf.store.db.conn.execute("SELECT * FROM api_keys").fetchall()
        assert all(secret not in str(dict(row)) for row in stored)
        for forged in (issued.key + "x", issued.key.replace("hfk.", "hfx."), "hfk..", "", issued.key.split(".")[1]):
            assert verify_key(repo, forged) is None
        revoked = revoke_key(repo, issued.record.id, "lost")
        assert revoked.revoked_at is not None and verify_key(repo, issued.key) is None
        with pytest.raises(InputError, match="already revoked"):
            revoke_key(repo, issued.record.id)
        with pytest.raises(NotFoundError):
            revoke_key(repo, "k-000000000000")
        with pytest.raises(InputError):
            create_key(repo, " alice")


@pytest.mark.sqlite_only(reason="SQLite's triggers (PostgreSQL: tests/postgres/test_contract_append_only.py)")
def test_key_rows_are_never_rewritten_or_deleted(home: Path) -> None:
    with Heedful.open(home, embedder="hashing") as hf:
        repo = SQLiteKeyRepo(hf.store.db)
        issued = create_key(repo, "alice", admin=True)
        repo.revoke(issued.record.id)
        conn = hf.store.db.conn
        for statement in (
            "UPDATE api_keys SET admin = 0",
            "DELETE FROM api_keys",
            "UPDATE api_key_revocations SET revoked_at = NULL",
            "DELETE FROM api_key_revocations",
        ):
            with pytest.raises(sqlite3.IntegrityError):
                conn.execute(statement)
        assert repo.get(issued.record.id).admin is True  # type: ignore[union-attr]


def test_the_bucket_refuses_past_the_burst_and_refills_at_the_rate() -> None:
    bucket = RateLimiter(rate=2, burst=3)
    assert [bucket.take("a", 0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take("a", 0.0) == pytest.approx(0.5)
    assert bucket.take("b", 0.0) == 0.0  # another key has its own bucket
    assert bucket.take("a", 0.5) == 0.0 and bucket.take("a", 0.5) > 0
    with pytest.raises(ValueError):
        RateLimiter(rate=0, burst=1)


@given(st.floats(0.1, 100), st.integers(1, 50), st.lists(st.floats(0, 5), min_size=1, max_size=200))
def test_the_bucket_never_allows_more_than_burst_plus_rate_times_elapsed(
    rate: float, burst: int, gaps: list[float]
) -> None:
    bucket = RateLimiter(rate=rate, burst=burst)
    now, allowed = 0.0, 0
    for gap in gaps:
        now += gap
        wait = bucket.take("k", now)
        assert wait >= 0
        allowed += wait == 0
    assert allowed <= burst + rate * now + 1e-6


def test_a_session_cookie_is_signed_expires_and_binds_its_csrf_token() -> None:
    cookie = sign_session(SECRET, "k-1", now=1000.0)
    assert read_session(SECRET, cookie, now=1001.0) == "k-1"
    assert read_session(SECRET, cookie, now=10**9) is None  # expired
    assert read_session(b"t" * 48, cookie, now=1001.0) is None  # another server's secret
    assert read_session(SECRET, cookie.replace("k-1", "k-2"), now=1001.0) is None
    assert read_session(SECRET, None, now=0) is None and read_session(SECRET, "a|b", now=0) is None
    token = csrf_token(SECRET, cookie)
    assert csrf_ok(SECRET, cookie, token)
    assert not csrf_ok(SECRET, sign_session(SECRET, "k-1", now=2000.0), token)
    assert not csrf_ok(SECRET, cookie, "") and not csrf_ok(SECRET, None, token)


def test_keys_commands_print_the_key_once_and_list_without_it(home: Path) -> None:
    made = heedful_command("keys", "create", "--user", "alice", home=home)
    assert made.returncode == 0 and made.stdout.strip().startswith("hfk.") and "not shown again" in made.stderr
    listed = heedful_command("keys", "list", "--json", home=home)
    assert made.stdout.strip() not in listed.stdout and json.loads(listed.stdout)[0]["user"] == "alice"
    bad = heedful_command("keys", "create", "--user", "", home=home)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and len(bad.stderr.strip().splitlines()) == 1
    assert len(json.loads(heedful_command("keys", "list", "--json", home=home).stdout)) == 1
    missing = heedful_command("keys", "revoke", "k-000000000000", home=home)
    assert missing.returncode == 2 and "no API key" in missing.stderr


def test_serve_without_the_extra_names_it_in_one_line(tmp_path: Path) -> None:
    code = "import sys; sys.modules['fastapi'] = None; from heedful.cli import main; main(['serve'])"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env["HEEDFUL_HOME"] = str(tmp_path / "home")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == "error: heedful serve needs the serve extra: pip install 'heedful[serve]'"


@pytest.mark.slow
def test_bench_serve_keeps_every_acknowledged_add(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the serve extra is not installed")
    done = heedful_command(
        "bench",
        "serve",
        "--clients",
        "3",
        "--requests",
        "30",
        "--workers",
        "1",
        "--embedder",
        "hashing",
        "--json",
        "--strict",
        home=tmp_path / "unused",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["requests"] == 30 and report["errors"] == 0
    assert report["acknowledged_adds"] == report["ops"]["add"]["count"] > 0 and report["missing_adds"] == 0
    assert report["ops"]["recall"]["p95_ms"] >= report["ops"]["recall"]["p50_ms"] > 0
