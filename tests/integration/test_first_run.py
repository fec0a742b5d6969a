"""A newcomer's first hour, through real `python -m heedful` subprocesses against temporary homes:
start-up without loading every command, the version, one-line errors, and readable output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from heedful import __version__

BOX = set("╭╮╰╯│─")


def run(
    *args: str, home: Path | None, env: dict[str, str] | None = None, code: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m heedful ARGS` (or `python -c CODE ARGS`) with only this test's settings."""
    ours = ("HEEDFUL_", "ORT_DISABLE_TELEMETRY")
    environment = {k: v for k, v in os.environ.items() if not k.startswith(ours)}
    environment.update({"HEEDFUL_EMBEDDER": "hashing", "COLUMNS": "200"})
    if home is not None:
        environment["HEEDFUL_HOME"] = str(home)
    environment.update(env or {})
    argv = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "heedful", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=environment, timeout=180)


def one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """Exit 2 and exactly one `error:` line on stderr that names `words`; no traceback, no box."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert not BOX & set(lines[0]) and "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


# -- start-up and version ------------------------------------------------------------------------

LOADED_AFTER_HELP = """
import sys
from heedful.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
heavy = sorted(m for m in sys.modules if m.startswith(("heedful.commands.", "heedful.bench", "numpy", "pydantic")))
print("LOADED", *heavy, file=sys.stderr)
"""


def test_root_help_lists_every_command_without_importing_them(tmp_path: Path) -> None:
    from heedful.cli import LAZY

    result = run("--help", home=tmp_path / "help-home", code=LOADED_AFTER_HELP)
    assert result.returncode == 0, result.stderr
    loaded = result.stderr.strip().splitlines()[-1].split()[1:]
    assert loaded == [], f"--help imported {loaded}"
    listed = {line.split()[1] for line in result.stdout.splitlines() if line.startswith("│ ") and line.split()[1:]}
    assert set(LAZY) | {"version"} <= listed
    assert {"--version", "--model", "--embedder", "--help"} <= listed
    assert not (tmp_path / "help-home").exists()  # help touches no home


def test_listed_help_is_each_commands_own_help() -> None:
    import inspect

    from heedful.cli import LAZY

    for name, lazy in LAZY.items():
        command = lazy.load(name)
        own = inspect.cleandoc(command.help or "").split("\n\n")[0].replace("\n", " ")
        assert lazy.help == own, name


def test_a_group_loads_when_invoked_and_keeps_its_rich_help(tmp_path: Path) -> None:
    result = run("memory", "--help", home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "recall" in result.stdout and "purge-secrets" in result.stdout
    assert "startup" in run("bench", "--help", home=tmp_path / "home").stdout


def test_version_flag_and_command(tmp_path: Path) -> None:
    flag = run("--version", home=tmp_path / "home")
    assert (flag.returncode, flag.stdout.strip()) == (0, __version__)
    plain = run("version", home=tmp_path / "home")
    assert plain.stdout.strip() == __version__
    as_json = run("version", "--json", home=tmp_path / "home")
    assert as_json.returncode == 0 and json.loads(as_json.stdout) == {"version": __version__}


# -- one-line errors -----------------------------------------------------------------------------


def test_usage_errors_are_one_line_with_or_without_json(tmp_path: Path) -> None:
    home = tmp_path / "home"
    one_line_error(run("memory", "list", "--json", "--bogus", home=home), "--bogus", "memory list --help")
    one_line_error(run("memory", "list", "--bogus", home=home), "--bogus")
    one_line_error(run("nope", home=home), "nope")
    one_line_error(run("rules", "learn", "--json", home=home), "Missing argument")
    one_line_error(run("memory", "list", "--limit", "x", "--json", home=home), "--limit")


@pytest.mark.sqlite_only(reason="damages the SQLite file")
def test_a_damaged_database_is_one_line_and_doctor_names_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "heedful.db").write_bytes(b"this is not a database, only words " * 100)
    before = (home / "heedful.db").read_bytes()
    one_line_error(run("rules", "list", home=home), "heedful.db", "move it aside")
    one_line_error(run("memory", "list", "--json", home=home), "heedful.db")
    one_line_error(run("rules", "learn", "--project", str(tmp_path), "never push to main", home=home), "heedful.db")

    doctor = run("doctor", "--json", home=home)
    assert doctor.returncode == 1, doctor.stderr
    report = json.loads(doctor.stdout)
    checks = {c["part"]: c for c in report["checks"]}
    assert not checks["store"]["ok"] and "heedful.db" in checks["store"]["detail"]
    assert "not a database" in checks["store"]["detail"]
    assert checks["embedder"]["ok"] and checks["model"]["ok"]  # the other parts are still tested
    assert report["jobs"] is None and not report["ok"]
    text = run("doctor", home=home)
    assert text.returncode == 1 and "FAIL store" in " ".join(text.stdout.split())
    assert (home / "heedful.db").read_bytes() == before  # nothing was changed


def test_a_home_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    one_line_error(run("rules", "list", home=not_a_folder), "is a file", "HEEDFUL_HOME")
    one_line_error(run("memory", "list", "--home", str(not_a_folder), home=None), "is a file", "--home")
    assert not_a_folder.read_text() == "x"


@pytest.mark.parametrize(
    ("bench_name", "source"),
    [("locomo", "github.com/snap-research/LoCoMo"), ("beam", "github.com/mohammadtavakoli78/BEAM")],
)
def test_a_benchmark_without_its_data_says_where_to_get_it(tmp_path: Path, bench_name: str, source: str) -> None:
    missing = tmp_path / "no-data-here"
    one_line_error(run("bench", bench_name, "--data", str(missing), home=tmp_path / "home"), "--data", source)


def test_an_unknown_memory_kind_is_refused(tmp_path: Path) -> None:
    one_line_error(run("memory", "list", "--kind", "bogus", home=tmp_path / "home"), "'bogus'", "commitment")


def test_log_of_an_unknown_session_says_so(tmp_path: Path) -> None:
    home = tmp_path / "home"
    one_line_error(run("log", "--session", "nope", home=home), "no such session", "'nope'")
    assert run("log", home=home).returncode == 0


def test_learning_for_a_missing_project_stores_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    missing = tmp_path / "no" / "such" / "dir"
    one_line_error(run("rules", "learn", "--project", str(missing), "never push to main", home=home), str(missing))
    assert json.loads(run("rules", "list", "--all", "--json", home=home).stdout) == []


def test_mcp_without_the_sdk_names_the_extra(tmp_path: Path) -> None:
    without_sdk = "import sys; sys.modules['mcp'] = None\nfrom heedful.cli import main\nmain(sys.argv[1:])"
    line = one_line_error(run("mcp", home=tmp_path / "home", code=without_sdk), "pip install 'heedful[mcp]'")
    assert "ModuleNotFoundError" not in line


# -- a new home, and readable output -------------------------------------------------------------


def test_a_new_home_has_nothing_yet(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for group in ("memory", "rules"):
        text = run(group, "list", home=home)
        assert (text.returncode, text.stdout.strip()) == (0, "nothing yet"), text.stderr
        as_json = run(group, "list", "--json", home=home)
        assert as_json.returncode == 0 and json.loads(as_json.stdout) == []


def test_dream_and_learn_print_sentences_not_python(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run("memory", "add", "--flush", "I moved to Lisbon last month", home=home).returncode == 0
    dream = run("memory", "dream", home=home)
    assert dream.returncode == 0, dream.stderr
    assert "{" not in dream.stdout and "profile" in dream.stdout and "summar" in dream.stdout

    bundled = "Don't use pip, always use uv instead"
    learned = run("rules", "learn", "--project", str(tmp_path), bundled, home=home)
    assert learned.returncode == 0, learned.stderr
    assert "[]" not in learned.stdout
    # The same message in another home, as JSON: when it is split, the text names the parts.
    data = json.loads(run("rules", "learn", "--json", "--project", str(tmp_path), bundled, home=tmp_path / "b").stdout)
    splits = [a for a in data["actions"] if a["op"] == "split"]
    lines = [line.split() for line in learned.stdout.splitlines() if line.strip().startswith("split")]
    assert len(lines) == len(splits)
    for words, action in zip(lines, splits, strict=True):
        assert words[1] == "into" and len([w for w in words if w.startswith("r-")]) == len(action["children"])


def test_as_of_options_have_help(tmp_path: Path) -> None:
    for command in ("context", "recall", "list"):
        shown = run("memory", command, "--help", home=tmp_path / "home").stdout
        line = next(line for line in shown.splitlines() if "--as-of" in line)
        assert "ISO 8601" in line, (command, line)


def test_py_typed_ships_with_the_package() -> None:
    from importlib.resources import files

    assert files("heedful").joinpath("py.typed").is_file()
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    if pyproject.exists():
        assert '"heedful" = ["py.typed"]' in pyproject.read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_embedder_leaves_no_device_id_behind(tmp_path: Path) -> None:
    cache = tmp_path / "user-home"
    env = {"HOME": str(cache), "XDG_CACHE_HOME": str(cache / ".cache"), "HEEDFUL_EMBEDDER": "minilm"}
    # ORT_DISABLE_TELEMETRY is left unset (run() drops it): heedful turns the telemetry off itself.
    added = run("memory", "add", "--flush", "I moved to Lisbon last month", home=tmp_path / "home", env=env)
    assert added.returncode == 0, added.stderr
    recalled = run("memory", "recall", "where does the user live", home=tmp_path / "home", env=env)
    assert recalled.returncode == 0 and "Lisbon" in recalled.stdout
    written = [str(p.relative_to(cache)) for p in cache.rglob("*") if p.is_file()] if cache.exists() else []
    assert not [p for p in written if "Microsoft" in p], written


@pytest.mark.slow
def test_startup_benchmark_reports_medians_and_ratios(tmp_path: Path) -> None:
    result = run("bench", "startup", "--runs", "3", "--learn-runs", "1", "--json", home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["baseline"]["name"] == "python -c 'import typer'" and report["baseline"]["ratio"] == 1.0
    names = [case["name"] for case in report["cases"]]
    assert names == ["heedful --help", "heedful rules list", "heedful version"]
    for case in report["cases"]:
        assert case["median_ms"] >= case["min_ms"] > 0
        assert case["ratio"] == pytest.approx(case["median_ms"] / report["baseline"]["median_ms"], abs=0.01)
    targeted = [case for case in report["cases"] if case["targeted"]]
    assert [case["name"] for case in targeted] == names[:2]
    assert report["within_target"] == all(case["ratio"] <= report["target_ratio"] for case in targeted)
    assert report["learn"]["runs"] == 1 and report["learn"]["median_own_ms"] > 0
