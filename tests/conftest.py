"""Shared fixtures: every test gets its own heedful home in a temporary folder."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_runner import run_cli
from heedful.api import Heedful


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def hf(home: Path) -> Iterator[Heedful]:
    """A heedful with the fast hashing embedder (word overlap only)."""
    with Heedful.open(home, embedder="hashing") as opened:
        yield opened


@pytest.fixture
def hf_minilm(home: Path) -> Iterator[Heedful]:
    """A heedful with the real bundled MiniLM embedder."""
    with Heedful.open(home) as opened:
        yield opened


@pytest.fixture
def cli(home: Path):  # type: ignore[no-untyped-def]
    """`cli("memory", "add", ...)` runs the real command in a subprocess against this test's home."""

    def call(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, home=home, **kwargs)  # type: ignore[arg-type]

    return call
