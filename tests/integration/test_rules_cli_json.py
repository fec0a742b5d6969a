"""`rules show --json` and `rules check --json` print the typed result's JSON dump, in the shape they had
when the service answered with dicts: the same keys in the same order, the same values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runner import run_cli
from heedful.api import Heedful
from heedful.rules.models import CheckReport
from heedful.rules.results import RuleDetail

SHOW_KEYS = [
    "id", "text", "scope", "project", "status", "check", "version", "condition", "exceptions", "evidence",
    "supersedes", "superseded_by", "updated_at", "reason", "source_text", "cases", "history",
]  # fmt: skip
CHECK_KEYS = ["library_version", "stage", "project", "blocked", "counts", "judgments"]
JUDGMENT_KEYS = ["rule_id", "rule_version", "text", "kind", "stage", "result", "reason", "quotes"]


def printed(*args: str, home: Path) -> Any:
    done = run_cli(*args, "--user", "me", "--json", home=home)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def as_dicts_printed(data: Any) -> Any:
    """What `--json` printed when the service returned `model_dump()` dicts (`json.dumps(..., default=str)`)."""
    return json.loads(json.dumps(data, default=str))


def test_rules_show_and_check_json_keep_their_shape(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    learned = printed("rules", "learn", "never push to main", "--project", str(project), home=home)
    rule_id = learned["actions"][0]["rule_id"]
    evidence = tmp_path / "push.json"
    evidence.write_text(json.dumps({"action": {"tool": "Bash", "command": "git push origin main"}}), encoding="utf-8")

    shown = printed("rules", "show", rule_id, home=home)
    checked = printed(
        "rules", "check", "--stage", "pre_action", "--evidence", str(evidence), "--project", str(project), home=home
    )

    with Heedful.open(home, embedder="hashing") as hf:
        detail = hf.rules.show("me", rule_id)
        report = hf.rules.check("me", "pre_action", json.loads(evidence.read_text()), project=project)
    assert isinstance(detail, RuleDetail) and isinstance(report, CheckReport)

    assert list(shown) == SHOW_KEYS
    assert shown == detail.model_dump(mode="json") == as_dicts_printed(detail.model_dump())
    assert shown["id"] == rule_id and shown["status"] == "checked" and shown["evidence"] == ["never push to main"]
    assert shown["check"]["kind"] == "forbidden_command" and shown["history"] == 1
    assert shown["cases"] and set(shown["cases"][0]) == {"stage", "evidence", "expected", "note"}

    assert list(checked) == CHECK_KEYS
    assert checked == report.model_dump(mode="json") == as_dicts_printed(report.model_dump())
    assert checked["blocked"] is True and checked["stage"] == "pre_action"
    assert checked["counts"] == {"pass": 0, "violated": 1, "not_applicable": 0, "unknown": 0}
    assert [list(j) for j in checked["judgments"]] == [JUDGMENT_KEYS]
    assert checked["judgments"][0]["rule_id"] == rule_id and checked["judgments"][0]["result"] == "violated"
