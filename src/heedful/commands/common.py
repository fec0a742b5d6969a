"""What every command shares: opening the home, printing JSON or text, and clear errors."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from heedful.errors import HeedfulError

if TYPE_CHECKING:
    from heedful.config import Settings

HomeOption = Annotated[
    Path | None,
    typer.Option("--home", help="heedful home (default: $HEEDFUL_HOME or ~/.heedful).", show_default=False),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
UserOption = Annotated[
    str | None, typer.Option("--user", "-u", help="User id (default: user.default in config, 'me').")
]


def fail(message: str, code: int = 2) -> NoReturn:
    """One clear sentence on stderr and a non-zero exit."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn heedful's own errors into one line on stderr; let real bugs show their traceback."""
    try:
        yield
    except HeedfulError as exc:
        fail(str(exc))


def check_home(home: Path | None) -> Path:
    """The home folder to open, refused in one line when it is a file (a mistyped HEEDFUL_HOME)."""
    from heedful.config import default_home

    where = home.expanduser() if home is not None else default_home()
    if where.exists() and not where.is_dir():
        source = "--home" if home is not None else "HEEDFUL_HOME"
        fail(f"the heedful home {where} is a file, not a folder; point {source} at a folder")
    return where


def damaged_database(exc: Exception, database: Path) -> str | None:
    """The sentence for a database file SQLite cannot read, or None when `exc` is anything else."""
    import sqlite3

    # Exactly DatabaseError: its subclasses (OperationalError, IntegrityError, ...) are other failures.
    if type(exc) is not sqlite3.DatabaseError:
        return None
    return (
        f"cannot read {database} ({exc}: damaged, or not a heedful database); "
        "move it aside to start afresh, or point --home or HEEDFUL_HOME at another folder"
    )


def cli_overrides() -> dict[str, str | None]:
    """The settings given as options before the command (`heedful --model local ...`), by dotted name."""
    try:
        from typer._click.globals import get_current_context
    except ImportError:  # pragma: no cover - older typer depends on click itself
        from click.globals import get_current_context  # type: ignore[no-redef]

    ctx = get_current_context(silent=True)
    given = ctx.find_root().obj if ctx is not None else None
    return {str(key): value for key, value in given.items()} if isinstance(given, dict) else {}


def load_cli_settings(home: Path | None, overrides: Mapping[str, str | None] | None = None) -> Settings:
    """The settings for this command: config.toml < environment < options before the command < `overrides`
    (dotted names: `{"store.url": "sqlite"}`)."""
    from heedful.config import load_settings

    where = check_home(home)
    with user_errors():
        return load_settings(where, {**cli_overrides(), **(overrides or {})})


@contextmanager
def opened(home: Path | None, overrides: Mapping[str, str | None] | None = None) -> Iterator[Any]:
    """The home opened with this command's settings (see `load_cli_settings`)."""
    from heedful.api import Heedful

    settings = load_cli_settings(home, overrides)
    with user_errors():
        try:
            hf = Heedful.from_settings(settings)
            try:
                yield hf
            finally:
                hf.close()
        except Exception as exc:
            message = damaged_database(exc, settings.db_path)
            if message is None:
                raise
            fail(message)


def resolve_user(hf: Any, user: str | None) -> str:
    from heedful.errors import InputError
    from heedful.ids import validate_user_id

    chosen = user if user is not None else hf.settings.user.default
    try:
        return validate_user_id(chosen)
    except InputError as exc:
        fail(str(exc))


def emit(data: Any, as_json: bool, render: Callable[[Any], None] | None = None) -> None:
    """Print `data` as JSON (`--json`) or through `render` for people; a typed result (or a list of
    them) prints as its `model_dump(mode="json")`, and `render` is given the result itself."""
    if as_json or render is None:
        sys.stdout.write(json.dumps(jsonable(data), indent=2, ensure_ascii=False, default=str) + "\n")
        return
    render(data)


def jsonable(data: Any) -> Any:
    """A pydantic result as its JSON dump, found by its method so that the light commands never load pydantic."""
    if hasattr(data, "model_dump") and not isinstance(data, type):
        return data.model_dump(mode="json")
    if isinstance(data, list):
        return [jsonable(item) for item in data]
    return data
