"""The hook entry point: `python -m heedful.hookmain claude-code|codex` reads one event on stdin.

Kept apart from the CLI so that a hook never imports typer, rich, pydantic, numpy or onnxruntime.
It always exits 0: malformed payloads, a locked or read-only database and any internal error
allow the action (Codex's Stop gets `{}`), with the error logged under HEEDFUL_HOME/logs/.
"""

from __future__ import annotations

import contextlib
import os
import sys

PLATFORMS = ("claude-code", "codex")


def _renderer(platform: str):  # type: ignore[no-untyped-def]
    if platform == "codex":
        from heedful.integrations.codex import RENDERER

        return RENDERER
    from heedful.integrations.claude_code import RENDERER as CLAUDE

    return CLAUDE


def run(platform: str, raw: bytes, close: bool = True) -> str:
    """The answer to print for one hook event (never raises).

    `close=False` leaves the database connection to the process exit: closing the last connection
    of a WAL database checkpoints it, which would cost a write-heavy hook several milliseconds;
    SQLite's automatic checkpoints on later commits keep the WAL bounded instead.
    """
    render = None
    event = None
    runtime = None
    try:
        from heedful.integrations.hooks import dispatch, parse

        render = _renderer(platform)
        payload = parse(raw)
        if payload is None:
            from heedful.enforce.runtime import log_error

            log_error(f"{platform}: ignored a payload that is not a JSON object ({len(raw)} bytes)")
            return render.fail_open(None)
        event = payload.get("hook_event_name") if isinstance(payload.get("hook_event_name"), str) else None
        from heedful.enforce.runtime import HookRuntime

        runtime = HookRuntime(platform)
        return dispatch(runtime, payload, render)
    except Exception as exc:
        try:
            from heedful.enforce.runtime import log_error

            log_error(f"{platform} {event or 'event'}: failed open", exc)
        except Exception:
            pass
        return "{}" if platform == "codex" and event in (None, "Stop") else ""
    finally:
        if runtime is not None and close:
            with contextlib.suppress(Exception):
                runtime.close()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    platform = args[0] if args and args[0] in PLATFORMS else "claude-code"
    try:
        raw = sys.stdin.buffer.read()
    except Exception:
        raw = b""
    answer = run(platform, raw, close=False)
    with contextlib.suppress(Exception):
        if answer:
            sys.stdout.write(answer)
        sys.stdout.flush()
    if argv is None:
        os._exit(0)  # the hook's work is committed; skip interpreter teardown (see `run`)
    return 0


if __name__ == "__main__":
    sys.exit(main())
