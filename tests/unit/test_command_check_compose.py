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
