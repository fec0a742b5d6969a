"""Reading instruction files: units, line numbers, what is skipped, and which units are directives."""

from __future__ import annotations

import pytest

from heedful.bench.import_labels import check_matches
from heedful.rules.import_detect import detect
from heedful.rules.import_origin import MARKER, OP_PREFIX, Origin, owned_origin, read_origin
from heedful.rules.import_parse import parse

MDC = """\
---
description: How to write tests
globs: "**/*.ts"
alwaysApply: true
---
# Testing

<!-- a comment
spanning lines -->
- Always run `pnpm test` before committing, and never
  skip a failing test.
- `pnpm build`: Build all packages.

```ts
// never do this
```

| Task | Command |
|------|---------|
| Lint | `pnpm lint` |

> Note: quoted text.

We use Vitest. Do not add Jest. See e.g. the docs.
"""


def test_units_lines_and_skips() -> None:
    units = parse(MDC)
    assert [(u.line, u.kind) for u in units] == [
        (6, "heading"),
        (10, "item"),
        (12, "item"),
        (18, "table"),
        (20, "table"),
        (22, "quote"),
        (24, "sentence"),
        (24, "sentence"),
        (24, "sentence"),
    ]
    item = units[1]
    assert item.text == "Always run `pnpm test` before committing, and never skip a failing test."
    assert item.lines == (10, 11) and item.heading == "Testing"
    assert [u.text for u in units[-3:]] == ["We use Vitest.", "Do not add Jest.", "See e.g. the docs."]


def test_wrapped_paragraph_sentences_keep_their_first_line() -> None:
    units = parse("Contributions need review: a human must read\nevery change. Do not open\npull requests yourself.\n")
    assert [(u.line, u.lines) for u in units] == [(1, (1, 2)), (2, (2, 3))]


def test_emphasis_is_dropped_and_setext_headings_are_headings() -> None:
    units = parse("Rules\n=====\n\n- **Never** push to `main`.\n")
    assert [(u.kind, u.text) for u in units] == [("heading", "Rules"), ("item", "Never push to `main`.")]


@pytest.mark.parametrize(
    "text",
    [
        "- NEVER perform builds with the release profile",
        "- Use `zod` for all data validation.",
        "- When working in `apps/`, use `wagmi` hooks for React integration.",
        "- **Imports**: Use absolute imports where configured.",
        "- `bun install` (never `npm install` / `npm ci`)",
        "- Go files → `make lint && make test_fast`",
        "- Commit messages must follow Conventional Commits.",
        "Generated files live in `gen/`. Don't edit them by hand.",
        "- Run all parser coverage with:",
    ],
)
def test_directives(text: str) -> None:
    units = [u for u in parse(text) if u.kind != "heading"]
    assert units and any(detect(u).directive for u in units), text


@pytest.mark.parametrize(
    "text",
    [
        "# Never push",
        "- `pnpm build`: Build all packages.",
        "- Build: `mise exec -- make build`",
        "- **Frontend**: Next.js, React, Tailwind CSS.",
        "This is a FastAPI service with a Postgres database.",
        "Please follow these guidelines when contributing:",
        "- Why does the build fail?",
        "| Never | `rm -rf` |",
    ],
)
def test_not_directives(text: str) -> None:
    assert not any(detect(u).directive for u in parse(text)), text


def test_origin_needs_the_marker_and_an_import_op() -> None:
    origin = Origin(file="/r/CLAUDE.md", line=4, text="Never push.")
    assert read_origin(origin.source_text()) == origin
    assert owned_origin(origin.source_text(), OP_PREFIX + "new") == origin
    assert owned_origin(origin.source_text(), "new") is None  # a correction that quotes the marker
    assert read_origin(MARKER + "{not json") is None
    assert read_origin(MARKER + '{"file": "x", "line": true, "text": "t"}') is None


def test_check_matching_against_labels() -> None:
    label = {"kind": "required_event", "params": {"commands": ["make lint"], "after": "edit"}}
    assert check_matches(label, {"kind": "required_event", "params": {"commands": [["make", "lint"]]}})
    assert not check_matches(label, {"kind": "required_event", "params": {"commands": ["make test"]}})
    push = {
        "kind": "forbidden_command",
        "params": {"program": "git", "subcommand": "push", "flags": [["--force", "-f"]]},
    }
    assert not check_matches(push, {"kind": "forbidden_command", "params": {"program": "git", "subcommand": "push"}})
    assert not check_matches(push, {"kind": "forbidden_path", "params": {"globs": ["x"]}})
