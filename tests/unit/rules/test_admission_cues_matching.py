"""The cue families are found by a phrase lookup with exactly the matches of the regular expression it replaced.

The reference is the alternation `admission_cues` used to compile at import (built here from the same
families); every message of the labelled corpus and the development benchmark, and generated strings
around the cues' word edges, must give the same family flags from both.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.rules import admission_cues

BENCH = Path(admission_cues.__file__).resolve().parents[1] / "bench"
CORPUS_FILES = sorted((BENCH / "corpus").glob("*.jsonl")) + sorted((BENCH / "data").glob("corrections_*.jsonl"))


@cache
def reference() -> dict[str, re.Pattern[str]]:
    return {
        family: re.compile(
            r"(?<![\w.])(?:" + "|".join(re.escape(p) for p in sorted(words, key=len, reverse=True)) + r")(?![\w])"
        )
        for family, words in admission_cues.FAMILIES.items()
    }


def reference_families(text: str) -> dict[str, bool]:
    return {family: bool(pattern.search(text)) for family, pattern in reference().items()}


def corpus_texts() -> list[str]:
    texts = []
    for path in CORPUS_FILES:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts.extend(t for t in (row.get("text"), row.get("previous")) if isinstance(t, str) and t)
    return texts


def test_every_corpus_message_has_the_same_cues_as_under_the_regular_expression() -> None:
    texts = corpus_texts()
    assert len(texts) > 6000  # the whole corpus was read, not an empty glob
    found = 0
    # Every message as the admission model reads it (lower-cased), and a fixed slice as typed.
    for variant in [text.lower() for text in texts] + texts[::10]:
        expected = reference_families(variant)
        assert admission_cues.families(variant) == expected, variant
        found += sum(expected.values())
    assert found > 3000  # the cues do occur: the comparison is not between two empty answers


EDGES = [
    "claude.md is where rules go",
    "see docs/claude.md",
    "x.always do it",
    "_always",
    "always_",
    "always2",
    "2always",
    "éalways",
    "alwaysé",
    "(always)",
    "always.",
    ".always",
    "every commits",
    "every commit's message",
    "before all pushes!",
    "before  all pushes",
    "what's up",
    "whats",
    "i've told you",
    "no more no more",
    "from here on out",
    "from here on",
    "every single time",
    "every time-ish",
    "",
    ".",
    "ever",
    "ever\nagain",
    "lets go",
    "let's",
]


def test_word_edges_match_as_before() -> None:
    for text in EDGES:
        assert admission_cues.families(text) == reference_families(text), text


# Strings stitched from the cues' own words and the characters that decide a word boundary.
CUE_WORDS = sorted({word for words in admission_cues.FAMILIES.values() for p in words for word in re.split(r"\W+", p)})
PIECES = st.one_of(
    st.sampled_from(CUE_WORDS),
    st.sampled_from(sorted({p for words in admission_cues.FAMILIES.values() for p in words})),
    st.sampled_from([" ", "  ", ".", "'", "_", "-", "\n", ",", "é", "2", "s", "x"]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=8).map("".join))
def test_generated_strings_match_as_before(text: str) -> None:
    assert admission_cues.families(text) == reference_families(text)
