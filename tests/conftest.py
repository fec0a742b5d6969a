"""Shared fixtures: every test gets its own heedful home in a temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

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


def run_cli(
    *args: str, home: Path, embedder: str = "hashing", input_text: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run `python -m heedful ...` as a real subprocess against `home`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update({"HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": embedder})
    return subprocess.run(
        [sys.executable, "-m", "heedful", *args],
        capture_output=True,
        text=True,
        env=env,
        input=input_text,
        timeout=timeout,
    )


@pytest.fixture
def cli(home: Path):  # type: ignore[no-untyped-def]
    """`cli("memory", "add", ...)` runs the real command in a subprocess against this test's home."""

    def call(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, home=home, **kwargs)  # type: ignore[arg-type]

    return call
