"""The cache folder: files made once and read back by later processes, so that short commands and hooks do not
redo the work (the optimised embedding graph, the compiled code of the learner's patterns, the parsed command
table). None holds data of the user's, and any may be deleted at any time.

Kept apart from the embedder so that a process that only reads patterns (a hook) finds the folder without
importing the embedder's module.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """`HEEDFUL_CACHE_DIR`, else the user's cache folder."""
    configured = os.environ.get("HEEDFUL_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "heedful"
