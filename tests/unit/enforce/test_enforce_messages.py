"""Intervention texts: the rule, the match, the compliant alternative; appeal lines."""

from __future__ import annotations

from heedful.enforce import messages


def violation(**kw: object) -> dict[str, object]:
    base = {
        "rule_id": "r-1",
        "rule_text": "Use uv, not pip.",
        "reason": "runs the forbidden command `pip`",
        "quotes": ["pip install x"],
        "hint": "use uv instead",
    }
    return {**base, **kw}


def test_command_hints_rewrite_the_matched_command() -> None:
    assert messages.hint("forbidden_command", {"program": "pip", "alternatives": ["uv"]}, ["pip install x"]) == (
        "use uv, e.g. `uv pip install x`"
    )
    assert "`uv add x`" in messages.hint(
        "forbidden_command",
        {"program": "pip", "subcommand": ["install"], "alternatives": ["uv add"]},
        ["pip install x"],
    )
    force = {"program": "git", "subcommand": ["push"], "flags": [["--force", "-f"]]}
    assert "`git push origin feat`" in messages.hint("forbidden_command", force, ["git push -f origin feat"])
    assert "`pnpm install a`" in messages.hint(
        "forbidden_command", {"program": "npm", "alternatives": ["pnpm"]}, ["npm install a"]
    )
    assert "`rg -n foo`" in messages.hint(
        "forbidden_command", {"program": "grep", "alternatives": ["rg"]}, ["grep -n foo"]
    )
    assert "another way" in messages.hint("forbidden_command", {"program": "git"}, ["git push origin main"])
    push = {"program": "git", "subcommand": ["push"], "args": ["main"]}
    assert "feature branch" in messages.hint("forbidden_command", push, ["git push origin main"])


def test_the_instead_line_never_says_instead_twice() -> None:
    hint = messages.hint("forbidden_command", {"program": "pip", "alternatives": ["uv"]}, ["pip install x"])
    text = messages.deny([violation(hint=hint)], 1, 3)
    assert "Instead: use uv, e.g. `uv pip install x`." in text and "instead instead" not in text.lower()
    assert "instead" not in hint


def test_hints_for_every_kind() -> None:
    assert ".envrc" in messages.hint("staged_path", {"globs": [".envrc"]}, [])
    assert "Co-Authored-By" in messages.hint("commit_message", {"forbid": ["Co-Authored-By"]}, [])
    assert "5 bullets" in messages.hint("reply_count_limit", {"unit": "bullets", "limit": 5}, [])
    assert messages.hint("reply_count_limit", {"unit": "bullets", "limit": 0}, []) == (
        "rewrite the reply as prose, without bullets"
    )
    assert "emoji" in messages.hint("reply_forbidden_text", {"patterns": ["emoji"]}, [])
    assert ".env" in messages.hint("forbidden_path", {"globs": [".env"]}, [])
    assert "`pytest`" in messages.hint("required_event", {"commands": [["pytest"]]}, [])
    assert "scratch_a.py" in messages.hint("workspace_leftovers", {"globs": ["scratch*"]}, ["scratch_a.py"])
    assert "49 words" in messages.hint("reply_word_limit", {"limit": 49}, [])
    assert "summary, risk" in messages.hint("reply_json_fields", {"fields": ["summary", "risk"]}, [])
    assert "do not set `mode`" in messages.hint("field_value", {"path": ["mode"], "op": "not_equals", "value": "x"}, [])
    assert messages.hint(None, {}, [])


def test_one_request_lists_every_violation_and_the_budget() -> None:
    text = messages.revise([violation(), violation(rule_id="r-2", rule_text="Keep replies short.")], 2, 3)
    assert "breaks 2 rules" in text and "1. “Use uv, not pip.” [r-1]" in text
    assert "2. “Keep replies short.” [r-2]" in text
    assert "revision 2 of 3" in text and "heedful-appeal" not in text  # how to appeal is said once a turn
    first = messages.revise([violation()], 1, 3)
    assert "revision 1 of 3" in first and "`heedful-appeal <rule id>: <your evidence>`" in first
    assert all("earlier session" not in m(([violation()]), 1, 3) for m in (messages.deny, messages.feedback))
    deny = messages.deny([violation()], 1, 3)
    assert "was not run" in deny and "Matched: `pip install x`" in deny and "no need to stop" in deny
    assert "already run" in messages.feedback([violation()], 1, 3)


def test_appeal_lines_are_found_and_removed() -> None:
    text = "Done.\nheedful-appeal r-1a2b: the user asked for pip here\n> heedful-appeal r-9: ran tests in CI"
    clean, found = messages.appeals_in(text)
    assert clean == "Done."
    assert found == [("r-1a2b", "the user asked for pip here"), ("r-9", "ran tests in CI")]
    assert messages.appeals_in("no appeal here") == ("no appeal here", [])


def test_json_values_are_spelled_the_json_way() -> None:
    """A field's value in feedback is written as JSON writes it (`true`, not `True`)."""
    params = {"target": "artifact", "path": ["debug"], "op": "not_equals", "value": True}
    judged = violation(kind="field_value", params=params, reason="debug is True but must not be True", quotes=[])
    judged["hint"] = messages.hint("field_value", params, [])
    text = messages.feedback([judged], 1, 3)
    assert "`debug` is `true`" in text and "set `debug` to `true`" in text
    assert "True" not in text and "False" not in text
    wanted = {**params, "op": "equals", "value": False}
    assert "`debug` must be `false`" in messages.feedback([{**judged, "params": wanted}], 1, 3)
