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


def test_turn_context_and_session_index() -> None:
    rules = [rule("Use uv, not pip.", scope="project", status="checked", check={"stage": "pre_action"})]
    text = select.turn_context(rules, 7, armed=1)
    assert "library v7" in text and "take precedence" in text and "[r-" in text and "this project" in text
    assert select.turn_context([], 3, armed=0) is None
    index = select.session_index(rules * 400, "/p")
    assert index is not None and len(index) <= select.MAX_CHARS + 200 and "more" in index
    assert select.session_index([], "/p") is None
