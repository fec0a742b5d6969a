"""One user never sees another's data, through any call."""

from __future__ import annotations

import pytest

from heedful.api import Heedful
from heedful.errors import NotFoundError


def test_two_users_are_isolated_everywhere(hf: Heedful) -> None:
    hf.memory.add("alice", "I live in Berlin and I love hiking", flush=True)
    hf.memory.add("bob", "I live in Oslo and I love sailing", flush=True)
    alice_fact = hf.memory.list("alice")[0]

    assert all(
        "Oslo" not in i.text and "sailing" not in i.text for i in hf.memory.recall("alice", "Oslo sailing").items
    )
    assert all("Berlin" not in f.statement for f in hf.memory.list("bob", include_inactive=True))
    with pytest.raises(NotFoundError):
        hf.memory.history("bob", alice_fact.id)
    with pytest.raises(NotFoundError):
        hf.memory.delete("bob", alice_fact.id)
    with pytest.raises(NotFoundError):
        hf.memory.correct("bob", alice_fact.id, "The user lives in Rome")

    hf.memory.forget("bob", "I live in Berlin")  # bob's request touches nothing of alice's
    assert any("Berlin" in f.statement for f in hf.memory.list("alice"))
    hf.memory.undo("bob")
    assert hf.store.memory.get_fact("alice", alice_fact.id).expired_at is None  # type: ignore[union-attr]

    hf.memory.dream("alice")
    hf.memory.dream("bob")
    assert "Oslo" not in hf.memory.profile("alice").statement  # type: ignore[union-attr]
    assert "Berlin" not in hf.memory.profile("bob").statement  # type: ignore[union-attr]
    assert hf.store.memory.get_facts("bob", [alice_fact.id]) == {}
