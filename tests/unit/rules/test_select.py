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


def test_go_is_read_as_the_language_only_where_it_names_it() -> None:
    assert languages("Go: accept interfaces, return structs.") == {"go"}
    assert languages("Use table-driven tests in Go.") == {"go"}
    assert languages("Wrap Go errors with %w.") == {"go"}
    assert languages("When you explain a diff, go file by file.") == frozenset()
    assert languages("Go ahead and fix the login form") == frozenset()
    assert languages("Use the logging module instead of print statements.") == {"python"}


def scores(rules: list[Rule], query: str, project_languages: set[str] | None = None) -> dict[str, float]:
    chosen = select(rules, None, query, None, project_languages=project_languages)
    return {s.rule.id: s.score for s in chosen.rules + chosen.rejected}


def test_activity_ranks_the_related_rule_first() -> None:
    rules = [rule("uv", "Use uv, not pip, to install Python packages."), rule("push", "Never push to main.")]
    install = scores(rules, "Install requests for the HTTP client", {"python"})
    push = scores(rules, "Commit and push the fix", {"python"})
    assert install["uv"] > install["push"] and push["push"] > push["uv"]
    assert "uv" in picked(rules, "Install requests for the HTTP client", {"python"})


def test_reply_rules_always_apply_outside_the_topical_ranking() -> None:
    rules = [rule("short", "Keep replies under 100 words."), rule("tone", "Use a neutral tone in all responses.")]
    chosen = select(rules, None, "Rename the column in the users table", None)
    assert {s.rule.id for s in chosen.rules} == {"short", "tone"}
    assert {s.kind for s in chosen.rules} == {"every"}


def test_exceptions_exclude() -> None:
    excepted = rule("short", "Keep replies under 100 words.", exceptions=["unless I ask for detail"])
    assert picked([excepted], "Explain the design; I ask for detail here") == set()
    assert picked([excepted], "Explain the design") == {"short"}


def test_rules_for_other_languages_are_set_aside() -> None:
    rules = [rule("kt", "Put Kotlin tests next to the code they test."), rule("js", "Use vitest, not jest.")]
    assert picked(rules, "Write unit tests for the parser", project_languages={"python"}) == set()
    assert "kt" in picked(rules, "Write Kotlin unit tests for the parser", project_languages={"python"})


def test_batches_and_every_answer_rules_first() -> None:
    rules = [rule(f"r{i}", f"Obscure rule number {i}.") for i in range(BATCH_SIZE * 2)]
    rules.append(rule("rm", "Ask before deleting any file."))
    rules.append(rule("short", "Keep answers under 100 words."))
    vectors = np.zeros((len(rules), 4), dtype=np.float32)
    chosen = select(rules, vectors, "delete the stale uploads folder", np.array([1, 0, 0, 0], dtype=np.float32))
    assert chosen.batches == 3
    assert [s.rule.id for s in chosen.rules[:2]] == ["short", "rm"]
    assert chosen.rules[0].kind == "every" and chosen.rules[1].kind == "topical"


def test_project_languages_from_marker_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    (tmp_path / "package.json").write_text("{}")
    assert detect_languages(str(tmp_path)) == {"python", "typescript"}
    assert detect_languages(str(tmp_path / "missing")) is None
    assert detect_languages(None) is None
