from hypothesis import given
from hypothesis import strategies as st

from heedful.memory.normalize import approx_tokens, norm_key, trigram_overlap


def test_norm_key_folds_case_width_spacing_and_punctuation() -> None:
    assert norm_key("I  LOVE   hiking!") == norm_key("i love hiking")
    assert norm_key("ＩＰＡ beer") == norm_key("IPA beer")  # full-width letters
    assert norm_key("I love hiking") != norm_key("I love biking")


def test_trigram_overlap_is_containment_of_the_query() -> None:
    assert trigram_overlap("I take sertraline", "The user said: I take sertraline daily") == 1.0
    assert trigram_overlap("sertraline", "I like pizza") < 0.2
    assert trigram_overlap("", "anything") == 0.0


@given(st.text(max_size=100), st.text(max_size=100))
def test_overlap_is_a_share(a: str, b: str) -> None:
    assert 0.0 <= trigram_overlap(a, b) <= 1.0


@given(st.text(max_size=200))
def test_norm_key_is_idempotent(text: str) -> None:
    assert norm_key(norm_key(text)) == norm_key(text)


def test_token_estimate() -> None:
    assert approx_tokens("") == 1
    assert approx_tokens("x" * 400) == 100
