"""The `heedful` command. Thin: each group lives in heedful.commands and calls the facade.

Start-up is kept close to a bare `import typer`: a command's module (and what it imports, such as
numpy or the benchmarks) loads only when that command runs, and `heedful --help` lists the
commands from the table below without importing any of them.
"""

from __future__ import annotations

import copy
import inspect
import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from functools import partial
from importlib import import_module
from typing import Annotated, Any

import typer
from typer.core import TyperGroup
from typer.models import CommandInfo

from heedful import __version__

try:  # typer 0.2x carries its own copy of click; its errors and parameters are that copy's types
    from typer._click import exceptions as click_errors
    from typer._click.core import Command, Context
except ImportError:  # pragma: no cover - older typer depends on click itself
    from click import exceptions as click_errors  # type: ignore[no-redef]
    from click.core import Command, Context  # type: ignore[no-redef,assignment]

# Raised for `heedful` or `heedful memory` alone, once the help is printed (click < 8.2 exits instead).
NO_ARGS_IS_HELP: tuple[type[Exception], ...] = tuple(
    getattr(click_errors, name) for name in ("NoArgsIsHelpError",) if hasattr(click_errors, name)
)


SUMMARY = "heedful: tell your agent once. Learned rules enforced later; memory that supersedes and forgets."


@dataclass(frozen=True)
class LazyCommand:
    """A command loaded on first use: `target` is `module:attribute` (a Typer app or a function)."""

    target: str
    help: str  # the first paragraph of the command's own help (a test keeps the two equal)

    def load(self, name: str) -> Command:
        module, attribute = self.target.split(":")
        obj = getattr(import_module(module), attribute)
        if isinstance(obj, typer.Typer):
            command: Command = lazy_group(obj)  # a group even with one command, as add_typer makes it
        else:
            single = typer.Typer(add_completion=False)
            single.command(name)(obj)
            command = typer.main.get_command(single)
        command.name = name
        return command


class LazyCommands(MutableMapping[str, Command]):
    """A group's subcommands by name, each built from its function on first use.

    Building one inspects its signature and type hints (about 1.5 ms each), so a group of a dozen
    commands would spend that on every invocation of any one of them. Names, help listings and
    "did you mean" suggestions see every command, as with a plain dict.
    """

    def __init__(self, pending: dict[str, CommandInfo], build: Callable[[CommandInfo], Command]) -> None:
        self._pending = pending
        self._build = build
        self._built: dict[str, Command] = {}

    @property
    def built(self) -> tuple[str, ...]:
        """The commands built so far."""
        return tuple(self._built)

    def __getitem__(self, name: str) -> Command:
        if name not in self._built:
            if name not in self._pending:
                raise KeyError(name)
            self._built[name] = self._build(self._pending[name])
        return self._built[name]

    def __setitem__(self, name: str, command: Command) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        if self._built.pop(name, None) is None and self._pending.pop(name, None) is None:
            raise KeyError(name)
        self._pending.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(self._pending), **dict.fromkeys(self._built)})

    def __len__(self) -> int:
        return len(set(self._pending) | set(self._built))


def lazy_group(app: typer.Typer) -> Command:
    """The click group of a Typer `app` whose commands are built when invoked (see `LazyCommands`)."""
    shell = copy.copy(app)  # the group itself (help, options, callback) without building its commands
    shell.registered_commands = []
    group = typer.main.get_group(shell)
    pending = {
        info.name or typer.main.get_command_name(info.callback.__name__): info
        for info in app.registered_commands
        if info.callback is not None
    }
    build = partial(
        typer.main.get_command_from_info,
        pretty_exceptions_short=app.pretty_exceptions_short,
        rich_markup_mode=app.rich_markup_mode,
    )
    group.commands = LazyCommands(pending, lambda info: build(command_info=info))
    return group


# In the order `heedful --help` lists them: single commands first, then groups (as Typer does).
COMMANDS: dict[str, LazyCommand] = {
    "log": LazyCommand(
        "heedful.commands.log:log",
        "Show what was denied, sent back for revision or let through, per session, with the rule and the reason.",
    ),
    "mcp": LazyCommand(
        "heedful.commands.mcp:mcp",
        "Serve memory and rules over MCP: remember, recall, forget, list rules, propose rules, check.",
    ),
    "worker": LazyCommand(
        "heedful.commands.jobs:worker", "Work on queued jobs until stopped (Ctrl-C); run several for more throughput."
    ),
    "demo": LazyCommand(
        "heedful.commands.demo:demo",
        "Show a correction learned once and enforced later, and a memory that supersedes and forgets.",
    ),
    "serve": LazyCommand(
        "heedful.commands.serve:serve",
        "Serve the HTTP API (/v1, OpenAPI at /docs) and the web UI (/ui); every request needs an API key.",
    ),
    "doctor": LazyCommand(
        "heedful.commands.doctor:doctor",
        "Show the configuration and test the store, the embedder and the model connection.",
    ),
}
GROUPS: dict[str, LazyCommand] = {
    "memory": LazyCommand(
        "heedful.commands.memory:app", "Each user's memory: an append-only record that supersedes and forgets."
    ),
    "rules": LazyCommand("heedful.commands.rules:app", "Learned rules: tell once, checked later."),
    "jobs": LazyCommand("heedful.commands.jobs:app", "Background jobs (learning, extraction, Dream)."),
    "bench": LazyCommand(
        "heedful.commands.bench:app",
        "Benchmarks: recall (locomo, beam), rule learning (corrections, selection), enforcement, start-up.",
    ),
    "evolve": LazyCommand(
        "heedful.commands.evolve:app",
        "Improve the memory harness offline: propose from failure traces, screen, accept on held-out users.",
    ),
    "train": LazyCommand(
        "heedful.commands.train:app", "Train the learned parts of the offline learner from the labelled corpus."
    ),
    "keys": LazyCommand("heedful.commands.keys:app", "API keys for `heedful serve`: create, list, revoke."),
    "hook": LazyCommand(
        "heedful.commands.hook:app",
        "Handle one agent hook event: reads the platform's payload on stdin, always exits 0.",
    ),
    "install": LazyCommand(
        "heedful.commands.install:install_app", "Add heedful's hooks to an agent's settings (idempotent)."
    ),
    "uninstall": LazyCommand(
        "heedful.commands.install:uninstall_app", "Remove exactly the hooks `heedful install` added."
    ),
}
LAZY = {**COMMANDS, **GROUPS}


class _DeferredCoercion:
    """Typer's coercion of one parameter, built only for a value that needs it.

    Typer (>= 0.2x) coerces every value that is not a flag through a pydantic `TypeAdapter`, and
    building the first one imports pydantic's validators: more than `import typer` costs, on every
    command with an option left unset. An unset option (None), a plain text option given text and a
    number left at its default need no adapter; any other value gets Typer's own coercion, built
    then and kept.
    """

    __slots__ = ("build",)

    def __init__(self, build: Callable[[], Any]) -> None:
        self.build = build

    def coerce(self, value: Any, param: Any, ctx: Context) -> Any:
        if value is None:  # what Typer's own coercion returns for an unset value
            return () if param.multiple or param.nargs == -1 else None
        info = param.type_descriptor.parameter_info
        annotation = param.type_descriptor.annotation
        # Text given as text, or a number's own default: what Typer's adapter would return unchanged.
        unchecked = getattr(info, "parser", None) is None and getattr(info, "min", None) is None
        unchecked = unchecked and getattr(info, "max", None) is None and not param.multiple and param.nargs == 1
        if unchecked and annotation in (str, int, float) and type(value) is annotation:
            return value
        param._runtime_param = self.build()
        return param._runtime_param.coerce(value, param=param, ctx=ctx)


def _defer_typer_coercion() -> None:
    """Give Typer's parameters `_DeferredCoercion` (a no-op on a Typer without pydantic coercion)."""
    parameter = getattr(typer.core, "_TyperParameter", None)
    original = getattr(parameter, "get_runtime_param", None)
    if parameter is None or original is None or getattr(original, "deferred", False):
        return

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            return _DeferredCoercion(lambda: original(self))
        return self._runtime_param

    get_runtime_param.deferred = True  # type: ignore[attr-defined]
    parameter.get_runtime_param = get_runtime_param


_defer_typer_coercion()


class LazyGroup(TyperGroup):
    """The root group: loads a command's module when the command is invoked (or its help asked for)."""

    def list_commands(self, ctx: Context) -> list[str]:
        eager = [name for name in self.commands if name not in LAZY]
        return [*COMMANDS, *eager, *GROUPS]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        if cmd_name in LAZY and cmd_name not in self.commands:
            self.commands[cmd_name] = LAZY[cmd_name].load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def listed_help(self, ctx: Context, name: str) -> str:
        if name in LAZY:
            return LAZY[name].help
        command = self.commands[name]
        return inspect.cleandoc(command.help or "").split("\n\n")[0].replace("\n", " ")

    def format_help(self, ctx: Context, formatter: Any) -> None:
        # Typer's renderer imports rich, markdown, pygments and tracebacks (more than typer itself
        # costs); the root listing is two boxed tables, drawn here.
        options = [
            (", ".join(param.opts), getattr(param, "help", None) or "")
            for param in self.get_params(ctx)
            if param.param_type_name == "option" and not getattr(param, "hidden", False)
        ]
        commands = [(name, self.listed_help(ctx, name)) for name in self.list_commands(ctx)]
        width = shutil.get_terminal_size().columns
        summary = [f" {line}" for line in textwrap.wrap(SUMMARY, max(width - 2, 40))]
        lines = ["", f" Usage: {ctx.command_path} [OPTIONS] COMMAND [ARGS]...", "", *summary, ""]
        lines += boxed("Options", options, width) + boxed("Commands", commands, width)
        typer.echo("\n".join(lines))


def boxed(title: str, rows: list[tuple[str, str]], width: int) -> list[str]:
    """A titled box of two columns, the second wrapped to the width (as Typer draws its panels)."""
    inner = max(width - 4, 40)
    left = max(len(name) for name, _ in rows) + 2
    out = [f"╭─ {title} " + "─" * max(inner - len(title) - 1, 0) + "╮"]
    for name, text in rows:
        wrapped = textwrap.wrap(text, max(inner - left, 20)) or [""]
        for n, part in enumerate(wrapped):
            cell = (name if n == 0 else "").ljust(left) + part
            out.append(f"│ {cell.ljust(inner)} │")
    out.append("╰" + "─" * (inner + 2) + "╯")
    return out


app = typer.Typer(help=SUMMARY, cls=LazyGroup, no_args_is_help=True, pretty_exceptions_enable=False)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="offline, local, openai:MODEL, anthropic:MODEL, claude-cli[:MODEL] or codex-cli[:MODEL], "
            "for this command only.",
        ),
    ] = None,
    embedder: Annotated[str | None, typer.Option("--embedder", help="minilm or hashing, for this command.")] = None,
    version_flag: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", is_eager=True, callback=_print_version),
    ] = False,
) -> None:
    """Options placed before the command apply to every step it runs: `heedful --model local memory flush`."""
    # Overrides of the settings for this command: `commands.common.load_cli_settings` applies them
    # over config.toml and the environment (which stays as it was, for any process started later).
    ctx.obj = {"model.name": model or None, "embedder.name": embedder or None}


@app.command()
def version(as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False) -> None:
    """Print the version."""
    if as_json:
        import json

        typer.echo(json.dumps({"version": __version__}))
    else:
        typer.echo(__version__)


def _usage_line(exc: click_errors.ClickException) -> str:
    """Click's error as the one `error:` line every heedful error is (boxes are for help, not errors)."""
    message = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click_errors.UsageError) and ctx is not None:
        message += f" (see '{ctx.command_path} --help')"
    return f"error: {message}"


def main(args: list[str] | None = None) -> None:
    os.umask(0o077)  # the home and everything in it are private to the user
    # onnxruntime (>= 1.2x) otherwise writes a device id and a telemetry queue under
    # ~/.cache/Microsoft/DeveloperTools on first load; it reads this only before it is imported.
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    command = typer.main.get_command(app)
    try:
        code: Any = command.main(args=args, standalone_mode=False)
    except NO_ARGS_IS_HELP as exc:
        text = exc.format_message()  # type: ignore[attr-defined]  # empty when rich printed it already
        if text.strip():
            typer.echo(text)
        sys.exit(2)
    except click_errors.ClickException as exc:
        typer.echo(_usage_line(exc), err=True)
        sys.exit(2)
    except typer.Abort:
        typer.echo("error: aborted", err=True)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
