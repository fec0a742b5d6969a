"""The MCP server over streamable HTTP on loopback, through the SDK's client."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

mcp = pytest.importorskip("mcp")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def call(url: str, token: str) -> tuple[list[str], dict]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        mcp.ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = sorted(tool.name for tool in (await session.list_tools()).tools)
        result = await session.call_tool("check", {"command": "git push origin main"})
    return tools, json.loads(result.content[0].text)


def test_streamable_http_on_loopback(home: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update({"HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": "hashing", "HEEDFUL_USER": "alice"})
    code = "from heedful.commands.mcp import app; app()"
    server = subprocess.Popen(
        [sys.executable, "-c", code, "--http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
                time.sleep(0.2)
        token = (home / "mcp-token").read_text().strip()
        tools, checked = anyio.run(call, f"http://127.0.0.1:{port}/mcp", token)
    finally:
        server.terminate()
        server.wait(timeout=20)
    assert "check" in tools and "recall" in tools
    assert checked["ok"] is True and checked["judgments"] == []
