"""The execution layer on a real SQLite home: turns pinned, events recorded, budget, own-text guard."""

from __future__ import annotations

from pathlib import Path

from heedful.api import Heedful
from heedful.enforce.engine import REPAIR_BUDGET, for_heedful


def test_a_turn_keeps_its_library_version_and_selection(hf: Heedful, tmp_path: Path) -> None:
    cwd = str(tmp_path)
    enforcer = for_heedful(hf, "me", "claude-code")
    first = enforcer.user_prompt("s1", "install requests", cwd)
    hf.rules.learn("me", "use uv, not pip, in this repo", project=tmp_path)
    assert enforcer.pre_tool("s1", "Bash", {"command": "pip install requests"}, cwd).decision == "allow"
    second = enforcer.user_prompt("s1", "install httpx", cwd)
    assert second.library_version == first.library_version + 1 and second.selected
    outcome = enforcer.pre_tool("s1", "Bash", {"command": "pip install httpx"}, cwd)
    assert outcome.decision == "deny" and "uv pip install httpx" in (outcome.message or "")
    assert hf.store.rules.pinned("me", "s1", second.turn) == second.library_version


def test_the_learning_job_pairs_the_prompt_with_the_previous_reply(hf: Heedful, tmp_path: Path) -> None:
    enforcer = for_heedful(hf, "me")
    enforcer.user_prompt("s1", "add a cache", str(tmp_path))
    enforcer.stop("s1", "Added an LRU cache.", str(tmp_path))
    result = enforcer.user_prompt("s1", "don't add caches without asking", str(tmp_path))
    assert result.job is not None
    job = hf.store.jobs.get(result.job)
    assert job is not None and job.kind == "rules.learn" and job.payload["source"] == "user"
    assert job.payload["context"] == [
        {"role": "user", "text": "add a cache"},
        {"role": "assistant", "text": "Added an LRU cache."},
    ]


def test_heedfuls_own_revision_text_is_never_learned(hf: Heedful, tmp_path: Path) -> None:
    enforcer = for_heedful(hf, "me")
    enforcer.user_prompt("s1", "fix it", str(tmp_path))
    echoed = "Before this reply is final: it breaks a rule the user taught (heedful)."
    assert enforcer.user_prompt("s1", echoed, str(tmp_path)).job is None


def test_budget_counts_every_intervention_of_the_turn(hf: Heedful, tmp_path: Path) -> None:
    hf.rules.learn("me", "never push to main", project=tmp_path)
    enforcer = for_heedful(hf, "me")
    enforcer.user_prompt("s1", "ship", str(tmp_path))
    decisions = [
        enforcer.pre_tool("s1", "Bash", {"command": "git push origin main"}, str(tmp_path)).decision
        for _ in range(REPAIR_BUDGET + 2)
    ]
    assert decisions == ["deny"] * (REPAIR_BUDGET + 2)  # a forbidden action is never let through
    entries = hf.store.enforce.entries("me", "s1")
    assert [e["action"] for e in entries] == ["deny"] * (REPAIR_BUDGET + 2)
    assert "budget spent" in entries[-1]["detail"]
    assert hf.store.enforce.turn("me", "s1", entries[-1]["turn_id"])["revisions"] == REPAIR_BUDGET


def test_events_are_scoped_by_user_and_session(hf: Heedful, tmp_path: Path) -> None:
    alice, bob = for_heedful(hf, "alice"), for_heedful(hf, "bob")
    alice.post_tool("s1", "Bash", {"command": "pytest"}, {}, str(tmp_path))
    bob.post_tool("s1", "Bash", {"command": "ls"}, {}, str(tmp_path))
    assert [e["command"] for e in hf.store.enforce.events("alice", "s1")] == ["pytest"]
    assert [e["command"] for e in hf.store.enforce.events("bob", "s1")] == ["ls"]
    assert hf.store.enforce.session("carol", "s1") is None


def test_appeal_through_the_api_is_reviewed_by_recheck(hf: Heedful, tmp_path: Path) -> None:
    hf.rules.learn("me", "always run pytest before saying you are done", project=tmp_path)
    enforcer = for_heedful(hf, "me")
    cwd = str(tmp_path)
    enforcer.user_prompt("s1", "fix the bug", cwd)
    enforcer.post_tool("s1", "Edit", {"file_path": str(tmp_path / "a.py")}, {}, cwd)
    revise = enforcer.stop("s1", "Fixed.", cwd)
    rule_id = revise.violations[0]["rule_id"]
    upheld = enforcer.appeal("s1", rule_id, "tests ran elsewhere", "Fixed.", cwd)
    assert upheld.outcome == "appeal_upheld" and upheld.decision == "revise"
    refused = enforcer.appeal("s1", rule_id, "really", "Fixed.", cwd)
    assert refused.outcome == "appeal_refused"
