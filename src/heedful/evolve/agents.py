"""Named proposers and critics: the coding-agent CLIs with only the tools their step needs.

    heedful evolve --proposer claude --critic codex

A name expands to a shell command run in the step's folder (any other text is run as given):

- proposer `claude`: `claude -p` with the brief on stdin, offered only the file tools (Read, Edit,
  Glob, Grep: no shell, no web), edits accepted without prompts, which Claude Code confines to the
  workspace; `--safe-mode` loads no hooks, plugins or CLAUDE.md of the user's own setup.
- proposer `codex`: `codex exec` in its `workspace-write` sandbox, hooks disabled.
- critic `codex` / `claude`: read-only (Codex's `read-only` sandbox; Claude Code with Read, Glob and
  Grep only); the prompt holds the brief, a summary of the failures and the diff, and the answer is
  the model's last message.
- `scripted`: the built-in offline proposer (`heedful.evolve.scripted_proposer`).

Without `--proposer`, the agent CLI is the proposer when `claude` is on PATH (then `codex`, when
installed, is the default critic: another model family), and the offline script otherwise; the
run says which it chose. Pass `--proposer scripted` to stay offline on a machine with the CLIs.

Every step also runs with `HEEDFUL_CHILD=1`, so heedful's own hooks, if installed for that agent,
neither enforce on nor learn from the proposer's and critic's runs.
"""

from __future__ import annotations

import os
import shutil
import sys

from heedful.errors import InputError
from heedful.llm.agent_cli import CHILD_ENV

SCRIPTED = f"{sys.executable} -m heedful.evolve.scripted_proposer"
CLAUDE_BASE = "claude -p --safe-mode --strict-mcp-config --no-session-persistence --output-format text"
CODEX_BASE = "codex exec --skip-git-repo-check --ephemeral --disable hooks --color never"
PROPOSERS = {
    "scripted": SCRIPTED,
    "claude": f"{CLAUDE_BASE} --tools Read,Edit,Glob,Grep --permission-mode acceptEdits < BRIEF.md",
    "codex": f"{CODEX_BASE} --sandbox workspace-write - < BRIEF.md",
}
PROMPT_FILE = "PROMPT.md"  # what a named critic reads: the brief, the failures in short, the diff
CRITICS = {
    "claude": f"{CLAUDE_BASE} --tools Read,Glob,Grep < {PROMPT_FILE}",
    "codex": (
        f"{CODEX_BASE} --sandbox read-only --output-last-message VERDICT.txt - < {PROMPT_FILE} > critic-run.log"
        " && cat VERDICT.txt"
    ),
}
BINARIES = {"claude": "claude", "codex": "codex"}


def _resolve(value: str, presets: dict[str, str], role: str) -> str:
    name = value.strip()
    if not name:
        raise InputError(f"the {role} command is empty")
    if name not in presets:
        return value  # a command line of the user's own
    binary = BINARIES.get(name)
    if binary and shutil.which(binary) is None:
        raise InputError(f"--{role} {name} needs the `{binary}` CLI on PATH; install it or pass a command")
    return presets[name]


def default_proposer() -> str:
    """`claude` when its CLI is on PATH, else `scripted`."""
    return "claude" if shutil.which(BINARIES["claude"]) else "scripted"


def default_critic(proposer: str) -> str | None:
    """`codex` (another model family) when the proposer is an agent CLI and codex is installed, else none."""
    return "codex" if proposer in BINARIES and shutil.which(BINARIES["codex"]) else None


def proposer_command(value: str | None) -> str:
    """The shell command for `--proposer` (a preset name or a command; default: `default_proposer()`)."""
    return _resolve(value or default_proposer(), PROPOSERS, "proposer")


def critic_command(value: str | None) -> str | None:
    """The shell command for `--critic` (a preset name or a command); None: only the static check."""
    return None if value is None else _resolve(value, CRITICS, "critic")


def child_environment() -> dict[str, str]:
    """The environment of a proposer or critic run: ours, marked as heedful's own child."""
    return {**os.environ, CHILD_ENV: "1"}
