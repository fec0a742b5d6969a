"""A turn does not repeat the rules the agent already has in its context (real hook subprocess):
turn 2 leaves out turn 1's lines, a compaction or a new SessionStart brings them back, an edited rule
is shown again, and a blocked action still names its rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.hook_fixtures import taught_project

from heedful.api import Heedful
from heedful.integrations.payloads import claude, claude_bash, gemini, hook_env, run_hook

TASK = "install the requests package and keep the reply short"


def _run(home: Path, platform: str, payload: dict[str, Any]) -> str:
    code, out, err, _ = run_hook(platform, payload, hook_env(home, user="me", HEEDFUL_EMBEDDER="hashing"))
    assert code == 0, err
    return out


def _context(home: Path, cwd: Path, session: str, prompt: str = TASK) -> str:
    out = _run(home, "claude-code", claude("UserPromptSubmit", session, str(cwd), prompt=prompt))
    answer: dict[str, Any] = json.loads(out) if out.strip() else {}
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def _rule_lines(context: str) -> list[str]:
    return [line for line in context.splitlines() if line.startswith("- ")]


def test_turn_two_does_not_repeat_turn_one_and_compaction_brings_them_back(home: Path, tmp_path: Path) -> None:
    project = taught_project(home, tmp_path)
    first = _context(home, project, "s1")
    assert any("uv" in line for line in _rule_lines(first))
    assert any("20 words" in line for line in _rule_lines(first))
    second = _context(home, project, "s1")
    assert _rule_lines(second) == []
    assert "shown earlier in this session" in second
    assert "checked rule(s) are enforced" in second  # the armed note stays: it costs one line
    _run(home, "claude-code", claude("SessionStart", "s1", str(project), source="compact"))
    assert _rule_lines(_context(home, project, "s1")) == _rule_lines(first)
    assert _rule_lines(_context(home, project, "s1")) == []
    _run(home, "claude-code", claude("PreCompact", "s1", str(project), trigger="auto", custom_instructions=""))
    assert _rule_lines(_context(home, project, "s1")) == _rule_lines(first)
    assert _rule_lines(_context(home, project, "s2")) == _rule_lines(first)  # a new session has seen nothing


def test_a_resumed_session_is_shown_its_rules_again(home: Path, tmp_path: Path) -> None:
    project = taught_project(home, tmp_path)
    first = _context(home, project, "s1")
    _run(home, "claude-code", claude("SessionStart", "s1", str(project), source="resume"))
    assert _rule_lines(_context(home, project, "s1")) == _rule_lines(first)


def test_a_rule_edited_between_turns_is_shown_again_alone(home: Path, tmp_path: Path) -> None:
    project = taught_project(home, tmp_path)
    _context(home, project, "s1")
    with Heedful.open(home, embedder="hashing") as hf:
        rule = next(r for r in hf.rules.list("me", project=project) if "20 words" in r["text"])
        hf.rules.edit("me", rule["id"], text="keep final replies under 15 words")
    lines = _rule_lines(_context(home, project, "s1"))
    assert len(lines) == 1 and "15 words" in lines[0]


def test_a_blocked_action_names_its_rule_on_a_turn_that_did_not_repeat_it(home: Path, tmp_path: Path) -> None:
    project = taught_project(home, tmp_path)
    _context(home, project, "s1")
    assert _rule_lines(_context(home, project, "s1")) == []
    out = json.loads(_run(home, "claude-code", claude_bash("s1", str(project), "pip install requests")))
    output = out["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    with Heedful.open(home, embedder="hashing") as hf:
        rule = next(r for r in hf.rules.list("me", project=project) if "pip" in r["text"])
    assert rule["id"] in output["permissionDecisionReason"]


def test_gemini_precompress_brings_the_rules_back(home: Path, tmp_path: Path) -> None:
    project = taught_project(home, tmp_path)

    def lines() -> list[str]:
        out = json.loads(_run(home, "gemini", gemini("BeforeAgent", "g1", str(project), prompt=TASK)))
        return _rule_lines(str(out.get("hookSpecificOutput", {}).get("additionalContext", "")))

    first = lines()
    assert first and lines() == []
    assert json.loads(_run(home, "gemini", gemini("PreCompress", "g1", str(project), trigger="auto"))) == {}
    assert lines() == first


def test_the_session_bench_counts_fewer_tokens_on_later_turns_when_lines_are_not_repeated() -> None:
    from heedful.bench.selection_session import run
    from heedful.enforce import select

    before = (select.TOKEN_BUDGET, select.LATER_TOKEN_BUDGET)
    report = run(rules=60, sessions=2, turns=3, budgets=((2000, 2000),))
    modes = report["budgets"]["2000/2000"]
    assert modes["shown"]["first_turn"] == modes["repeat"]["first_turn"]
    assert modes["shown"]["session_total_mean"] < modes["repeat"]["session_total_mean"]
    assert modes["shown"]["recall"] >= modes["repeat"]["recall"]
    assert before == (select.TOKEN_BUDGET, select.LATER_TOKEN_BUDGET)  # the bench puts the budgets back
