"""Where an imported rule came from: a file, a line and that line's text, kept in `source_text`.

A rule revision written by `heedful rules import` stores a marker in its `source_text`
(`heedful-import/1 {"file": ..., "line": ..., "text": ...}`) and an op starting with `import`
(`import:new`, `import:update`, ...). Both must hold for the import to own the revision: a
correction's message can contain any text, but only the importer writes those ops. Once the user
edits, approves or retracts the rule, its newest revision is theirs and no later import touches it.

    >>> origin = Origin(file="/repo/CLAUDE.md", line=3, text="Never push to main.")
    >>> read_origin(origin.source_text()) == origin
    True
    >>> read_origin("never push to main") is None
    True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

MARKER = "heedful-import/1 "
OP_PREFIX = "import:"
# The store's library versions accept learn|edit|retract|undo|approve; an import is learning.
LIBRARY_KIND = "learn"


@dataclass(frozen=True)
class Origin:
    file: str
    line: int
    text: str

    def source_text(self) -> str:
        return MARKER + json.dumps({"file": self.file, "line": self.line, "text": self.text}, ensure_ascii=False)

    def location(self, root: str | None = None) -> str:
        """`CLAUDE.md:12` (relative to the project root when inside it), for evidence and tables."""
        return f"{display_path(self.file, root)}:{self.line}"


def read_origin(source_text: str) -> Origin | None:
    if not source_text.startswith(MARKER):
        return None
    try:
        data = json.loads(source_text[len(MARKER) :])
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("file"), str) or not isinstance(data.get("text"), str):
        return None
    line = data.get("line")
    if not isinstance(line, int) or isinstance(line, bool):
        return None
    return Origin(file=data["file"], line=line, text=data["text"])


def owned_origin(source_text: str, op: str) -> Origin | None:
    """The origin of a revision the importer wrote, else None (a correction, an edit, ...)."""
    return read_origin(source_text) if op.startswith(OP_PREFIX) else None


def display_path(file: str, root: str | None = None) -> str:
    path = Path(file)
    for base in (root, str(Path.home())):
        if base:
            try:
                relative = path.relative_to(base)
            except ValueError:
                continue
            return str(relative) if base == root else f"~/{relative}"
    return file


__all__ = ["LIBRARY_KIND", "MARKER", "OP_PREFIX", "Origin", "display_path", "owned_origin", "read_origin"]
