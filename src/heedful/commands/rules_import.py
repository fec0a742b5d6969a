"""`heedful rules import PATH… [--project DIR] [--dry-run] [--json]`: enforce the rules already written down."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.commands.common import HomeOption, JsonOption, UserOption, emit, opened, resolve_user


def _render(data: dict[str, Any]) -> None:
    # rich loads here, not with the module: `heedful rules list` imports this module to list `import`.
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    from heedful.rules.import_report import ImportReport

    report = ImportReport.model_validate({k: v for k, v in data.items() if k != "counts"})
    for file in report.files:
        where = f"project {file.project}" if file.scope == "project" else "global rules"
        table = Table("line", "rule", "outcome", title=f"{file.display} ({where})", title_justify="left")
        for line in file.lines:
            if not line.directive:
                table.add_row(str(line.line), escape(line.text[:70]), f"[dim]skipped: {escape(line.reason)}[/dim]")
                continue
            for rule in line.rules or []:
                label = f"{'removed: ' if line.removed else ''}{rule.op}"
                table.add_row(
                    str(line.line),
                    escape(rule.text or line.text[:70]),
                    escape(f"{label} → {rule.summary()}" if rule.op != "skipped" else f"skipped: {rule.reason}"),
                )
        console.print(table)
    counts = data["counts"]
    summary = ", ".join(f"{counts[k]} {k}" for k in ("checked", "guidance", "inactive") if counts.get(k))
    if report.dry_run:
        console.print(
            f"dry run: {counts['directives']} directives in {counts['lines']} lines ({summary}); nothing was changed"
        )
    elif report.library_version is None:
        console.print(f"{counts['directives']} directives, nothing to change")
    else:
        console.print(f"library version {report.library_version}: {summary}")


def import_rules(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Instruction files (CLAUDE.md, AGENTS.md, GEMINI.md, "
            ".cursorrules, .cursor/rules/*.mdc, ...) or directories."
        ),
    ],
    project: Annotated[
        Path | None,
        typer.Option(
            "--project",
            "-p",
            help="Give the rules to this project (default: the file's git repository; global in your home).",
        ),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be enforced; change nothing.")] = False,
    user: UserOption = None,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import the rules of agent-instruction files: each directive learned as if the user had said it."""
    from heedful.rules.importer import import_rules as run_import

    with opened(home) as hf:
        report = run_import(hf, resolve_user(hf, user), [str(p) for p in paths], project=project, dry_run=dry_run)
        emit(report.public(), as_json, _render)


__all__ = ["import_rules"]
