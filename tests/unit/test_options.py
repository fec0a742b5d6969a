from heedful.harness.options import distinguishing_words, option_queries


def test_shared_template_words_are_dropped() -> None:
    options = ["The user prefers tea in the morning", "The user prefers coffee in the morning"]
    assert distinguishing_words(options) == [["tea"], ["coffee"]]


def test_option_queries_carry_the_question() -> None:
    queries = option_queries("What does she drink?", ["tea", "coffee"])
    assert queries[0].startswith("tea") and "drink" in queries[0]
    assert queries[1].startswith("coffee")


def test_identical_options_fall_back_to_their_words() -> None:
    assert distinguishing_words(["same words", "same words"]) == [["same", "words"], ["same", "words"]]
