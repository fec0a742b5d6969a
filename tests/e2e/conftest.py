"""End-to-end tests: the real Claude Code and Codex CLIs (installed by tests/e2e/setup.sh) against
scripted mock model servers on 127.0.0.1. Every test here is marked `e2e`; each is skipped with
one clear reason when node or its CLI is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.e2e)
