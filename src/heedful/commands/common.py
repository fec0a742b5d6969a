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


@contextmanager
def opened(home: Path | None, **overrides: str) -> Iterator[Any]:
    from heedful.api import Heedful

    with user_errors():
        hf = Heedful.open(home, **overrides)
        try:
            yield hf
        finally:
            hf.close()


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
