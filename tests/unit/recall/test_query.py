from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heedful.memory.recall.query import analyze, fts_expression, is_enumeration, keywords, query_entities

REF = datetime(2024, 5, 8, tzinfo=UTC)


def test_keywords_drop_stop_words_and_possessives() -> None:
    assert keywords("What is Caroline's identity?") == ["caroline", "identity"]
    assert keywords("When did Melanie paint a sunrise?") == ["melanie", "paint", "sunrise"]


def test_fts_expression_quotes_every_term() -> None:
    assert fts_expression(["caroline", "research"]) == '"caroline" OR "research"'
    assert fts_expression([]) == ""


@pytest.mark.parametrize(
    "question",
    [
        "List all the books I read",
        "what are all the places we went",
        "how many kids does she have",
        "Which cities have I visited?",
        "what kinds of food do I like",
        "every time I went hiking",
    ],
)
def test_enumeration_questions(question: str) -> None:
    assert is_enumeration(question)


@pytest.mark.parametrize("question", ["where do I live", "what is my sister's name", "when did I move"])
def test_plain_questions_are_not_enumerations(question: str) -> None:
    assert not is_enumeration(question)


def test_entities_from_capitals_and_known_names() -> None:
    assert query_entities("Did Jo like the trip to New York?") == ["jo", "new york"]
    assert "new york" in query_entities("what did we do in new york", ["new york", "caroline"])
    assert query_entities("what does add mean", ["add"]) == []


def test_analysis_reads_places_window_and_leaves_time_words_to_the_time_route() -> None:
    analysis = analyze("What did Nate do in Paris on 25 May, 2022?", REF)
    assert analysis.places == ["paris"]
    assert analysis.window is not None and analysis.window.start == datetime(2022, 5, 25, tzinfo=UTC)
    assert "2022" not in analysis.terms and "25" not in analysis.terms
    assert analysis.to_json()["window"] is not None


@given(st.text(max_size=60))
def test_any_query_gives_a_valid_fts5_expression(text: str) -> None:
    expression = analyze(text, REF).match_expression
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61')")
    conn.execute("INSERT INTO t (body) VALUES ('some text to match')")
    if expression:
        conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expression,)).fetchall()
