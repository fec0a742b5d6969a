"""The MCP server through a real client session from the official SDK, over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from heedful.api import Heedful

mcp = pytest.importorskip("mcp")


def server_params(home: Path, user: str) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update({"HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": "hashing", "HEEDFUL_USER": user})
    code = "from heedful.commands.mcp import app; app()"
    return mcp.StdioServerParameters(command=sys.executable, args=["-c", code, "--home", str(home)], env=env)


def payload(result: Any) -> Any:
    assert not result.is_error, result
    return json.loads(result.content[0].text)


async def session_calls(home: Path, user: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[Any]]:
    async with mcp.stdio_client(server_params(home, user)) as (read, write), mcp.ClientSession(read, write) as session:
        await session.initialize()
        tools = sorted(tool.name for tool in (await session.list_tools()).tools)
        results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return tools, results


def test_tools_over_stdio(home: Path, tmp_path: Path) -> None:
    project = str((tmp_path / "app").resolve())
    calls = [
        ("learn_rule", {"text": "never push to main", "project": project}),
        ("check", {"command": "git push origin main", "project": project}),
        ("list_rules", {"project": project}),
    ]
    tools, results = anyio.run(session_calls, home, "alice", calls)
    assert tools == ["check", "forget", "learn_rule", "list_rules", "recall", "remember", "retract_rule"]
    learned, unarmed, listed = (payload(r) for r in results)
    # the agent calls the tools: a rule it relays is only proposed until the user approves it
    assert learned["decision"] == "persist" and learned["actions"][0]["op"] == "needs_user"
    assert unarmed["ok"] is True
    assert listed["count"] == 1 and listed["pending_approval"] == 1
    assert listed["rules"][0]["proposal"]["source"] == "mcp"
    with Heedful.open(home, embedder="hashing") as hf:
        hf.rules.edit("alice", learned["actions"][0]["rule_id"], approve=True)

    calls = [
        ("check", {"command": "git push origin main", "project": project}),
        ("check", {"command": "git push origin feature", "project": project}),
        ("list_rules", {"project": project}),
        ("remember", {"text": "I moved to Lisbon last month."}),
        ("recall", {"query": "where does the user live?", "explain": True}),
        ("forget", {"request": "forget that I live in Lisbon"}),
        ("recall", {"query": "where does the user live?"}),
    ]
    _, results = anyio.run(session_calls, home, "alice", calls)
    denied, allowed, listed, remembered, recalled, forgotten, after = (payload(r) for r in results)
    assert denied["ok"] is False and denied["violations"][0]["rule"] == "Never push to main."
    assert allowed["ok"] is True
    rule_id = listed["rules"][0]["id"]
    assert listed["count"] == 1 and listed["rules"][0]["status"] == "checked"
    assert remembered["events"] and remembered["events"][0]["op"] == "add"
    assert any("Lisbon" in item["text"] for item in recalled["items"])
    assert isinstance(recalled["items"][0]["routes"], dict) and "analysis" in recalled
    assert forgotten["forgotten"]
    assert not any("Lisbon" in item["text"] for item in after["items"])

    _, (retracted,) = anyio.run(session_calls, home, "alice", [("retract_rule", {"rule_id": rule_id})])
    proposal = payload(retracted)
    assert proposal["status"] == "needs_user" and proposal["rule"]["status"] == "checked"
    with Heedful.open(home, embedder="hashing") as hf:
        hf.rules.edit("alice", proposal["proposal"]["id"], approve=True)
        assert hf.rules.list("alice") == [] and hf.rules.list("bob") == []


def test_identity_comes_from_configuration_not_arguments(home: Path, tmp_path: Path) -> None:
    project = str((tmp_path / "app").resolve())
    anyio.run(session_calls, home, "alice", [("learn_rule", {"text": "never push to main", "project": project})])
    _, (listed, checked) = anyio.run(
        session_calls,
        home,
        "bob",
        [
            ("list_rules", {"project": project}),
            ("check", {"command": "git push origin main", "project": project}),
        ],
    )
    assert payload(listed)["count"] == 0 and payload(checked)["ok"] is True
    _, (bad,) = anyio.run(session_calls, home, "bob", [("list_rules", {"user": "alice"})])
    assert bad.is_error or payload(bad)["count"] == 0
