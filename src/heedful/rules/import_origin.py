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

Each import also records a `FileStamp` per file (size, mtime and a digest of the text it read) in
the store's `meta` table, so that SessionStart can say when an imported file changed since: it
stats each file and hashes one only when its size or mtime moved (`changed_files`). It never
imports on the hook path; the user runs the import again. This module stays free of heavy imports
for that reason.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
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


@dataclass(frozen=True)
class FileStamp:
    """An imported file as it was when imported."""

    file: str
    scope: str
    project: str | None
    size: int
    mtime_ns: int
    digest: str


def stamps_key(user: str) -> str:
    return f"import-stamps/{user}"


def text_digest(text: str) -> str:
    """The digest of a file's text as the importer reads it (UTF-8, universal newlines)."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def stamp(path: Path, text: str, scope: str, project: str | None) -> FileStamp:
    """The stamp of `path` imported as `text`; if the file changed since it was read, a stamp that
    never matches on size and mtime, so that SessionStart compares the digest and reports it."""
    info = path.stat()
    digest = text_digest(text)
    current = text_digest(path.read_text(encoding="utf-8", errors="replace"))
    mtime_ns = info.st_mtime_ns if current == digest else -1
    return FileStamp(str(path), scope, project, info.st_size, mtime_ns, digest)


def read_stamps(raw: str | None) -> dict[str, FileStamp]:
    """The stamps stored under `stamps_key`, by file; entries that do not parse are left out."""
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    out: dict[str, FileStamp] = {}
    for file, entry in data.items() if isinstance(data, dict) else ():
        try:
            out[file] = FileStamp(**entry)
        except TypeError:
            continue
    return out


def write_stamps(stamps: dict[str, FileStamp]) -> str:
    return json.dumps({file: asdict(item) for file, item in sorted(stamps.items())}, ensure_ascii=False)


@dataclass(frozen=True)
class FileChange:
    stamp: FileStamp
    gone: bool

    def notice(self) -> str:
        where = display_path(self.stamp.file, self.stamp.project)
        if self.gone:
            return f"{where} was imported but no longer exists; the rules imported from it still apply"
        return f"{where} changed since it was imported: run `heedful rules import {where}` to enforce what it says now"


def changed_files(
    stamps: Iterable[FileStamp], projects: list[str], read: Callable[[str], str] | None = None
) -> list[FileChange]:
    """The stamped files whose rules apply here (global, or for one of `projects`) that changed or went.

    A file whose size and mtime match its stamp is unchanged without being read; a moved mtime
    (an editor's save, a checkout) is a change only when the text's digest differs.
    """
    read = read or (lambda file: Path(file).read_text(encoding="utf-8", errors="replace"))
    out = []
    for item in stamps:
        if item.scope != "global" and item.project not in projects:
            continue
        try:
            info = os.stat(item.file)
        except OSError:
            out.append(FileChange(item, gone=True))
            continue
        if (info.st_size, info.st_mtime_ns) == (item.size, item.mtime_ns):
            continue
        try:
            text = read(item.file)
        except OSError:
            out.append(FileChange(item, gone=True))
            continue
        if text_digest(text) != item.digest:
            out.append(FileChange(item, gone=False))
    return out


__all__ = [
    "LIBRARY_KIND",
    "MARKER",
    "OP_PREFIX",
    "FileChange",
    "FileStamp",
    "Origin",
    "changed_files",
    "display_path",
    "owned_origin",
    "read_origin",
    "read_stamps",
    "stamp",
    "stamps_key",
    "text_digest",
    "write_stamps",
]
