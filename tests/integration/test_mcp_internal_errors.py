"""heedful's own failure inside an MCP tool reaches the agent as one line; the traceback goes to the log."""

from __future__ import annotations

import stat
from pathlib import Path

import anyio
import pytest

from heedful.api import Heedful

pytest.importorskip("mcp")


@pytest.mark.sqlite_only(reason="closes SQLite's connection under the server; a closed PG pool is a store error")
def test_an_internal_error_is_one_line_for_the_agent_and_logged(home: Path) -> None:
    from heedful.integrations.mcp_server import build_server

    hf = Heedful.open(home, embedder="hashing")
    hf.rules.learn(hf.settings.user.default or "me", "never push to main")
    server = build_server(hf)
    hf.close()  # the store is gone under the server: a real failure that is nobody's input

    async def call() -> object:
        return await server.call_tool("list_rules", {})

    with pytest.raises(Exception) as raised:
        anyio.run(call)
    message = str(raised.value)
    assert "internal error: Cannot operate on a closed database" in message
    assert "\n" not in message and "Traceback" not in message
    log = home / "logs" / "mcp.log"
    assert "Traceback" in log.read_text(encoding="utf-8")
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_the_one_line_error_masks_a_secret_before_the_agent_reads_it() -> None:
    from heedful.integrations.mcp_server import _one_line

    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    line = _one_line(RuntimeError(f"could not reach the forge\nwith token {token}"))
    assert token not in line and "could not reach the forge with token" in line and "\n" not in line
