"""What is true now ranks first: a superseded item never outranks what replaced it (real SQLite files)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from heedful.api import Heedful
from heedful.ids import new_id
from heedful.memory.normalize import norm_key
from heedful.memory.write import NewMessage
from heedful.store.records import FactRecord
from heedful.timeutil import to_text

T0 = datetime(2024, 1, 10, 12, tzinfo=UTC)

# (subject, successive values): each later value supersedes the one before it.
CHAINS = [
    ("The user lives in", ["Berlin", "Lisbon", "Porto"]),
    ("The user works as a", ["baker", "teacher"]),
    ("The user's monthly book budget is", ["40 dollars", "55 dollars", "70 dollars", "30 dollars"]),
    ("The user's dog is called", ["Rex", "Bruno"]),
]
QUESTIONS = [
    "where does the user live?",
    "what does the user work as?",
    "what is my monthly book budget?",
    "what is my dog called?",
    "user",
    "Lisbon Berlin Porto baker teacher Rex Bruno budget",
    "which monthly book budget is used for the first purchase?",  # "used", "first": not about the past
    "what should I call my dog?",
]


def _chains(hf: Heedful, user: str) -> list[list[str]]:
    """Store each chain's first value as a fact, then correct it to each later value in turn."""
    ids: list[list[str]] = []
    hf.memory.add(user, [NewMessage("I keep notes here", at=T0)], extract=False)
    for subject, values in CHAINS:
        text = f"{subject} {values[0]}"
        first = FactRecord(
            id=new_id("f"),
            user_id=user,
            kind="fact",
            statement=text,
            norm_key=norm_key(text),
            perspective="user_belief",
            confidence=1.0,
            valid_from=to_text(T0),
            ingested_at=to_text(T0),
            embedding=hf.embedder.embed([text])[0],
        )
        hf.store.memory.insert_facts([first])
        chain = [first.id]
        for value in values[1:]:
            chain.append(hf.memory.correct(user, chain[-1], f"{subject} {value}").fact_id)
        ids.append(chain)
    return ids


def _assert_current_first(hf: Heedful, user: str, chains: list[list[str]], as_of: str | None = None) -> int:
    """Every superseded item comes after the item holding in its place; returns how many were checked."""
    checked = 0
    for question in QUESTIONS:
        result = hf.memory.recall(user, question, as_of=as_of)
        rank = {item.id: n for n, item in enumerate(result.items)}
        for item in result.items:
            if item.state != "superseded":
                continue
            current = next(chain for chain in chains if item.id in chain)
            holding = [other for other in current if other in rank and result.items[rank[other]].state == "current"]
            assert holding, f"{item.text!r} came back superseded without what replaced it ({question!r})"
            assert all(rank[other] < rank[item.id] for other in holding), (question, [i.text for i in result.items])
            checked += 1
    return checked


def test_a_superseded_fact_never_outranks_its_replacement(hf: Heedful) -> None:
    chains = _chains(hf, "alice")
    assert _assert_current_first(hf, "alice", chains) >= len(CHAINS)
    first = hf.memory.recall("alice", "where does the user live?")
    assert first.items[0].text == "The user lives in Porto"
    berlin = [item for item in first.items if item.text.endswith("Berlin")]
    assert berlin and berlin[0].state == "superseded"  # still visible, marked, below


def test_recall_as_of_a_past_moment_puts_what_held_then_first(hf: Heedful) -> None:
    user = "bob"
    hf.memory.add(user, [NewMessage("I live in Berlin", at=T0)], flush=True)
    hf.memory.add(user, [NewMessage("I moved to Lisbon", at=T0 + timedelta(days=30))], flush=True)
    now = hf.memory.recall(user, "where does bob live?")
    facts = [item for item in now.items if item.kind == "fact"]
    assert [f.text for f in facts] == ["The user lives in Lisbon", "The user lives in Berlin"]
    assert [f.state for f in facts] == ["current", "superseded"]
    excerpts = [item.text for item in now.items if item.kind == "excerpt"]
    assert excerpts.index("I moved to Lisbon") < excerpts.index("I live in Berlin")
    then = hf.memory.recall(user, "where does bob live?", as_of=to_text(T0 + timedelta(days=5)))
    assert [item.text for item in then.items if item.kind == "fact"] == ["The user lives in Berlin"]
    assert then.items[0].state == "current"
    asked_back = hf.memory.recall(user, "where did bob live originally?")
    assert "Berlin" in asked_back.items[0].text  # a question about the past keeps the fused order


def test_the_index_follows_supersession_after_it_was_built(hf: Heedful) -> None:
    chains = _chains(hf, "carol")
    before = hf.memory.recall("carol", "what is my dog called?")  # builds the user's index
    assert before.items[0].text == "The user's dog is called Bruno"
    hf.memory.correct("carol", chains[3][-1], "The user's dog is called Fido")
    after = hf.memory.recall("carol", "what is my dog called?")
    states = {item.text: item.state for item in after.items}
    assert after.items[0].text == "The user's dog is called Fido"
    assert states["The user's dog is called Bruno"] == "superseded"


def test_restated_messages_put_the_newer_first_only_when_asked(hf: Heedful) -> None:
    from heedful.memory.recall.engine import Recaller

    old, new = "My monthly book budget is 40 dollars", "My monthly book budget is 55 dollars now"
    hf.memory.add("dana", [NewMessage(old, at=T0, session_id="a")], extract=False)
    hf.memory.add("dana", [NewMessage(new, at=T0 + timedelta(days=9), session_id="b")], extract=False)
    question = "what is my monthly book budget 40"  # the words favour the old message
    # in the past tense the routes' order stands; about the present, the newer restatement comes first
    plain = [item.text for item in hf.memory.recall("dana", question.replace(" is ", " was ")).items]
    assert plain.index(old) < plain.index(new)
    present = [item.text for item in hf.memory.recall("dana", question).items]
    assert present.index(new) < present.index(old)
    recaller = Recaller(hf.store, lambda: hf.embedder, restated_cosine=0.5)
    try:
        restated = [item.text for item in recaller.recall("dana", question).items]
        past = [item.text for item in recaller.recall("dana", "what was my original monthly book budget").items]
    finally:
        recaller.close()
    assert restated.index(new) < restated.index(old)
    assert past.index(old) < past.index(new)


def test_an_update_said_in_passing_ranks_above_the_original_for_a_question_about_now(hf: Heedful) -> None:
    """Raw messages: the original states a time; its reply repeats it; days later the user mentions the new
    time inside a message about something else. Asked about now, the update comes first; asked about the
    original, or as of a moment before the update, the original does."""
    user = "erin"
    original = "I have a Zoom meeting with Professor Dana on March 22 at 3 PM to review my thesis draft."
    reply = "A Zoom meeting with Professor Dana to review your thesis draft is a good chance to get feedback."
    update = "I am nervous about my slides; the Zoom meeting with Professor Dana about my thesis draft moved to 4 PM."
    filler = [f"I watered the {plant} on the balcony today." for plant in ("basil", "mint", "tomatoes", "roses")]
    hf.memory.add(
        user,
        [
            NewMessage(original, at=T0, session_id="a"),
            NewMessage(reply, at=T0 + timedelta(seconds=30), session_id="a", role="assistant"),
            *[NewMessage(text, at=T0 + timedelta(days=1, minutes=n), session_id="b") for n, text in enumerate(filler)],
            NewMessage(update, at=T0 + timedelta(days=4), session_id="c"),
        ],
        extract=False,
    )

    def order(question: str, as_of: str | None = None) -> list[str]:
        return [item.text for item in hf.memory.recall(user, question, as_of=as_of).items]

    for question in (
        "What time should I join the Zoom meeting with Professor Dana to review my thesis draft?",
        "When is my Zoom meeting with Professor Dana to review my thesis draft?",
    ):
        found = order(question)
        assert found.index(update) < found.index(original), (question, found)
    asked_back = order("What time was the Zoom meeting with Professor Dana originally?")
    assert asked_back.index(original) < asked_back.index(update)
    before = order("When is my Zoom meeting with Professor Dana?", as_of=to_text(T0 + timedelta(days=2)))
    assert original in before and update not in before
