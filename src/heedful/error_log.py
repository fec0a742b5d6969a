"""Internal errors of the hook and the MCP server, appended to HOME/logs/<name>.log.

Every entry is redacted (an exception message may quote a command, a payload or a config value
holding a secret), the file is the owner's alone (0600, in a 0700 folder, tightened if an older
version left it loose), and it stays bounded: when an entry would take the file past
`MAX_LOG_BYTES`, the file moves to `<name>.log.1` (replacing the one before) and a new one starts.

    append_error(home, "hooks", "claude-code PreToolUse: failed open", exc)

Standard library and the redaction patterns only: the hook imports this on its error path.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

MAX_LOG_BYTES = 1_000_000
# One entry never takes more than this (a runaway exception message must not fill the log alone).
MAX_ENTRY_CHARS = 16_000


def log_path(home: Path, name: str) -> Path:
    return home / "logs" / f"{name}.log"


def format_entry(context: str, exc: BaseException | None = None) -> str:
    """One redacted entry: a UTC stamp, the context line, then the traceback (if any)."""
    import traceback

    from heedful.memory.redact import redact

    detail = "".join(traceback.format_exception(exc)) if exc is not None else ""
    text = f"{' '.join(context.split())}\n{detail}"
    if len(text) > MAX_ENTRY_CHARS:
        text = text[: MAX_ENTRY_CHARS - 40] + "\n[... entry cut to bound the log ...]\n"
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return f"{stamp} {redact(text).text}"


def append_error(
    home: Path, name: str, context: str, exc: BaseException | None = None, *, max_bytes: int = MAX_LOG_BYTES
) -> bool:
    """Append one entry to HOME/logs/<name>.log; False (never an exception) when it could not be written.

    The callers are on failure paths already (a hook failing open, a tool error going back to the
    agent): a log that cannot be written must not turn them into a crash.
    """
    try:
        entry = format_entry(context, exc).encode("utf-8", errors="backslashreplace")
        path = log_path(home, name)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        _rotate_if_full(path, len(entry), max_bytes)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.fchmod(descriptor, 0o600)  # the mode above applies only to a new file
            os.write(descriptor, entry)
        finally:
            os.close(descriptor)
        return True
    except Exception:  # never raise from the error path; the caller reports the failure its own way
        return False


def _rotate_if_full(path: Path, incoming: int, max_bytes: int) -> None:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if size and size + incoming > max_bytes:
        # Two processes may rotate at once; the later rename then moves a nearly empty file. Harmless.
        os.replace(path, path.with_name(path.name + ".1"))
