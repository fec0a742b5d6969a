"""What the Gemini CLI and Cursor hook tests teach and reply with (one place, so the two stay alike)."""

from __future__ import annotations

from pathlib import Path

from heedful.api import Heedful

LONG = (
    "Here is a thorough summary of everything I changed in the project today, including the "
    "parser, the tests, the documentation and the release notes, with every detail spelled out."
)
SHORT = "Updated parser, tests and docs."
RULES = (
    "never use pip, we use uv",
    "never touch the .env file",
    "keep final replies under 20 words",
    "`debug` must never be `true` in config.json files",
)


def taught_project(home: Path, tmp_path: Path) -> Path:
    """A git project under `tmp_path` whose rules (`RULES`) are learned in `home`."""
    path = (tmp_path / "svc").resolve()
    (path / ".git").mkdir(parents=True)
    with Heedful.open(home, embedder="hashing") as hf:
        for text in RULES:
            assert hf.rules.learn("me", text, project=path).actions
    return path
