"""The MCP server: memory (remember, recall with explain, forget) and rules (list, learn, retract, check).

    heedful mcp                 # stdio
    heedful mcp --http          # streamable HTTP on 127.0.0.1:8765/mcp

The user is fixed by configuration (HEEDFUL_USER, else `user.default` in config.toml), never by a
tool argument: an agent cannot read or change another user's memory or rules. Built on the
official `mcp` SDK (`pip install 'heedful[mcp]'`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from heedful.api import Heedful
from heedful.errors import HeedfulError, InputError

LOOPBACK = ("127.0.0.1", "::1", "localhost")
INSTRUCTIONS = (
    "heedful keeps this user's memory and the rules they taught. Call `recall` before answering questions "
    "about the user or earlier work; call `remember` when the user states a lasting fact or preference and "
    "`forget` when they ask to forget something. Call `check` with a planned shell command, a file you are "
    "about to write, or your draft reply to see whether it breaks a learned rule; `list_rules` shows the "
    "rules. The user's current instructions take precedence over learned rules."
)


def _project(project: str | None) -> str | None:
    return str(Path(project).expanduser().resolve()) if project else None


class Tools:
    """The tool implementations, independent of the transport (one user, one heedful home)."""

    def __init__(self, hf: Heedful) -> None:
        self.hf = hf
        self.user = hf.settings.user.default.strip()
        if not self.user:
            raise InputError("no user configured: set HEEDFUL_USER or user.default in config.toml")

    def remember(self, text: str) -> dict[str, Any]:
        result = self.hf.memory.add(self.user, text, flush=True)
        return {"user": self.user, **result.to_json()}

    def recall(self, query: str, limit: int = 8, explain: bool = True) -> dict[str, Any]:
        try:
            result = self.hf.memory.recall(self.user, query, limit=limit)
        except HeedfulError as exc:
            if "unknown user" in str(exc):
                return {"query": query, "items": [], "note": "nothing has been remembered for this user yet"}
            raise
        return result.to_json(explain=explain)

    def forget(self, request: str) -> dict[str, Any]:
        events = self.hf.memory.forget(self.user, request)
        return {"forgotten": [event.to_json() for event in events]}

    def list_rules(self, project: str | None = None, include_inactive: bool = False) -> dict[str, Any]:
        rules = self.hf.rules.list(self.user, project=_project(project), include_all=include_inactive)
        return {"rules": rules, "count": len(rules)}

    def learn_rule(self, text: str, project: str | None = None) -> dict[str, Any]:
        return self.hf.rules.learn(self.user, text, project=_project(project), source="user").model_dump()

    def retract_rule(self, rule_id: str, reason: str = "retracted by the user") -> dict[str, Any]:
        return self.hf.rules.retract(self.user, rule_id, reason)

    def check(self, command: str | None = None, file_path: str | None = None, content: str | None = None,
              reply: str | None = None, project: str | None = None) -> dict[str, Any]:
        if not any(value is not None for value in (command, file_path, reply)):
            raise InputError("give a command, a file_path (with content) or a reply to check")
        root = _project(project)
        found: list[dict[str, Any]] = []
        if command is not None:
            found.append(self.hf.rules.check(self.user, "pre_action",
                                             {"action": {"tool": "Bash", "command": command}}, project=root))
        if file_path is not None:
            found.append(self.hf.rules.check(self.user, "pre_action",
                                             {"action": {"tool": "Write", "file_path": file_path}}, project=root))
            if content is not None:
                artifact = {"path": file_path, "content": content, "kind": "text"}
                found.append(self.hf.rules.check(self.user, "artifact", {"artifact": artifact}, project=root))
        if reply is not None:
            found.append(self.hf.rules.check(self.user, "delivery", {"delivery": reply, "events": []},
                                             project=root))
        judgments = [j for part in found for j in part["judgments"]]
        violations = [j for j in judgments if j["result"] == "violated"]
        return {
            "ok": not violations,
            "violations": [{"rule_id": j["rule_id"], "rule": j["text"], "stage": j["stage"], "reason": j["reason"],
                            "quotes": j["quotes"]} for j in violations],
            "judgments": judgments,
            "library_version": found[0]["library_version"],
        }


def build_server(hf: Heedful) -> Any:
    from mcp.server import MCPServer

    tools = Tools(hf)
    server = MCPServer("heedful", instructions=INSTRUCTIONS)

    def dump(data: Any) -> str:
        return json.dumps(data, ensure_ascii=False, default=str)

    @server.tool()
    def remember(text: str) -> str:
        """Store something the user said that should last (a fact, a preference, a change of mind)."""
        return dump(tools.remember(text))

    @server.tool()
    def recall(query: str, limit: int = 8, explain: bool = True) -> str:
        """Recall what is known about the user for a query; `explain` shows why each item came back."""
        return dump(tools.recall(query, limit, explain))

    @server.tool()
    def forget(request: str) -> str:
        """Forget what the user asks to forget (the facts expire and a tombstone keeps them out of recall)."""
        return dump(tools.forget(request))

    @server.tool()
    def list_rules(project: str | None = None, include_inactive: bool = False) -> str:
        """The rules the user taught: global ones and, with `project` (a directory), that project's."""
        return dump(tools.list_rules(project, include_inactive))

    @server.tool()
    def learn_rule(text: str, project: str | None = None) -> str:
        """Learn a lasting rule from the user's own words (pass their message verbatim)."""
        return dump(tools.learn_rule(text, project))

    @server.tool()
    def retract_rule(rule_id: str, reason: str = "retracted by the user") -> str:
        """Retract a rule the user no longer wants (by id, from list_rules)."""
        return dump(tools.retract_rule(rule_id, reason))

    @server.tool()
    def check(command: str | None = None, file_path: str | None = None, content: str | None = None,
              reply: str | None = None, project: str | None = None) -> str:
        """Check a planned shell command, a file to write (path and content) or a draft reply against the rules."""
        return dump(tools.check(command, file_path, content, reply, project))

    return server


def serve(home: Path | None = None, http: bool = False, host: str = "127.0.0.1", port: int = 8765) -> None:
    if http and host not in LOOPBACK:
        raise InputError(f"the HTTP transport listens on loopback only (127.0.0.1, ::1, localhost), not {host!r}")
    with Heedful.open(home) as hf:
        server = build_server(hf)
        if http:
            server.run(transport="streamable-http", host=host, port=port, streamable_http_path="/mcp")
        else:
            server.run()
