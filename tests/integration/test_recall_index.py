"""The per-user recall index: appended, re-read and rebuilt as the user's rows change (real SQLite)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from heedful.api import Heedful
from heedful.memory.write import NewMessage
from heedful.store.sqlite.recall_index import NEVER, UserRecallIndex, micros, micros_of

T0 = datetime(2024, 3, 1, 9, tzinfo=UTC)


def _add(hf: Heedful, user: str, texts: list[str], start: int = 0) -> None:
    messages = [
        NewMessage(text, session_id=f"s{(start + n) // 3}", at=T0 + timedelta(hours=start + n), speaker="Anna")
        for n, text in enumerate(texts)
    ]
    hf.memory.add(user, messages, extract=False)


def _fresh(hf: Heedful, user: str) -> UserRecallIndex:
    return UserRecallIndex(user).refresh(hf.store.db.conn, hf.store.search.version(user))


def _same(a: UserRecallIndex, b: UserRecallIndex) -> None:
    assert a.ids == b.ids
    for column in ("rowids", "kinds", "valid_from", "event_at", "valid_to", "expired_at", "lengths", "previous"):
        assert np.array_equal(getattr(a, column), getattr(b, column)), column
    assert np.array_equal(a.following, b.following)
    assert np.allclose(a.matrix, b.matrix)
    assert {k: sorted(v) for k, v in a.entities.items()} == {k: sorted(v) for k, v in b.entities.items()}
    assert a.places == b.places and a.superseded_by == b.superseded_by


def test_appending_new_rows_gives_the_index_a_fresh_build_gives(hf: Heedful) -> None:
    _add(hf, "alice", ["I met Tom in Lisbon", "We cooked pasta", "Tom likes jazz", "I flew to Osaka"])
    _add(hf, "bob", ["Bob's own note about Lisbon"])
    built = hf.store.search.index("alice")
    assert len(built) == 4
    _add(hf, "alice", ["Then Maria joined us", "We went hiking near Porto", "Back home"], start=4)
    grown = hf.store.search.index("alice")
    assert grown is built and len(grown) == 7  # appended in place, other users' rows never read
    _same(grown, _fresh(hf, "alice"))
    assert grown.previous[4] == 3 and grown.following[3] == 4  # same session s1: turns 3, 4, 5
    assert set(grown.ids).isdisjoint(hf.store.search.index("bob").ids)


def test_a_changed_state_is_read_again_without_rereading_rows(hf: Heedful) -> None:
    _add(hf, "alice", ["I live in Berlin"])
    index = hf.store.search.index("alice")
    fact_id = index.ids[0]
    stamp = "2024-05-01T00:00:00.000000Z"
    hf.store.memory.set_fact_state("alice", fact_id, {"valid_to": stamp, "superseded_by": "f-next"})
    again = hf.store.search.index("alice")
    assert again.valid_to[0] == micros_of(stamp) and again.superseded_by[0] == "f-next"
    _same(again, _fresh(hf, "alice"))
    hf.store.memory.set_fact_state("alice", fact_id, {"valid_to": None, "superseded_by": None})
    assert hf.store.search.index("alice").valid_to[0] == NEVER


def test_the_time_columns_read_every_stored_form() -> None:
    values = micros(["2024-05-08T10:00:00.000000Z", None, "2024-05-08"], missing=-1)
    assert values[1] == -1
    assert values[0] - values[2] == 10 * 3600 * 10**6
    assert micros(["2024-05-08T10:00:00+02:00"], missing=-1)[0] == micros_of("2024-05-08T08:00:00.000000Z")
