"""Selection (pure): scope is the caller's; here exceptions, conditions, languages and facets."""

from __future__ import annotations

import numpy as np

from heedful.rules.facets import detect_languages, facets, languages
from heedful.rules.models import Rule
from heedful.rules.select import BATCH_SIZE, select


def rule(rule_id: str, text: str, **extra: object) -> Rule:
    return Rule(id=rule_id, user_id="u", text=text, scope="global", status="guidance", **extra)


def picked(rules: list[Rule], query: str, project_languages: set[str] | None = None) -> set[str]:
    return {s.rule.id for s in select(rules, None, query, None, project_languages=project_languages).rules}


def test_facets_of_tasks_and_rules() -> None:
    assert {"deps"} <= facets("Install numpy and pandas")
    assert "deps" not in facets("Update the install guide")
    assert {"git"} <= facets("Commit the changes and push them")
    assert "code" in facets("Fix the off-by-one bug in the orders endpoint", task=True)
    assert "code" not in facets("Commit and push", task=True)
    assert languages("When writing Kotlin, prefer val") == {"kotlin"}


def test_activity_selects_and_unrelated_does_not() -> None:
    rules = [rule("uv", "Use uv, not pip, to install Python packages."), rule("push", "Never push to main.")]
    assert picked(rules, "Install requests for the HTTP client") == {"uv"}
    assert picked(rules, "Commit and push the fix") == {"push"}


def test_reply_rules_always_apply() -> None:
    rules = [rule("short", "Keep replies under 100 words."), rule("poem", "When I ask for a poem, make it rhyme.")]
    assert picked(rules, "Rename the column in the users table") == {"short"}


def test_conditions_must_hold_and_exceptions_exclude() -> None:
    conditional = rule("py", "Use type hints.", condition="When writing Python")
    assert picked([conditional], "Write Python helpers for parsing dates") == {"py"}
    assert picked([conditional], "Update the README install section") == set()
    excepted = rule("short", "Keep replies under 100 words.", exceptions=["unless I ask for detail"])
    assert picked([excepted], "Explain the design; I ask for detail here") == set()


def test_rules_for_other_languages_are_set_aside() -> None:
    rules = [rule("kt", "Put Kotlin tests next to the code they test."), rule("py", "Write pytest tests.")]
    assert picked(rules, "Write unit tests for the parser", project_languages={"python"}) == {"py"}
    assert picked(rules, "Write Kotlin unit tests for the parser", project_languages={"python"}) == {"kt"}


def test_batches_and_every_answer_rules_first() -> None:
    rules = [rule(f"r{i}", f"Obscure rule number {i}.") for i in range(BATCH_SIZE * 2)]
    rules.append(rule("short", "Keep answers under 100 words."))
    rules.append(rule("rm", "Ask before deleting any file."))
    vectors = np.zeros((len(rules), 4), dtype=np.float32)
    chosen = select(rules, vectors, "remove the stale uploads folder", np.array([1, 0, 0, 0], dtype=np.float32))
    assert chosen.batches == 3
    assert [s.rule.id for s in chosen.rules] == ["short", "rm"]
    assert chosen.rules[0].kind == "every" and chosen.rules[1].kind == "topical"


def test_implied_activities_select_without_shared_words() -> None:
    rules = [rule("sh", "Shell scripts start with set -euo pipefail."), rule("ask", "Ask before deleting any file."),
             rule("nb", "Clear notebook outputs before committing."), rule("pnpm", "Use pnpm, not npm.")]
    assert {"ask"} <= picked(rules, "start the staging database over from a clean slate", {"python"})
    assert "pnpm" not in picked(rules, "write a script that backs up the photos every night", {"python"})


def test_project_languages_from_marker_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    (tmp_path / "package.json").write_text("{}")
    assert detect_languages(str(tmp_path)) == {"python", "typescript"}
    assert detect_languages(str(tmp_path / "missing")) is None
    assert detect_languages(None) is None
