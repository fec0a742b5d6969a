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


def test_every_answer_rules_come_first_and_checked_rules_lead_the_topical_block() -> None:
    every = [rule(f"Keep replies short, variant {i}.") for i in range(3)]
    topical = [rule(f"Never push to main branch {i}.") for i in range(30)]
    topical.append(rule("Never push to the release branch.", status="checked", check={"stage": "pre_action"}))
    chosen = select.select(every + topical, "commit and push the changes to main")
    assert [r["why"] for r in chosen[:3]] == ["governs every answer"] * 3
    assert len(chosen) == 3 + len(topical) and chosen[3]["status"] == "checked"  # 34 short lines fit the budget


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
    assert sum(1 for r in chosen if r["reach"] == "topical") == len(topical)
    text = select.turn_context(chosen, 2, armed=0)
    assert text is not None and "For any code you write or change:" in text
    assert text.index("Never push") < text.index("For any code you write") < text.index("self-explanatory")


def test_a_large_library_is_cut_to_the_token_budget_by_rank() -> None:
    every = [rule(f"Keep replies under {40 + i} words and plain.", id=f"r-every-{i}") for i in range(5)]
    topical = [
        rule(f"Never push to main branch number {i} without asking the user first.", id=f"r-{i}") for i in range(400)
    ]
    chosen = select.select(every + topical, "commit and push the changes to main")
    text = select.turn_context(chosen, 123456, armed=987)
    assert text is not None and select.tokens_of(text) <= select.TOKEN_BUDGET
    assert {r["text"] for r in chosen[:5]} == {r["text"] for r in every}  # answer-wide rules always fit first
    assert 60 < len(chosen) < len(every) + len(topical)  # the budget, not a count, decides how many
    uncapped = select.select(every + topical, "commit and push the changes to main", budget=None)
    assert len(uncapped) == len(every) + len(topical)
    best = sorted(uncapped[5:], key=lambda r: (-r["score"] / (select.tokens_of(select.line(r)) + 1), r["id"]))
    assert {r["id"] for r in best[:60]} <= {r["id"] for r in chosen}  # the best by score per token of line


def test_habits_and_topical_rules_compete_for_the_budget_by_score_per_token() -> None:
    habits = [rule(f"Use self-explanatory variable and function names in module {i}.") for i in range(300)]
    topical = [rule(f"Never push to main branch {i} without a review.") for i in range(10)]
    chosen = select.select(habits + topical, "write a function that parses the config file and push it to main")
    assert sum(1 for r in chosen if r["reach"] == "topical") == len(topical)
    assert sum(1 for r in chosen if r["reach"] == "every_code_change") > 20


def test_the_last_room_goes_to_the_rule_with_the_most_score_per_token() -> None:
    short = {**rule("Never push to main without a review.", id="r-a"), "reach": "topical", "score": 0.5}
    long = {**rule("Never push to main unreviewed, " + "wait for a second approval. " * 10, id="r-b")}
    long.update(reach="topical", score=0.6)
    cost = select.tokens_of(select.line(long)) + 1
    chosen = select.fit({"topical": [long, short]}, select._frame_tokens() + cost)
    assert [r["id"] for r in chosen] == ["r-a"]  # a line seven times as long is not seven times as likely


def test_selection_is_deterministic_whatever_the_library_order() -> None:
    import random

    library = [rule(f"Never push to main branch {i}.", id=f"r-{i}") for i in range(150)]
    library += [rule(f"Keep replies under {i} words.", id=f"r-every-{i}") for i in range(20, 30)]
    shuffled = list(library)
    random.Random(3).shuffle(shuffled)
    request = "commit and push the changes to main"
    first = select.turn_context(select.select(library, request), 4, armed=1)
    assert first == select.turn_context(select.select(shuffled, request), 4, armed=1)
    assert first == select.turn_context(select.select(library, request), 4, armed=1)


def test_compact_lines_keep_what_matters() -> None:
    guidance = rule("Ask before deleting files.", condition="outside the build folder", exceptions=["unless told"])
    checked = rule("Use uv, not pip.", status="checked", check={"stage": "pre_action"}, scope="project")
    expected = "- Ask before deleting files. (when: outside the build folder) (except: unless told)"
    assert select.line(guidance) == expected
    assert select.line(checked) == f"- Use uv, not pip. [this project] [{checked['id']}; checked pre-action]"


def test_turn_context_and_session_index() -> None:
    rules = [rule("Use uv, not pip.", scope="project", status="checked", check={"stage": "pre_action"})]
    text = select.turn_context(rules, 7, armed=1)
    assert text is not None
    assert "library v7" in text and "take precedence" in text and "[r-" in text and "this project" in text
    assert select.turn_context([], 3, armed=0) is None
    index = select.session_index(rules * 400, "/p")
    assert index is not None and len(index) <= select.MAX_CHARS + 200 and "more" in index
    assert select.session_index([], "/p") is None


def test_rules_shown_earlier_in_the_session_are_not_repeated_and_leave_room() -> None:
    topical = [
        rule(f"Never push to main branch number {i} without asking the user first.", id=f"r-{i}") for i in range(400)
    ]
    request = "commit and push the changes to main"
    first = select.select(topical, request)
    earlier = {r["id"] for r in first}
    second = select.select(topical, request, shown=earlier)
    assert {r["id"] for r in second} > earlier  # the room the repeated lines took goes to further rules
    text = select.turn_context(second, 1, armed=0)
    assert text is not None and select.tokens_of(text) <= select.TOKEN_BUDGET
    assert f"{len(earlier)} more of these rules, shown earlier in this session" in text
    assert all(r["text"] not in text for r in first)
    assert select.turn_context(select.select(first[:3], request, shown=earlier), 1, armed=0) is None
