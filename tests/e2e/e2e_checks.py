"""Helpers shared by the end-to-end tests: find a pinned CLI or skip, and name known defects."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_sandbox import CACHE, cli_path

MISSING = "e2e: {name} CLI not installed (run tests/e2e/setup.sh; it caches the pinned CLIs under {cache})"
DEFECTS = "issue 10 §2"


def require(name: str) -> Path:
    """The installed CLI, or skip with the one reason that says how to install it."""
    path = cli_path(name)
    if path is None:
        pytest.skip(MISSING.format(name=name, cache=CACHE))
    return path


def known_defect(ok: bool, defect: str, detail: str = "") -> None:
    """Skip, naming the defect, while a behaviour listed as a known defect is still wrong.

    Only for defects the issue lists; once fixed, the check passes and the test with it.
    """
    if not ok:
        pytest.skip(f"known defect ({DEFECTS}): {defect}" + (f" — {detail[:300]}" if detail else ""))
