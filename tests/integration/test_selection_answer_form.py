"""Rules about the form of every answer reach the agent for a task that never mentions answers, however
they are phrased (real hook subprocess): the answer-form lexicon reads them, not only the learned reader,
which learns that reading from the few such rules a training library holds."""

from __future__ import annotations

from pathlib import Path

from tests.integration.test_selection_budget import prompt_context

from heedful.api import Heedful

ANSWER_RULES = ("From now on, always be concise.", "Always use plain text, no markdown.")
OTHER_RULES = ("Never use emojis in commit messages.", "Always ask me before deleting any file.")
NOT_A_CODE_CHANGE = "what does the retry flag of the deploy script do?"


def test_answer_form_rules_are_shown_for_every_answer(home: Path, tmp_path: Path) -> None:
    project = (tmp_path / "svc").resolve()
    (project / ".git").mkdir(parents=True)
    with Heedful.open(home, embedder="hashing") as hf:
        for text in ANSWER_RULES + OTHER_RULES:
            assert hf.rules.learn("me", text, project=project).actions
    context = prompt_context(home, project, NOT_A_CODE_CHANGE, "s1")
    assert "For every answer:" in context, context
    block = context.split("For every answer:")[1].split("\nFor ")[0]
    for phrase in ("be concise", "plain text, no markdown"):  # as the learner words them
        assert phrase in block.lower(), context
    assert "commit messages" not in block  # a form of another thing, not of the answer


def test_the_answer_form_reading_tells_answers_from_other_things() -> None:
    from heedful.rules.facets import governs_every_answer

    assert all(governs_every_answer(text) for text in ANSWER_RULES)
    assert governs_every_answer("Always respond in German.")
    assert not governs_every_answer("Never use emojis in commit messages.")
    assert not governs_every_answer("Please write comments in the code in English.")
    assert not governs_every_answer("When I ask for a poem, make it rhyme in a playful tone.")
    assert not governs_every_answer("Document the request and response of each endpoint.")
