"""Whether Codex will run heedful's hooks: Codex runs a hook only once the user trusted it.

Codex keeps its trust decisions in `~/.codex/config.toml`, one table per handler:

    [hooks.state."/home/me/.codex/hooks.json:pre_tool_use:1:0"]
    trusted_hash = "sha256:..."

keyed by the hooks file, the event, the group's index and the handler's index. A handler without
a `trusted_hash` is untrusted and silently skipped; `enabled = false` turns it off. A project's
`.codex/` is read only when the project itself is trusted (`[projects."<dir>"] trust_level =
"trusted"`). The hash is Codex's own digest of the handler; it is not recomputed here, so a
handler changed since it was trusted shows as trusted until Codex asks again in /hooks.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EVENT_KEYS = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "PreToolUse": "pre_tool_use",
    "PostToolUse": "post_tool_use",
    "Stop": "stop",
}


@dataclass(frozen=True)
class HookTrust:
    """heedful's handlers in one Codex hooks file and what Codex makes of them."""

    hooks_file: str
    trusted: list[str]
    untrusted: list[str]
    disabled: list[str]
    project_trusted: bool | None  # None for the user's own hooks file

    @property
    def runs(self) -> bool:
        return not self.untrusted and not self.disabled and self.project_trusted is not False

    def summary(self) -> str:
        parts = []
        if self.project_trusted is False:
            folder = str(Path(self.hooks_file).parent.parent)
            parts.append(
                f'Codex ignores this project\'s .codex/ until it is trusted ([projects."{folder}"] '
                'trust_level = "trusted" in ~/.codex/config.toml)'
            )
        if self.untrusted:
            parts.append(
                f"{len(self.untrusted)} hook(s) not trusted yet ({', '.join(self.untrusted)}): Codex skips them "
                "without a word; trust them in Codex with /hooks"
            )
        if self.disabled:
            parts.append(f"disabled in Codex: {', '.join(self.disabled)}")
        if not parts:
            return f"{len(self.trusted)} hook(s) trusted in {self.hooks_file}"
        return f"{self.hooks_file}: " + "; ".join(parts)


def _config(user_home: Path) -> dict[str, Any]:
    try:
        return tomllib.loads((user_home / ".codex" / "config.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def project_trusted(project: Path, user_home: Path | None = None) -> bool:
    """Whether ~/.codex/config.toml trusts `project` (Codex reads a project's .codex/ only then)."""
    projects = _table(_config(user_home or Path.home()).get("projects"))
    wanted = {str(project), str(project.resolve())}
    return any(key in wanted and _table(value).get("trust_level") == "trusted" for key, value in projects.items())


def inspect(hooks_file: Path, user_home: Path | None = None, project: Path | None = None) -> HookTrust | None:
    """heedful's handlers in `hooks_file` and their trust state; None when it holds none."""
    from heedful.integrations.install import is_ours

    try:
        data = json.loads(hooks_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    hooks = _table(_table(data).get("hooks"))
    home = user_home or Path.home()
    states = _table(_table(_config(home).get("hooks")).get("state"))
    trusted: list[str] = []
    untrusted: list[str] = []
    disabled: list[str] = []
    source = str(hooks_file.resolve())
    for event, groups in hooks.items():
        if event not in EVENT_KEYS or not isinstance(groups, list):
            continue
        for group_index, group in enumerate(groups):
            handlers = _table(group).get("hooks")
            for handler_index, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if not is_ours(handler, "codex"):
                    continue
                state = _table(states.get(f"{source}:{EVENT_KEYS[event]}:{group_index}:{handler_index}"))
                if state.get("enabled") is False:
                    disabled.append(event)
                elif isinstance(state.get("trusted_hash"), str):
                    trusted.append(event)
                else:
                    untrusted.append(event)
    if not (trusted or untrusted or disabled):
        return None
    return HookTrust(
        hooks_file=source,
        trusted=trusted,
        untrusted=untrusted,
        disabled=disabled,
        project_trusted=None if project is None else project_trusted(project, home),
    )


def codex_hooks(project: Path | None, user_home: Path | None = None) -> list[HookTrust]:
    """The user's and the project's Codex hooks files that hold heedful's handlers, with their trust."""
    home = user_home or Path.home()
    found = [inspect(home / ".codex" / "hooks.json", home)]
    if project is not None:
        found.append(inspect(project / ".codex" / "hooks.json", home, project))
    return [item for item in found if item is not None]
