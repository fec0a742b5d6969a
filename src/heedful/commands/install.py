"""`heedful install|uninstall claude-code|codex [--project DIR | --user]`: the hooks in the agent's settings."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from heedful.commands.common import HomeOption, JsonOption, emit, fail, user_errors

ProjectOption = Annotated[
    Path | None,
    typer.Option("--project", help="Install into this project's settings (.claude/settings.json, .codex/hooks.json)."),
]
UserScopeOption = Annotated[bool, typer.Option("--user", help="Install into your user settings (the default).")]

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
    if platform == "codex":
        if data["scope"] == "project" and not data.get("project_trusted"):
            project = str(Path(data["settings"]).parent.parent)
            typer.echo("  Codex ignores a project's .codex/ until you trust the project; add to ~/.codex/config.toml:")
            typer.echo(f'    [projects."{project}"]')
            typer.echo('    trust_level = "trusted"')
        typer.echo("  Codex runs new or changed hooks only after you trust them in /hooks (`heedful doctor` checks).")


def _removed(data: dict[str, Any]) -> None:
    if data["removed"]:
        typer.echo(f"removed heedful's {data['platform']} hooks from {data['settings']} ({', '.join(data['removed'])})")
    else:
        typer.echo(f"no heedful {data['platform']} hooks in {data['settings']}")


def _install(platform: str, project: Path | None, user: bool, home: Path | None, as_json: bool) -> None:
    from heedful.integrations.install import install

    with user_errors():
        emit(install(platform, _project(project, user), home), as_json, _installed)


def _uninstall(platform: str, project: Path | None, user: bool, as_json: bool) -> None:
    from heedful.integrations.install import uninstall

    with user_errors():
        emit(uninstall(platform, _project(project, user)), as_json, _removed)


@install_app.command("claude-code")
def install_claude_code(
    project: ProjectOption = None, user: UserScopeOption = False, home: HomeOption = None, as_json: JsonOption = False
) -> None:
    """Merge the hooks into Claude Code's settings.json (user settings unless --project)."""
    _install("claude-code", project, user, home, as_json)


@install_app.command("codex")
def install_codex(
    project: ProjectOption = None, user: UserScopeOption = False, home: HomeOption = None, as_json: JsonOption = False
) -> None:
    """Merge the hooks into Codex's hooks.json (user ~/.codex unless --project)."""
    _install("codex", project, user, home, as_json)


@uninstall_app.command("claude-code")
def uninstall_claude_code(
    project: ProjectOption = None, user: UserScopeOption = False, as_json: JsonOption = False
) -> None:
    """Remove heedful's hooks from Claude Code's settings.json."""
    _uninstall("claude-code", project, user, as_json)


@uninstall_app.command("codex")
def uninstall_codex(project: ProjectOption = None, user: UserScopeOption = False, as_json: JsonOption = False) -> None:
    """Remove heedful's hooks from Codex's hooks.json."""
    _uninstall("codex", project, user, as_json)
