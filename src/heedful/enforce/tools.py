"""Platform tool calls as evidence: the proposed action, the files written, the events to record.

Pure apart from small reads of the files a tool wrote (their content after the write, whether
they existed before). Claude Code and Codex name tools alike (`Bash`, `Write`, `Edit`,
`apply_patch`); unknown tools become plain `tool` events.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from heedful.store.enforce_records import ToolEvent

SHELL_TOOLS = frozenset(
    {"bash", "powershell", "shell", "exec_command", "local_shell", "run_terminal_cmd", "run_shell_command"}
)
WRITE_TOOLS = frozenset({"write", "create", "write_file"})
EDIT_TOOLS = frozenset({"edit", "multiedit", "notebookedit", "str_replace_editor", "replace", "strreplace"})
PATCH_TOOLS = frozenset({"apply_patch"})
MAX_CONTENT = 512_000
MAX_SHELL_PARSE = 32_768  # as enforce.bounds.HEAD_CHARS
_PATCH_FILE = re.compile(r"^\*\*\* (Update|Add|Delete) File: (.+?)\s*$", re.MULTILINE)
_PATCH_MOVE = re.compile(r"^\*\*\* Move to: (.+?)\s*$", re.MULTILINE)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def tool_class(tool_name: str) -> str:
    """shell | write | edit | patch | other."""
    name = tool_name.lower()
    if name in SHELL_TOOLS:
        return "shell"
    if name in WRITE_TOOLS:
        return "write"
    if name in EDIT_TOOLS:
        return "edit"
    if name in PATCH_TOOLS:
        return "patch"
    return "other"


def command_of(tool_input: dict[str, Any]) -> str | None:
    command = tool_input.get("command") or tool_input.get("cmd")
    if isinstance(command, list):
        return " ".join(str(part) for part in command)
    return _text(command)


def patch_text(tool_name: str, tool_input: dict[str, Any]) -> str | None:
    """The patch of an apply_patch call (Codex puts it in `command`)."""
    if tool_class(tool_name) != "patch":
        return None
    return _text(tool_input.get("patch")) or _text(tool_input.get("input")) or command_of(tool_input)


def patch_files(patch: str) -> list[tuple[str, str]]:
    """(operation, path) per file of a patch; operation add | update | delete (a move adds the target)."""
    files = [(op.lower(), path) for op, path in _PATCH_FILE.findall(patch)]
    files += [("add", path) for path in _PATCH_MOVE.findall(patch)]
    return files


def action(tool_name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """The proposed action in the checks' evidence shape."""
    kind = tool_class(tool_name)
    if kind == "patch":
        patch = patch_text(tool_name, tool_input) or ""
        paths = [path for _, path in patch_files(patch)]
        return {"tool": tool_name, "input": {"patch": patch}, **({"paths": paths} if paths else {})}
    if kind == "shell":
        command = command_of(tool_input)
        inner = {k: v for k, v in tool_input.items() if k != "cmd"}
        if command is not None:
            inner["command"] = command
        return {"tool": tool_name, "input": inner}
    return {"tool": tool_name, "input": dict(tool_input)}


def evidence_action(given: dict[str, Any]) -> dict[str, Any]:
    """Any action as an observation may give it, in the shape the hook builds (`rules check` = the hook).

    Accepts a hook payload's `{tool_name, tool_input}`, `{tool, input}`, or a flat `{tool, command | path ...}`.
    """
    tool = _text(given.get("tool_name")) or _text(given.get("tool")) or ""
    inner = given.get("tool_input") if isinstance(given.get("tool_input"), dict) else given.get("input")
    flat = {k: v for k, v in given.items() if k not in ("tool", "tool_name", "tool_input", "input", "paths")}
    if not isinstance(inner, dict):
        inner = {"input": inner} if isinstance(inner, str) else {}
    return action(tool, {**flat, **inner})


def absolute(path: str, cwd: str) -> str:
    expanded = os.path.expanduser(path)
    return os.path.normpath(expanded if os.path.isabs(expanded) else os.path.join(cwd, expanded))


def relative(path: str, project: str | None, cwd: str) -> str:
    """A path relative to the project when it is inside it, else absolute."""
    full = absolute(path, cwd)
    if project:
        root = os.path.normpath(project)
        if full == root or full.startswith(root.rstrip(os.sep) + os.sep):
            return os.path.relpath(full, root)
    return full


def written_paths(tool_name: str, tool_input: dict[str, Any]) -> list[tuple[str, str]]:
    """(operation, path) for every file the call writes: create-or-write | edit | add | update | delete."""
    kind = tool_class(tool_name)
    path = _text(tool_input.get("file_path")) or _text(tool_input.get("path")) or _text(tool_input.get("notebook_path"))
    if kind == "write" and path:
        return [("write", path)]
    if kind == "edit" and path:
        return [("edit", path)]
    if kind == "patch":
        return patch_files(patch_text(tool_name, tool_input) or "")
    if kind == "shell":
        return shell_writes(command_of(tool_input))
    return []


def shell_writes(command: str | None) -> list[tuple[str, str]]:
    """(operation, path) for the files a shell command writes: redirections, tee, sed -i, cp/mv/rm, and
    patches in a heredoc (Codex sends `apply_patch <<'EOF' ...` as a shell call), whose operations it names."""
    if not command:
        return []
    if len(command) > MAX_SHELL_PARSE:
        # Parsed in full only up to the bound the pre-action checks read whole (they read longer ones in
        # parts); a longer command records no written files, so the hook stays within its time.
        command = command[:MAX_SHELL_PARSE]
    from heedful.rules.shell_writes import written_paths as shell_written  # the parser the path checks use

    named = {path: op for op, path in patch_files(command)} if "*** " in command else {}
    return [(named.get(path, "write"), path) for path in shell_written(command)]


def existed_before(tool_name: str, tool_input: dict[str, Any], cwd: str) -> dict[str, bool]:
    """Whether each file the call will write exists now (asked before the tool runs)."""
    return {path: os.path.exists(absolute(path, cwd)) for _, path in written_paths(tool_name, tool_input)}


def read_content(path: str, cwd: str) -> str | None:
    try:
        full = absolute(path, cwd)
        if os.path.getsize(full) > MAX_CONTENT:
            return None
        with open(full, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _created(tool_response: Any, existed: dict[str, bool] | None, path: str) -> bool | None:
    if existed is not None and path in existed:
        return not existed[path]
    if isinstance(tool_response, dict) and tool_response.get("type") in ("create", "update"):
        return tool_response.get("type") == "create"
    return None


def events(
    tool_name: str,
    tool_input: dict[str, Any],
    tool_response: Any,
    project: str | None,
    cwd: str,
    existed: dict[str, bool] | None = None,
    ok: bool = True,
) -> list[ToolEvent]:
    """The events a completed tool call adds to the session log."""
    kind = tool_class(tool_name)
    found: list[ToolEvent] = []
    if kind == "shell":
        found.append({"tool": tool_name, "ok": ok, "kind": "command", "command": command_of(tool_input) or ""})
    for op, path in written_paths(tool_name, tool_input):
        rel = relative(path, project, cwd)
        if kind == "shell" and os.path.isdir(absolute(path, cwd)):
            continue  # `mkdir`, or a directory a command wrote into: not a file
        if op == "delete" or (kind == "shell" and not os.path.exists(absolute(path, cwd))):
            found.append({"tool": tool_name, "ok": ok, "kind": "delete", "path": rel})
        elif op == "add" or (op == "write" and _created(tool_response, existed, path)):
            found.append({"tool": tool_name, "ok": ok, "kind": "create", "path": rel, "created": True})
        elif op == "write":
            found.append({"tool": tool_name, "ok": ok, "kind": "write", "path": rel})
        else:
            found.append({"tool": tool_name, "ok": ok, "kind": "edit", "path": rel})
    if found:
        return found
    named = _text(tool_input.get("file_path")) or _text(tool_input.get("path"))
    event: ToolEvent = {"tool": tool_name, "ok": ok, "kind": "tool"}
    if named:
        event["path"] = relative(named, project, cwd)
    return [event]


def artifacts(tool_name: str, tool_input: dict[str, Any], cwd: str) -> list[dict[str, Any]]:
    """The files a completed call produced, with their content now (or deleted)."""
    out = []
    for op, path in written_paths(tool_name, tool_input):
        full = absolute(path, cwd)
        if os.path.isdir(full):
            continue  # a directory (`mkdir`, `cp -r`): its files are not read here
        if op == "delete" or not os.path.exists(full):
            out.append({"path": full, "content": None, "kind": "deleted"})
            continue
        content = read_content(full, cwd)
        written = _text(tool_input.get("content"))
        if content is None and op == "write" and written is not None and len(written) <= MAX_CONTENT:
            content = written  # the file could not be read: judge what was written, within the same bound
        out.append({"path": full, "content": content, "kind": "text"})
    return out


def present(paths: list[str], project: str | None, cwd: str) -> list[str]:
    """Those of `paths` (relative to the project, or absolute) that exist now."""
    root = project or cwd
    return [path for path in paths if os.path.exists(path if os.path.isabs(path) else os.path.join(root, path))]


def git_branch(project: str | None) -> str | None:
    """The checked-out branch of the project's repository, read from .git/HEAD (None if unknown)."""
    if not project:
        return None
    git = os.path.join(project, ".git")
    try:
        if os.path.isfile(git):  # a worktree or submodule: `.git` names the real git directory
            with open(git, encoding="utf-8") as handle:
                pointer = handle.read().strip().removeprefix("gitdir:").strip()
            git = pointer if os.path.isabs(pointer) else os.path.join(project, pointer)
        with open(os.path.join(git, "HEAD"), encoding="utf-8") as handle:
            text = handle.read().strip()
    except OSError:
        return None
    return text.removeprefix("ref: refs/heads/") if text.startswith("ref: refs/heads/") else None


def _patch_sections(patch: str) -> list[tuple[str, str, list[str]]]:
    """(operation, path, body lines) per file of a patch, in order."""
    sections: list[tuple[str, str, list[str]]] = []
    for line in patch.splitlines():
        header = _PATCH_FILE.match(line)
        if header:
            sections.append((header.group(1).lower(), header.group(2), []))
        elif sections and not line.startswith("*** "):
            sections[-1][2].append(line)
    return sections


def _apply_hunks(before: str, body: list[str]) -> str | None:
    """The text after an `*** Update File` body's hunks (None when a hunk does not match)."""
    hunks: list[list[str]] = [[]]
    for line in body:
        if line.startswith("@@"):
            hunks.append([])
        elif line[:1] in (" ", "-", "+") or line == "":
            hunks[-1].append(line or " ")
    text = before
    for hunk in (h for h in hunks if h):
        old = "\n".join(line[1:] for line in hunk if line[0] in " -")
        new = "\n".join(line[1:] for line in hunk if line[0] in " +")
        if old and old not in text:
            return None
        text = text.replace(old, new, 1) if old else text + new + "\n"
    return text


def patched_artifacts(patch: str, cwd: str) -> list[dict[str, Any]]:
    """The files a patch would leave, with their content, computed before it is applied (best effort).

    For clients that apply a patch without a PostToolUse event (Codex runs `apply_patch <<'EOF'` sent as a
    shell command itself): the artifact checks then run on what the patch would write.
    """
    out = []
    for op, path, body in _patch_sections(patch):
        full = absolute(path, cwd)
        if op == "add":
            content: str | None = "\n".join(line[1:] for line in body if line.startswith("+")) + "\n"
        elif op == "update":
            current = read_content(full, cwd)
            content = None if current is None else _apply_hunks(current, body)
        else:
            continue
        if content is not None and len(content) <= MAX_CONTENT:
            out.append({"path": full, "content": content, "kind": "text"})
    return out


def shell_patch(tool_name: str, tool_input: dict[str, Any]) -> str | None:
    """The patch of a shell call that is an `apply_patch` heredoc, else None."""
    if tool_class(tool_name) != "shell":
        return None
    command = command_of(tool_input) or ""
    return command if "*** Begin Patch" in command and "apply_patch" in command.split("<<", 1)[0] else None
