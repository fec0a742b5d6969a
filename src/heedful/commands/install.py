"""`heedful install|uninstall claude-code|codex|gemini|cursor [--project DIR | --user]`: hooks in the agent's settings.

`install` also offers to import the instruction files it finds (the project's CLAUDE.md, AGENTS.md,
GEMINI.md, .cursorrules, ...; with user settings the agent's own file in your home): `--import`
imports them, `--no-import` skips, neither asks on a terminal and skips with a hint otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.commands.common import HomeOption, JsonOption, emit, fail, opened, user_errors

ProjectOption = Annotated[
    Path | None,
    typer.Option(
        "--project",
        help="This project's settings (.claude/settings.json, .codex/hooks.json, .gemini/settings.json, "
        ".cursor/hooks.json).",
    ),
]
UserScopeOption = Annotated[bool, typer.Option("--user", help="Your user settings (the default).")]
ImportOption = Annotated[
    bool | None,
    typer.Option(
        "--import/--no-import",
        help="Import the rules of the instruction files found (CLAUDE.md, AGENTS.md, GEMINI.md, ...) without "
        "asking, or skip them. Neither: ask on a terminal, skip otherwise.",
    ),
]

install_app = typer.Typer(help="Add heedful's hooks to an agent's settings (idempotent).", no_args_is_help=True)
uninstall_app = typer.Typer(help="Remove exactly the hooks `heedful install` added.", no_args_is_help=True)


def _project(project: Path | None, user: bool) -> Path | None:
    if project is not None and user:
        fail("give either --project DIR or --user, not both")
    if project is None:
        return None
    resolved = project.expanduser().resolve()
    if not resolved.is_dir():
        fail(f"{resolved} is not a directory")
    return resolved


def _installed(data: dict[str, Any]) -> None:
    state = "updated" if data["changed"] else "already up to date"
    platform = data["platform"]
    typer.echo(f"{platform} hooks {state} in {data['settings']}")
    typer.echo(f"  events: {', '.join(data['installed'])}")
    typer.echo(f"  command: {data['command']}")
    if data["scope"] == "project":
        typer.echo("  The command finds heedful-hook on PATH, so teammates can share this file; SessionStart says")
        typer.echo("  so when heedful-hook is missing." + ("" if data["on_path"] else " It is not on PATH here yet."))
        if platform == "claude-code":
            typer.echo("  Claude Code reads project settings only when it starts at the project root; started in a")
            typer.echo("  subdirectory it does not run these hooks. User-level hooks work anywhere (recommended):")
            typer.echo("  heedful install claude-code --user")
    if platform == "gemini" and data["scope"] == "project":
        typer.echo("  Gemini CLI runs project hooks only in a trusted folder and lists new ones once at start.")
    if platform == "cursor":
        typer.echo("  Restart Cursor to load the hooks (Settings > Hooks lists them).")
    if platform == "codex":
        if data["scope"] == "project" and not data.get("project_trusted"):
            project = str(Path(data["settings"]).parent.parent)
            typer.echo("  Codex ignores a project's .codex/ until you trust the project; add to ~/.codex/config.toml:")
            typer.echo(f'    [projects."{project}"]')
            typer.echo('    trust_level = "trusted"')
        typer.echo("  Codex runs new or changed hooks only after you trust them in /hooks (`heedful doctor` checks).")
    _imported(data.get("import"))


def _imported(data: dict[str, Any] | None) -> None:
    if not data or not data["found"]:
        return
    if not data["imported"]:
        typer.echo(f"  {data['hint']}")
        return
    counts = data["report"]["counts"]
    summary = ", ".join(f"{counts[k]} {k}" for k in ("checked", "guidance", "inactive") if counts.get(k)) or "no rules"
    version = data["report"]["library_version"]
    typer.echo(f"  imported {counts['directives']} directives from {', '.join(data['found'])}: {summary}")
    typer.echo(f"  (library version {version}; `heedful rules list` shows them)" if version else "  (nothing changed)")


def _removed(data: dict[str, Any]) -> None:
    if data["removed"]:
        typer.echo(f"removed heedful's {data['platform']} hooks from {data['settings']} ({', '.join(data['removed'])})")
    else:
        typer.echo(f"no heedful {data['platform']} hooks in {data['settings']}")


def _ask(found: list[Path]) -> bool:
    names = ", ".join(str(p) for p in found)
    return typer.confirm(f"Import the rules written in {names}? heedful will check them", default=True)


def _import(
    found: list[Path], project: Path | None, home: Path | None, choice: bool | None, as_json: bool, again: str
) -> dict[str, Any]:
    """Import `found` as `choice` says, asking on a terminal when it says nothing."""
    data: dict[str, Any] = {"found": [str(p) for p in found], "imported": False, "report": None}
    if not found:
        return data
    if choice is None:
        interactive = not as_json and sys.stdin.isatty() and sys.stdout.isatty()
        choice = _ask(found) if interactive else None
    if not choice:
        reason = "skipped (--no-import)" if choice is False else "not imported (not asked: no terminal)"
        data["hint"] = f"found {', '.join(data['found'])}: {reason}; import their rules with `{again} --import`"
        return data
    from heedful.commands.common import resolve_user
    from heedful.rules.importer import import_rules

    with opened(home) as hf:
        report = import_rules(hf, resolve_user(hf, None), found, project=project)
    data.update(imported=True, report=report.public())
    return data


def _install(
    platform: str, project: Path | None, user: bool, home: Path | None, as_json: bool, choice: bool | None = None
) -> None:
    from heedful.integrations.install import install, instruction_files

    with user_errors():
        where = _project(project, user)
        result = install(platform, where, home)
        again = f"heedful install {platform}" + (f" --project {where}" if where else "")
        result["import"] = _import(instruction_files(platform, where), where, home, choice, as_json, again)
        emit(result, as_json, _installed)


def _uninstall(platform: str, project: Path | None, user: bool, as_json: bool) -> None:
    from heedful.integrations.install import uninstall

    with user_errors():
        emit(uninstall(platform, _project(project, user)), as_json, _removed)


# Each agent: where `install` writes without --project, and the settings file it edits.
PLATFORMS = {
    "claude-code": ("Claude Code", "settings.json", "user settings"),
    "codex": ("Codex", "hooks.json", "user ~/.codex"),
    "gemini": ("Gemini CLI", "settings.json", "user ~/.gemini"),
    "cursor": ("Cursor", "hooks.json", "user ~/.cursor"),
}


def _register(platform: str, product: str, settings: str, default: str) -> None:
    def install_command(
        project: ProjectOption = None,
        user: UserScopeOption = False,
        import_rules: ImportOption = None,
        home: HomeOption = None,
        as_json: JsonOption = False,
    ) -> None:
        _install(platform, project, user, home, as_json, import_rules)

    def uninstall_command(
        project: ProjectOption = None, user: UserScopeOption = False, as_json: JsonOption = False
    ) -> None:
        _uninstall(platform, project, user, as_json)

    install_command.__doc__ = f"Merge the hooks into {product}'s {settings} ({default} unless --project)."
    uninstall_command.__doc__ = f"Remove heedful's hooks from {product}'s {settings}."
    install_app.command(platform)(install_command)
    uninstall_app.command(platform)(uninstall_command)


for _platform, (_product, _settings, _default) in PLATFORMS.items():
    _register(_platform, _product, _settings, _default)
