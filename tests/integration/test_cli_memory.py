"""The memory CLI through real subprocesses: the `--json` contract and clear errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess

Cli = Callable[..., CompletedProcess[str]]


def ok(result: CompletedProcess[str]) -> object:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_add_recall_forget_list_history_undo(cli: Cli) -> None:
    added = ok(
        cli("memory", "add", "--user", "alice", "--at", "2024-01-05T10:00:00Z", "I live in Berlin", "--flush", "--json")
    )
    assert added["events"][0]["op"] == "add"  # type: ignore[index]
    moved = ok(cli("memory", "add", "--user", "alice", "I moved to Lisbon", "--flush", "--json"))
    event = moved["events"][0]  # type: ignore[index]
    assert event["op"] == "supersede" and set(event) >= {"op", "fact_id", "text", "reason"}

    recalled = ok(cli("memory", "recall", "--user", "alice", "--explain", "where does the user live", "--json"))
    items = recalled["items"]  # type: ignore[index]
    assert set(items[0]) >= {"id", "kind", "text", "score", "state", "valid_from", "valid_to", "routes"}
    states = {i["text"]: i["state"] for i in items}
    assert states["The user lives in Berlin"] == "superseded" and states["The user lives in Lisbon"] == "current"
    assert all(isinstance(i["routes"], dict) for i in items)

    history = ok(cli("memory", "history", "--user", "alice", event["fact_id"], "--json"))
    assert [f["text"] for f in history["chain"]] == ["The user lives in Berlin", "The user lives in Lisbon"]  # type: ignore[index]

    ok(cli("memory", "forget", "--user", "alice", "I live in Lisbon", "--json"))
    listed = ok(cli("memory", "list", "--user", "alice", "--kind", "fact", "--json"))
    assert listed == []
    everything = ok(cli("memory", "list", "--user", "alice", "--all", "--json"))
    assert {r["state"] for r in everything} >= {"superseded", "forgotten"}  # type: ignore[union-attr]

    undone = ok(cli("memory", "undo", "--user", "alice", "--json"))
    assert undone["undone"]  # type: ignore[index]
    listed = ok(cli("memory", "list", "--user", "alice", "--kind", "fact", "--json"))
    assert [r["text"] for r in listed] == ["The user lives in Lisbon"]  # type: ignore[union-attr]


def test_conversation_file_dream_and_context(cli: Cli, tmp_path: Path) -> None:
    conversation = tmp_path / "conversation.json"
    conversation.write_text(
        json.dumps(
            {
                "session_id": "s1",
                "messages": [
                    {
                        "role": "user",
                        "content": "I love hiking and my sister Anna hates cilantro.",
                        "at": "2024-05-07T09:00:00Z",
                    },
                    {"role": "assistant", "text": "Noted! I'll remind you to book the hut."},
                ],
            }
        )
    )
    added = ok(cli("memory", "add", "--user", "alice", "--file", str(conversation), "--flush", "--json"))
    assert {e["text"] for e in added["events"]} >= {"The user likes hiking", "The user's sister Anna hates cilantro"}  # type: ignore[index]
    dreamed = ok(cli("memory", "dream", "--user", "alice", "--json"))
    assert dreamed["state"] == "done" and dreamed["result"]["profile_rebuilt"]  # type: ignore[index]
    context = cli(
        "memory", "context", "--user", "alice", "--options", "hiking", "cilantro", "What does the user enjoy?"
    )
    assert context.returncode == 0, context.stderr
    assert context.stdout.startswith("How to use the memory below")
    assert "Evidence for option (A) hiking" in context.stdout and "Evidence for option (B) cilantro" in context.stdout


def test_jobs_drain_and_worker(cli: Cli) -> None:
    ok(cli("memory", "add", "--user", "alice", "I live in Berlin", "--json"))
    ok(cli("memory", "dream", "--user", "alice", "--enqueue", "--json"))
    assert ok(cli("jobs", "list", "--state", "pending", "--json"))[0]["kind"] == "memory.dream"  # type: ignore[index]
    drained = ok(cli("jobs", "drain", "--json"))
    assert drained["done"] == 1 and drained["failed"] == 0  # type: ignore[index]
    ok(cli("memory", "dream", "--user", "alice", "--enqueue", "--json"))
    worker = cli("worker", "--idle-exit", "0.5", "--poll", "0.1")
    assert worker.returncode == 0, worker.stderr
    assert ok(cli("jobs", "list", "--state", "pending", "--json")) == []


def test_bad_input_gives_one_clear_error_and_changes_nothing(cli: Cli, tmp_path: Path, home: Path) -> None:
    ok(cli("memory", "add", "--user", "alice", "I live in Berlin", "--flush", "--json"))
    before = ok(cli("memory", "list", "--user", "alice", "--all", "--json"))

    broken = tmp_path / "broken.json"
    broken.write_text('{"messages": [{"role": "user", "text": "I moved to Rome"}')
    wrong_shape = tmp_path / "shape.json"
    wrong_shape.write_text('{"messages": [{"role": "robot", "text": "hi"}]}')
    cases = [
        (("memory", "add", "--user", "alice", "--file", str(broken)), "not valid JSON"),
        (("memory", "add", "--user", "alice", "--file", str(wrong_shape)), "messages.0.role"),
        (("memory", "add", "--user", "alice", "--file", str(tmp_path / "missing.json")), "no such file"),
        (("memory", "add", "--user", "alice", "   "), "has no text"),
        (("memory", "add", "--user", "alice", "x", "--at", "yesterday-ish"), "not an ISO 8601 time"),
        (("memory", "recall", "--user", "nobody", "anything"), "unknown user 'nobody'"),
        (("memory", "history", "--user", "alice", "f-000000000000"), "no memory with id"),
        (("memory", "undo", "--user", "bob"), "unknown user"),
    ]
    for args, message in cases:
        result = cli(*args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], (args, result.stderr)
    wrong_dimension = cli("memory", "add", "--user", "alice", "I moved to Rome", embedder="minilm")
    assert wrong_dimension.returncode == 2 and "256-dimensional" in wrong_dimension.stderr
    assert ok(cli("memory", "list", "--user", "alice", "--all", "--json")) == before
