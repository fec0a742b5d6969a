"""The README's CLI reference matches the commands' own `--help`.

Every command (and every subcommand of a group) is named in the reference, every `--option` the
reference writes next to a command exists on that command, and every option a command has is
written there, apart from the ones the reference's preamble says every command takes. The commands
are read from the click tree the `heedful` entry point builds (what `--help` prints), the README
from the checkout (skipped where the tests run without one).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer

README = Path(__file__).resolve().parents[2] / "README.md"
# Said once in the preamble of the reference ("Every command takes `--home DIR` ... and `--json`"),
# and `--user` once per group; `--help` everywhere.
COMMON = {"--home", "--json", "--user", "--help"}
SPAN = re.compile(r"`([^`]+)`")
OPTION = re.compile(r"--[a-z][a-z0-9-]*")
CommandPath = tuple[str, ...]


def command_tree() -> dict[CommandPath, set[str]]:
    """Each command path (`("rules", "learn")`, `("log",)`) and the long options its `--help` lists."""
    from heedful.cli import GROUPS, app

    root = typer.main.get_command(app)
    ctx = root.make_context("heedful", ["--help"], resilient_parsing=True)

    def options(command: object) -> set[str]:
        found: set[str] = set()
        for param in getattr(command, "params", []):
            if not getattr(param, "hidden", False):
                found |= {o for o in [*param.opts, *param.secondary_opts] if o.startswith("--")}
        return found

    tree: dict[CommandPath, set[str]] = {}
    for name in root.list_commands(ctx):
        command = root.get_command(ctx, name)
        tree[(name,)] = options(command)
        if name in GROUPS:
            for sub in command.list_commands(ctx):  # type: ignore[union-attr]
                tree[(name, sub)] = options(command.get_command(ctx, sub))  # type: ignore[union-attr]
    return tree


def reference_parts() -> list[tuple[str | None, str]]:
    """The CLI reference in pieces, each with the group its heading names (### `heedful rules`), and
    every README line about a benchmark (the reference points to "the benchmarks below" for their options)."""
    text = README.read_text(encoding="utf-8")
    start = text.index("## CLI reference")
    reference = text[start : text.index("\n## ", start + 1)]
    parts: list[tuple[str | None, str]] = []
    for piece in re.split(r"(?m)^(?=#)", reference):
        heading = re.match(r"#+ `heedful (\w[\w-]*)`", piece)
        parts.append((heading.group(1) if heading else None, piece))
    for paragraph in text[: text.index("## CLI reference")].split("\n\n") + text[start + len(reference) :].split(
        "\n\n"
    ):
        spans = [f"`{s}`" for s in SPAN.findall(paragraph) if s.startswith("heedful bench ")]
        spans += [f"`{line}`" for line in paragraph.splitlines() if line.startswith("heedful bench ")]  # code blocks
        if spans:
            parts.append((None, "\n".join(spans)))
    return parts


def documented(tree: dict[CommandPath, set[str]]) -> dict[CommandPath, set[str]]:
    """Each command path the reference names, with the options written in its code span (a span of
    options alone, such as `--file conversation.json`, belongs to the command named before it)."""
    top = {path[0] for path in tree}
    found: dict[CommandPath, set[str]] = {}
    for group, piece in reference_parts():
        paths: list[CommandPath] = []
        for span in SPAN.findall(piece.replace("\\|", "|")):
            words = span.split()
            named_heedful = bool(words) and words[0] == "heedful"
            if named_heedful:
                words = words[1:]
            if not words:
                continue
            first = words[0].strip("[]")
            if first.startswith("--") and named_heedful:  # the global options (`heedful --model NAME …`)
                paths = []
            elif first.startswith("--"):  # options alone: the command named before them
                pass
            elif group is not None and (group, first.split("|")[0]) in tree:
                paths = [(group, name) for name in first.split("|")]
            elif first.split("|")[0] in top:
                names = first.split("|")
                subs = words[1].strip("[]").split("|") if len(words) > 1 and len(names) == 1 else []
                paths = [(names[0], sub) for sub in subs if (names[0], sub) in tree] or [(n,) for n in names]
            else:
                paths = []
            for path in paths:
                found.setdefault(path, set()).update(OPTION.findall(span))
    return found


pytestmark = pytest.mark.skipif(not README.exists(), reason="needs the README of a checkout")


def test_every_command_is_in_the_reference() -> None:
    tree = command_tree()
    named = documented(tree)
    groups = {path[0] for path in named if len(path) == 2}  # a group is named through its commands
    missing = sorted(" ".join(p) for p in tree if p not in named and not (len(p) == 1 and p[0] in groups))
    assert missing == []


def test_every_option_the_reference_writes_exists() -> None:
    tree = command_tree()
    stale = {
        " ".join(path): sorted(options - tree[path] - COMMON)
        for path, options in documented(tree).items()
        if path in tree and options - tree[path] - COMMON
    }
    assert stale == {}


def test_every_option_a_command_has_is_in_the_reference() -> None:
    tree = command_tree()
    named = documented(tree)
    undocumented = {
        " ".join(path): sorted(options - named.get(path, set()) - COMMON)
        for path, options in tree.items()
        if options - named.get(path, set()) - COMMON
    }
    assert undocumented == {}
