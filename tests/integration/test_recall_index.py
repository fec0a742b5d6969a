"""The per-user recall index: appended, re-read and rebuilt as the user's rows change (real SQLite)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

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


@pytest.mark.sqlite_only(reason="the SQLite backend's in-process recall index")
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


@pytest.mark.sqlite_only(reason="the SQLite backend's in-process recall index")
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


def _sql_bm25(hf: Heedful, user: str, term: str) -> list[tuple[int, float]]:
    """BM25 of one term over the user's rows, summed in SQL (the formula of `terms.py`)."""
    from heedful.store.sqlite.terms import K1, B, user_totals

    docs, tokens = user_totals(hf.store.db.conn, user)
    (df,) = hf.store.db.conn.execute(
        "SELECT COUNT(*) FROM fact_terms WHERE user_id = ? AND term = ?", (user, term)
    ).fetchone()
    idf = max(np.log((docs - df + 0.5) / (df + 0.5)), 1e-6)
    rows = hf.store.db.conn.execute(
        "SELECT fact_rowid, ? * tf * ? / (tf + ? * (1 - ? + ? * dl / ?)) FROM fact_terms"
        " WHERE user_id = ? AND term = ?",
        (idf, K1 + 1, K1, B, B, tokens / docs, user, term),
    ).fetchall()
    return sorted(((int(r[0]), float(r[1])) for r in rows), key=lambda pair: (-pair[1], pair[0]))


@pytest.mark.sqlite_only(reason="the SQLite backend's in-process recall index")
def test_held_postings_follow_appended_rows(hf: Heedful) -> None:
    _add(hf, "alice", ["Jazz with Tom", "Lisbon trip", "More jazz tonight, jazz all night"])
    index = hf.store.search.index("alice")
    first = hf.store.search.keyword_positions(index, '"jazz"', 10)
    assert first[0][0] == 2  # two mentions in a short row
    _add(hf, "alice", ["A jazz record", "Hiking"], start=3)
    _add(hf, "bob", ["jazz jazz jazz"])
    index = hf.store.search.index("alice")
    found = hf.store.search.keyword_positions(index, '"jazz"', 10)
    expected = _sql_bm25(hf, "alice", "jazz")
    assert [int(index.rowids[here]) for here, _ in found] == [rowid for rowid, _ in expected]
    assert np.allclose([score for _, score in found], [score for _, score in expected])
    assert index.postings(hf.store.db.conn, ["jazz"])["jazz"].df == 3
    assert hf.store.search.term_share("alice", '"jazz"') == 3 / 5


@pytest.mark.sqlite_only(reason="the SQLite backend's in-process recall index")
def test_a_large_index_prefilters_vectors_and_keeps_the_exact_best(hf: Heedful, monkeypatch: object) -> None:
    import heedful.store.sqlite.recall_index as recall_index
    import heedful.store.sqlite.search as search

    monkeypatch.setattr(recall_index, "COARSE_FROM_ROWS", 40)  # type: ignore[attr-defined]
    monkeypatch.setattr(recall_index, "COARSE_DIMS", 16)  # type: ignore[attr-defined]
    monkeypatch.setattr(recall_index, "COARSE_SAMPLE", 40)  # type: ignore[attr-defined]
    monkeypatch.setattr(search, "COARSE_CANDIDATES", 20)  # type: ignore[attr-defined]
    words = ["jazz", "Lisbon", "pasta", "hiking", "Osaka", "piano", "chess", "Porto", "tennis", "Maria"]
    _add(hf, "alice", [f"{words[n % 10]} and {words[(3 * n + 1) % 10]} on day {n}" for n in range(50)])
    index = hf.store.search.index("alice")
    assert index.coarse() is not None and index.coarse()[1].shape == (50, 16)  # type: ignore[index]
    _add(hf, "alice", ["jazz and piano in Lisbon"], start=50)
    index = hf.store.search.index("alice")
    assert index.coarse()[1].shape == (51, 16)  # type: ignore[index]  # appended rows are projected
    query = hf.embedder.embed(["jazz and piano in Lisbon"])[0]
    exact = np.argsort(-(index.matrix @ query), kind="stable")[:5]
    found = hf.store.search.vector_positions(index, query, 5)
    assert found[0][0] == 50 == exact[0]
    assert [score for _, score in found] == sorted((score for _, score in found), reverse=True)
