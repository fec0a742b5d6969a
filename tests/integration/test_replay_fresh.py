"""The fresh replay set: its shape, how it loads, and how a miss is diagnosed (not its figures)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from heedful.bench import replay
from heedful.errors import InputError

FRESH = replay.DATA / "fresh" / "replay_fresh.json"
LEARN = {"lasting", "task_local", "underspecified", "none", "retract", "supersede"}
VALUE = {"bash": "command", "reply": "reply", "write": "path", "edit": "path"}


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    return replay.load(FRESH)


def test_every_teach_item_has_a_unique_tag_a_message_a_reply_and_what_it_should_teach(spec: dict[str, Any]) -> None:
    items = spec["teach"] + spec["retrain"]
    tags = [item["tag"] for item in items]
    assert len(tags) == len(set(tags))
    for item in items:
        assert item["prompt"].strip() and item["reply"].strip(), item
        assert item["learn"] in LEARN, item
    kinds = Counter(item["learn"] for item in spec["teach"])
    assert kinds["lasting"] >= 12 and kinds["task_local"] + kinds["underspecified"] >= 4
    assert [item["learn"] for item in spec["retrain"]] == ["retract", "supersede"]


def test_every_event_is_complete_and_tagged_with_a_teach_item(spec: dict[str, Any]) -> None:
    tags = {item["tag"] for item in spec["teach"] + spec["retrain"]}
    events = spec["replay"] + spec["after"]
    assert len({e["id"] for e in events}) == len(events)
    for event in events:
        assert event["expect"] in ("block", "allow"), event
        assert event["tag"] in tags, event
        assert event["project"] in ("app", "lib") and event["platform"] in ("claude-code", "codex"), event
        assert event[VALUE[event["kind"]]].strip() and event["task"].strip(), event
        for step in event.get("setup", []):
            assert step["post"] in ("bash", "edit", "create", "delete"), event
            assert (step["command"] if step["post"] == "bash" else step["path"]).strip(), event


def test_the_set_is_balanced_across_outcomes_platforms_and_projects(spec: dict[str, Any]) -> None:
    events = spec["replay"]
    assert len(events) >= 50
    expects = Counter(e["expect"] for e in events)
    assert 0.4 <= expects["block"] / len(events) <= 0.6
    assert {e["platform"] for e in events} == {"claude-code", "codex"}
    assert {e["project"] for e in events} == {"app", "lib"}
    assert {e["kind"] for e in events} == set(VALUE)


def test_lasting_corrections_are_tested_both_ways_and_the_others_only_by_compliant_events(
    spec: dict[str, Any],
) -> None:
    events = spec["replay"] + spec["after"]
    for item in spec["teach"] + spec["retrain"]:
        expects = {e["expect"] for e in events if e["tag"] == item["tag"]}
        if item["learn"] in ("lasting", "supersede"):
            assert expects == {"block", "allow"}, item["tag"]
        elif item["learn"] in ("task_local", "underspecified", "retract"):
            assert expects == {"allow"}, item["tag"]


def test_the_fresh_set_lives_apart_from_the_default_replay(spec: dict[str, Any]) -> None:
    default = replay.load()
    ids = {e["id"] for e in default["replay"] + default["after"]}
    assert ids.isdisjoint(e["id"] for e in spec["replay"] + spec["after"])


def test_an_unreadable_replay_file_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "replay_bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="cannot read the replay file"):
        replay.load(bad)
    bad.write_text(json.dumps([1, 2]), encoding="utf-8")
    with pytest.raises(InputError, match="not a JSON object"):
        replay.load(bad)
    with pytest.raises(InputError, match="cannot read"):
        replay.load(tmp_path / "absent.json")


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"teach": {"prompt": "x"}}, r"teach is not a list"),
        ({"teach": [{"prompt": "never use npm"}]}, r"teach\[0\] needs text in reply"),
        ({"replay": [{"platform": "vim", "project": "app", "expect": "block"}]}, r"replay\[0\] needs platform"),
        (
            {"replay": [{"platform": "codex", "project": "app", "expect": "deny", "kind": "bash"}]},
            r"replay\[0\] needs expect block or allow",
        ),
        (
            {"after": [{"platform": "codex", "project": "lib", "expect": "allow", "kind": "bash", "id": "a"}]},
            r"after\[0\] needs text in task, command",
        ),
    ],
)
def test_a_malformed_replay_file_is_one_clear_error_before_anything_runs(
    tmp_path: Path, doc: dict[str, Any], message: str
) -> None:
    bad = tmp_path / "replay_bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError, match=message):
        replay.load(bad)


def test_every_bundled_replay_file_is_well_formed() -> None:
    for path in (None, replay.DATA / "fresh" / "replay_fresh.json", replay.DATA / "unseen" / "unseen_replay.json"):
        assert replay.load(path)["replay"]


def test_keep_refuses_a_directory_that_is_not_empty_before_running_anything(tmp_path: Path) -> None:
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "left-over").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="empty or new directory"):
        replay.run(FRESH, keep=keep)
    assert sorted(p.name for p in keep.iterdir()) == ["left-over"]


def _outcome(tag: str, expect: str, blocked: bool, reason: str | None = None) -> dict[str, Any]:
    return {
        "tag": tag,
        "expect": expect,
        "blocked": blocked,
        "reason": reason,
        "correct": blocked == (expect == "block"),
    }


def test_a_missed_violation_is_split_into_admission_and_compilation() -> None:
    learned = {
        "a": [],
        "b": [{"status": "guidance"}, {"status": "retracted"}],
        "c": [{"status": "checked"}],
        "d": [{"status": "superseded"}],
    }
    assert replay._diagnose(_outcome("a", "block", False), learned) == "missing"
    assert replay._diagnose(_outcome("b", "block", False), learned) == "guidance"
    assert replay._diagnose(_outcome("c", "block", False), learned) == "checked"
    assert replay._diagnose(_outcome("d", "block", False), learned) == "missing"
    assert replay._diagnose(_outcome("c", "allow", True, "Rule: no sudo"), learned) == "blocked by: Rule: no sudo"
    assert replay._diagnose(_outcome("c", "block", True), learned) is None
    assert replay._diagnose(_outcome("unknown", "block", False), learned) is None


def test_a_block_by_another_correction_s_rule_is_told_apart() -> None:
    learned = {"a": [{"id": "r-aaa", "status": "checked"}], "b": []}
    assert replay._own_rule(_outcome("a", "block", True, "1. “No sudo” [r-aaa]: ..."), learned) is True
    assert replay._own_rule(_outcome("a", "block", True, "1. “No sudo” [r-bbb]: ..."), learned) is False
    assert replay._own_rule(_outcome("b", "block", True, "[r-aaa]"), learned) is False
    assert replay._own_rule(_outcome("a", "block", False), learned) is None


def test_results_are_counted_per_tag() -> None:
    rows = replay._by_tag(
        [
            _outcome("a", "block", True) | {"own_rule": True},
            _outcome("a", "block", True) | {"own_rule": False},
            _outcome("a", "block", False),
            _outcome("a", "allow", True),
            _outcome("b", "allow", False),
        ]
    )
    assert rows == {
        "a": {"violating": 3, "blocked": 2, "by_own_rule": 1, "compliant": 1, "wrongly_blocked": 1},
        "b": {"violating": 0, "blocked": 0, "by_own_rule": 0, "compliant": 1, "wrongly_blocked": 0},
    }
