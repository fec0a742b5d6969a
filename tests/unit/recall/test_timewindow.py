from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heedful.memory.recall.timewindow import parse_window

REF = datetime(2024, 5, 8, 15, 30, tzinfo=UTC)  # a Wednesday


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("what did I do yesterday?", day(2024, 5, 7), day(2024, 5, 8)),
        ("anything planned for today", day(2024, 5, 8), day(2024, 5, 9)),
        ("what did we eat two days ago", day(2024, 5, 6), day(2024, 5, 7)),
        ("where was I last week?", day(2024, 4, 29), day(2024, 5, 6)),
        ("what happened this month", day(2024, 5, 1), day(2024, 6, 1)),
        ("my plans for next week", day(2024, 5, 13), day(2024, 5, 20)),
        ("what did I read last year", day(2023, 1, 1), day(2024, 1, 1)),
        ("what did I do in May 2023?", day(2023, 5, 1), day(2023, 6, 1)),
        ("who did I meet on 8 May 2023", day(2023, 5, 8), day(2023, 5, 9)),
        ("what happened on May 8, 2023", day(2023, 5, 8), day(2023, 5, 9)),
        ("what happened on the 8th of May, 2023", day(2023, 5, 8), day(2023, 5, 9)),
        ("the 2023-05-07 meeting", day(2023, 5, 7), day(2023, 5, 8)),
        ("books I read in 2022", day(2022, 1, 1), day(2023, 1, 1)),
        ("what did I do in June", day(2023, 6, 1), day(2023, 7, 1)),
        ("what did I do in April", day(2024, 4, 1), day(2024, 5, 1)),
        ("where did we go in summer 2023", day(2023, 6, 1), day(2023, 9, 1)),
        ("what did I do last summer", day(2023, 6, 1), day(2023, 9, 1)),
        ("what did I do last weekend", day(2024, 5, 4), day(2024, 5, 6)),
        ("what did I cook last Monday", day(2024, 5, 6), day(2024, 5, 7)),
        ("a few weeks ago", day(2024, 4, 15), day(2024, 4, 22)),
        ("books before 2020", day(1900, 1, 1), day(2020, 1, 1)),
        ("what did I read in 2022 and 2023", day(2022, 1, 1), day(2024, 1, 1)),
    ],
)
def test_named_windows(question: str, start: datetime, end: datetime) -> None:
    window = parse_window(question, REF)
    assert window is not None, question
    assert (window.start, window.end) == (start, end)
    assert window.phrase


def test_open_ranges_run_to_the_reference() -> None:
    since = parse_window("what changed since March?", REF)
    assert since is not None and since.start == day(2024, 3, 1) and since.end > REF
    after = parse_window("anything after June 2023", REF)
    assert after is not None and after.start == day(2023, 7, 1) and after.end > REF


def test_the_past_n_days_ends_now() -> None:
    window = parse_window("what did I do in the past 3 days", REF)
    assert window is not None and window.start == REF - timedelta(days=3) and window.contains(REF)


@pytest.mark.parametrize(
    "question",
    [
        "What did Caroline research?",
        "I may go to the march",
        "How old is Mel?",
        "where do I live",
        "",
        "what is 12345 plus 3",
        "call me at 555-2023-11",
    ],
)
def test_no_window(question: str) -> None:
    assert parse_window(question, REF) is None


def test_naive_reference_is_utc() -> None:
    window = parse_window("yesterday", datetime(2024, 5, 8, 12))
    assert window is not None and window.start == day(2024, 5, 7)


@given(st.text(max_size=80), st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1)))
def test_any_text_parses_or_not_but_never_fails(text: str, reference: datetime) -> None:
    window = parse_window(text, reference.replace(tzinfo=UTC))
    if window is not None:
        assert window.start < window.end


@given(st.dates(min_value=datetime(1950, 1, 1).date(), max_value=datetime(2080, 12, 31).date()))
def test_every_written_date_is_its_own_day(date: object) -> None:
    written = f"on {date.day} {date.strftime('%B')} {date.year}"  # type: ignore[attr-defined]
    window = parse_window(written, REF)
    assert window is not None
    assert window.start == datetime(date.year, date.month, date.day, tzinfo=UTC)  # type: ignore[attr-defined]
    assert window.end - window.start == timedelta(days=1)
