"""The command vocabulary: prose names, subcommand and flag words, roles and alternatives."""

from __future__ import annotations

import pytest

from heedful.rules import vocabulary as vocab


def read(text: str) -> list[tuple[str, str, list[str], list[list[str]], list[str]]]:
    return [(m.program, m.role, m.subcommand, m.flags, m.concepts) for m in vocab.read_commands(text)]


@pytest.mark.parametrize(
    ("word", "program"),
    [
        ("ripgrep", "rg"),
        ("homebrew", "brew"),
        ("pip3", "pip"),
        ("mercurial", "hg"),
        ("fd-find", "fd"),
        ("fdfind", "fdfind"),
    ],
)
def test_prose_names_map_to_programs(word: str, program: str) -> None:
    assert vocab.program_named(word) == program


def test_multiword_names_and_roles() -> None:
    assert read("use the github cli, not curl") == [("gh", "prefer", [], [], []), ("curl", "forbid", [], [], [])]
    assert read("prefer rg over grep")[1][:2] == ("grep", "forbid")
    assert read("switched from npm to pnpm") == [("npm", "forbid", [], [], []), ("pnpm", "prefer", [], [], [])]


def test_subcommand_synonyms_flags_and_concepts() -> None:
    assert read("no global yarn installs") == [("yarn", "forbid", ["add"], [], ["global"])]
    assert read("No force pushes. Ever.") == [("git", "forbid", ["push"], [], ["force"])]
    assert read("never rm -rf") == [("rm", "forbid", [], [["-r", "-R", "--recursive"], ["-f", "--force"]], [])]
    assert read("never git add -A")[0][3] == [["--all", "-A"]]


def test_english_words_are_programs_only_in_command_context() -> None:
    assert read("Do not skip tests to make the suite pass") == []
    assert read("Never run make e2e")[0][:3] == ("make", "forbid", ["e2e"])


def test_family_defaults_and_activities() -> None:
    assert vocab.family_default("uv") == "pip" and vocab.family_default("pnpm") == "npm"
    assert vocab.family_default("pip") is None and vocab.family_default("grep") is None
    # a search tool stands in for its usual one, though the search family has no single default
    assert vocab.family_default("rg") == "grep" and vocab.family_default("fd") == "find"
    assert {"search", "files"} <= vocab.activity_words("find")


def test_force_push_does_not_include_force_with_lease() -> None:
    rule = vocab.concept_flags("git", "force", ["push"])
    assert rule is not None and all("--force-with-lease" not in group for group in rule.flags)
