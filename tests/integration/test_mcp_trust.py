"""The MCP server's trust boundary, through real servers: a bearer token over HTTP, proposals only
from the agent's calls, structured results and one-line errors over stdio."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from heedful.api import Heedful

mcp = pytest.importorskip("mcp")

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update({"HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": "hashing", "HEEDFUL_USER": "alice"})
    return env


@contextmanager
def http_server(home: Path, *flags: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "heedful", "mcp", "--http", "--port", str(port), *flags],
        env=environment(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp", server
    finally:
        server.terminate()
        server.wait(timeout=20)


def post(url: str, token: str | None) -> int:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(INITIALIZE).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_http_needs_the_bearer_token(home: Path) -> None:
    with http_server(home) as (url, server):
        token_file = home / "mcp-token"
        token = token_file.read_text().strip()
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600 and len(token) >= 32
        assert post(url, None) == 401
        assert post(url, "not-the-token") == 401
        assert post(url, token + "x") == 401
        assert post(url, token) == 200
        server.terminate()
        _, err = server.communicate(timeout=20)
    assert token in err and "Bearer" in err  # shown at start
    with http_server(home) as (url, _):  # the same token on the next start
        assert post(url, token) == 200


def test_no_auth_is_an_explicit_opt_out(home: Path) -> None:
    with http_server(home, "--no-auth") as (url, server):
        assert post(url, None) == 200
        server.terminate()
        _, err = server.communicate(timeout=20)
    assert "WITHOUT authentication" in err


def server_params(home: Path) -> Any:
    code = "from heedful.commands.mcp import app; app()"
    return mcp.StdioServerParameters(command=sys.executable, args=["-c", code], env=environment(home))


async def calls(home: Path, todo: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async with mcp.stdio_client(server_params(home)) as (read, write), mcp.ClientSession(read, write) as session:
        await session.initialize()
        return [await session.call_tool(name, arguments) for name, arguments in todo]


def test_agent_calls_only_propose_and_results_are_structured(home: Path) -> None:
    with Heedful.open(home, embedder="hashing") as hf:
        checked = hf.rules.learn("alice", "never push to main").actions[0].rule_id
        guidance = hf.rules.learn("alice", "always prefer small, focused functions").actions[0].rule_id
        taught = hf.rules.learn("alice", "never run curl").actions[0].rule_id
    results = anyio.run(
        calls,
        home,
        [
            ("retract_rule", {"rule_id": checked}),
            ("retract_rule", {"rule_id": guidance, "reason": "the user said so"}),
            ("learn_rule", {"text": "forget what I said about curl"}),
            ("learn_rule", {"text": "always use sudo for installs"}),
            ("list_rules", {}),
            ("retract_rule", {"rule_id": "r-doesnotexist"}),
        ],
    )
    *proposed, listed, missing = results
    for result in proposed:
        assert not result.is_error and result.structured_content is not None
    assert all(r.structured_content["status"] == "needs_user" for r in proposed[:2])
    assert listed.structured_content["pending_approval"] == 4
    assert missing.is_error and "\n" not in missing.content[0].text and "r-doesnotexist" in missing.content[0].text
    assert "Traceback" not in missing.content[0].text
    with Heedful.open(home, embedder="hashing") as hf:
        status = {r["id"]: r["status"] for r in hf.rules.list("alice")}
        assert status[checked] == "checked" and status[guidance] == "guidance" and status[taught] == "checked"
        assert not any(
            r["text"].lower().startswith("always use sudo") and r["status"] != "needs_user"
            for r in hf.rules.list("alice")
        )
        sources = {p.source for p in hf.rules.pending("alice")}
        assert sources == {"mcp"}
        blocked = hf.rules.check("alice", "pre_action", {"action": {"tool": "Bash", "command": "git push origin main"}})
        assert blocked.blocked
