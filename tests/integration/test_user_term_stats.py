"""Keyword statistics are per user: another user's rows change neither scores nor explain."""

from __future__ import annotations

import pytest

from heedful.api import Heedful
from heedful.memory.write import NewMessage

BOB = ["I moved to Lisbon last spring", "I cook fish on Fridays", "My bike is red", "I play chess with Tom"]


def keyword_scores(hf: Heedful, user: str, expression: str) -> dict[str, float]:
    return dict(hf.store.search.keyword(user, expression, 20))


def explain_keyword(hf: Heedful, user: str, query: str) -> dict[str, float]:
    result = hf.memory.recall(user, query)
    return {item.text: item.routes["keyword"].score for item in result.items if "keyword" in item.routes}


def test_bobs_scores_do_not_change_with_alices_notes(hf: Heedful) -> None:
    hf.memory.add("bob", [NewMessage(text) for text in BOB], flush=True)
    alone = keyword_scores(hf, "bob", '"lisbon" OR "chess"')
    explained = explain_keyword(hf, "bob", "Lisbon chess")
    assert alone and explained
    notes = [NewMessage(f"Lisbon note {n}: the trams in Lisbon are yellow", session_id=f"a{n % 5}") for n in range(60)]
    hf.memory.add("alice", notes, flush=True)
    hf.memory.add("carol", [NewMessage("chess chess chess every day")], flush=True)
    assert keyword_scores(hf, "bob", '"lisbon" OR "chess"') == alone
    assert explain_keyword(hf, "bob", "Lisbon chess") == explained
    # and alice's own statistics see Lisbon as the common word it is for her
    assert hf.store.search.term_share("alice", '"lisbon"') > 0.5
    assert hf.store.search.term_share("bob", '"lisbon"') < 0.5


def test_keyword_matches_stemmed_forms_of_the_users_own_rows_only(hf: Heedful) -> None:
    hf.memory.add("bob", [NewMessage("I was moving houses in May")], flush=True)
    hf.memory.add("alice", [NewMessage("moving is tiring, she said")], flush=True)
    bob_ids = {f.id for f in hf.store.memory.list_facts("bob")}
    found = keyword_scores(hf, "bob", '"moved" OR "house"')
    assert found and set(found) <= bob_ids


@pytest.mark.sqlite_only(reason="SQLite's term tables and their migration")
def test_terms_are_built_for_rows_stored_before_the_migration(hf: Heedful) -> None:
    from heedful.store.sqlite.terms import rebuild_terms

    hf.memory.add("bob", [NewMessage(text) for text in BOB], flush=True)
    before = keyword_scores(hf, "bob", '"fish" OR "bike"')
    with hf.store.transaction() as conn:
        conn.execute("DELETE FROM fact_terms")
        conn.execute("DELETE FROM user_term_totals")
        assert keyword_scores(hf, "bob", '"fish" OR "bike"') == {}
        rebuild_terms(conn)
    assert keyword_scores(hf, "bob", '"fish" OR "bike"') == before
