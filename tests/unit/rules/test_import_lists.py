"""A line of an instruction file that says when a list of commands is due is read with its list."""

from __future__ import annotations

from pathlib import Path

from heedful.api import Heedful
from heedful.rules.import_lists import join_command_lists
from heedful.rules.import_parse import parse
from heedful.rules.importer import import_rules

FILE = """# Notes

Before opening a PR, run:

- `swift test`
- `swiftlint --strict`

When making changes, always verify that the project builds and passes tests:

- Build the project: `swift build`
- Run tests: `swift test`

Run the gates and fix any issues:

- `npm run lint`

The co-author line must use the format, after each commit:

- For codex: `Co-Authored-By: Codex <codex@example.com>`

Before committing:

- `make lint`
- Never push to main.
"""


def test_an_intro_naming_a_moment_is_read_with_its_commands() -> None:
    units, absorbed = join_command_lists(parse(FILE))
    texts = {u.line: u.text for u in units}
    assert texts[3] == "Before opening a PR, run: `swift test`, `swiftlint --strict`"
    assert texts[8].endswith("passes tests: `swift build`, `swift test`")
    assert absorbed == {5: 3, 6: 3, 10: 8, 11: 8, 23: 21}
    assert texts[21] == "Before committing: `make lint`"  # the rule after the command ends the list
    assert texts[13] == "Run the gates and fix any issues:"  # no moment: its items stay their own lines
    assert texts[17].startswith("The co-author line")  # a format is not a command


def test_the_commands_of_a_list_are_required_at_the_moment_its_intro_names(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text(FILE)
    with Heedful.open(tmp_path / "home", embedder="hashing") as hf:
        report = import_rules(hf, "me", [repo / "AGENTS.md"], project=repo)
        lines = {line.line: line for line in report.files[0].lines}
        assert not lines[5].directive and "line 3" in lines[5].reason
        (before_pr,) = [r for r in lines[3].rules if r.status == "checked"]
        assert before_pr.check is not None
        assert before_pr.check["params"]["commands"] == [["swift", "test"], ["swiftlint"]]
        edit = {"tool": "Bash", "command": "gh pr create --fill"}
        events = [{"kind": "edit", "path": "Sources/App.swift"}]
        report_pr = hf.rules.check("me", "pre_action", {"action": edit, "events": events}, project=repo)
        assert report_pr.blocked
        ran = [
            *events,
            {"kind": "command", "command": "swift test"},
            {"kind": "command", "command": "swiftlint --strict"},
        ]
        assert not hf.rules.check("me", "pre_action", {"action": edit, "events": ran}, project=repo).blocked
