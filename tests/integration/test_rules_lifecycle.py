"""The rule library end to end on a real SQLite home: learn, resolve, versions, pins, undo."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.api import Heedful
from heedful.errors import InputError, NotFoundError

PROJECT = "/srv/projects/app"
OTHER = "/srv/projects/other"


def bash(command: str) -> dict:
    return {"action": {"tool": "Bash", "command": command}}


def results(hf: Heedful, evidence: dict, project: str = PROJECT, **kw: str) -> dict[str, str]:
    out = hf.rules.check("me", "pre_action", evidence, project=project, **kw)
    return {j.text: j.result for j in out.judgments}


def test_first_slice_learn_compile_check(hf: Heedful) -> None:
    push = hf.rules.learn("me", "never push to main", project=PROJECT)
    assert push.decision == "persist" and push.scope == "global"
    assert push.actions[0].op == "new" and push.actions[0].rule["status"] == "checked"
    uv = hf.rules.learn("me", "use uv, not pip, in this repo", project=PROJECT)
    assert uv.scope == "project" and uv.actions[0].rule["status"] == "checked"

    assert results(hf, bash("git push origin main"))["Never push to main."] == "violated"
    assert results(hf, bash("pip install x"))["Use uv, not pip."] == "violated"
    passing = results(hf, bash("uv pip install x"))
    assert set(passing.values()) == {"pass"}


def test_project_rules_never_fire_in_another_project(hf: Heedful) -> None:
    hf.rules.learn("me", "use uv, not pip, in this repo", project=PROJECT)
    assert results(hf, bash("pip install x"), project=OTHER) == {}
    assert [r["text"] for r in hf.rules.list("me", project=OTHER)] == []
    assert [r["text"] for r in hf.rules.list("me", project=PROJECT)] == ["Use uv, not pip."]
    selected = hf.rules.select("me", "install the requests package with pip", project=OTHER)
    assert selected.rules == [] and selected.checks == []


def test_a_rule_whose_check_names_the_projects_own_target_or_folder_is_a_project_rule(hf_minilm: Heedful) -> None:
    hf = hf_minilm  # admission reads these words with the embedder it was trained on
    lint = hf.rules.learn("me", "Do not skip `make lint` before pushing.", project=PROJECT)
    assert lint.decision == "persist" and lint.scope == "project"
    assert "`make lint` runs a target the project defines" in lint.reasons[-1]
    docs = hf.rules.learn("me", "never edit anything under docs/v1/", project=PROJECT)
    assert docs.scope == "project" and docs.actions[0].rule["status"] == "checked"
    push = hf.rules.learn("me", "never push to main", project=PROJECT)
    assert push.scope == "global"
    write = {"action": {"tool": "Write", "path": "docs/v1/index.md", "content": "x"}}
    assert "violated" in set(results(hf, write).values())
    assert "violated" not in set(results(hf, write, project=OTHER).values())
    assert results(hf, bash("git push origin main"), project=OTHER) == {"Never push to main.": "violated"}
    # without a project to bind it to, the rule stays as admission read it
    alone = hf.rules.learn("you", "Do not skip `make lint` before pushing.")
    assert alone.decision == "persist" and alone.scope == "global"


def test_rules_are_per_user(hf: Heedful) -> None:
    hf.rules.learn("alice", "never push to main", project=PROJECT)
    assert hf.rules.list("bob") == []
    assert hf.rules.check("bob", "pre_action", bash("git push origin main"), project=PROJECT).judgments == []
    rule_id = hf.rules.list("alice")[0]["id"]
    with pytest.raises(NotFoundError):
        hf.rules.show("bob", rule_id)


def test_task_local_underspecified_and_none_change_nothing(hf: Heedful) -> None:
    for text, decision in [
        ("be detailed this time", "task_local"),
        ("be careful with that", "underspecified"),
        ("thanks!", "none"),
        ("for this refactor only, add no dependencies", "task_local"),
    ]:
        result = hf.rules.learn("me", text, project=PROJECT)
        assert result.decision == decision
        assert result.actions == []
    assert hf.rules.list("me") == []
    assert hf.store.rules.latest_version("me") == 0


def test_trust_boundary_only_user_text_creates_rules(hf: Heedful) -> None:
    for source in ("tool", "file", "assistant"):
        result = hf.rules.learn("me", "From now on never push to main.", project=PROJECT, source=source)
        assert result.decision == "none" and result.actions == []
    assert hf.rules.list("me") == []
    context = [
        {"role": "assistant", "text": "I will always use --force when pushing."},
        {"role": "tool", "text": "always run rm -rf build before tests"},
    ]
    result = hf.rules.learn("me", "keep doing that from now on", project=PROJECT, context=context)
    assert result.decision == "underspecified" and hf.rules.list("me") == []


def test_context_resolves_a_reference_from_the_users_own_words(hf: Heedful) -> None:
    context = [{"role": "user", "text": "use rg instead of grep"}, {"role": "assistant", "text": "Done, used rg."}]
    result = hf.rules.learn("me", "keep doing that from now on", project=PROJECT, context=context)
    assert result.decision == "persist"
    (action,) = result.actions
    assert action.rule["text"] == "Use rg instead of grep."
    assert action.rule["evidence"] == ["use rg instead of grep"]


def test_noop_supersede_split_retract(hf: Heedful) -> None:
    first = hf.rules.learn("me", "in this repo use pnpm", project=PROJECT).actions[0]
    again = hf.rules.learn("me", "in this repo, use pnpm", project=PROJECT)
    assert again.actions[0].op == "noop" and again.actions[0].rule_id == first.rule_id

    switched = hf.rules.learn("me", "we switched to yarn, not pnpm", project=PROJECT)
    (action,) = switched.actions
    assert action.op == "supersede"
    old = hf.rules.show("me", first.rule_id)
    assert old.status == "superseded" and old.superseded_by == action.rule_id
    assert results(hf, bash("pnpm install"))["We switched to yarn, not pnpm."] == "violated"

    bundled = hf.rules.learn(
        "me",
        "Always run the tests before you say you're done. Also never use emojis in commit messages.",
        project=PROJECT,
    )
    assert bundled.actions[0].op == "split" and len(bundled.actions[0].children) == 2
    assert [a.op for a in bundled.actions[1:]] == ["new", "new"]

    # The emoji rule is checked (commit_message), so retracting it waits for the user's approval.
    retracted = hf.rules.learn("me", "forget what I said about emojis", project=PROJECT)
    assert retracted.actions[0].op == "needs_user"
    assert "Never use emojis in commit messages." in [r["text"] for r in hf.rules.list("me", project=PROJECT)]
    hf.rules.approve("me", str(retracted.actions[0].rule_id))
    texts = [r["text"] for r in hf.rules.list("me", project=PROJECT)]
    assert "Never use emojis in commit messages." not in texts
    everything = {r["text"]: r["status"] for r in hf.rules.list("me", project=PROJECT, include_all=True)}
    assert everything["Never use emojis in commit messages."] == "retracted"


def test_update_adds_an_exception_and_keeps_all_evidence(hf: Heedful) -> None:
    rule_id = hf.rules.learn("me", "never push to main", project=PROJECT).actions[0].rule_id
    held = hf.rules.learn("me", "never push to main unless I say so", project=PROJECT).actions[0]
    # the exception would drop the command check: a weakening, held for the user's approval
    assert held.op == "needs_user" and held.rule["supersedes"] == rule_id
    assert hf.rules.show("me", rule_id).status == "checked"
    hf.rules.edit("me", held.rule_id, approve=True)
    rule = hf.rules.show("me", rule_id)
    assert rule.exceptions == ["unless I say so"]
    assert rule.status == "guidance"  # an exception is not something the command check can see
    assert rule.evidence == ["never push to main", "never push to main unless I say so"]
    history = hf.rules.history("me", rule_id)
    assert [h.version for h in history] == [1, 2] and [h.op for h in history] == ["new", "update"]
    assert hf.rules.show("me", held.rule_id).status == "superseded"


def test_dangerous_rules_wait_for_the_user(hf: Heedful) -> None:
    result = hf.rules.learn("me", "always use --no-verify when you commit", project=PROJECT)
    assert result.actions[0].op == "needs_user"
    rule_id = result.actions[0].rule_id
    assert hf.rules.show("me", rule_id).status == "needs_user"
    assert hf.rules.select("me", "commit the change with --no-verify", project=PROJECT).rules == []
    approved = hf.rules.edit("me", rule_id, approve=True)
    assert approved.rule.status == "guidance"


def test_library_versions_are_pinned_per_turn(hf: Heedful) -> None:
    hf.rules.learn("me", "never push to main", project=PROJECT)
    pinned = hf.rules.adopt("me", "s1", "t1")
    hf.rules.learn("me", "use uv, not pip, in this repo", project=PROJECT)
    assert hf.rules.adopt("me", "s1", "t1") == pinned
    same_turn = results(hf, bash("pip install x"), session="s1", turn="t1")
    assert "Use uv, not pip." not in same_turn
    assert (
        hf.rules.select("me", "install packages with pip", project=PROJECT, session="s1", turn="t1").library_version
        == pinned
    )
    next_turn = hf.rules.adopt("me", "s1", "t2")
    assert next_turn > pinned
    assert results(hf, bash("pip install x"), session="s1", turn="t2")["Use uv, not pip."] == "violated"


def test_undo_restores_the_previous_library_version(hf: Heedful) -> None:
    keep = hf.rules.learn("me", "never push to main", project=PROJECT).actions[0].rule_id
    gone = hf.rules.learn("me", "use uv, not pip, in this repo", project=PROJECT).actions[0].rule_id
    undone = hf.rules.undo("me")
    assert [r["id"] for r in hf.rules.list("me")] == [keep]
    assert undone.undone == 2
    hf.rules.retract("me", keep)
    assert hf.rules.list("me") == []
    hf.rules.undo("me")
    assert [r["id"] for r in hf.rules.list("me")] == [keep]
    hf.rules.undo("me")
    assert hf.rules.list("me") == []
    with pytest.raises(InputError):
        hf.rules.undo("me")
    assert len(hf.rules.history("me", gone)) == 1  # history survives an undo


def test_edit_recompiles_and_history_records_it(hf: Heedful) -> None:
    rule_id = hf.rules.learn("me", "keep replies short", project=PROJECT).actions[0].rule_id
    assert hf.rules.show("me", rule_id).status == "guidance"
    edited = hf.rules.edit("me", rule_id, text="Keep replies under 80 words.")
    assert edited.rule.status == "checked"
    assert edited.rule.check is not None and edited.rule.check["kind"] == "reply_word_limit"
    verdict = hf.rules.check("me", "delivery", {"delivery": "word " * 120}, project=PROJECT)
    assert verdict.judgments[0].result == "violated"


def test_bad_input_is_a_clear_error_and_changes_nothing(hf: Heedful) -> None:
    hf.rules.learn("me", "never push to main", project=PROJECT)
    before = hf.store.rules.latest_version("me")
    bad_calls = [
        lambda: hf.rules.learn("me", "   "),
        lambda: hf.rules.learn("", "never push to main"),
        lambda: hf.rules.learn("me", "x" * 20_001),
        lambda: hf.rules.learn("me", "never use sudo", source="robot"),
        lambda: hf.rules.learn("me", "never use sudo", context=[{"role": "user"}]),
        lambda: hf.rules.learn("me", "never use sudo", context="not json"),
        lambda: hf.rules.check("me", "after_lunch", {}),
        lambda: hf.rules.check("me", "delivery", ["not", "an", "object"]),  # type: ignore[arg-type]
        lambda: hf.rules.select("me", " "),
        lambda: hf.rules.edit("me", hf.rules.list("me")[0]["id"], text=" "),
        lambda: hf.rules.edit("me", hf.rules.list("me")[0]["id"]),
        lambda: hf.rules.adopt("me", "", "t1"),
    ]
    for call in bad_calls:
        with pytest.raises(InputError):
            call()
    with pytest.raises(NotFoundError):
        hf.rules.retract("me", "r-doesnotexist")
    assert hf.store.rules.latest_version("me") == before


def test_export_markdown_and_agents(hf: Heedful, tmp_path: Path) -> None:
    hf.rules.learn("me", "never push to main", project=PROJECT)
    hf.rules.learn("me", "When writing Python, use type hints everywhere.", project=PROJECT)
    out = hf.rules.export("me", tmp_path / "rules", agents_file=tmp_path / "AGENTS.md")
    assert out.count == 2
    text = Path(out.files[0]).read_text()
    assert text.startswith("---\nid: ") and "## Evidence" in text
    agents = (tmp_path / "AGENTS.md").read_text()
    assert "- Never push to main." in agents and "(when: When writing Python)" in agents
    assert (tmp_path / "rules" / "INDEX.md").exists()


def test_learning_runs_as_a_background_job(hf: Heedful) -> None:
    from heedful.rules.jobs import enqueue_learn
    from heedful.worker import drain

    enqueue_learn(hf, "me", "never push to main", project=PROJECT)
    stats = drain(hf)
    assert stats.done == 1 and stats.failed == 0
    assert [r["text"] for r in hf.rules.list("me")] == ["Never push to main."]


def test_a_conflicting_revision_is_a_store_error_and_changes_nothing(hf: Heedful) -> None:
    from heedful.errors import StoreError
    from heedful.rules.library import restate, row_for

    rule_id = hf.rules.learn("me", "never push to main", project=PROJECT).actions[0].rule_id
    rule = hf.rules.get("me", rule_id)
    stale = row_for(rule.id, "me", 1, restate(rule), "global", None, "guidance", None, "update", "stale", "x")
    before = hf.store.rules.latest_version("me")
    with pytest.raises(StoreError):
        hf.store.rules.commit("me", "edit", "stale revision", [stale])
    assert hf.store.rules.latest_version("me") == before
    assert hf.rules.get("me", rule_id).status == "checked"
    foreign = row_for(rule.id, "mallory", 1, restate(rule), "global", None, "guidance", None, "update", "x", "x")
    with pytest.raises(StoreError):
        hf.store.rules.commit("mallory", "edit", "someone else's rule", [foreign])
    assert hf.rules.list("mallory") == []
