"""staged_path, commit_message, reply_count_limit, reply_forbidden_text: behaviour, cases, never raising."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heedful.rules.checks import KINDS, evaluate

NEW_KINDS = {
    "staged_path": [{"globs": [".envrc"]}, {"globs": ["*.pem", "secrets/**"]}],
    "commit_message": [
        {"forbid": ["Co-Authored-By", "emoji"]},
        {"require": "^(feat|fix)(\\(.+\\))?: "},
        {"max_subject": 50},
        {"require": "Signed-off-by: "},
    ],
    "reply_count_limit": [
        {"unit": u, "limit": n} for u in ("lines", "bullets", "sentences", "paragraphs") for n in (1, 3)
    ],
    "reply_forbidden_text": [{"patterns": ["emoji"]}, {"patterns": ["Great question", "As an AI"]}],
}
CASES = [(kind, params) for kind, many in NEW_KINDS.items() for params in many]
anything = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=30),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
    max_leaves=12,
)
shellish = st.lists(
    st.sampled_from(
        [
            *"ab -'\"\n<>$()=|&;",
            "git ",
            "commit ",
            "add ",
            "-m ",
            "-am ",
            "-F ",
            "<<EOF",
            "EOF",
            ".envrc ",
            "$(cat ",
            "🚀",
            "Co-Authored-By",
        ]
    ),
    max_size=25,
).map("".join)


def bash(command: str, **extra: Any) -> dict[str, Any]:
    return {"action": {"tool": "Bash", "command": command}, **extra}


@pytest.mark.parametrize(("kind", "params"), CASES)
def test_generated_cases_validate(kind: str, params: dict[str, Any]) -> None:
    module = KINDS[kind]
    cases = module.cases(params)
    assert 3 <= len(cases) <= 9 and any(c.expected == "not_applicable" for c in cases)
    for case in cases:
        assert evaluate(kind, params, case.stage, case.evidence).result == case.expected, case
        assert module.review(params, case.stage, case.evidence) == case.expected, case


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from(sorted(NEW_KINDS)),
    params=st.one_of(anything, st.sampled_from(CASES).map(lambda c: c[1])),
    stage=st.sampled_from(["pre_action", "artifact", "delivery", "x"]),
    evidence=st.one_of(
        anything,
        st.builds(
            lambda line, text: {**bash(line), "delivery": text, "events": [{"kind": "write", "path": text}]},
            shellish,
            st.text(max_size=60),
        ),
    ),
)
def test_evaluate_never_raises(kind: str, params: Any, stage: str, evidence: Any) -> None:
    verdict = KINDS[kind].evaluate(params, stage, evidence)
    assert verdict.result in ("pass", "violated", "not_applicable", "unknown") and verdict.reason


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git add .envrc", "violated"),
        ("git add src/.envrc", "violated"),
        ("git commit -m x .envrc", "violated"),
        ("git add src/a.py && git commit -m fix", "pass"),
        ("git add -A", "unknown"),
        ("git commit -am fix", "unknown"),
        ("git status", "not_applicable"),
        ("cat .envrc", "not_applicable"),
    ],
)
def test_staged_path(command: str, expected: str) -> None:
    assert evaluate("staged_path", {"globs": [".envrc"]}, "pre_action", bash(command)).result == expected


def test_bulk_staging_after_writing_a_matching_file_is_a_violation() -> None:
    evidence = bash("git add . && git commit -m wip", events=[{"kind": "write", "path": "keys/server.pem"}])
    assert evaluate("staged_path", {"globs": ["*.pem"]}, "pre_action", evidence).result == "violated"


CLAUDE_COMMIT = (
    "git commit -m \"$(cat <<'EOF'\nfix: don't crash on empty input\n\n"
    'Co-Authored-By: Someone <someone@example.com>\nEOF\n)"'
)


@pytest.mark.parametrize(
    ("params", "command", "expected"),
    [
        ({"forbid": ["Co-Authored-By"]}, CLAUDE_COMMIT, "violated"),
        ({"forbid": ["Co-Authored-By"]}, 'git commit -m "fix: x"', "pass"),
        ({"forbid": ["emoji"]}, 'git commit -m "✨ feat: sparkle"', "violated"),
        ({"forbid": ["Claude"]}, 'git commit -m "fix: claudette parser"', "pass"),
        ({"require": "^(feat|fix)(\\(.+\\))?: "}, 'git commit -am "fix(api): x"', "pass"),
        ({"require": "^(feat|fix)(\\(.+\\))?: "}, 'git commit -m "update stuff"', "violated"),
        ({"max_subject": 10}, 'git commit -m "a much longer subject"', "violated"),
        ({"max_subject": 10}, "git commit -F msg.txt", "unknown"),
        ({"max_subject": 10}, "git commit -F - <<EOF\nshort\nEOF", "pass"),
        ({"max_subject": 10}, "git log -1", "not_applicable"),
    ],
)
def test_commit_message(params: dict[str, Any], command: str, expected: str) -> None:
    assert evaluate("commit_message", params, "pre_action", bash(command)).result == expected


@pytest.mark.parametrize(
    ("unit", "limit", "reply", "expected"),
    [
        ("bullets", 2, "Intro\n- a\n- b\n- c", "violated"),
        ("bullets", 3, "- a\n* b\n1. c", "pass"),
        ("sentences", 2, "One. Two! Three?", "violated"),
        ("sentences", 2, "See e.g. the docs. Done.", "pass"),
        ("lines", 2, "a\n\nb\n", "pass"),
        ("paragraphs", 1, "a\n\nb", "violated"),
    ],
)
def test_reply_count_limit(unit: str, limit: int, reply: str, expected: str) -> None:
    params = {"unit": unit, "limit": limit}
    assert evaluate("reply_count_limit", params, "delivery", {"delivery": reply}).result == expected


@pytest.mark.parametrize(
    ("patterns", "reply", "expected"),
    [
        (["emoji"], "All green ✅", "violated"),
        (["emoji"], "All green (c) 2024 ™", "pass"),
        (["Great question"], "great question! here", "violated"),
        (["sorry"], "No sorrow here", "pass"),
    ],
)
def test_reply_forbidden_text(patterns: list[str], reply: str, expected: str) -> None:
    assert evaluate("reply_forbidden_text", {"patterns": patterns}, "delivery", {"delivery": reply}).result == expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("perf(db): batch the inserts", "pass"),
        ("feat!: drop support for Node 14", "pass"),
        ("ci: cache the wheels", "pass"),
        ("fix(parser): accept tabs", "pass"),
        ("Fixed the parser", "violated"),
        ("WIP", "violated"),
    ],
)
def test_a_conventional_commits_rule_accepts_every_type_the_specification_allows(message: str, expected: str) -> None:
    """ "Use Conventional Commits" names no types: the check must not invent a list that blocks `perf:` or `ci:`."""
    from compile_cases import compiled

    kind, params = compiled("Use Conventional Commits for commit messages.")
    assert kind == "commit_message"
    assert evaluate(kind, params, "pre_action", bash(f'git commit -m "{message}"')).result == expected
