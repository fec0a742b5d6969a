"""Hook-side selection (no embedder) and the injected texts."""

from __future__ import annotations

from heedful.enforce import select


def rule(text: str, **kw: object) -> dict[str, object]:
    return {
        "id": f"r-{abs(hash(text)) % 10000}",
        "text": text,
        "scope": "global",
        "status": "guidance",
        "condition": None,
        "exceptions": [],
        "check": None,
        **kw,
    }


def test_selects_by_activity_and_sets_aside_other_languages() -> None:
    rules = [
        rule("Use uv, not pip.", status="checked", check={"stage": "pre_action"}),
        rule("Keep replies under 50 words."),
        rule("Write Kotlin data classes for DTOs."),
    ]
    chosen = {r["text"]: r["why"] for r in select.select(rules, "install the requests package", {"python"})}
    assert "Use uv, not pip." in chosen and chosen["Keep replies under 50 words."] == "governs every answer"
    assert "Write Kotlin data classes for DTOs." not in chosen


def test_exceptions() -> None:
    excepted = rule("Run the full test suite.", exceptions=["unless only docs changed"])
    assert select.select([excepted], "only docs changed, run tests?") == []


def test_every_answer_rules_do_not_spend_the_topical_budget() -> None:
    every = [rule(f"Keep replies short, variant {i}.") for i in range(3)]
    topical = [rule(f"Never push to main branch {i}.") for i in range(30)]
    topical.append(rule("Never push to the release branch.", status="checked", check={"stage": "pre_action"}))
    chosen = select.select(every + topical, "commit and push the changes to main")
    assert [r["why"] for r in chosen[:3]] == ["governs every answer"] * 3
    assert len(chosen) == 3 + select.MAX_RULES and chosen[3]["status"] == "checked"


def test_general_coding_habits_come_in_their_own_block() -> None:
    habits = [
        rule("Use self-explanatory variable and function names."),
        rule("Delete comments that only restate names, types, or control flow."),
    ]
    topical = [rule(f"Never push to main branch {i}.") for i in range(30)]
    request = "write a function that parses the config file and commit it"
    chosen = select.select(habits + topical, request, {"python"})
    reach = {r["text"]: r["reach"] for r in chosen}
    assert all(reach.get(h["text"]) == "every_code_change" for h in habits)
    assert sum(1 for r in chosen if r["reach"] == "topical") == select.MAX_RULES
    text = select.turn_context(chosen, 2, armed=0)
    assert text is not None and "General coding habits" in text
    assert text.index("Never push") < text.index("General coding habits") < text.index("self-explanatory")


def test_turn_context_and_session_index() -> None:
    rules = [rule("Use uv, not pip.", scope="project", status="checked", check={"stage": "pre_action"})]
    text = select.turn_context(rules, 7, armed=1)
    assert "library v7" in text and "take precedence" in text and "[r-" in text and "this project" in text
    assert select.turn_context([], 3, armed=0) is None
    index = select.session_index(rules * 400, "/p")
    assert index is not None and len(index) <= select.MAX_CHARS + 200 and "more" in index
    assert select.session_index([], "/p") is None
