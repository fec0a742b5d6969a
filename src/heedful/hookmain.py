"""The hook entry point: `python -m heedful.hookmain claude-code|codex|gemini|cursor` reads one event on stdin.

Kept apart from the CLI so that a hook never imports typer, rich, pydantic, numpy or onnxruntime.
It always exits 0: malformed payloads, an unreadable or broken home and any internal error allow
the action (with `{}` where the platform wants JSON: Codex's Stop, Gemini CLI and Cursor always),
with the error logged under HEEDFUL_HOME/logs/. The decision needs only reads: the answer is
printed first and the event's writes are stored afterwards, so a database locked by another
writer delays the record (spooled, see `heedful.enforce.spool`) but never turns a deny into an allow.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

PLATFORMS = ("claude-code", "codex", "gemini", "cursor")


def _renderer(platform: str):  # type: ignore[no-untyped-def]
    if platform == "codex":
        from heedful.integrations.codex import RENDERER

        return RENDERER
    if platform == "gemini":
        from heedful.integrations.gemini import RENDERER as GEMINI

        return GEMINI
    if platform == "cursor":
        from heedful.integrations.cursor import RENDERER as CURSOR

        return CURSOR
    from heedful.integrations.claude_code import RENDERER as CLAUDE

    return CLAUDE


def _shared(platform: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The payload as the shared events (Claude Code and Codex send them as they are)."""
    if platform == "gemini":
        from heedful.enforce.runtime import home as gemini_home
        from heedful.integrations.gemini import normalize

        return normalize(payload, gemini_home())
    if platform == "cursor":
        from heedful.enforce.runtime import home
        from heedful.integrations.cursor import normalize as cursor_normalize

        return cursor_normalize(payload, home())
    return payload


def _fail_open(platform: str, event: str | None) -> str:
    if platform in ("gemini", "cursor"):
        return '{"continue": true}' if platform == "cursor" and event == "beforeSubmitPrompt" else "{}"
    return "{}" if platform == "codex" and event in (None, "Stop") else ""


def answer(platform: str, raw: bytes) -> tuple[str, Any]:
    """(the answer to print for one hook event, the runtime whose writes `finish` stores); never raises."""
    event = None
    runtime = None
    try:
        from heedful.integrations.hooks import dispatch, parse

        render = _renderer(platform)
        if os.environ.get("HEEDFUL_CHILD", "") not in ("", "0"):
            # A model call heedful itself made through an agent's CLI: neither learn from it nor judge it.
            return render.fail_open(None), None
        payload = parse(raw)
        if payload is None:
            from heedful.enforce.runtime import log_error

            log_error(f"{platform}: ignored a payload that is not a JSON object ({len(raw)} bytes)")
            return render.fail_open(None), None
        event = payload.get("hook_event_name") if isinstance(payload.get("hook_event_name"), str) else None
        shared = _shared(platform, payload)
        if shared is None:  # an event the platform only lets us observe, or one we do not handle
            return render.fail_open(None), None
        from heedful.enforce.runtime import HookRuntime

        runtime = HookRuntime(platform)
        return dispatch(runtime, shared, render), runtime
    except Exception as exc:
        try:
            from heedful.enforce.runtime import log_error

            log_error(f"{platform} {event or 'event'}: failed open", exc)
            if runtime is not None:
                runtime.discard()
        except Exception:
            pass
        return _fail_open(platform, event), runtime


def finish(runtime: Any, close: bool = True) -> None:
    """Store the event's writes once the answer is out (never raises)."""
    if runtime is None:
        return
    with contextlib.suppress(Exception):
        runtime.commit()
    if close:
        with contextlib.suppress(Exception):
            runtime.close()


def run(platform: str, raw: bytes, close: bool = True) -> str:
    """The answer to print for one hook event, its writes stored or spooled (never raises).

    `close=False` leaves the database connection to the process exit: closing the last connection
    of a WAL database checkpoints it, which would cost a write-heavy hook several milliseconds;
    SQLite's automatic checkpoints on later commits keep the WAL bounded instead.
    """
    text, runtime = answer(platform, raw)
    finish(runtime, close)
    return text


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    platform = args[0] if args and args[0] in PLATFORMS else "claude-code"
    try:
        raw = sys.stdin.buffer.read()
    except Exception:
        raw = b""
    text, runtime = answer(platform, raw)
    with contextlib.suppress(Exception):
        if text:  # bytes: an answer quoting odd text never fails on the terminal's encoding
            sys.stdout.buffer.write(text.encode("utf-8", "replace"))
        sys.stdout.flush()
    finish(runtime, close=False)
    if argv is None:
        os._exit(0)  # the hook's work is committed; skip interpreter teardown (see `run`)
    return 0


if __name__ == "__main__":
    sys.exit(main())
