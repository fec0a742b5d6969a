"""`heedful doctor`: what is configured, and whether each part actually works here."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape

from heedful.commands.common import HomeOption, JsonOption, damaged_database, emit, load_cli_settings
from heedful.errors import HeedfulError, StoreError


class _Ping(BaseModel):
    ok: bool


def _check(name: str, action: Callable[[], str]) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        detail = action()
    except HeedfulError as exc:  # already one sentence for the user
        return {"part": name, "ok": False, "detail": str(exc), "ms": None}
    except Exception as exc:  # doctor reports every failure instead of stopping at the first
        return {"part": name, "ok": False, "detail": f"{type(exc).__name__}: {exc}", "ms": None}
    return {"part": name, "ok": True, "detail": detail, "ms": round((time.perf_counter() - started) * 1000, 1)}


def _codex_checks() -> list[dict[str, Any]]:
    """One check per Codex hooks file holding heedful's hooks: Codex skips untrusted hooks silently."""
    from pathlib import Path

    from heedful.enforce.project import repository_root
    from heedful.integrations.codex_trust import codex_hooks

    project = repository_root(str(Path.cwd()))
    try:
        found = codex_hooks(Path(project) if project else None)
    except Exception as exc:  # doctor reports every failure instead of stopping at the first
        return [{"part": "codex hooks", "ok": False, "detail": f"{type(exc).__name__}: {exc}", "ms": None}]
    return [{"part": "codex hooks", "ok": item.runs, "detail": item.summary(), "ms": None} for item in found]


def _hook_checks() -> list[dict[str, Any]]:
    """Where each agent's hooks are installed (user settings, this project's, or nowhere): informational."""
    from pathlib import Path

    from heedful.enforce.project import repository_root
    from heedful.integrations.install import SETTINGS, installed_where

    root = repository_root(str(Path.cwd()))
    checks = []
    for platform in SETTINGS:
        try:
            where = installed_where(platform, Path(root) if root else None)
        except Exception as exc:  # doctor reports every failure instead of stopping at the first
            where, detail, ok = [], f"{type(exc).__name__}: {exc}", False
        else:
            detail, ok = (f"installed in {' and '.join(where)} settings" if where else "not installed"), True
        checks.append({"part": f"hooks: {platform}", "ok": ok, "detail": detail, "ms": None, "installed": where})
    return checks


def _agent_cli_checks(configured: set[str]) -> list[dict[str, Any]]:
    """claude-cli and codex-cli: binary found, its version and login, with no model call.

    Optional unless configured: a missing CLI fails doctor only when the model (or its fallback) uses it.
    """
    from concurrent.futures import ThreadPoolExecutor

    from heedful.llm import claude_cli, codex_cli

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:  # each CLI takes a second or two to start
        statuses = list(pool.map(lambda probe: probe(), (claude_cli.status, codex_cli.status)))
    checks = []
    for found in statuses:
        checks.append(
            {
                "part": found.provider,
                "ok": found.usable,
                "detail": found.detail,
                "ms": round((time.perf_counter() - started) * 1000, 1),
                "optional": found.provider not in configured,
                "path": found.path,
                "version": found.version,
                "logged_in": found.logged_in,
            }
        )
    return checks


def doctor(
    skip_model: Annotated[bool, typer.Option("--skip-model", help="Do not call the configured model.")] = False,
    home: HomeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show the configuration and test the store, the embedder and the model connection."""
    from heedful import __version__
    from heedful.api import Heedful
    from heedful.embed import load_embedder
    from heedful.llm.factory import load_model
    from heedful.llm.protocol import ChatMessage

    settings = load_cli_settings(home)
    # Each part is tested on its own, so that a damaged database does not hide a working model.
    opened: list[Any] = []

    def store_check() -> str:
        try:
            hf = Heedful.from_settings(settings)
        except Exception as exc:
            message = damaged_database(exc, settings.db_path)
            if message is None:
                raise
            raise StoreError(message) from exc
        opened.append(hf)
        from heedful.store.sqlite import SQLiteStore

        schema = hf.store.db.schema_version if isinstance(hf.store, SQLiteStore) else None
        return settings.database + (f" (schema {schema})" if schema is not None else "")

    def embedder_check() -> str:
        embedder = opened[0].embedder if opened else load_embedder(settings.embedder.name, settings.embedder.batch_size)
        return f"{embedder.name}, {embedder.embed(['ping']).shape[1]} dimensions"

    def model_check() -> str:
        model = opened[0].model if opened else load_model(settings.model, settings.log_dir)
        if model.offline:
            return "offline: the deterministic learner (no model calls)"
        answer = model.structured([ChatMessage(role="user", content='Reply with the JSON object {"ok": true}.')], _Ping)
        return f"{model.name} answered ok={answer.ok}"

    try:
        checks = [_check("store", store_check), _check("embedder", embedder_check)]
        if not skip_model:
            checks.append(_check("model", model_check))
        checks += _hook_checks()
        checks += _codex_checks()
        providers = {spec.partition(":")[0] for spec in (settings.model.name, settings.model.fallback or "")}
        checks += _agent_cli_checks(providers)
        data = {
            "version": __version__,
            "home": str(settings.home),
            "config_file": str(settings.home / "config.toml"),
            "database": settings.database,
            "embedder": settings.embedder.name,
            "model": settings.model.name,
            "model_base_url": settings.model.base_url,
            "model_api_key_env": settings.model.api_key_env,
            "fallback": settings.model.fallback,
            "jobs": opened[0].store.jobs.counts() if opened else None,
            "checks": checks,
            "ok": all(c["ok"] or c.get("optional") for c in checks),
        }
    finally:
        for hf in opened:
            hf.close()

    def render(d: dict[str, Any]) -> None:
        console = Console()
        console.print(f"heedful {d['version']} · home {d['home']}")
        console.print(
            f"embedder {d['embedder']} · model {d['model']}"
            + (f" at {d['model_base_url']}" if d["model_base_url"] else "")
        )
        for c in d["checks"]:
            mark = "[green]ok[/green]" if c["ok"] else "[dim]--[/dim]" if c.get("optional") else "[red]FAIL[/red]"
            console.print(f"  {mark} {c['part']}: {escape(str(c['detail']))}" + (f" ({c['ms']} ms)" if c["ms"] else ""))

    emit(data, as_json, render)
    if not data["ok"]:
        raise typer.Exit(1)
