"""One configuration flow, through real processes: the CLI's options override the settings without
touching the environment, and the CLI, the hook and the worker find the database where the settings say."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from heedful.integrations import payloads

RULE = "never use pip, we use uv"


def run(
    *args: str, home: Path, env: dict[str, str] | None = None, code: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m heedful ARGS` (or `python -c CODE ARGS`) with only this test's HEEDFUL_* settings."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    environment.update({"HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": "hashing", **(env or {})})
    argv = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "heedful", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=environment, timeout=180)


def one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


@pytest.mark.sqlite_only(reason="shows the SQLite file as the database")
def test_options_before_the_command_override_file_and_environment(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[model]\nname = "local"\n', encoding="utf-8")
    shown = run(
        "--model", "codex-cli", "doctor", "--skip-model", "--json", home=home, env={"HEEDFUL_MODEL": "anthropic:x"}
    )
    data = json.loads(shown.stdout)
    assert data["model"] == "codex-cli" and data["embedder"] == "hashing"
    assert data["database"] == str(home / "heedful.db")
    # Without the option the environment wins over the file, and the file over the defaults.
    assert (
        json.loads(run("doctor", "--skip-model", "--json", home=home, env={"HEEDFUL_MODEL": "anthropic:x"}).stdout)[
            "model"
        ]
        == "anthropic:x"
    )
    assert json.loads(run("doctor", "--skip-model", "--json", home=home).stdout)["model"] == "local"


def test_an_override_reaches_the_command_and_changes_nothing_else(tmp_path: Path) -> None:
    one_line_error(run("--embedder", "bogus", "rules", "list", home=tmp_path / "home"), "bogus")
    # Seen from inside: the option is in the settings the command opened, not in the process environment.
    code = (
        "import os, sys\n"
        "from heedful.cli import app\n"
        "import typer\n"
        "@app.command('probe-settings')\n"
        "def probe() -> None:\n"
        "    from heedful.commands.common import load_cli_settings\n"
        "    s = load_cli_settings(None)\n"
        "    env = os.environ.get\n"
        "    print(s.model.name, s.embedder.name, env('HEEDFUL_MODEL'), env('HEEDFUL_EMBEDDER'))\n"
        "from heedful.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    probed = run("--model", "local", "--embedder", "minilm", "probe-settings", home=tmp_path / "home", code=code)
    assert probed.returncode == 0, probed.stderr
    assert probed.stdout.split() == ["local", "minilm", "None", "hashing"]


@pytest.mark.sqlite_only(reason="the SQLite file's configured path")
def test_cli_and_hook_use_the_database_the_settings_name(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[store]\npath = "data/rules.sqlite"\n', encoding="utf-8")
    project = (tmp_path / "svc").resolve()
    (project / ".git").mkdir(parents=True)
    learned = run("rules", "learn", "--json", "--project", str(project), RULE, home=home)
    assert learned.returncode == 0, learned.stderr
    assert (home / "data" / "rules.sqlite").exists() and not (home / "heedful.db").exists()

    env = payloads.hook_env(home, user="me", HEEDFUL_EMBEDDER="hashing")
    event = payloads.claude_bash("s1", str(project), "pip install requests")
    code, out, err, _ = payloads.run_hook("claude-code", event, env)
    assert code == 0, err
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert not (home / "heedful.db").exists()  # the hook did not open a database of its own
    listed = json.loads(run("rules", "list", "--json", home=home).stdout)
    assert len(listed) == 1 and "pip" in listed[0]["text"]


def test_a_broken_config_is_one_line_for_the_cli_and_fails_open_in_the_hook(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text('[store]\nbusy_timeout_ms = "soon"\n', encoding="utf-8")
    one_line_error(run("rules", "list", home=home), "store.busy_timeout_ms", "config.toml")
    env = payloads.hook_env(home, user="me")
    code, out, _, _ = payloads.run_hook("claude-code", payloads.claude_bash("s1", str(tmp_path), "pip install x"), env)
    assert (code, out) == (0, "")
    assert "store.busy_timeout_ms" in (home / "logs" / "hooks.log").read_text()


def test_a_postgresql_url_without_the_extra_is_one_line(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "sys.modules['psycopg'] = None  # as on a base install\n"
        "sys.modules['psycopg_pool'] = None\n"
        "from heedful.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    url = {"HEEDFUL_DATABASE_URL": "postgresql://heedful@127.0.0.1:1/heedful"}
    one_line_error(run("rules", "list", home=tmp_path / "home", env=url, code=code), "heedful[postgres]")
    assert not (tmp_path / "home" / "heedful.db").exists()


def test_rules_list_loads_neither_numpy_nor_the_embedder(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from heedful.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'onnxruntime', 'tokenizers'))\n"
        "print('HEAVY', *heavy, file=sys.stderr)\n"
    )
    listed = run("rules", "list", home=tmp_path / "home", code=code)
    assert listed.returncode == 0, listed.stderr
    assert "nothing yet" in listed.stdout
    assert listed.stderr.strip().splitlines()[-1] == "HEAVY"


def test_serve_workers_get_the_options_given_before_the_command(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the serve extra is not installed")
    from heedful.server.process import _wait_until_up, free_port

    home = tmp_path / "home"
    assert run("rules", "list", home=home).returncode == 0  # a home whose vectors are the hashing embedder's
    # No HEEDFUL_EMBEDDER: only the option says `hashing`; a worker that missed it would refuse the home.
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env["HEEDFUL_HOME"] = str(home)
    port = free_port()
    argv = [sys.executable, "-m", "heedful", "--embedder", "hashing", "serve", "--port", str(port), "--workers", "2"]
    log_path = tmp_path / "serve.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_until_up(server, port, 90, log_path)
        # The command became the server (same process), so a signal to it reaches uvicorn directly.
        if Path("/proc").is_dir():
            assert b"uvicorn" in Path(f"/proc/{server.pid}/cmdline").read_bytes()
    finally:
        server.terminate()
        assert server.wait(timeout=30) is not None


def test_a_group_builds_only_the_command_that_runs() -> None:
    import typer

    from heedful.cli import LAZY, LazyCommands, lazy_group

    for name, entry in LAZY.items():
        module, attribute = entry.target.split(":")
        app = getattr(__import__(module, fromlist=[attribute]), attribute)
        if not isinstance(app, typer.Typer):
            continue
        group = lazy_group(app)
        names = list(group.commands)
        assert names == list(typer.main.get_group(app).commands), name  # same commands, same order
        commands = group.commands
        assert isinstance(commands, LazyCommands) and commands.built == ()
        first = commands[names[0]]
        assert commands.built == (names[0],) and first.name == names[0]
