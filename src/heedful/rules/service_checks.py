"""Selection and checking against a user's library: which rules apply to a task, and what the
checked rules say about a piece of evidence. `RuleService.select` and `RuleService.check` call these.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.enforce.tools import evidence_action
from heedful.errors import InputError
from heedful.ids import validate_user_id
from heedful.rules.checks import evaluate
from heedful.rules.checks.verdict import Result
from heedful.rules.facets import detect_languages
from heedful.rules.library import normalise_project, rows_in_scope, rule_from_row, version_for
from heedful.rules.models import (
    ACTIVE_STATUSES,
    STAGES,
    ArmedCheck,
    CheckReport,
    Judgment,
    Rule,
    RuleSelection,
    SelectedRule,
)

if TYPE_CHECKING:
    import numpy as np

    from heedful.embed import Embedder
    from heedful.llm import Model
    from heedful.rules.parts import RuleParts
    from heedful.store.records import RuleRow


def select_rules(
    parts: RuleParts,
    user_id: str,
    task: str,
    message: str | None = None,
    project: str | Path | None = None,
    session: str | None = None,
    turn: str | None = None,
) -> RuleSelection:
    user = validate_user_id(user_id)
    if not isinstance(task, str) or not task.strip():
        raise InputError("the task description is empty")
    version = version_for(parts.repo, user, session, turn)
    project_path = normalise_project(project)
    rows = rows_in_scope(parts.repo, user, version, project_path, statuses=ACTIVE_STATUSES, with_embeddings=True)
    rules = [rule_from_row(row) for row in rows]
    query = " ".join(part for part in (task, message or "") if part)
    vectors, query_vector = _vectors(parts.embedder, rows, query) if rows else (None, None)
    from heedful.rules.select import select as score_rules

    chosen = score_rules(
        rules,
        vectors,
        query,
        query_vector,
        project_languages=detect_languages(project_path),
        model=parts.model,
        embedder=parts.embedder.name if rows else None,  # the whole-text reader trusts only its own embedder
    )
    return RuleSelection(
        library_version=version,
        project=project_path,
        rules=[
            SelectedRule(
                id=s.rule.id,
                text=s.rule.text,
                scope=s.rule.scope,
                condition=s.rule.condition,
                exceptions=s.rule.exceptions,
                status=s.rule.status,
                score=round(s.score, 3),
                why=s.why,
                reach=s.kind,
            )
            for s in chosen.rules
        ],
        checks=[
            ArmedCheck(
                rule_id=r.id,
                text=r.text,
                kind=r.check.kind,
                stage=r.check.stage,
                params=r.check.params,
                evidence=r.check.evidence,
            )
            for r in rules
            if r.status == "checked" and r.check is not None
        ],
        batches=chosen.batches,
        examined=len(rules),
    )


def _vectors(embedder: Embedder, rows: list[RuleRow], query: str) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    missing = [i for i, row in enumerate(rows) if row.embedding is None or len(row.embedding) != embedder.dim]
    vectors = np.zeros((len(rows), embedder.dim), dtype=np.float32)
    for i, row in enumerate(rows):
        if i not in missing:
            vectors[i] = row.embedding
    texts = [" ".join([rows[i].text, rows[i].condition or ""]) for i in missing] + [query]
    fresh = embedder.embed(texts)
    for j, i in enumerate(missing):
        vectors[i] = fresh[j]
    return vectors, fresh[-1]


def check_evidence(
    parts: RuleParts,
    user_id: str,
    stage: str,
    evidence: dict[str, Any],
    project: str | Path | None = None,
    session: str | None = None,
    turn: str | None = None,
    rule_ids: list[str] | None = None,
) -> CheckReport:
    user = validate_user_id(user_id)
    if stage not in STAGES:
        raise InputError(f"unknown stage {stage!r}; one of: {', '.join(STAGES)}")
    if not isinstance(evidence, dict):
        raise InputError("the evidence must be a JSON object")
    if isinstance(evidence.get("action"), dict):  # the hook's evidence builder: both judge the same action
        evidence = {**evidence, "action": evidence_action(evidence["action"])}
    project_path = normalise_project(project or evidence.get("project"))
    if project_path and not evidence.get("project"):
        evidence = {**evidence, "project": project_path}
    version = version_for(parts.repo, user, session, turn)
    rows = rows_in_scope(parts.repo, user, version, project_path, statuses=("checked",))
    judgments: list[Judgment] = []
    due = [
        rule
        for rule in (rule_from_row(row) for row in rows)
        if rule.check is not None and rule.check.stage == stage and (not rule_ids or rule.id in rule_ids)
    ]
    semantic = [rule for rule in due if rule.check is not None and rule.check.kind == "semantic"]
    verdicts = _semantic_verdicts(
        parts.load_model, semantic, stage, evidence, [r.text for r in due if r not in semantic]
    )
    for rule in due:
        assert rule.check is not None
        verdict = verdicts.get(rule.id) or evaluate(rule.check.kind, rule.check.params, stage, evidence)
        judgments.append(
            Judgment(
                rule_id=rule.id,
                rule_version=rule.version,
                text=rule.text,
                kind=rule.check.kind,
                stage=stage,
                result=verdict.result,
                reason=verdict.reason,
                quotes=verdict.quotes,
            )
        )
    results: tuple[Result, ...] = ("pass", "violated", "not_applicable", "unknown")
    counts = {r: sum(j.result == r for j in judgments) for r in results}
    return CheckReport(
        library_version=version,
        stage=stage,
        project=project_path,
        blocked=counts["violated"] > 0,
        counts=counts,
        judgments=judgments,
    )


def _semantic_verdicts(
    load_model: Callable[[], Model], rules: list[Rule], stage: str, evidence: dict[str, Any], others: list[str]
) -> dict[str, Any]:
    """Semantic checks are judged by the configured model (unknown offline: they never block)."""
    if not rules:
        return {}
    from heedful.rules.semantic import RuleCard, judge

    cards = [RuleCard(id=r.id, text=r.text, condition=r.condition, exceptions=r.exceptions) for r in rules]
    return judge(load_model(), stage, evidence, cards, others)
