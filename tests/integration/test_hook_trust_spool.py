"""The pieces behind the hook's guarantees, on a real SQLite home: the spool, the session view, the bounds."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from heedful.api import Heedful
from heedful.enforce import bounds
from heedful.enforce.engine import Enforcer
from heedful.enforce.ledger import SessionView, Write
from heedful.enforce.spool import Spool, fold
from heedful.rules.checks import evaluate
from heedful.store.sqlite.db import Database
from heedful.store.sqlite.enforce import SQLiteEnforceRepo


@pytest.fixture
def repo(home: Path) -> SQLiteEnforceRepo:
    with Heedful.open(home, embedder="hashing") as hf:
        hf.rules.learn("me", "never push to main", project=home.parent)
    return SQLiteEnforceRepo(Database(home / "heedful.db", 200))


def write(op: str, session: str = "s1", **data: object) -> Write:
    return Write(op=op, user="me", session=session, at="2026-01-01T00:00:00.000000Z", data=dict(data))


@pytest.mark.sqlite_only(reason="the SQLite enforcement repository and its file lock")
def test_writes_wait_in_the_spool_while_locked_and_are_read_through_it(home: Path, repo: SQLiteEnforceRepo) -> None:
    spool = Spool(home)
    batch = [
        write("session", platform="codex", project=str(home.parent)),
        write("pin", turn="t1", version=1),
        write("turn", turn="t1", version=1, prompt="ship", selected=[]),
        write("claim", turn="t1", budget=3),
        write("events", turn="t1", events=[{"kind": "command", "tool": "Bash", "command": "pytest"}]),
    ]
    holder = sqlite3.connect(home / "heedful.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        report = spool.flush(repo, batch)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert report.spooled == len(batch) and report.stored == 0 and repo.session("me", "s1") is None
    view = SessionView(repo, "me", "s1", spool.waiting("me", "s1"))
    assert view.session()["current_turn"] == "t1" and view.pinned("t1") == 1
    assert view.turn("t1")["revisions"] == 1
    assert view.events("t1") == [{"kind": "command", "tool": "Bash", "command": "pytest"}]
    assert spool.waiting("me", "other") == []
    assert fold(home, repo).stored == len(batch)
    assert repo.turn("me", "s1", "t1")["revisions"] == 1 and repo.pinned("me", "s1", "t1") == 1
    assert spool.pending_files() == 0 and spool.waiting("me", "s1") == []


@pytest.mark.sqlite_only(reason="the SQLite enforcement repository")
def test_a_bad_batch_is_parked_and_never_blocks_the_rest(home: Path, repo: SQLiteEnforceRepo) -> None:
    spool = Spool(home)
    spool.save([write("claim", turn="t1")])  # no budget: the database cannot take it
    spool.save([write("session", session="s2", platform="codex", project=None)])
    report = fold(home, repo)
    assert report.stored == 1 and len(report.rejected) == 1 and "KeyError" in report.rejected[0]
    assert repo.session("me", "s2") is not None
    assert [p.suffix for p in (home / "spool" / "enforce").iterdir()] == [".rejected"]


@pytest.mark.sqlite_only(reason="the SQLite enforcement repository")
def test_a_claim_left_by_a_dead_process_is_taken_over(home: Path, repo: SQLiteEnforceRepo) -> None:
    spool = Spool(home)
    saved = spool.save([write("session", platform="codex", project=None)])
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    os.rename(saved, saved.with_name(f"{saved.name}.{int(dead.stdout)}.claimed"))
    assert len(spool.waiting("me", "s1")) == 1  # claimed, not stored: still read through
    assert fold(home, repo).stored == 1 and repo.session("me", "s1") is not None
    assert list((home / "spool" / "enforce").iterdir()) == []


@pytest.mark.sqlite_only(reason="the SQLite enforcement repository")
def test_a_learning_job_folded_twice_is_queued_once(home: Path, repo: SQLiteEnforceRepo) -> None:
    job = write("job", id="j-once", kind="rules.learn", payload={"text": "x", "source": "user"})
    repo.apply([job])
    repo.apply([job])
    assert repo.conn.execute("SELECT COUNT(*) FROM jobs WHERE id = 'j-once'").fetchone()[0] == 1


@pytest.mark.sqlite_only(reason="the SQLite enforcement repository")
def test_the_api_enforcer_stores_each_event_at_once(home: Path, repo: SQLiteEnforceRepo) -> None:
    enforcer = Enforcer(repo, "me", evaluate)
    outcome = enforcer.pre_tool("s1", "Bash", {"command": "git push origin main"}, str(home.parent))
    assert outcome.decision == "deny" and enforcer.writes == []
    assert [e["action"] for e in repo.entries("me", "s1")] == ["deny"]


@pytest.mark.parametrize(
    ("command", "parts", "unread"),
    [
        ("pip install x", [], set()),  # short: read whole
        ("echo " + "a" * 100_000 + " && PIP3 install x", [" PIP3 install x"], set()),
        ("echo " + "a" * 100_000 + "\n sudo pip install x | tee log", [" sudo pip install x "], set()),
        ("echo " + "pip " * 100_000, [], {"pip"}),  # one step longer than a window: its program is out of reach
        ("echo " + "a" * 40_000 + ";" + " " * 5_000 + "pip install x", ["pip install x"], set()),  # blank padding
        ("echo " + "a" * 40_000 + "; A=" + "b" * 5_000 + " sudo pip install x", ["pip install x"], set()),
        ("echo " + "a" * 40_000 + "; echo " + "z" * 3_000 + " pip", [], {"pip"}),  # an argument of echo
        ("echo ok" + "; pip x" * 100_000, ["pip x"] * bounds.MAX_WINDOWS, {"pip"}),  # past the window budget
    ],
)
def test_a_long_command_is_read_in_bounded_parts(command: str, parts: list[str], unread: set[str]) -> None:
    views = bounds.command_views(command, {"pip"})
    assert views.parts[0] == command[: bounds.HEAD_CHARS]
    assert [part.strip() for part in views.parts[1:]] == [p.strip() for p in parts]
    assert views.unread == unread
    assert sum(len(part) for part in views.parts) <= bounds.HEAD_CHARS + bounds.MAX_WINDOWS * bounds.WINDOW_CHARS


def test_every_string_becomes_valid_text() -> None:
    payload = json.loads('{"a\\udfff": ["x\\ud800", {"k": "\\udfff"}], "ok": "caf\\u00e9 \\ud83d\\ude00"}')
    cleaned = bounds.clean(payload)
    assert cleaned == {"a\ufffd": ["x\ufffd", {"k": "\ufffd"}], "ok": "café 😀"}
    json.dumps(cleaned, ensure_ascii=False).encode("utf-8")
