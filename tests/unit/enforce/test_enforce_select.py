"""Hook-side selection (no embedder) and the injected texts."""

from __future__ import annotations

from heedful.enforce import select


def rule(text: str, **kw: object) -> dict[str, object]:
    return {"id": f"r-{abs(hash(text)) % 10000}", "text": text, "scope": "global", "status": "guidance",
            "condition": None, "exceptions": [], "check": None, **kw}


def test_selects_by_activity_and_words_and_sets_aside_unrelated_rules() -> None:
    rules = [rule("Use uv, not pip.", status="checked", check={"stage": "pre_action"}), rule("Never push to main."),
             rule("Keep replies under 50 words."), rule("Write Kotlin data classes for DTOs.")]
    chosen = {r["text"]: r["why"] for r in select.select(rules, "install the requests package", {"python"})}
    assert "Use uv, not pip." in chosen and "Keep replies under 50 words." in chosen
    assert "Never push to main." not in chosen and "Write Kotlin data classes for DTOs." not in chosen


def test_conditions_and_exceptions() -> None:
    conditional = rule("Add type hints.", condition="when writing Python code")
    excepted = rule("Run the full test suite.", exceptions=["unless only docs changed"])
    assert select.select([conditional], "update the README wording") == []
    assert select.select([conditional], "write python code for the parser")
    assert select.select([excepted], "only docs changed, run tests?") == []


def test_checked_rules_come_first_and_the_count_is_capped() -> None:
    rules = [rule(f"Keep replies short {i}.") for i in range(30)] + [
        rule("Keep replies plain.", status="checked", check={"stage": "delivery"})]
    chosen = select.select(rules, "answer the question")
    assert len(chosen) == select.MAX_RULES and chosen[0]["status"] == "checked"


def test_turn_context_and_session_index() -> None:
    rules = [rule("Use uv, not pip.", scope="project", status="checked", check={"stage": "pre_action"})]
    text = select.turn_context(rules, 7, armed=1)
    assert "library v7" in text and "take precedence" in text and "[r-" in text and "this project" in text
    assert select.turn_context([], 3, armed=0) is None
    index = select.session_index(rules * 400, "/p")
    assert index is not None and len(index) <= select.MAX_CHARS + 200 and "more" in index
    assert select.session_index([], "/p") is None
