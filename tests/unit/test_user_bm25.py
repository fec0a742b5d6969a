import math

from hypothesis import given
from hypothesis import strategies as st

from heedful.store.sqlite.terms import bm25, phrases


def test_worked_example_from_the_docstring() -> None:
    scores = bm25(4, 20, [[(1, 1, 5)]])
    assert math.isclose(scores[1], math.log(3.5 / 1.5), rel_tol=1e-9)


def test_a_term_in_most_rows_still_scores_a_little() -> None:
    scores = bm25(2, 10, [[(1, 1, 5), (2, 1, 5)]])
    assert 0 < scores[1] < 1e-5


def test_phrases_read_quoted_terms() -> None:
    assert phrases('"lisbon" OR "don""t"') == ["lisbon", 'don"t']


@given(st.lists(st.tuples(st.integers(1, 50), st.integers(1, 5), st.integers(1, 40)), min_size=1, max_size=20))
def test_scores_are_positive_and_grow_with_term_frequency(rows: list[tuple[int, int, int]]) -> None:
    unique = list({rowid: (rowid, tf, dl) for rowid, tf, dl in rows}.values())
    docs = 100
    scores = bm25(docs, 100 * 10, [unique])
    assert all(score > 0 for score in scores.values())
    more = bm25(docs, 100 * 10, [[(r, tf + 1, dl) for r, tf, dl in unique]])
    assert all(more[r] > scores[r] for r in scores)
