"""Exceptions that name what stays allowed, and "push" as another verb than git's.

- "--force-with-lease is fine" after a force-push ban is an exception the check already leaves out; before,
  the allowed flag joined the banned ones and, flag groups being all required, the check blocked nothing;
- an exception no evidence decides ("unless it is a release") keeps the rule guidance (the word "release"
  used to read as the lease exception);
- "push back", "push for", "push in new code" are not `git push`; "push on develop" still is.

Every phrasing is written for this test (none is a corpus sentence).
"""

from __future__ import annotations

import pytest

from compile_cases import compiled, run


@pytest.mark.parametrize(
    "rule",
    [
        "Never force push, --force-with-lease is fine.",
        "Never force push, but `--force-with-lease` is ok.",
        "never git push --force, --force-with-lease is allowed",
    ],
)
def test_a_force_push_ban_with_lease_allowed_blocks_force_and_passes_lease(rule: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command"
    assert run(params, "git push --force origin feature") == "violated"
    assert run(params, "git push -f origin feature") == "violated"
    assert run(params, "git push --force-with-lease origin feature") == "pass"


def test_another_flag_said_to_be_fine_leaves_the_ban_as_it_is() -> None:
    kind, params = compiled("Don't use --no-verify, --no-gpg-sign is fine")
    assert kind == "forbidden_command" and params["flags"] == [["--no-verify"]]
    assert run(params, "git commit --no-gpg-sign -m x") == "pass"
    assert run(params, "git commit --no-verify -m x") == "violated"


@pytest.mark.parametrize(
    "rule",
    ["Never commit unless it is a release.", "Don't push unless it's a release.", "never commit unless the tests pass"],
)
def test_an_exception_no_evidence_decides_keeps_the_rule_guidance(rule: str) -> None:
    assert compiled(rule) == (None, {})


@pytest.mark.parametrize(
    "rule",
    [
        "don't push in new code without tests",
        "Push back when the user is making a bad decision.",
        "push for small pull requests",
    ],
)
def test_push_as_another_verb_is_not_git_push(rule: str) -> None:
    kind, params = compiled(rule)
    assert not (kind == "forbidden_command" and params.get("program") == "git")


@pytest.mark.parametrize(("rule", "branch"), [("never push to main", "main"), ("Never push on develop.", "develop")])
def test_a_push_to_a_branch_stays_git_push(rule: str, branch: str) -> None:
    kind, params = compiled(rule)
    assert kind == "forbidden_command" and params["subcommand"] == ["push"]
    assert run(params, f"git push origin {branch}") == "violated"
