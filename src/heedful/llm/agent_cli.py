"""A coding agent's own CLI as the model: what `claude-cli` and `codex-cli` share.

Most people who run these agents have the agent's CLI logged in but no API key, so heedful can
ask the CLI itself: one non-interactive run per model call, the prompt on stdin, no tools, in an
empty scratch directory (no project instructions, nothing to edit). The answer is validated like
any provider's (`structured_call`: the schema, one repair turn, bounded backoff).

The child run is guarded against recursion: it gets `HEEDFUL_CHILD=1` (heedful's hooks do
nothing when they see it) and the CLI's own switches that keep user and project hooks, plugins
and MCP servers from loading, so it neither fires heedful's hooks nor learns from its own prompt.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from heedful.errors import InputError
from heedful.llm.protocol import ChatMessage
from heedful.llm.structured import Reply, TransientModelError, UsageLog, capped_schema, structured_call

ResponseT = TypeVar("ResponseT", bound=BaseModel)
CHILD_ENV = "HEEDFUL_CHILD"
PROBE_TIMEOUT = 15.0
SYSTEM_PROMPT = (
    "You are a JSON function, not a coding agent: read the request and answer with exactly one JSON "
    "object that matches the schema it gives. No prose, no code fences, no tools."
)


@dataclass(frozen=True)
class Finished:
    """One finished CLI run."""

    returncode: int
    stdout: str
    stderr: str


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env[CHILD_ENV] = "1"
    return env


def first_line(text: str, limit: int = 200) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


def run_cli(argv: list[str], stdin: str, cwd: Path, timeout: float) -> Finished:
    """Run one CLI invocation in its own process group; the whole group is killed on timeout."""
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=child_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,
        )
    except OSError as exc:
        raise InputError(f"cannot run {argv[0]}: {exc.strerror or exc}") from exc
    try:
        stdout, stderr = process.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            process.kill()
        process.communicate()
        raise TransientModelError(f"{Path(argv[0]).name} gave no answer within {timeout:.0f} s") from exc
    return Finished(process.returncode, stdout, stderr)


def render_prompt(conversation: list[dict[str, str]], schema: dict[str, Any]) -> str:
    """The whole call as one prompt: the instructions, the turns so far, and the schema to answer in."""
    system = "\n\n".join(m["content"] for m in conversation if m["role"] == "system")
    turns = [m for m in conversation if m["role"] != "system"]
    parts = [system] if system else []
    if len(turns) == 1:
        parts.append(turns[0]["content"])
    else:  # a repair turn: show the exchange so far
        parts += [f"[{m['role']}]\n{m['content']}" for m in turns]
    parts.append(
        "Answer with one JSON object and nothing else (no prose, no code fences). "
        f"It must match this JSON schema:\n{json.dumps(schema, ensure_ascii=False)}"
    )
    return "\n\n".join(parts)


class AgentCLIModel:
    """Base for the agent-CLI providers; a subclass gives the command line and reads the answer."""

    offline = False
    provider = ""
    command = ""
    product = ""
    preamble = ""  # said first on stdin, for a CLI whose own system prompt cannot be replaced

    def __init__(
        self,
        model: str | None = None,
        *,
        binary: Path | None = None,
        timeout_seconds: float = 60.0,
        retry_budget_seconds: float = 180.0,
        usage: UsageLog | None = None,
    ) -> None:
        found = binary or locate(self.command)
        if found is None:
            raise InputError(
                f"{self.provider} needs the `{self.command}` command ({self.product}) on PATH; "
                "install it or choose another --model"
            )
        self.binary = found
        self.model = model or None
        self.name = f"{self.provider}:{model}" if model else self.provider
        self.timeout_seconds = timeout_seconds
        self.retry_budget_seconds = retry_budget_seconds
        self.usage = usage or UsageLog(None)

    def argv(self, work: Path) -> list[str]:
        raise NotImplementedError

    def reply(self, finished: Finished, work: Path) -> Reply:
        raise NotImplementedError

    def _send(self, conversation: list[dict[str, str]], schema: dict[str, Any]) -> Reply:
        # An empty scratch directory: no project instructions, settings or files reach the child.
        with tempfile.TemporaryDirectory(prefix="heedful-model-") as scratch:
            work = Path(scratch)
            prompt = "\n\n".join(filter(None, [self.preamble, render_prompt(conversation, schema)]))
            finished = run_cli(self.argv(work), prompt, work, self.timeout_seconds)
            return self.reply(finished, work)

    def structured(self, messages: list[ChatMessage], response_model: type[ResponseT]) -> ResponseT:
        schema = capped_schema(response_model.model_json_schema())
        return structured_call(
            lambda conversation: self._send(conversation, schema),
            messages,
            response_model,
            provider=self.provider,
            model=self.model or "default",
            budget_seconds=self.retry_budget_seconds,
            usage=self.usage,
        )


def locate(command: str) -> Path | None:
    found = shutil.which(command)
    return Path(found) if found else None


@dataclass(frozen=True)
class CLIStatus:
    """What `heedful doctor` shows for one agent CLI, without calling a model."""

    provider: str
    command: str
    path: str | None
    version: str | None
    logged_in: bool | None
    detail: str
    login_decides: bool = False  # False when a run may work without the CLI's login (Codex's own providers)

    @property
    def usable(self) -> bool:
        found = self.path is not None and self.version is not None
        return found and not (self.login_decides and self.logged_in is False)


def installed(provider: str, command: str, product: str) -> tuple[Path, str] | CLIStatus:
    """(the binary, its version), or the unusable status saying what is missing."""
    binary = locate(command)
    if binary is None:
        return CLIStatus(provider, command, None, None, None, f"`{command}` is not on PATH ({product})")
    done = probe([str(binary), "--version"])
    version = first_line(done.stdout) if done is not None and done.returncode == 0 else None
    if version is None:
        return CLIStatus(provider, command, str(binary), None, None, f"`{command} --version` failed")
    return binary, version


def probe(argv: list[str]) -> Finished | None:
    """A short informational run (`--version`, a login status); None when it cannot run in time."""
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=PROBE_TIMEOUT,
            env=child_env(),
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Finished(done.returncode, done.stdout, done.stderr)


__all__ = [
    "CHILD_ENV",
    "AgentCLIModel",
    "CLIStatus",
    "Finished",
    "child_env",
    "first_line",
    "installed",
    "locate",
    "probe",
    "render_prompt",
    "run_cli",
]
