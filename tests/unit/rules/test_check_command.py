"""forbidden_command: blocks what the user forbade, passes the allowed alternatives."""

from __future__ import annotations

import pytest

from heedful.rules.checks import command

PIP = {"program": "pip", "alternatives": ["uv"]}
PUSH_MAIN = {"program": "git", "subcommand": ["push"], "args": ["main"], "implicit_target": True}
FORCE = {"program": "git", "subcommand": ["push"], "flags": [["--force", "-f", "--force-with-lease"]]}
RMRF = {"program": "rm", "flags": [["-r", "-R", "--recursive"], ["-f", "--force"]]}


def run(params: dict, line: str, **extra: str) -> str:
    return command.evaluate(params, "pre_action", {"action": {"tool": "Bash", "command": line, **extra}}).result


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("pip install requests", "violated"),
        ("python -m pip install requests", "violated"),
        ("sudo pip3 install requests", "violated"),
        ("FOO=1 pip install x", "violated"),
        ("cd app && pip install -r requirements.txt", "violated"),
        ("uv pip install requests", "pass"),
        ("uv add requests", "pass"),
        ("echo pip", "pass"),
        ("pipx run black", "pass"),
    ],
)
def test_pip_forbidden_uv_allowed(line: str, expected: str) -> None:
    assert run(PIP, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("git push origin main", "violated"),
        ("git push -u origin main", "violated"),
        ("git push origin HEAD:main", "violated"),
        ("git push origin +main", "violated"),
        ("git -C repo push origin refs/heads/main", "violated"),
        ("git push origin feature/login", "pass"),
        ("git push origin main-backup", "pass"),
        ("git pull origin main", "pass"),
        ("git push", "unknown"),
        ("git push origin", "unknown"),
    ],
)
def test_push_to_main(line: str, expected: str) -> None:
    assert run(PUSH_MAIN, line) == expected


def test_implicit_target_reads_the_branch_from_the_evidence() -> None:
    assert run(PUSH_MAIN, "git push", branch="main") == "violated"
    assert run(PUSH_MAIN, "git push", branch="feature") == "pass"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("git push --force", "violated"),
        ("git push -f origin x", "violated"),
        ("git push origin x", "pass"),
        ("git push --force-with-lease", "violated"),
        ("git fetch -f", "pass"),
    ],
)
def test_force_push(line: str, expected: str) -> None:
    assert run(FORCE, line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("rm -rf build", "violated"),
        ("rm -fr build", "violated"),
        ("rm --recursive --force x", "violated"),
        ("rm -R -f x", "violated"),
        ("rm -r x", "pass"),
        ("rm file.txt", "pass"),
    ],
)
def test_rm_rf_needs_both_flags(line: str, expected: str) -> None:
    assert run(RMRF, line) == expected


def test_sudo_rule_matches_any_command_run_with_sudo() -> None:
    assert run({"program": "sudo"}, "sudo apt-get install x") == "violated"
    assert run({"program": "sudo"}, "apt-get install x") == "pass"


def test_violation_quotes_the_command() -> None:
    verdict = command.evaluate(PIP, "pre_action", {"action": {"tool": "Bash", "command": "ls && pip install x"}})
    assert verdict.quotes == ["pip install x"]
    assert "uv" in verdict.reason


def test_other_stages_and_missing_evidence() -> None:
    assert command.evaluate(PIP, "delivery", {"delivery": "pip install x"}).result == "not_applicable"
    assert command.evaluate(PIP, "pre_action", {}).result == "unknown"
    assert command.evaluate(PIP, "pre_action", {"action": {"tool": "Edit", "file_path": "a.py"}}).result == (
        "not_applicable"
    )


def test_hook_payload_shape_is_read() -> None:
    evidence = {"action": {"tool_name": "Bash", "tool_input": {"command": "pip install x"}}}
    assert command.evaluate(PIP, "pre_action", evidence).result == "violated"


def test_generated_cases_match_the_check() -> None:
    for params in (PIP, PUSH_MAIN, FORCE, RMRF):
        for case in command.cases(params):
            assert command.evaluate(params, case.stage, case.evidence).result == case.expected, case
