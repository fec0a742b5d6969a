"""Start-up kept near a bare `import typer`: what `heedful rules list`, `version` and `--help` load.

`bench startup` measures the times; these tests hold the cause (pydantic, rich and numpy stay out
of the commands that do not need them) so that a regression shows as a failing test, not only as
a slower benchmark. Every test is a real `python -c` subprocess running `heedful.cli.main`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("pydantic", "rich", "numpy", "onnxruntime", "typer._adapters", "heedful.rules.models")
RUN_AND_REPORT = """
import sys
from heedful.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
loaded = sorted({m.split(".")[0] if not m.startswith(("typer.", "heedful.")) else m for m in sys.modules})
print("LOADED", *loaded, file=sys.stderr)
sys.exit(code)
"""


def run(home: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update({"HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": "hashing", "COLUMNS": "200"})
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_REPORT, *args], capture_output=True, text=True, env=env, timeout=180
    )
    report = [line for line in done.stderr.splitlines() if line.startswith("LOADED ")]
    assert report, done.stderr
    return done, set(report[-1].split()[1:])


def heavy_in(loaded: set[str]) -> list[str]:
    return sorted(m for m in loaded if m in HEAVY)


@pytest.mark.parametrize(
    "args",
    [("--help",), ("version",), ("version", "--json"), ("rules", "list"), ("rules", "list", "--json", "--all")],
)
def test_light_commands_load_neither_pydantic_nor_rich(tmp_path: Path, args: tuple[str, ...]) -> None:
    done, loaded = run(tmp_path / "home", *args)
    assert done.returncode == 0, done.stderr
    assert heavy_in(loaded) == []


def test_rules_list_of_a_real_library_stays_light_in_json_and_draws_its_table(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    for text in ("Never push directly to main.", "Keep replies under 80 words."):
        learned, _ = run(home, "rules", "learn", "--json", "--project", str(project), text)
        assert learned.returncode == 0, learned.stderr
    listed, loaded = run(home, "rules", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rules = json.loads(listed.stdout)
    assert {r["text"] for r in rules} == {"Never push directly to main.", "Keep replies under 80 words."}
    assert heavy_in(loaded) == []
    table, loaded = run(home, "rules", "list", "--project", str(project))
    assert table.returncode == 0, table.stderr
    assert "Never push directly to main." in table.stdout and "rich" in loaded  # rich only to draw
    shown, _ = run(home, "rules", "show", rules[0]["id"])
    assert shown.returncode == 0 and rules[0]["text"] in shown.stdout
    assert "['" not in shown.stdout and "{'" not in shown.stdout  # sentences, not Python's repr


def test_option_values_are_still_checked_and_converted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    bad_int, _ = run(home, "log", "--limit", "many")
    assert bad_int.returncode == 2 and "error:" in bad_int.stderr and "--limit" in bad_int.stderr
    too_few, _ = run(home, "bench", "startup", "--runs", "1")
    assert too_few.returncode == 2 and "--runs" in too_few.stderr
    listed, loaded = run(home, "rules", "list", "--json", "--user", "alice")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == []
    assert "typer._adapters" not in loaded  # a plain text value needs no pydantic adapter
    bad_user, _ = run(home, "rules", "list", "--user", " alice")
    assert bad_user.returncode == 2 and bad_user.stderr.startswith("error:")
    in_folder, loaded = run(home, "rules", "list", "--json", "--project", str(tmp_path))
    assert in_folder.returncode == 0 and json.loads(in_folder.stdout) == []
    assert "typer._adapters" in loaded  # a path is converted by Typer's own coercion
    counted, loaded = run(home, "log", "--json", "--limit", "5")
    assert counted.returncode == 0, counted.stderr
    assert "typer._adapters" in loaded  # a number is converted by Typer's own coercion
