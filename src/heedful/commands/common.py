"""What every command shares: opening the home, printing JSON or text, and clear errors."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from heedful.errors import HeedfulError

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


def damaged_database(exc: Exception, where: Path) -> str | None:
    """The sentence for a database file SQLite cannot read, or None when `exc` is anything else."""
    import sqlite3

    # Exactly DatabaseError: its subclasses (OperationalError, IntegrityError, ...) are other failures.
    if type(exc) is not sqlite3.DatabaseError:
        return None
    from heedful.config import DB_FILE

    return (
        f"cannot read {where / DB_FILE} ({exc}: damaged, or not a heedful database); "
        "move it aside to start afresh, or point --home or HEEDFUL_HOME at another folder"
    )


@contextmanager
def opened(home: Path | None, **overrides: str) -> Iterator[Any]:
    from heedful.api import Heedful

    where = check_home(home)
    with user_errors():
        try:
            hf = Heedful.open(where, **overrides)
            try:
                yield hf
            finally:
                hf.close()
        except Exception as exc:
            message = damaged_database(exc, where)
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
    """Print `data` as JSON (`--json`) or through `render` for people."""
    if as_json or render is None:
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
        return
    render(data)
