"""The README's Python examples run as written, against a real home (skipped without a checkout).

Each example is taken from the README's ```python blocks by what it imports, run in a fresh
interpreter with HEEDFUL_HOME pointing at a temporary home that already holds a memory, and must
exit 0 with no name left for the reader to guess.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
pytestmark = pytest.mark.skipif(not README.exists(), reason="needs the README of a checkout")


def example(importing: str) -> str:
    blocks = [b for b in BLOCK.findall(README.read_text(encoding="utf-8")) if importing in b]
    assert len(blocks) == 1, f"{len(blocks)} README examples import {importing}"
    return blocks[0]


def run_python(code: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update({"HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": "hashing"})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=180)


def test_the_recaller_example_runs_as_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    seeded = run_python(
        "from heedful.api import Heedful\n"
        "with Heedful.open() as hf:\n"
        "    hf.memory.add('alice', 'We went hiking in the Alps in May 2023.', flush=True)\n",
        home,
    )
    assert seeded.returncode == 0, seeded.stderr
    code = example("from heedful.memory.recall.engine import Recaller")
    done = run_python(code + "\nprint(len(result.items))\n", home)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) >= 1
