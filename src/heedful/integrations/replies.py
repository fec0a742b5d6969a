"""Reply text a hook keeps between two events of one session, for clients whose payloads need it.

Cursor's `stop` carries no reply (its `afterAgentResponse` does); Gemini CLI's AfterAgent sends,
on a retry, every reply of the turn joined by newlines, the rejected ones first. One small JSON
file per session under HEEDFUL_HOME/run/<kind>/, written atomically; a later reply replaces it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path

MAX_REPLY = 512_000


def _file(home: Path, kind: str, session: str) -> Path:
    name = hashlib.sha256(session.encode("utf-8", "replace")).hexdigest()[:32]
    return home / "run" / kind / f"{name}.json"


def keep(home: Path, kind: str, session: str, text: str) -> None:
    path = _file(home, kind, session)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=".reply.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump({"text": text[:MAX_REPLY]}, out, ensure_ascii=False)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def read(home: Path, kind: str, session: str, remove: bool = False) -> str | None:
    """The text kept for this session (None when there is none); `remove` deletes it as it is read."""
    path = _file(home, kind, session)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if remove:
        with contextlib.suppress(OSError):
            path.unlink()
    return data.get("text") if isinstance(data, dict) and isinstance(data.get("text"), str) else None
