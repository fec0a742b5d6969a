"""Counts in replies: "no bullet points" is a bullet limit of 0, and a length limit lifted by the user's own
request ("unless I ask for more detail") is still a check. Every phrasing is written for this test.
"""

from __future__ import annotations

from typing import Any

import pytest

from compile_cases import compiled
from heedful.rules.checks import KINDS, CheckParamsError, evaluate

NONE = {"unit": "bullets", "limit": 0}


def deliver(params: dict[str, Any], reply: str) -> str:
    return evaluate("reply_count_limit", params, "delivery", {"delivery": reply}).result


def test_a_bullet_limit_of_zero_allows_prose_and_blocks_any_list() -> None:
    assert deliver(NONE, "All set. I renamed the module - and its tests - as asked.") == "pass"
    assert deliver(NONE, "Changes:\n- renamed the module") == "violated"
    assert deliver(NONE, "Steps:\n1. build\n2. test") == "violated"


def test_a_limit_of_zero_is_only_legal_for_bullets() -> None:
    KINDS["reply_count_limit"].cases(NONE)
    for unit in ("lines", "sentences", "paragraphs"):
        with pytest.raises(CheckParamsError, match="only bullets may be 0"):
            KINDS["reply_count_limit"].cases({"unit": unit, "limit": 0})
    with pytest.raises(CheckParamsError):
        KINDS["reply_count_limit"].cases({"unit": "bullets", "limit": -1})
    assert deliver({"unit": "lines", "limit": 0}, "one line") == "unknown"  # a stored bad limit fails open


def test_the_cases_of_a_zero_limit_agree_with_the_reviewer() -> None:
    module = KINDS["reply_count_limit"]
    for case in module.cases(NONE):
        assert deliver(NONE, case.evidence.get("delivery", "")) == case.expected or case.stage != "delivery"
        assert module.review(NONE, case.stage, case.evidence) == case.expected


@pytest.mark.parametrize(
    "rule",
    [
        "no bullet points, ever",
        "please stop answering me in bulleted lists",
        "Write your replies as prose, not bullet points.",
        "dont use bullets in answers",
        "Bullet lists are off-limits in chat.",
        "I don't want bullet-point lists in your summaries",
    ],
)
def test_rules_against_bullets_compile_to_a_limit_of_zero(rule: str) -> None:
    assert compiled(rule) == ("reply_count_limit", NONE)


@pytest.mark.parametrize(
    "rule",
    [
        "no nested bullet points",  # which bullets: a count cannot state it
        "avoid too many bullet points",
        "no bullet points in commit messages",  # another text than the reply
        "no bullets unless I ask for a list",  # the override cannot read a request for a list
    ],
)
def test_narrowed_bullet_rules_stay_guidance(rule: str) -> None:
    assert compiled(rule)[0] != "reply_count_limit"


@pytest.mark.parametrize(
    ("rule", "kind", "params"),
    [
        ("keep answers under 120 words unless I ask for more detail", "reply_word_limit", {"limit": 119}),
        ("replies: two sentences max unless asked otherwise", "reply_count_limit", {"unit": "sentences", "limit": 2}),
        ("at most 8 lines per reply, unless you're told otherwise", "reply_count_limit", {"unit": "lines", "limit": 8}),
    ],
)
def test_a_length_limit_the_user_can_lift_by_asking_is_a_check(rule: str, kind: str, params: dict[str, Any]) -> None:
    got_kind, got = compiled(rule)
    assert got_kind == kind
    assert got["limit"] in (params["limit"], params["limit"] + 1) and got.get("unit") == params.get("unit")


def test_a_length_limit_with_an_exception_no_request_decides_stays_guidance() -> None:
    assert compiled("keep it under 50 words unless the question is hard") == (None, {})
    assert compiled("max 100 words unless I say so") == (None, {})
