"""Reading observation evidence defensively: every helper accepts anything and never raises.

An observation is a JSON object with any of:
  task (str), project (str), action ({tool, command | path, ...} or a hook's {tool_name, tool_input}),
  artifact ({path, content, kind: text|deleted}), delivery (str), events ([{kind, command | path}]),
  workspace ([paths present at delivery]).
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

from heedful.rules.checks.verdict import Verdict
from heedful.rules.shell_writes import written_paths

SHELL_TOOLS = frozenset({"bash", "shell", "exec_command", "run_terminal_cmd", "local_shell", "terminal", "run"})
WRITE_TOOLS = frozenset(
    {"edit", "write", "multiedit", "notebookedit", "apply_patch", "str_replace_editor", "create", "write_file"}
)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.MULTILINE)
# Tools that change an existing file in place (they cannot create one), and a patch's files updated in place
IN_PLACE_TOOLS = frozenset({"edit", "multiedit", "notebookedit", "str_replace_editor", "replace", "strreplace"})
_PATCH_UPDATE = re.compile(r"^\*\*\* Update File: (.+)$", re.MULTILINE)


def as_dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def as_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def action_of(evidence: Any) -> dict[str, Any] | None:
    """The proposed action, flattened: {tool, command?, paths?, input}."""
    root = as_dict(evidence)
    if root is None:
        return None
    action = as_dict(root.get("action"))
    if action is None:
        return None
    tool = as_text(action.get("tool")) or as_text(action.get("tool_name")) or ""
    inner = as_dict(action.get("input")) or as_dict(action.get("tool_input")) or {}
    merged: dict[str, Any] = {**inner, **{k: v for k, v in action.items() if k not in ("input", "tool_input")}}
    out: dict[str, Any] = {"tool": tool, "input": merged}
    command = as_text(merged.get("command")) or as_text(merged.get("cmd"))
    if command is None and isinstance(merged.get("command"), list):
        command = " ".join(str(part) for part in merged["command"])
    if command is not None:
        out["command"] = command
    paths = [
        value
        for key in ("file_path", "path", "notebook_path", "target")
        if (value := as_text(merged.get(key))) is not None
    ]
    patch = _patch(tool, merged)
    if patch:
        paths.extend(match.strip() for match in _PATCH_FILE.findall(patch))
    if command is not None and (tool.lower() in SHELL_TOOLS or not paths):
        # Shell writes are writes: redirections, tee, sed -i, cp/mv/rm targets, heredoc patches;
        # a relative one is relative to the directory the command runs in, when the evidence says.
        cwd = as_text(root.get("cwd"))
        for path in written_paths(command):
            if cwd and cwd.startswith("/") and not path.startswith(("/", "~")):
                path = posixpath.normpath(posixpath.join(cwd, path))
            if path not in paths:
                paths.append(path)
    if paths:
        out["paths"] = paths
    branch = as_text(merged.get("branch")) or as_text(root.get("branch"))
    if branch:
        out["branch"] = branch
    return out


def artifact_of(evidence: Any) -> dict[str, Any] | None:
    root = as_dict(evidence)
    return None if root is None else as_dict(root.get("artifact"))


def delivery_of(evidence: Any) -> str | None:
    root = as_dict(evidence)
    if root is None:
        return None
    value = root.get("delivery")
    if isinstance(value, dict):
        return as_text(value.get("text")) or as_text(value.get("content"))
    return as_text(value)


def reply_at_delivery(stage: str, evidence: Any) -> str | Verdict:
    """The candidate reply a reply check reads, or the verdict saying why there is none to read."""
    if stage != "delivery":
        return Verdict(result="not_applicable", reason=f"the reply is checked at delivery, not at {stage}")
    reply = delivery_of(evidence)
    if reply is None:
        return Verdict(result="unknown", reason="the evidence holds no candidate reply")
    return reply


def shell_action(evidence: Any) -> dict[str, Any] | Verdict:
    """The proposed action when it runs a shell command (the line is its "command"), or the verdict saying why not."""
    action = action_of(evidence)
    if action is None:
        return Verdict(result="unknown", reason="the evidence holds no proposed action")
    if not isinstance(action.get("command"), str):
        return Verdict(result="not_applicable", reason="the action runs no shell command")
    return action


def events_of(evidence: Any) -> list[dict[str, Any]] | None:
    root = as_dict(evidence)
    if root is None or not isinstance(root.get("events"), list):
        return None
    return [event for event in root["events"] if isinstance(event, dict)]


def _patch(tool: str, merged: dict[str, Any]) -> str | None:
    """The text of an apply_patch call (in `patch`, or the tool's whole `input`)."""
    return as_text(merged.get("patch")) or (as_text(merged.get("input")) if tool.lower() == "apply_patch" else None)


def edited_in_place(evidence: Any) -> set[str]:
    """The action's paths it edits in place (an Edit-style tool's file, a patch's `Update File`s): never new files."""
    action = action_of(evidence)
    if action is None:
        return set()
    if action["tool"].lower() in IN_PLACE_TOOLS:
        return set(action.get("paths", []))
    patch = _patch(action["tool"], action["input"])
    return {match.strip() for match in _PATCH_UPDATE.findall(patch)} if patch else set()


def project_of(evidence: Any) -> str | None:
    root = as_dict(evidence)
    return None if root is None else as_text(root.get("project"))


def workspace_of(evidence: Any) -> list[str] | None:
    root = as_dict(evidence)
    if root is None or not isinstance(root.get("workspace"), list):
        return None
    return [item for item in root["workspace"] if isinstance(item, str)]


def parse_json_reply(text: str) -> tuple[bool, Any]:
    """(parsed, value): a reply that is JSON, optionally inside one ``` fence."""
    body = text.strip()
    fenced = re.fullmatch(r"```[A-Za-z0-9_-]*\s*\n(.*)\n\s*```", body, re.DOTALL)
    if fenced:
        body = fenced.group(1).strip()
    try:
        return True, json.loads(body)
    except (ValueError, RecursionError):
        return False, None


def clip(text: str, limit: int = 200) -> str:
    """A quote short enough to show; still an exact substring of `text`."""
    return text if len(text) <= limit else text[:limit]
