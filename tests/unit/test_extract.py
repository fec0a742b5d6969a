import pytest

from heedful.llm.prompts.extract_facts import ExtractionContext, SourceMessage
from heedful.memory.extract import extract_offline


def extract(text: str, role: str = "user") -> list[tuple[str, str, str | None, str | None]]:
    context = ExtractionContext(
        user_id="u", messages=[SourceMessage(id="m1", role=role, text=text, at="2024-05-07T00:00:00.000000Z")]
    )
    return [(c.kind, c.entity, c.predicate, c.object) for c in extract_offline(context).candidates]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I love hiking.", ("fact", "user", "likes", "hiking")),
        ("I can't stand cilantro", ("fact", "user", "dislikes", "cilantro")),
        ("I moved to Lisbon last month.", ("fact", "user", "lives_in", "Lisbon")),
        ("My name is Dana", ("fact", "user", "name", "Dana")),
        ("I work at Siemens", ("fact", "user", "works_at", "Siemens")),
        ("I'm vegetarian", ("fact", "user", "diet", "vegetarian")),
        ("My favorite color is blue", ("fact", "user", "favorite_color", "blue")),
        ("I'm planning to run a marathon next spring", ("fact", "user", "plans", "run a marathon next spring")),
        ("Remind me to call the dentist tomorrow", ("commitment", "user", "reminder", "call the dentist tomorrow")),
        ("Please forget that I take sertraline", ("forget", "user", "forget", "I take sertraline")),
    ],
)
def test_patterns(text: str, expected: tuple[str, str, str, str]) -> None:
    assert expected in extract(text)


def test_another_persons_preference_keeps_that_person_as_entity() -> None:
    found = extract("I love hiking and my sister Anna hates cilantro.")
    assert ("fact", "user", "likes", "hiking") in found
    assert ("fact", "Anna", "dislikes", "cilantro") in found
    assert not any(entity == "user" and obj == "cilantro" for _, entity, _, obj in found)


def test_no_longer_is_a_negated_statement() -> None:
    context = ExtractionContext(
        user_id="u", messages=[SourceMessage(id="m", role="user", text="I don't like sushi anymore.", at="t")]
    )
    (candidate,) = extract_offline(context).candidates
    assert candidate.negated and candidate.predicate == "likes" and candidate.object == "sushi"


def test_questions_and_small_talk_yield_nothing() -> None:
    assert extract("Do I like sushi?") == []
    assert extract("Hi there, thanks!") == []


def test_assistant_words_never_become_user_facts() -> None:
    assert extract("I love hiking and I live in Paris.", role="assistant") == []
    assert extract("I'll remind you to water the plants.", role="assistant") == [
        ("commitment", "user", "reminder", "water the plants")
    ]


def test_medication_and_tools() -> None:
    assert ("fact", "user", "takes", "sertraline") in extract("I live in Berlin and I take sertraline")
    assert ("fact", "user", "uses", "vim for everything") in extract("I use vim for everything")


def test_a_forget_request_without_the_verb_names_its_target() -> None:
    from heedful.memory.forget import request_target

    assert request_target("that I take sertraline") == "I take sertraline"
    assert request_target("Please forget that I take sertraline.") == "I take sertraline"
