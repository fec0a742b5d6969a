"""The MCP server: memory (remember, recall with explain, forget) and rules (list, learn, retract, check).

    heedful mcp                 # stdio
    heedful mcp --http          # streamable HTTP on 127.0.0.1:8765/mcp, bearer token required

The user is fixed by configuration (HEEDFUL_USER, else `user.default` in config.toml), never by a
tool argument: an agent cannot read or change another user's memory or rules. The tools are called
by the agent, not the user: `learn_rule` and `retract_rule` only *propose* (stored as `needs_user`
with the source `mcp`); the user approves with `heedful rules edit ID --approve`. Over HTTP every
request needs the bearer token from the heedful home (`mcp_auth`). Built on the official `mcp` SDK
(`pip install 'heedful[mcp]'`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.api import Heedful
from heedful.config import Settings
from heedful.error_log import append_error, log_path
from heedful.errors import HeedfulError, InputError
from heedful.ids import validate_user_id

if TYPE_CHECKING:
    from heedful.rules.models import CheckReport

LOOPBACK = ("127.0.0.1", "::1", "localhost")
SOURCE = "mcp"  # recorded on every proposal made through this server
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
        self.user = validate_user_id(hf.settings.user.default)
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
        pending = [r for r in rules if r.get("proposal")]
        return {"rules": rules, "count": len(rules), "pending_approval": len(pending)}

    def learn_rule(self, text: str, project: str | None = None) -> dict[str, Any]:
        """The agent relays the user's words: whatever would change is only proposed."""
        return self.hf.rules.learn(
            self.user, text, project=_project(project), source="user", proposed_by=SOURCE
        ).model_dump()

    def retract_rule(self, rule_id: str, reason: str = "the user asked for it") -> dict[str, Any]:
        """A proposal: the rule stays in force until the user approves (`heedful rules edit ID --approve`)."""
        return self.hf.rules.propose_retract(self.user, rule_id, reason, source=SOURCE).model_dump(mode="json")

    def check(
        self,
        command: str | None = None,
        file_path: str | None = None,
        content: str | None = None,
        reply: str | None = None,
        project: str | None = None,
    ) -> dict[str, Any]:
        if not any(value is not None for value in (command, file_path, reply)):
            raise InputError("give a command, a file_path (with content) or a reply to check")
        root = _project(project)
        found: list[CheckReport] = []
        if command is not None:
            found.append(
                self.hf.rules.check(
                    self.user, "pre_action", {"action": {"tool": "Bash", "command": command}}, project=root
                )
            )
        if file_path is not None:
            found.append(
                self.hf.rules.check(
                    self.user, "pre_action", {"action": {"tool": "Write", "file_path": file_path}}, project=root
                )
            )
            if content is not None:
                artifact = {"path": file_path, "content": content, "kind": "text"}
                found.append(self.hf.rules.check(self.user, "artifact", {"artifact": artifact}, project=root))
        if reply is not None:
            found.append(self.hf.rules.check(self.user, "delivery", {"delivery": reply, "events": []}, project=root))
        judgments = [j for part in found for j in part.judgments]
        violations = [j for j in judgments if j.result == "violated"]
        return {
            "ok": not violations,
            "violations": [
                {"rule_id": j.rule_id, "rule": j.text, "stage": j.stage, "reason": j.reason, "quotes": j.quotes}
                for j in violations
            ],
            "judgments": [j.model_dump(mode="json") for j in judgments],
            "library_version": found[0].library_version,
        }


def _one_line(exc: BaseException) -> str:
    """The error as one line, secrets masked: the agent (and its transcript) reads it."""
    from heedful.memory.redact import redact

    return redact(" ".join(str(exc).split())).text or type(exc).__name__


def _log_internal_error(hf: Heedful, exc: BaseException) -> None:
    """Append the traceback to HOME/logs/mcp.log (redacted, owner-only, bounded); never raises."""
    append_error(hf.settings.home, "mcp", "tool call failed", exc)


def build_server(hf: Heedful) -> Any:
    """The SDK server: every tool returns structured content; a bad call is a one-line tool error."""
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    tools = Tools(hf)
    server = MCPServer("heedful", instructions=INSTRUCTIONS)

    def run(call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        try:
            return call()
        except HeedfulError as exc:  # the user's or agent's mistake: one line back, no traceback
            raise ToolError(_one_line(exc)) from None
        except Exception as exc:  # heedful's own fault: one line to the agent, the traceback to the log
            _log_internal_error(hf, exc)
            log = log_path(hf.settings.home, "mcp")
            raise ToolError(f"internal error: {_one_line(exc)} (details in {log})") from None

    @server.tool()
    def remember(text: str) -> dict[str, Any]:
        """Store something the user said that should last (a fact, a preference, a change of mind)."""
        return run(lambda: tools.remember(text))

    @server.tool()
    def recall(query: str, limit: int = 8, explain: bool = True) -> dict[str, Any]:
        """Recall what is known about the user for a query; `explain` shows why each item came back."""
        return run(lambda: tools.recall(query, limit, explain))

    @server.tool()
    def forget(request: str) -> dict[str, Any]:
        """Forget what the user asks to forget (the facts expire and a tombstone keeps them out of recall)."""
        return run(lambda: tools.forget(request))

    @server.tool()
    def list_rules(project: str | None = None, include_inactive: bool = False) -> dict[str, Any]:
        """The rules the user taught (global ones and, with `project`, that project's) and pending proposals."""
        return run(lambda: tools.list_rules(project, include_inactive))

    @server.tool()
    def learn_rule(text: str, project: str | None = None) -> dict[str, Any]:
        """Propose a lasting rule from the user's own words (pass their message verbatim).

        Nothing changes until the user approves: new rules, changes and retractions are stored as
        `needs_user` proposals (`heedful rules edit ID --approve`).
        """
        return run(lambda: tools.learn_rule(text, project))

    @server.tool()
    def retract_rule(rule_id: str, reason: str = "the user asked for it") -> dict[str, Any]:
        """Propose retracting a rule (by id, from list_rules); the rule stays in force until the user approves."""
        return run(lambda: tools.retract_rule(rule_id, reason))

    @server.tool()
    def check(
        command: str | None = None,
        file_path: str | None = None,
        content: str | None = None,
        reply: str | None = None,
        project: str | None = None,
    ) -> dict[str, Any]:
        """Check a planned shell command, a file to write (path and content) or a draft reply against the rules."""
        return run(lambda: tools.check(command, file_path, content, reply, project))

    return server


def serve(
    settings: Settings | None = None,
    http: bool = False,
    host: str = "127.0.0.1",
    port: int = 8765,
    auth: bool = True,
    announce: Callable[[str], None] | None = None,
) -> None:
    """Serve over stdio, or streamable HTTP on loopback behind a bearer token (unless `auth` is False).
    `settings` are the command's (config, environment and command-line options); default: the home's."""
    if http and host not in LOOPBACK:
        raise InputError(f"the HTTP transport listens on loopback only (127.0.0.1, ::1, localhost), not {host!r}")
    from heedful.config import load_settings

    with Heedful.from_settings(settings or load_settings()) as hf:
        server = build_server(hf)
        if not http:
            server.run()
            return
        import uvicorn

        from heedful.integrations.mcp_auth import BearerGuard, load_or_create_token

        app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
        say = announce or (lambda line: None)
        url = f"http://{host}:{port}/mcp"
        if auth:
            path, token = load_or_create_token(hf.settings.home)
            app = BearerGuard(app, token)
            say(f"heedful MCP on {url} (bearer token required)")
            say(f"token: {token}  (stored in {path})")
            say(f'claude mcp add --transport http heedful {url} --header "Authorization: Bearer {token}"')
        else:
            say(f"heedful MCP on {url} WITHOUT authentication (--no-auth): any local process can use it")
        uvicorn.run(app, host=host, port=port, log_level="warning")
