"""The rule store contract, on SQLite and on PostgreSQL: revisions, library versions, undo, pins."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from rule_rows import rule

from heedful.errors import StoreError


def test_commits_make_immutable_library_versions(store: Any) -> None:
    rules = store.rules
    assert rules.latest_version("me") == 0 and rules.rules_at("me", 0) == []
    first = rules.commit("me", "learn", "two rules", [rule("r-1", "Use uv"), rule("r-2", "No force push")])
    assert first == 1 and rules.latest_version("me") == 1
    second = rules.commit("me", "edit", "edit r-1", [rule("r-1", "Use uv for installs", version=2)])
    assert second == 2
    assert [(r.id, r.version, r.text) for r in rules.rules_at("me", 1)] == [
        ("r-1", 1, "Use uv"),
        ("r-2", 1, "No force push"),
    ]
    now = rules.rules_at("me", 2)
    assert [(r.id, r.version) for r in now] == [("r-1", 2), ("r-2", 1)]
    assert now[0].check_spec == {"kind": "command", "pattern": "pip install"} and now[0].evidence == [
        "you used pip again"
    ]
    assert now[0].library_version == 2 and now[0].created_at and now[0].rule_created_at
    assert [r.version for r in rules.history("me", "r-1")] == [1, 2]
    assert rules.next_rule_version("me", "r-1") == 3 and rules.next_rule_version("me", "r-new") == 1
    at = rules.rule_at("me", "r-1", 1)
    assert at is not None and at.text == "Use uv"
    assert rules.rule_at("me", "r-missing", 2) is None
    assert [(v.version, v.base_version, v.kind) for v in rules.library_versions("me")] == [
        (1, 0, "learn"),
        (2, 1, "edit"),
    ]
    assert rules.latest_version("other") == 0 and rules.history("other", "r-1") == []  # per user


def test_scope_status_and_embeddings(store: Any) -> None:
    rules = store.rules
    vector = np.arange(4, dtype=np.float32)
    rules.commit(
        "me",
        "learn",
        "mixed",
        [
            rule("r-g", "global", embedding=vector),
            rule("r-p", "project a", scope="project", project="/a"),
            rule("r-q", "project b", scope="project", project="/b", status="needs_user"),
        ],
    )
    assert [r.id for r in rules.rules_at("me", 1)] == ["r-g"]
    assert [r.id for r in rules.rules_at("me", 1, project="/a")] == ["r-g", "r-p"]
    assert [r.id for r in rules.rules_at("me", 1, any_project=True, statuses=["needs_user"])] == ["r-q"]
    with_vectors = rules.rules_at("me", 1, with_embeddings=True)
    assert with_vectors[0].embedding is not None and with_vectors[0].embedding.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert rules.rules_at("me", 1)[0].embedding is None


def test_undo_restores_the_previous_snapshot_as_a_new_version(store: Any) -> None:
    rules = store.rules
    assert rules.undo("me") is None
    rules.commit("me", "learn", "one", [rule("r-1", "Use uv")])
    rules.commit("me", "learn", "two", [rule("r-2", "No force push")])
    assert rules.undo("me") == (2, 3)
    assert [r.id for r in rules.rules_at("me", 3)] == ["r-1"]
    assert rules.undo("me") == (1, 4)
    assert rules.rules_at("me", 4) == []
    assert rules.undo("me") is None
    versions = rules.library_versions("me")
    assert [(v.version, v.undone_by) for v in versions] == [(1, 4), (2, 3), (3, None), (4, None)]


def test_a_stale_revision_or_another_users_rule_is_refused(store: Any) -> None:
    rules = store.rules
    rules.commit("me", "learn", "one", [rule("r-1", "Use uv")])
    with pytest.raises(StoreError, match="changed while"):
        rules.commit("me", "edit", "stale", [rule("r-1", "Use uv!", version=1)])
    with pytest.raises(StoreError):
        rules.commit("mallory", "edit", "not hers", [replace(rule("r-1", "mine", version=2), user_id="mallory")])
    assert rules.latest_version("me") == 1 and rules.latest_version("mallory") == 0


def test_a_turn_keeps_the_version_it_was_pinned_to(store: Any) -> None:
    rules = store.rules
    rules.commit("me", "learn", "one", [rule("r-1", "Use uv")])
    assert rules.pinned("me", "s1", "t1") is None
    assert rules.pin("me", "s1", "t1") == 1
    rules.commit("me", "learn", "two", [rule("r-2", "No force push")])
    assert rules.pin("me", "s1", "t1") == 1 and rules.pinned("me", "s1", "t1") == 1
    assert rules.pin("me", "s1", "t2") == 2
    assert store.enforce.pin("me", "s1", "t3") == 2 and store.enforce.pin("me", "s1", "t1") == 1
