"""Rules as people write them in instruction files and issue threads: list markers, emphasis, set phrases
of negation and bans stated after the command. Every phrasing is written for this test.
"""

from __future__ import annotations

from typing import Any

import pytest

from compile_cases import compiled
from heedful.rules.compile import plain_rule


@pytest.mark.parametrize(
    ("written", "plain"),
    [
        ("- **NEVER** run `make deploy`", "NEVER run `make deploy`"),
        ("3) __always__ run `just check` first", "always run `just check` first"),
        ("> *Never* touch prod", "Never touch prod"),
        ("Under no circumstances should you run X", "never run X"),
        ("Do not, under any circumstances, run X", "Do not run X"),
    ],
)
def test_plain_rule_drops_decoration_and_reads_set_phrases(written: str, plain: str) -> None:
    assert plain_rule(written) == plain


def test_plain_rule_keeps_globs_and_flags() -> None:
    assert plain_rule("never edit **/*.gen.ts or run rm -rf *") == "never edit **/*.gen.ts or run rm -rf *"


@pytest.mark.parametrize(
    ("rule", "params"),
    [
        ("- **NEVER** run `helm uninstall`", {"program": "helm", "subcommand": ["uninstall"]}),
        ("* __don't__ use `pip`", {"program": "pip"}),
        ("Under no circumstances should you run `kubectl delete`", {"program": "kubectl", "subcommand": ["delete"]}),
        (
            "`git reset --hard` is absolutely forbidden",
            {"program": "git", "subcommand": ["reset"], "flags": [["--hard"]]},
        ),
        ("cargo publish is strictly prohibited", {"program": "cargo", "subcommand": ["publish"]}),
    ],
)
def test_decorated_and_after_the_fact_bans_compile(rule: str, params: dict[str, Any]) -> None:
    assert compiled(rule) == ("forbidden_command", params)


def test_a_numbered_required_command_compiles() -> None:
    kind, params = compiled("2. Always run `cargo fmt --check` before committing")
    assert kind == "required_event" and params["commands"] == [["cargo", "fmt"]] and params["before"] == "commit"
