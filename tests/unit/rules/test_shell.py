"""The command reader: quotes, pipes, &&, env prefixes, sudo, python -m, nested commands, flags."""

from __future__ import annotations

import pytest

from heedful.rules.shell import has_flag, positionals, simple_commands, split_segments


def programs(line: str) -> list[str]:
    return [c.program for c in simple_commands(line)]


def test_operators_split_commands() -> None:
    assert programs("make build && git push origin main; echo ok | tee log || true & sleep 1") == [
        "make",
        "git",
        "echo",
        "tee",
        "true",
        "sleep",
    ]


def test_quoted_operators_do_not_split() -> None:
    assert programs("echo 'a && b | c; d'") == ["echo"]
    assert programs('git commit -m "fix: a; b && c"') == ["git"]
    assert simple_commands('git commit -m "fix: a; b"')[0].args == ("commit", "-m", "fix: a; b")


def test_env_prefixes_and_wrappers_are_removed() -> None:
    command = simple_commands("FOO=1 BAR=x sudo -E -u root env -i PATH=/bin nohup time pip install x")[0]
    assert command.program == "pip"
    assert command.args == ("install", "x")
    assert command.sudo
    assert "FOO=1" in command.env


def test_python_dash_m_and_versioned_names() -> None:
    assert programs("python3.11 -m pip install x") == ["pip"]
    assert programs("python -I -m pytest -q") == ["pytest"]
    assert programs("/usr/local/bin/pip3 install x") == ["pip"]
    assert programs("uv pip install x") == ["uv"]
    assert simple_commands("uv pip install x")[0].args == ("pip", "install", "x")


def test_a_module_run_by_python_keeps_its_launcher() -> None:
    """`python -m pytest` is pytest, and the reader says how it was started (a rule against bare pytest needs it)."""
    assert [(c.program, c.launcher) for c in simple_commands("python -m pytest -q && pytest -x")] == [
        ("pytest", "python -m"),
        ("pytest", ""),
    ]
    assert simple_commands("PYTHONPATH=src python3 -I -m mypy src")[0].launcher == "python -m"
    assert simple_commands("python script.py")[0].launcher == ""


def test_nested_commands_are_read() -> None:
    assert "pip" in programs("echo $(pip freeze) > requirements.txt")
    assert "git" in programs("bash -c 'cd repo && git push -f origin main'")
    assert "rm" in programs("(cd build; rm -rf out)")
    assert "pip" in programs("echo `pip --version`")


def test_redirects_are_not_arguments() -> None:
    command = simple_commands("pytest -q 2>&1 > out.txt")[0]
    assert command.program == "pytest"
    assert "2>&1" not in command.args


def test_unbalanced_quotes_do_not_raise() -> None:
    assert programs("echo 'unterminated && pip install x") in (["echo"], ["echo", "pip"])


def test_positionals_skip_global_option_values() -> None:
    command = simple_commands("git -C repo push -u origin main")[0]
    assert positionals(command) == ["push", "origin", "main"]


@pytest.mark.parametrize(
    ("line", "alias", "expected"),
    [
        ("git push --force origin main", "--force", True),
        ("git push --force=true", "--force", True),
        ("git push -f origin main", "-f", True),
        ("rm -rf build", "-f", True),
        ("rm -rf build", "-r", True),
        ("rm -r build", "-f", False),
        ("git commit -m '-f is not a flag here'", "-f", False),
        ("git push --force-with-lease", "--force", False),
        ("git push -- -f", "-f", False),
    ],
)
def test_flags_long_short_and_clustered(line: str, alias: str, expected: bool) -> None:
    assert has_flag(simple_commands(line)[0], alias) is expected


def test_comments_are_ignored() -> None:
    assert programs("ls # && pip install x") == ["ls"]


def test_segments_keep_exact_text() -> None:
    line = "cd x && git push origin main"
    assert all(segment in line for segment in split_segments(line))
