"""The user's current request overrides a learned rule for the turn; appeals filed with a tool call."""

from __future__ import annotations

import subprocess
from pathlib import Path

from heedful.api import Heedful
from heedful.enforce.engine import for_heedful
from heedful.enforce.override import override

WORDS = {"kind": "reply_word_limit", "params": {"limit": 20}}
LONG = " ".join(["word"] * 40) + "."


def test_explicit_requests_override_and_negated_or_unrelated_ones_do_not() -> None:
    assert override(WORDS, "give me a 200-word summary") == "give me a 200-word summary"
    assert override(WORDS, "summarise; longer than usual is fine this time") == "longer than usual is fine this time"
    assert override(WORDS, "explain the parser in detail") is not None
    assert override(WORDS, "give me a 10-word summary") is None  # within the limit: nothing to override
    assert override(WORDS, "don't write 200 words, keep it short") is None
    assert override(WORDS, "summarise what you changed") is None
    emoji = {"kind": "reply_forbidden_text", "params": {"patterns": ["emoji"]}}
    assert override(emoji, "write the release note, and use emoji this time") is not None
    assert override(emoji, "write the release note without emoji") is None
    pip = {"kind": "forbidden_command", "params": {"program": "pip"}}
    assert override(pip, "use pip this time, uv is broken here") is not None
    assert override(pip, "install requests with pip") is None  # no explicit permission: the rule holds
    assert override(pip, "don't use pip this time either") is None
    assert override({"kind": "forbidden_path", "params": {"globs": ["migrations/**"]}}, "edit it this time") is None


def test_the_rule_yields_for_the_turn_without_a_revision(hf: Heedful, tmp_path: Path) -> None:
    hf.rules.learn("me", "keep final replies under 20 words", project=tmp_path)
    enforcer = for_heedful(hf, "me")
    cwd = str(tmp_path)
    enforcer.user_prompt("s1", "give me a 60-word summary of the change", cwd)
    assert enforcer.stop("s1", LONG, cwd).decision == "allow"
    entries = hf.store.enforce.entries("me", "s1")
    assert [e["action"] for e in entries] == ["yielded"] and "60-word" in entries[0]["detail"]
    enforcer.user_prompt("s1", "and now summarise the tests", cwd)  # the next turn: the rule holds again
    assert enforcer.stop("s1", LONG, cwd).decision == "revise"


def test_an_appeal_filed_with_a_shell_call_is_not_run_and_reviewed_at_delivery(hf: Heedful, tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    hf.rules.learn("me", "keep final replies under 20 words", project=tmp_path)
    enforcer = for_heedful(hf, "me")
    cwd = str(tmp_path / "sub")
    (tmp_path / "sub").mkdir()
    enforcer.user_prompt("s1", "summarise", cwd)
    asked = enforcer.stop("s1", LONG, cwd)
    assert asked.decision == "revise" and "heedful-appeal" in (asked.message or "")
    rule_id = asked.violations[0]["rule_id"]
    filed = enforcer.pre_tool("s1", "Bash", {"command": f"heedful-appeal {rule_id}: 'the user asked for detail'"}, cwd)
    assert filed.decision == "deny" and "filed" in (filed.message or "")
    # Offline review: only a compliant re-check overturns; the appeal is decided once, at the next delivery.
    assert enforcer.stop("s1", LONG, cwd, stop_hook_active=True).decision == "revise"
    actions = [e["action"] for e in hf.store.enforce.entries("me", "s1")]
    assert actions == ["revise", "filed_appeal", "appeal_upheld", "revise"]
    again = enforcer.stop("s1", LONG, cwd, stop_hook_active=True)
    assert "heedful-appeal" not in (again.message or "")  # the invitation is said once per turn
    assert [e["action"] for e in hf.store.enforce.entries("me", "s1")].count("appeal_upheld") == 1
