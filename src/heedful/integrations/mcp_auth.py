"""A bearer token for the MCP HTTP server: any local process can reach a loopback port.

The token is generated on first use and kept in the heedful home (`mcp-token`, mode 0600);
`heedful mcp --http` prints it at start. Every HTTP request must carry
`Authorization: Bearer <token>`; anything else is answered 401 before the MCP app sees it.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import stat
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from heedful.errors import InputError

TOKEN_FILE = "mcp-token"
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def load_or_create_token(home: Path) -> tuple[Path, str]:
    """The token stored in `home` (created 0600 on first use), and its path."""
    home = Path(home).expanduser()
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = home / TOKEN_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            os.chmod(path, 0o600)  # readable by others: tighten it rather than serve a leaked secret
        token = path.read_text(encoding="utf-8").strip()
        if len(token) < 32:
            raise InputError(f"the MCP token file {path} is empty or too short; delete it to get a new one") from None
        return path, token
    token = secrets.token_urlsafe(32)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return path, token


class BearerGuard:
    """ASGI middleware: HTTP requests without the right bearer token get 401; lifespan passes through."""

    def __init__(self, app: App, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = next((value for key, value in scope.get("headers", []) if key.lower() == b"authorization"), b"")
        if hmac.compare_digest(given, self.expected):
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {
                "error": "unauthorized",
                "error_description": (
                    "missing or wrong bearer token: send 'Authorization: Bearer <token>'"
                    " (printed by `heedful mcp --http`)"
                ),
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="heedful"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


__all__ = ["TOKEN_FILE", "BearerGuard", "load_or_create_token"]
