"""The rules API's selection and check results are typed: the service returns the models themselves."""

from __future__ import annotations

from pathlib import Path

from heedful.api import Heedful
from heedful.rules.models import CheckReport, RuleSelection
from heedful.rules.parts import RuleParts
from heedful.rules.service_checks import check_evidence, select_rules

PUSH = {"action": {"tool": "Bash", "command": "git push origin main"}}


def test_a_check_report_is_typed_and_the_service_gives_its_json(hf: Heedful, tmp_path: Path) -> None:
    hf.rules.learn("me", "never push to main")
    report = check_evidence(RuleParts.of(hf), "me", "pre_action", PUSH, project=tmp_path)
    assert isinstance(report, CheckReport) and report.blocked
    assert [j.result for j in report.judgments] == ["violated"]
    served = hf.rules.check("me", "pre_action", PUSH, project=tmp_path)
    assert isinstance(served, CheckReport) and served == report
    data = served.model_dump(mode="json")
    assert list(data) == ["library_version", "stage", "project", "blocked", "counts", "judgments"]
    assert list(data["counts"]) == ["pass", "violated", "not_applicable", "unknown"]


def test_a_selection_is_typed_and_the_service_gives_its_json(hf: Heedful, tmp_path: Path) -> None:
    hf.rules.learn("me", "use uv instead of pip")
    chosen = select_rules(RuleParts.of(hf), "me", "install the requests package", project=tmp_path)
    assert isinstance(chosen, RuleSelection) and chosen.examined == 1
    assert [c.kind for c in chosen.checks] == ["forbidden_command"]
    served = hf.rules.select("me", "install the requests package", project=tmp_path)
    assert isinstance(served, RuleSelection) and served == chosen
    data = served.model_dump(mode="json")
    assert list(data) == ["library_version", "project", "rules", "checks", "batches", "examined", "note"]


def test_the_service_is_given_its_parts_and_uses_the_id_factory(hf: Heedful) -> None:
    made: list[str] = []

    def next_id() -> str:
        made.append(f"r-test{len(made)}")
        return made[-1]

    parts = RuleParts(hf.store.rules, lambda: hf.model, lambda: hf.embedder, next_id)
    from heedful.rules.service import RuleService

    result = RuleService(parts).learn("me", "never push to main")
    assert [a.rule_id for a in result.actions] == made == ["r-test0"]
    assert hf.rules.get("me", "r-test0").text
