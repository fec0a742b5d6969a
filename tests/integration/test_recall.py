"""Recall on real SQLite files: routes, explain, as-of, states, forgetting, timeouts, isolation."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from heedful.api import Heedful
from heedful.errors import InputError, NotFoundError
from heedful.ids import new_id
from heedful.memory.normalize import norm_key
from heedful.memory.recall.engine import Recaller
from heedful.memory.write import NewMessage
from heedful.store.records import FactRecord
from heedful.timeutil import to_text

T0 = datetime(2024, 1, 10, 12, tzinfo=UTC)


def add_turns(
    hf: Heedful,
    user: str,
    texts: list[str],
    start: datetime = T0,
    speaker: str | None = None,
    session: str | None = None,
) -> list[str]:
    """Add turns; each in its own session unless one is named (so no turn is another's context)."""
    messages = [
        NewMessage(text=text, at=start + timedelta(minutes=i), speaker=speaker, session_id=session or f"s{i}")
        for i, text in enumerate(texts)
    ]
    return hf.memory.add(user, messages, extract=False).message_ids


def add_fact(hf: Heedful, user: str, text: str, valid_from: datetime, **fields: object) -> FactRecord:
    fact = FactRecord(
        id=new_id("f"),
        user_id=user,
        kind="fact",
        statement=text,
        norm_key=norm_key(text),
        perspective="user_belief",
        confidence=1.0,
        valid_from=to_text(valid_from),
        ingested_at=to_text(valid_from),
        embedding=hf.embedder.embed([text])[0],
        **fields,  # type: ignore[arg-type]
    )
    hf.store.memory.ensure_user(user)
    hf.store.memory.insert_facts([fact])
    return fact


def texts_of(result: object) -> list[str]:
    return [item.text for item in result.items]  # type: ignore[attr-defined]


def test_keyword_and_vector_routes_find_a_turn_and_explain_it(hf: Heedful) -> None:
    add_turns(hf, "alice", ["I adopted a grey cat named Pixel", "The weather is mild today", "I cooked pasta"])
    result = hf.memory.recall("alice", "what is my cat called?")
    assert result.items[0].text == "I adopted a grey cat named Pixel"
    top = result.items[0]
    assert {"keyword", "vector"} <= set(top.routes)
    assert top.routes["keyword"].rank == 1
    assert top.score == pytest.approx(sum(hit.contribution for hit in top.routes.values()), abs=1e-5)
    assert top.state == "current" and top.source_message_ids
    explained = result.to_json(explain=True)
    item = explained["items"][0]  # type: ignore[index]
    assert set(item["routes"]["keyword"]) == {"rank", "score", "contribution"}
    assert "analysis" in explained
    assert result.to_json()["items"][0]["routes"] == sorted(top.routes)  # type: ignore[index]


def test_time_route_raises_items_from_the_named_window(hf: Heedful) -> None:
    add_turns(hf, "alice", ["We went hiking in the hills"], start=datetime(2023, 5, 20, tzinfo=UTC))
    add_turns(hf, "alice", ["We went hiking by the sea"], start=datetime(2023, 9, 2, tzinfo=UTC))
    result = hf.memory.recall("alice", "where did we go hiking in September 2023?")
    assert result.items[0].text == "We went hiking by the sea"
    assert "time" in result.items[0].routes and "time" not in result.items[1].routes
    assert hf.memory.recall("alice", "where did we go hiking?").route_ms.get("time") is None


def test_entity_route_and_speaker(hf: Heedful) -> None:
    add_turns(hf, "alice", ["My brother Tomas moved to Porto", "I like green tea"], speaker="Alice")
    result = hf.memory.recall("alice", "Where does Tomas live now?")
    assert result.items[0].text == "Alice: My brother Tomas moved to Porto"
    assert "entity" in result.items[0].routes


def test_superseded_facts_are_marked_and_as_of_answers_from_then(hf: Heedful) -> None:
    t1, t2 = datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 3, 1, tzinfo=UTC)
    old = add_fact(hf, "alice", "Alice lives in Berlin", t1, valid_to=to_text(t2))
    new = add_fact(hf, "alice", "Alice lives in Lisbon", t2)
    hf.store.memory.set_fact_state("alice", old.id, {"superseded_by": new.id})
    now = hf.memory.recall("alice", "where does Alice live?")
    states = {item.id: item.state for item in now.items}
    assert states == {old.id: "superseded", new.id: "current"}
    then = hf.memory.recall("alice", "where does Alice live?", as_of="2024-02-01T00:00:00Z")
    assert [(item.id, item.state) for item in then.items] == [(old.id, "current")]
    assert then.as_of == "2024-02-01T00:00:00.000000Z"
    before = hf.memory.recall("alice", "where does Alice live?", as_of="2023-06-01")
    assert before.items == []


def test_forgotten_facts_only_come_back_when_asked(hf: Heedful) -> None:
    gone = add_fact(
        hf,
        "alice",
        "Alice is allergic to peanuts",
        T0,
        expired_at=to_text(T0 + timedelta(days=1)),
        expired_reason="user asked",
    )
    add_fact(hf, "alice", "Alice enjoys peanut-free baking", T0)
    assert gone.id not in {item.id for item in hf.memory.recall("alice", "peanuts allergy").items}
    shown = hf.memory.recall("alice", "peanuts allergy", include_forgotten=True)
    assert {item.id: item.state for item in shown.items}[gone.id] == "forgotten"
    # Before it was forgotten, it was current.
    earlier = hf.memory.recall("alice", "peanuts allergy", as_of=to_text(T0 + timedelta(hours=1)))
    assert {item.id: item.state for item in earlier.items}[gone.id] == "current"


def test_tombstone_hides_matching_excerpts_even_those_written_later(hf: Heedful) -> None:
    add_turns(hf, "alice", ["I take sertraline every morning", "I walk my dog every morning"])
    hf.memory.forget("alice", "forget that I take sertraline")
    add_turns(hf, "alice", ["I take sertraline every morning"], start=T0 + timedelta(days=2))
    result = hf.memory.recall("alice", "what medication do I take every morning? sertraline")
    assert all("sertraline" not in text for text in texts_of(result))
    assert "I walk my dog every morning" in texts_of(result)
    shown = hf.memory.recall("alice", "sertraline", include_forgotten=True)
    assert {item.state for item in shown.items if "sertraline" in item.text} == {"forgotten"}


def test_a_slow_route_times_out_and_the_others_answer(hf: Heedful, monkeypatch: pytest.MonkeyPatch) -> None:
    add_turns(hf, "alice", ["I adopted a grey cat named Pixel", "I cooked pasta"])
    original = hf.store.search.keyword_positions

    def slow_keyword(*args: object, **kwargs: object) -> object:
        time.sleep(2.0)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(hf.store.search, "keyword_positions", slow_keyword)
    recaller = Recaller(hf.store, lambda: hf.embedder, route_timeout=0.5)
    try:
        result = recaller.recall("alice", "grey cat Pixel")
    finally:
        recaller.close()
    assert result.timed_out == ["keyword"]
    assert result.items and result.items[0].text == "I adopted a grey cat named Pixel"
    assert "keyword" not in result.items[0].routes and "vector" in result.items[0].routes


def test_a_failing_route_is_reported_and_the_others_answer(hf: Heedful, monkeypatch: pytest.MonkeyPatch) -> None:
    add_turns(hf, "alice", ["I adopted a grey cat named Pixel"])

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("index unavailable")

    monkeypatch.setattr(hf.store.search, "vector_positions", broken)
    result = hf.memory.recall("alice", "grey cat")
    assert result.failed == ["vector"] and result.items


def test_users_are_isolated(hf: Heedful) -> None:
    add_turns(hf, "alice", ["My favourite colour is teal"])
    bob_ids = set(add_turns(hf, "bob", ["My favourite colour is teal", "Bob: teal teal teal"]))
    result = hf.memory.recall("alice", "favourite colour teal", limit=50)
    assert len(result.items) == 1
    assert not bob_ids & {m for item in result.items for m in item.source_message_ids}
    with pytest.raises(NotFoundError):
        hf.memory.recall("carol", "favourite colour")


def test_enumeration_widens_the_cut_and_the_budget(hf: Heedful) -> None:
    add_turns(hf, "alice", [f"I visited museum number {i} in the old town" for i in range(80)])
    plain = hf.memory.recall("alice", "which museum in the old town was best")
    listing = hf.memory.recall("alice", "list all the museums I visited in the old town")
    assert not plain.enumeration and len(plain.items) == 45 and plain.budget_tokens == 8100
    assert listing.enumeration and len(listing.items) == 80 and listing.budget_tokens > 8100


def test_budget_and_limit_are_honoured(hf: Heedful) -> None:
    add_turns(hf, "alice", [f"Note {i}: the garden needs watering on day {i}" for i in range(30)])
    result = hf.memory.recall("alice", "garden watering", budget_tokens=40)
    assert 0 < result.used_tokens <= 40 and sum(item.tokens for item in result.items) == result.used_tokens
    assert len(hf.memory.recall("alice", "garden watering", limit=3).items) == 3


def test_bad_input_is_refused(hf: Heedful) -> None:
    add_turns(hf, "alice", ["hello"])
    with pytest.raises(InputError):
        hf.memory.recall("alice", "   ")
    with pytest.raises(InputError):
        hf.memory.recall("alice", "hello", as_of="not a time")


def test_an_answer_is_found_through_the_question_before_it(hf: Heedful) -> None:
    turns = [
        "Your painting of the lighthouse is lovely, what inspired it?",
        "A trip with my grandmother when I was nine.",
        "I bought new shoes yesterday.",
    ]
    messages = [NewMessage(text=t, at=T0 + timedelta(minutes=i), session_id="chat") for i, t in enumerate(turns)]
    hf.memory.add("alice", messages, extract=False)
    result = hf.memory.recall("alice", "what inspired the lighthouse painting?")
    texts = texts_of(result)
    assert texts.index("A trip with my grandmother when I was nine.") < texts.index("I bought new shoes yesterday.")
    assert "keyword" in result.items[texts.index("A trip with my grandmother when I was nine.")].routes


@pytest.mark.slow
def test_minilm_finds_a_paraphrase_the_words_miss(hf_minilm: Heedful) -> None:
    add_turns(
        hf_minilm,
        "alice",
        ["My daughter is crazy about dinosaurs and fossils", "The train was late again this morning"],
    )
    result = hf_minilm.memory.recall("alice", "what does my kid like?")
    assert result.items[0].text == "My daughter is crazy about dinosaurs and fossils"
    assert "vector" in result.items[0].routes
