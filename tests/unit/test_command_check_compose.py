"""`docker-compose` (the old binary) and `docker compose` (the plugin) are one command to a command check, and
`-v` of `compose down` is also spelled `--volumes`: a rule against one spelling holds against the other."""

from __future__ import annotations

import pytest

from compile_cases import compiled, run


@pytest.mark.parametrize("rule", ["Never run docker compose down -v.", "Never run docker-compose down -v."])
@pytest.mark.parametrize(
    "command", ["docker compose down -v", "docker-compose down --volumes", "docker compose down --volumes"]
)
def test_either_spelling_of_compose_down_with_volumes_is_blocked(rule: str, command: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert run(params, command) == "violated"


@pytest.mark.parametrize("command", ["docker compose down", "docker-compose up -d", "docker volume ls"])
def test_other_compose_commands_pass(command: str) -> None:
    _, params = compiled("Never run docker compose down -v.")
    assert run(params, command) == "pass"


@pytest.mark.parametrize(
    ("rule", "blocked", "allowed"),
    [
        ("Use docker compose, not docker-compose.", "docker-compose up -d", "docker compose up -d"),
        ("Use docker-compose, never docker compose.", "docker compose up -d", "docker-compose up -d"),
    ],
)
def test_a_rule_that_tells_the_spellings_apart_keeps_them_apart(rule: str, blocked: str, allowed: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert run(params, blocked) == "violated"
    assert run(params, allowed) == "pass"
