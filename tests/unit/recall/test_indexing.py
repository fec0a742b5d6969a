from __future__ import annotations

from heedful.memory.recall.indexing import (
    PREVIOUS_CONTEXT_CHARS,
    excerpt_embedding_text,
    excerpt_statement,
    extract_entities,
    extract_places,
)


def test_entities_are_names_not_sentence_openers() -> None:
    found = extract_entities("Yeah, I went to the LGBTQ group in New York with Mel. Congrats Caroline!", "Caroline")
    assert found == ["caroline", "lgbtq", "new york", "mel"]


def test_places() -> None:
    assert extract_places("We moved to Lisbon and visited the Alps") == ["lisbon", "alps"]


def test_excerpt_text_keeps_the_speaker() -> None:
    assert excerpt_statement("hello", "Jo") == "Jo: hello"
    assert excerpt_statement("hello", None) == "hello"


def test_embedding_text_takes_only_the_end_of_a_long_previous_turn() -> None:
    previous = "x" * 5000 + " What inspired you?"
    text = excerpt_embedding_text("I visited a centre", "Caroline", previous)
    assert text.endswith("What inspired you?\nCaroline: I visited a centre")
    assert len(text) <= PREVIOUS_CONTEXT_CHARS + 60
    assert excerpt_embedding_text("hi", None, None) == "hi"
