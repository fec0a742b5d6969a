"""`heedful rules import`: instruction files become rules through the correction pipeline, re-imports track lines."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from heedful.api import Heedful
from heedful.commands import rules_import
from heedful.errors import InputError
from heedful.rules.import_report import ImportReport
from heedful.rules.importer import import_rules
from heedful.rules.models import CheckReport

CLAUDE_MD = """\
---
description: house rules
---
# Acme API

This is a FastAPI service backed by Postgres; the code lives in `src/acme/`.

## Rules

- Use uv, not pip, for every Python dependency.
- Never force-push.
- Never edit files under `migrations/`; write a new migration
  with `alembic revision` instead.
- Keep functions small and give them clear names.

## Commands

- `uv run pytest`: run the tests.

```bash
pip install -e .
```
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "acme"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    return root


def _rules(hf: Heedful) -> dict[str, dict]:
    return {r["id"]: r for r in hf.rules.list("me", include_all=True)}


def _by_text(hf: Heedful, fragment: str) -> dict:
    found = [r for r in hf.rules.list("me") if fragment in r["text"]]
    assert len(found) == 1, (fragment, [r["text"] for r in hf.rules.list("me")])
    return found[0]


def _ops(report: ImportReport) -> list[str]:
    return [rule.op for f in report.files for line in f.lines for rule in line.rules]


def _pre_action(hf: Heedful, command: str, project: Path) -> CheckReport:
    return hf.rules.check("me", "pre_action", {"action": {"tool": "Bash", "command": command}}, project=project)


def test_dry_run_reports_and_changes_nothing(hf: Heedful, repo: Path) -> None:
    before = hf.store.rules.latest_version("me")
    report = import_rules(hf, "me", [repo / "CLAUDE.md"], dry_run=True)
    assert hf.store.rules.latest_version("me") == before
    assert hf.rules.list("me") == []
    lines = {line.line: line for line in report.files[0].lines}
    assert not lines[4].directive and lines[4].reason == "a heading"
    assert not lines[6].directive  # the description of the project
    assert lines[10].directive and lines[10].rules[0].check is not None
    assert lines[10].rules[0].check["kind"] == "forbidden_command"
    assert lines[10].rules[0].check["params"]["program"] == "pip"
    assert not lines[18].directive  # a glossary entry, not a rule
    assert all(line.line < 20 for line in report.files[0].lines)  # the code fence is not read
    assert report.library_version is None and report.dry_run


def test_import_creates_project_rules_with_line_evidence(hf: Heedful, repo: Path) -> None:
    report = import_rules(hf, "me", [repo / "CLAUDE.md"])
    assert report.library_version is not None
    assert report.files[0].scope == "project" and report.files[0].project == str(repo.resolve())
    pip = _by_text(hf, "pip")
    assert pip["status"] == "checked" and pip["check"]["kind"] == "forbidden_command"
    assert pip["scope"] == "project" and pip["project"] == str(repo.resolve())
    assert pip["evidence"] == ["CLAUDE.md:10: Use uv, not pip, for every Python dependency"]
    push = _by_text(hf, "force-push")
    assert push["status"] == "checked" and push["check"]["params"]["program"] == "git"
    names = _by_text(hf, "clear names")
    assert names["status"] == "guidance"
    shown = hf.rules.show("me", pip["id"])
    assert shown.source_text.startswith("heedful-import/1 ")
    # The checks enforce in the repository, and only there.
    assert _pre_action(hf, "pip install requests", repo).blocked
    assert _pre_action(hf, "git push --force origin main", repo).blocked
    assert not _pre_action(hf, "uv add requests", repo).blocked
    assert not _pre_action(hf, "pip install requests", repo.parent).blocked


def test_reimport_is_a_noop(hf: Heedful, repo: Path) -> None:
    import_rules(hf, "me", [repo / "CLAUDE.md"])
    version = hf.store.rules.latest_version("me")
    before = _rules(hf)
    again = import_rules(hf, "me", [repo / "CLAUDE.md"])
    assert again.library_version is None and not again.changed()
    assert set(_ops(again)) <= {"noop", "skipped"} and "noop" in _ops(again)
    assert hf.store.rules.latest_version("me") == version and _rules(hf) == before


def test_edited_line_updates_its_rule_and_moves_the_others(hf: Heedful, repo: Path) -> None:
    import_rules(hf, "me", [repo / "CLAUDE.md"])
    pip = _by_text(hf, "pip")
    names = _by_text(hf, "clear names")
    text = CLAUDE_MD.replace("# Acme API\n", "# Acme API\n\nRead this first.\n")
    text = text.replace("Keep functions small and give them clear names.", "Keep functions under 40 lines.")
    (repo / "CLAUDE.md").write_text(text, encoding="utf-8")
    report = import_rules(hf, "me", [repo / "CLAUDE.md"])
    ops = _ops(report)
    assert "supersede" in ops or "update" in ops
    rules = _rules(hf)
    short = _by_text(hf, "40 lines")
    assert rules[names["id"]]["status"] in ("superseded", "guidance")
    if rules[names["id"]]["status"] == "superseded":
        assert short["id"] != names["id"] and rules[names["id"]]["superseded_by"] == short["id"]
    # Lines below the inserted one only moved: same rule, same check, the new line number.
    moved = rules[pip["id"]]
    assert moved["status"] == "checked" and moved["check"] == pip["check"]
    assert moved["evidence"] == ["CLAUDE.md:12: Use uv, not pip, for every Python dependency"]


def test_removed_line_retracts_only_its_rules(hf: Heedful, repo: Path) -> None:
    import_rules(hf, "me", [repo / "CLAUDE.md"])
    push = _by_text(hf, "force-push")
    others = {r["id"]: r for r in hf.rules.list("me") if r["id"] != push["id"]}
    (repo / "CLAUDE.md").write_text(CLAUDE_MD.replace("- Never force-push.\n", ""), encoding="utf-8")
    report = import_rules(hf, "me", [repo / "CLAUDE.md"])
    assert [r.rule_id for f in report.files for line in f.lines for r in line.rules if r.op == "retract"] == [
        push["id"]
    ]
    assert _rules(hf)[push["id"]]["status"] == "retracted"
    live = {r["id"]: r for r in hf.rules.list("me")}
    assert set(live) == set(others)
    assert all(live[i]["status"] == others[i]["status"] and live[i]["text"] == others[i]["text"] for i in live)
    assert not _pre_action(hf, "git push --force", repo).blocked


def test_rules_taught_by_correction_are_never_touched(hf: Heedful, repo: Path) -> None:
    taught = hf.rules.learn("me", "from now on, never force push", project=repo)
    taught_id = next(a.rule_id for a in taught.actions if a.op == "new")
    hf.rules.learn("me", "in this repo we use npm, not pnpm", project=repo)
    npm = _by_text(hf, "npm")
    (repo / "CLAUDE.md").write_text(CLAUDE_MD + "\n- Use pnpm, not npm.\n", encoding="utf-8")
    report = import_rules(hf, "me", [repo / "CLAUDE.md"])
    outcomes = {rule.text: rule for f in report.files for line in f.lines for rule in line.rules}
    assert any(r.op == "covered" and r.rule_id == taught_id for r in outcomes.values())
    conflict = next(r for r in outcomes.values() if "pnpm" in r.text)
    assert conflict.op == "conflict" and conflict.status == "inactive"
    # Removing every line retracts what the file produced and leaves the corrections as they were.
    (repo / "CLAUDE.md").write_text("# Acme API\n", encoding="utf-8")
    import_rules(hf, "me", [repo / "CLAUDE.md"])
    live = hf.rules.list("me")
    assert {r["id"] for r in live} == {taught_id, npm["id"]}
    assert all(r["version"] == 1 for r in live)
    assert hf.store.rules.history("me", taught_id)[-1].op == "new"


def test_user_edit_takes_an_imported_rule_over(hf: Heedful, repo: Path) -> None:
    import_rules(hf, "me", [repo / "CLAUDE.md"])
    names = _by_text(hf, "clear names")
    hf.rules.edit("me", names["id"], text="Keep functions small, with clear names and docstrings.")
    (repo / "CLAUDE.md").write_text(
        CLAUDE_MD.replace("- Keep functions small and give them clear names.\n", ""), encoding="utf-8"
    )
    import_rules(hf, "me", [repo / "CLAUDE.md"])
    assert _rules(hf)[names["id"]]["status"] == "guidance"  # the user's own version now: not retracted


def test_export_then_import_changes_nothing(hf: Heedful, repo: Path, tmp_path: Path) -> None:
    import_rules(hf, "me", [repo / "CLAUDE.md"])
    hf.rules.learn("me", "never use sudo", project=repo)
    hf.rules.learn("me", "when writing Python, use type hints", project=repo)
    before = _rules(hf)
    version = hf.store.rules.latest_version("me")
    agents = repo / "AGENTS.md"
    hf.rules.export("me", tmp_path / "exported", project=repo, agents_file=agents)
    report = import_rules(hf, "me", [agents])
    assert not report.changed(), [(r.op, r.text) for f in report.files for line in f.lines for r in line.rules]
    assert report.library_version is None
    assert hf.store.rules.latest_version("me") == version and _rules(hf) == before
    assert {r.op for f in report.files for line in f.lines for r in line.rules} == {"covered"}


def test_home_file_gives_global_rules(hf: Heedful, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user_home = tmp_path / "user"
    (user_home / ".claude").mkdir(parents=True)
    (user_home / ".claude" / "CLAUDE.md").write_text(
        "- Never use sudo.\n- Reply in under 200 words.\n", encoding="utf-8"
    )
    monkeypatch.setenv("HOME", str(user_home))
    report = import_rules(hf, "me", [user_home / ".claude"])
    assert report.files[0].scope == "global" and report.files[0].display == "~/.claude/CLAUDE.md"
    assert {r["scope"] for r in hf.rules.list("me")} == {"global"}
    words = _by_text(hf, "200 words")
    assert words["check"]["kind"] == "reply_word_limit" and words["check"]["params"]["limit"] == 200  # "under 200"


def test_bad_input_changes_nothing(hf: Heedful, repo: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        import_rules(hf, "me", [repo / "CLAUDE.md", tmp_path / "missing.md"])
    outside = tmp_path / "loose"
    outside.mkdir()
    (outside / "AGENTS.md").write_text("- Never use sudo.\n", encoding="utf-8")
    with pytest.raises(InputError, match="give --project"):
        import_rules(hf, "me", [outside / "AGENTS.md"])
    with pytest.raises(InputError, match="holds no agent-instruction file"):
        import_rules(hf, "me", [tmp_path / "loose" / ".."])
    (outside / "binary.md").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(InputError, match="not UTF-8"):
        import_rules(hf, "me", [outside / "binary.md"], project=outside)
    assert hf.store.rules.latest_version("me") == 0
    report = import_rules(hf, "me", [outside / "AGENTS.md"], project=outside)
    assert report.files[0].project == str(outside.resolve())


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command("import")(rules_import.import_rules)
    app.command("noop")(lambda: None)  # two commands keep `import` a subcommand
    return app


def test_cli_dry_run_table_json_and_errors(home: Path, repo: Path) -> None:
    runner = CliRunner()
    env = {"HEEDFUL_EMBEDDER": "hashing"}
    table = runner.invoke(_app(), ["import", str(repo / "CLAUDE.md"), "--dry-run", "--home", str(home)], env=env)
    assert table.exit_code == 0, table.output
    assert "forbidden_command" in table.output and "nothing was changed" in table.output
    assert "skipped: a heading" in table.output
    done = runner.invoke(_app(), ["import", str(repo), "--json", "--home", str(home)], env=env)
    assert done.exit_code == 0, done.output
    data = json.loads(done.output)
    assert data["dry_run"] is False and data["library_version"] == 1
    assert data["counts"]["checked"] >= 3 and data["counts"]["new"] >= 4
    line = next(x for x in data["files"][0]["lines"] if x["line"] == 10)
    assert set(line) == {"line", "text", "directive", "reason", "removed", "rules"}
    assert set(line["rules"][0]) == {"op", "rule_id", "text", "status", "check", "reason"}
    bad = runner.invoke(_app(), ["import", str(repo / "nope.md"), "--home", str(home)], env=env)
    assert bad.exit_code == 2 and "error: no such file or directory" in bad.output
