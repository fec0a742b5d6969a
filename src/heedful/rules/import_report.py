"""What an import did (or, with `--dry-run`, would do): per file, per line, per rule."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

# new | update | supersede | retract: a library change; moved: only the line number changed;
# noop: unchanged; covered: an existing rule already says it; conflict: stored inactive beside the
# rule it contradicts; skipped: a directive with no rule that could be read in its own words.
ImportOp = Literal["new", "update", "supersede", "retract", "moved", "noop", "covered", "conflict", "skipped"]
CHANGES: tuple[ImportOp, ...] = ("new", "update", "supersede", "retract", "moved", "conflict")


class RuleOutcome(BaseModel):
    op: ImportOp
    rule_id: str | None = None
    text: str = ""
    status: str | None = None
    check: dict[str, Any] | None = None
    reason: str = ""

    def summary(self) -> str:
        """`check forbidden_command {"program": "pip"}`, `guidance`, `inactive`, ..."""
        import json

        if self.check is not None and self.status == "checked":
            return f"check {self.check['kind']} {json.dumps(self.check['params'], ensure_ascii=False)}"
        return self.status or self.op


class LineReport(BaseModel):
    line: int
    text: str
    directive: bool
    reason: str
    removed: bool = False
    rules: list[RuleOutcome] = Field(default_factory=list)


class FileReport(BaseModel):
    file: str
    display: str
    scope: str
    project: str | None
    lines: list[LineReport]


class ImportReport(BaseModel):
    dry_run: bool
    library_version: int | None
    files: list[FileReport]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {"lines": 0, "directives": 0, "checked": 0, "guidance": 0, "inactive": 0}
        for file in self.files:
            for line in file.lines:
                out["lines"] += not line.removed
                out["directives"] += line.directive and not line.removed
                for rule in line.rules:
                    out[rule.op] = out.get(rule.op, 0) + 1
                    if rule.op not in ("retract", "skipped") and rule.status in ("checked", "guidance", "inactive"):
                        out[rule.status] += 1
        return out

    def changed(self) -> bool:
        return any(rule.op in CHANGES for f in self.files for line in f.lines for rule in line.rules)

    def public(self) -> dict[str, Any]:
        """The `--json` shape."""
        return {**self.model_dump(), "counts": self.counts()}


__all__ = ["CHANGES", "FileReport", "ImportOp", "ImportReport", "LineReport", "RuleOutcome"]
