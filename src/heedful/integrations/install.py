"""Installing the hooks: merge heedful's handlers into a settings file, and take exactly them out again.

Claude Code reads `hooks` from `~/.claude/settings.json` (user) or `<project>/.claude/settings.json`;
Codex from `~/.codex/hooks.json` or `<project>/.codex/hooks.json`; Gemini CLI from
`~/.gemini/settings.json` or `<project>/.gemini/settings.json`. These use the same three-level
shape: event -> [{matcher, hooks: [{type, command, timeout}]}] (Gemini's timeout in milliseconds).
Cursor's `~/.cursor/hooks.json` or `<project>/.cursor/hooks.json` is flat:
{version: 1, hooks: {event: [{command, matcher?, timeout?}]}}. heedful's handlers are recognised
by their command (`-m heedful.hookmain <platform>`); every other key, group and handler is kept as
it was. Installing twice changes nothing; uninstalling removes only heedful's handlers and the
groups and events that held nothing else.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from heedful.errors import InputError
from heedful.integrations import cursor, gemini

MARK = "heedful.hookmain"
SCRIPT = "heedful-hook"  # the console script of `heedful.hookmain`
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
EVENTS = {
    "claude-code": ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop"),
    "codex": ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"),
    "gemini": gemini.EVENTS,
    "cursor": cursor.EVENTS,
}
MATCHERS = {"claude-code": "*", "codex": "Bash|apply_patch"}
TIMEOUT_SECONDS = 30
SESSION_START = {"gemini": "SessionStart", "cursor": "sessionStart"}
SETTINGS = {
    "claude-code": (".claude", "settings.json"),
    "codex": (".codex", "hooks.json"),
    "gemini": (".gemini", "settings.json"),
    "cursor": (".cursor", "hooks.json"),
}


def settings_path(platform: str, project: Path | None, user_home: Path | None = None) -> Path:
    if platform not in SETTINGS:
        raise InputError(f"unknown platform {platform!r}; one of: {', '.join(SETTINGS)}")
    folder, name = SETTINGS[platform]
    return (project or user_home or Path.home()) / folder / name


def hook_command(platform: str, home: Path | None = None, python: str | None = None) -> str:
    """This machine's command: this interpreter, wherever it is (user settings stay on this machine)."""
    command = f"{shlex.quote(python or sys.executable)} -m {MARK} {platform}"
    if home is not None:
        command = f"HEEDFUL_HOME={shlex.quote(str(home.expanduser().resolve()))} {command}"
    return command


def missing_notice(platform: str) -> str:
    """What SessionStart prints when `heedful-hook` is not on PATH: the user and the agent are told."""
    user = (
        f"heedful: {SCRIPT} is not on PATH, so the heedful hooks do nothing in this session and no learned "
        "rule is checked. Install heedful (pipx install heedful) and restart."
    )
    agent = (
        f"The heedful hooks are not running in this session ({SCRIPT} is not on PATH): the rules the user taught "
        "are not checked. Tell the user once if they rely on them."
    )
    answer: dict[str, Any] = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": agent}}
    if platform in ("claude-code", "gemini"):  # Codex accepts only the fields it documents per event
        answer = {"systemMessage": user, **answer}
    if platform == "cursor":
        answer = {"additional_context": agent}
    return json.dumps(answer)


def portable_command(platform: str, event: str, home: Path | None = None) -> str:
    """A command for settings shared with a team: `heedful-hook` found on PATH, no path of this machine.

    SessionStart says so when `heedful-hook` is missing instead of doing nothing silently.
    """
    command = f"{SCRIPT} {platform}"
    if home is not None:
        command = f"HEEDFUL_HOME={shlex.quote(str(home.expanduser().resolve()))} {command}"
    if event != SESSION_START.get(platform, "SessionStart"):
        return command
    notice = shlex.quote(missing_notice(platform))
    return f"command -v {SCRIPT} >/dev/null 2>&1 && exec {command}; printf '%s\\n' {notice}"


def is_ours(handler: Any, platform: str) -> bool:
    """Whether a settings handler is heedful's hook for `platform` (this machine's or the portable command)."""
    command = handler.get("command") if isinstance(handler, dict) else None
    return isinstance(command, str) and (f"-m {MARK} {platform}" in command or f"{SCRIPT} {platform}" in command)


def read_settings(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno}); fix it first") from exc
    if not isinstance(data, dict):
        raise InputError(f"{path} does not hold a JSON object")
    if "hooks" in data and not isinstance(data["hooks"], dict):
        raise InputError(f"{path}: `hooks` is not an object")
    return data


def write_settings(path: Path, data: dict[str, Any]) -> None:
    """Write atomically (a crash never leaves half a settings file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=2, ensure_ascii=False)
            out.write("\n")
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def merge(data: dict[str, Any], platform: str, command: str | Callable[[str], str]) -> tuple[dict[str, Any], list[str]]:
    """(new settings, events changed): heedful's handler in every event, each exactly once.

    `command` is one command for every event, or the command for an event.
    """
    out = json.loads(json.dumps(data))
    hooks = out.setdefault("hooks", {})
    changed = []
    for event in EVENTS[platform]:
        groups = hooks.get(event)
        if not isinstance(groups, list):
            groups = []
        text = command(event) if callable(command) else command
        handler = _handler(platform, text)
        present = [h for g in groups if isinstance(g, dict) for h in g.get("hooks") or [] if is_ours(h, platform)]
        if present == [handler]:
            continue
        groups = _without_ours(groups, platform)
        group: dict[str, Any] = {"hooks": [handler]}
        if platform in MATCHERS and (event in TOOL_EVENTS or (event == "SessionStart" and platform == "claude-code")):
            group = {"matcher": MATCHERS[platform] if event in TOOL_EVENTS else "*", **group}
        hooks[event] = [*groups, group]
        changed.append(event)
    return out, changed


def _handler(platform: str, command: str) -> dict[str, Any]:
    if platform == "gemini":  # Gemini CLI counts the timeout in milliseconds and shows the name in /hooks
        return {"type": "command", "name": "heedful", "command": command, "timeout": TIMEOUT_SECONDS * 1000}
    return {"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}


def merge_flat(data: dict[str, Any], platform: str, command: Callable[[str], str]) -> tuple[dict[str, Any], list[str]]:
    """Cursor's flat hooks.json: (new settings, events changed), heedful's handler once per event."""
    out = json.loads(json.dumps(data))
    out.setdefault("version", 1)
    hooks = out.setdefault("hooks", {})
    changed = []
    for event in EVENTS[platform]:
        handlers = hooks.get(event) if isinstance(hooks.get(event), list) else []
        handler: dict[str, Any] = {"command": command(event), "timeout": TIMEOUT_SECONDS}
        if event in cursor.MATCHERS:
            handler["matcher"] = cursor.MATCHERS[event]
        if [h for h in handlers if is_ours(h, platform)] == [handler]:
            continue
        hooks[event] = [h for h in handlers if not is_ours(h, platform)] + [handler]
        changed.append(event)
    return out, changed


def remove_flat(data: dict[str, Any], platform: str) -> tuple[dict[str, Any], list[str]]:
    """Cursor's flat hooks.json: (new settings, events changed), every heedful handler taken out."""
    out = json.loads(json.dumps(data))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out, []
    changed = []
    for event in list(hooks):
        handlers = hooks[event]
        if not isinstance(handlers, list):
            continue
        kept = [h for h in handlers if not is_ours(h, platform)]
        if len(kept) != len(handlers):
            changed.append(event)
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    return out, changed


def _without_ours(groups: list[Any], platform: str) -> list[Any]:
    kept = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            kept.append(group)
            continue
        handlers = [h for h in group["hooks"] if not is_ours(h, platform)]
        if len(handlers) == len(group["hooks"]):
            kept.append(group)
        elif handlers:
            kept.append({**group, "hooks": handlers})
    return kept


def remove(data: dict[str, Any], platform: str) -> tuple[dict[str, Any], list[str]]:
    """(new settings, events changed): every heedful handler of `platform` taken out."""
    out = json.loads(json.dumps(data))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out, []
    changed = []
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = _without_ours(groups, platform)
        if kept != groups:
            changed.append(event)
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    if not hooks and changed:
        del out["hooks"]
    return out, changed


def install(
    platform: str, project: Path | None = None, home: Path | None = None, user_home: Path | None = None
) -> dict[str, Any]:
    """Merge the hooks; project settings get the portable command (they are shared), user settings this machine's."""
    path = settings_path(platform, project, user_home)
    data = read_settings(path)
    if project is not None:
        per_event: Callable[[str], str] = lambda event: portable_command(platform, event, home)  # noqa: E731
        command = portable_command(platform, "UserPromptSubmit", home)
    else:
        command = hook_command(platform, home)
        per_event = lambda event: command  # noqa: E731
    if platform == "cursor":
        merged, changed = merge_flat(data, platform, per_event)
    else:
        merged, changed = merge(data, platform, per_event)
    if changed or not path.exists():
        write_settings(path, merged)
    result: dict[str, Any] = {
        "platform": platform,
        "settings": str(path),
        "installed": list(EVENTS[platform]),
        "changed": changed,
        "command": command,
        "scope": "project" if project else "user",
    }
    if project is not None:
        result["on_path"] = shutil.which(SCRIPT) is not None
        if platform == "codex":
            from heedful.integrations.codex_trust import project_trusted

            result["project_trusted"] = project_trusted(project, user_home)
    return result


def uninstall(platform: str, project: Path | None = None, user_home: Path | None = None) -> dict[str, Any]:
    path = settings_path(platform, project, user_home)
    if not path.exists():
        return {"platform": platform, "settings": str(path), "removed": []}
    data = read_settings(path)
    cleaned, changed = remove_flat(data, platform) if platform == "cursor" else remove(data, platform)
    if changed:
        write_settings(path, cleaned)
    return {"platform": platform, "settings": str(path), "removed": changed}


# The instruction file each agent reads from the user's home (Cursor keeps its user rules in the app).
HOME_INSTRUCTIONS = {
    "claude-code": (".claude/CLAUDE.md", ".claude/rules/*.md"),
    "codex": (".codex/AGENTS.md",),
    "gemini": (".gemini/GEMINI.md",),
    "cursor": (),
}


def instruction_files(platform: str, project: Path | None, user_home: Path | None = None) -> list[Path]:
    """The instruction files `install` offers to import: the project's (every agent's), or the agent's home file."""
    from heedful.rules.import_files import instruction_files as project_files

    if project is not None:
        return project_files(project)
    base = user_home or Path.home()
    found: list[Path] = []
    for pattern in HOME_INSTRUCTIONS[platform]:
        found.extend(sorted(p for p in base.glob(pattern) if p.is_file()))
    return found


def installed_where(platform: str, project: Path | None, user_home: Path | None = None) -> list[str]:
    """Where heedful's hooks for `platform` are installed: "user", "project", both or neither.

    Reads the settings files only; a file that is not valid JSON counts as not installed.
    """
    places = [("user", settings_path(platform, None, user_home))]
    if project is not None:
        places.append(("project", settings_path(platform, project)))
    found = []
    for name, path in places:
        try:
            hooks = read_settings(path).get("hooks", {})
        except InputError:
            continue
        if any(is_ours(handler, platform) for handler in _handlers(hooks)):
            found.append(name)
    return found


def _handlers(value: Any) -> list[Any]:
    """Every handler object in a hooks section, nested (matcher groups) or flat (Cursor)."""
    if isinstance(value, list):
        return [h for item in value for h in _handlers(item)]
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("command"), str):
        return [value]
    return [h for item in value.values() for h in _handlers(item)]
