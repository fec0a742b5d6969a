"""The JSON shapes of `memory undo --json` and `memory dream --json` (and the same data over HTTP and in the
job table), pinned key by key and in order: the typed results behind them must dump to exactly these."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any, get_args

import pytest

from heedful.api import Heedful
from heedful.memory.jobs import run_dream, run_flush
from heedful.server.shapes import memory_undo_json
from heedful.store.records import RecordOp

Cli = Callable[..., CompletedProcess[str]]
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
DREAM_RESULT_KEYS = ["user_id", "flushed_events", "summaries", "profile_rebuilt"]


def ok(result: CompletedProcess[str]) -> Any:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def check_undone_row(row: dict[str, Any]) -> None:
    """One undone change: the op it reversed, the fact, and the fields it set (nothing else)."""
    assert list(row) == ["op", "fact_id", "restored"]
    assert row["op"] in ("add", "supersede", "forget", "delete") and isinstance(row["fact_id"], str)
    restored = row["restored"]
    if row["op"] == "add":  # an inserted row is expired by its undo
        assert list(restored) == ["expired_at", "expired_reason"]
        assert STAMP.match(restored["expired_at"]) and restored["expired_reason"].startswith("undone (g-")
    elif row["op"] == "supersede":
        assert restored == {"valid_to": None, "superseded_by": None}
        assert list(restored) == ["valid_to", "superseded_by"]
    else:
        assert restored == {"expired_at": None, "expired_reason": None}
        assert list(restored) == ["expired_at", "expired_reason"]


def test_memory_undo_json_shape(cli: Cli) -> None:
    ok(cli("memory", "add", "--user", "alice", "--at", "2024-01-05T10:00:00Z", "I live in Berlin", "--flush", "--json"))
    moved = ok(cli("memory", "add", "--user", "alice", "I moved to Lisbon", "--flush", "--json"))
    (event,) = moved["events"]
    undone = ok(cli("memory", "undo", "--user", "alice", "--json"))
    assert list(undone) == ["undone"]
    rows = undone["undone"]
    for row in rows:
        check_undone_row(row)
    # Newest change first: the supersede of Berlin, then the insert of Lisbon.
    assert [(r["op"], r["fact_id"]) for r in rows] == [
        ("supersede", event["related_ids"][0]),
        ("add", event["fact_id"]),
    ]
    forgotten = ok(cli("memory", "forget", "--user", "alice", "I live in Berlin", "--json"))
    tombstone = forgotten["events"][0]["fact_id"]
    rows = ok(cli("memory", "undo", "--user", "alice", "--json"))["undone"]
    for row in rows:
        check_undone_row(row)
    assert {r["op"] for r in rows} == {"forget", "add"}
    assert (rows[-1]["op"], rows[-1]["fact_id"]) == ("add", tombstone)  # the tombstone went in first


def test_memory_dream_json_shape(cli: Cli) -> None:
    ok(cli("memory", "add", "--user", "alice", "I love hiking and my sister Anna hates cilantro.", "--json"))
    dreamed = ok(cli("memory", "dream", "--user", "alice", "--json"))
    assert list(dreamed) == ["job_id", "state", "result", "error"]
    assert dreamed["state"] == "done" and dreamed["error"] is None and dreamed["job_id"].startswith("j-")
    result = dreamed["result"]
    assert list(result) == DREAM_RESULT_KEYS
    assert result["user_id"] == "alice" and result["profile_rebuilt"] is True
    assert result["summaries"] == 1 and isinstance(result["flushed_events"], int) and result["flushed_events"] >= 1
    again = ok(cli("memory", "dream", "--user", "alice", "--json"))["result"]
    assert again == {"user_id": "alice", "flushed_events": 0, "summaries": 0, "profile_rebuilt": False}
    assert list(again) == DREAM_RESULT_KEYS


def test_the_http_and_job_edges_dump_plain_json(hf: Heedful) -> None:
    """`/v1/memory/undo` answers `memory_undo_json`; the job table stores what the handlers return."""
    hf.memory.add("alice", "I live in Berlin", flush=True)
    data = memory_undo_json(hf, "alice")
    assert json.loads(json.dumps(data)) == data and list(data) == ["undone"]
    for row in data["undone"]:
        check_undone_row(row)
    hf.memory.add("alice", "I moved to Lisbon and I love hiking")
    job = hf.store.jobs.get(hf.store.jobs.enqueue("alice", "memory.flush", {}))
    assert job is not None
    flushed = run_flush(hf, job)
    assert flushed == {"events": flushed["events"]} and isinstance(flushed["events"], int)
    dreamt = run_dream(hf, job)
    assert json.loads(json.dumps(dreamt)) == dreamt and list(dreamt) == DREAM_RESULT_KEYS
    assert dreamt["user_id"] == "alice" and isinstance(dreamt["profile_rebuilt"], bool)


def test_memory_undo_json_refuses_with_one_line(cli: Cli, home: Path) -> None:
    ok(cli("memory", "add", "--user", "alice", "I live in Berlin", "--flush", "--json"))
    ok(cli("memory", "undo", "--user", "alice", "--json"))
    nothing = cli("memory", "undo", "--user", "alice", "--json")
    assert nothing.returncode == 2 and "nothing to undo" in nothing.stderr + nothing.stdout


def test_the_http_undo_schema_documents_the_shape(home: Path) -> None:
    """`POST /v1/memory/undo` names its answer in the OpenAPI schema, with the same fields as the JSON above."""
    pytest.importorskip("fastapi")
    from heedful.server.app import create_app

    app = create_app(home)
    try:
        schema = app.openapi()
    finally:
        app.state.heedful.hf.close()
    answer = schema["paths"]["/v1/memory/undo"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert answer == {"$ref": "#/components/schemas/MemoryUndo"}
    models = schema["components"]["schemas"]
    assert list(models["MemoryUndo"]["properties"]) == ["undone"]
    assert list(models["UndoneChange"]["properties"]) == ["op", "fact_id", "restored"]
    assert models["UndoneChange"]["properties"]["op"]["enum"] == list(get_args(RecordOp))
