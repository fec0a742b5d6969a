"""Running the real `heedful` command in a subprocess (importable by any test module; fixtures stay in conftest)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


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
