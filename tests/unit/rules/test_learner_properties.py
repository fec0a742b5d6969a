"""The offline learner never raises on arbitrary text, and every quote it keeps is the user's own."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.rules.compile import propose
from heedful.rules.detect import admit
from heedful.rules.interpret import interpret

words = st.sampled_from(
    [
        "never",
        "always",
        "use",
        "uv",
        "not",
        "pip",
        "in this repo",
        "this time",
        "from now on",
        "push",
        "to",
        "main",
        ",",
        ".",
        "?",
        "don't",
        "unless",
        "when",
        "`rm -rf`",
        "be careful",
        "--no-verify",
        "words",
        "100",
        "JSON",
        "`status`",
        "tests",
        "before",
        "done",
        "and also",
    ]
)
messages = st.one_of(st.text(max_size=200), st.lists(words, max_size=25).map(" ".join))


@settings(max_examples=300, deadline=None)
@given(text=messages)
def test_admission_and_interpretation_are_total(text: str) -> None:
    decision = admit(text)
    assert decision.decision in ("persist", "task_local", "underspecified", "none")
    for candidate in interpret(text):
        assert candidate.evidence and all(quote in text for quote in candidate.evidence)
        for spec in propose(candidate.text):
            assert spec.stage in ("pre_action", "artifact", "delivery")
