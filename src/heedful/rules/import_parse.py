"""Reading an agent-instruction file into units: list items and paragraph sentences, with line numbers.

Markdown as the agents' instruction files use it (CLAUDE.md, AGENTS.md, GEMINI.md, `.cursorrules`,
`.cursor/rules/*.mdc`, `.github/copilot-instructions.md`): YAML front matter, code fences and HTML
comments are skipped; headings, table rows and block quotes are kept as units that are never
directives; a list item wrapped over several lines is joined; a paragraph is split into sentences,
each starting on its own line number.

    >>> [(u.line, u.kind, u.text) for u in parse("# Rules\\n- Never push\\n  to main.\\n\\nBe brief. Use uv.\\n")]
    ... # doctest: +NORMALIZE_WHITESPACE
    [(1, 'heading', 'Rules'), (2, 'item', 'Never push to main.'), (5, 'sentence', 'Be brief.'),
     (5, 'sentence', 'Use uv.')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

UnitKind = Literal["heading", "item", "sentence", "table", "quote"]

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
_RULE_LINE = re.compile(r"^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,}|={3,})\s*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
# A sentence ends at . ! ? followed by space and a capital, a backtick, an emphasis or a bracket;
# abbreviations such as "e.g." and "etc." do not end one.
_SENTENCE_END = re.compile(r"(?<![Ee]\.g\.)(?<![Ii]\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<!\bcf\.)[.!?](?=\s+[A-Z`*_\[(\"'])")


@dataclass(frozen=True)
class Unit:
    """One readable unit of a file: `text` is its clean text, `raw` the file's own lines."""

    line: int
    kind: UnitKind
    text: str
    raw: str
    lines: tuple[int, ...] = field(default=())
    heading: str = ""


def clean_markup(text: str) -> str:
    """Drop emphasis markers and squeeze whitespace; code spans and links stay as written."""
    text = _EMPHASIS.sub(r"\2", text)
    text = _EMPHASIS.sub(r"\2", text)
    return re.sub(r"\s+", " ", text).strip()


def _sentences(pieces: list[tuple[int, str]]) -> list[tuple[int, str, tuple[int, ...]]]:
    """Split joined lines into sentences; each keeps the line it starts on and the lines it spans."""
    text = ""
    starts: list[tuple[int, int]] = []
    for number, piece in pieces:
        if text:
            text += " "
        starts.append((len(text), number))
        text += piece.strip()

    def line_at(offset: int) -> int:
        found = starts[0][1]
        for start, number in starts:
            if start <= offset:
                found = number
        return found

    out = []
    cursor = 0
    ends = [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    for end in ends:
        chunk = text[cursor:end]
        stripped = chunk.strip()
        if stripped:
            first = cursor + chunk.index(stripped)
            span = tuple(sorted({line_at(first), *(n for s, n in starts if first <= s < first + len(stripped))}))
            out.append((line_at(first), stripped, span))
        cursor = end
    return out


def _front_matter_end(lines: list[str]) -> int:
    """Index of the first line after YAML front matter (0 when there is none)."""
    if lines and lines[0].strip() == "---":
        for index in range(1, min(len(lines), 200)):
            if lines[index].strip() in ("---", "..."):
                return index + 1
    return 0


def parse(text: str) -> list[Unit]:
    """Every unit of an instruction file, in file order."""
    lines = text.splitlines()
    units: list[Unit] = []
    heading = ""
    index = _front_matter_end(lines)
    fence: str | None = None
    in_comment = False
    paragraph: list[tuple[int, str]] = []
    item: list[tuple[int, str]] = []
    item_indent = 0

    def flush() -> None:
        if item:
            raw = " ".join(piece.strip() for _, piece in item)
            units.append(
                Unit(
                    item[0][0],
                    "item",
                    clean_markup(raw),
                    "\n".join(p for _, p in item),
                    tuple(n for n, _ in item),
                    heading,
                )
            )
            item.clear()
        if paragraph:
            for number, sentence, span in _sentences(paragraph):
                units.append(Unit(number, "sentence", clean_markup(sentence), sentence, span, heading))
            paragraph.clear()

    while index < len(lines):
        line = lines[index]
        number = index + 1
        index += 1
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            continue
        if in_comment:
            in_comment = "-->" not in line
            continue
        stripped = line.strip()
        opened = _FENCE.match(line)
        if opened:
            flush()
            fence = opened.group(1)
            continue
        if stripped.startswith("<!--"):
            flush()
            in_comment = "-->" not in stripped
            continue
        if not stripped:
            flush()
            continue
        if re.match(r"^</?[a-zA-Z][\w-]*(?:\s[^>]*)?/?>$", stripped):
            flush()  # a lone HTML tag (<details>, </summary>, ...)
            continue
        if _RULE_LINE.match(line):
            if stripped.startswith("=") and paragraph:  # setext heading underline
                heading = clean_markup(" ".join(p for _, p in paragraph))
                units.append(Unit(paragraph[0][0], "heading", heading, paragraph[0][1], (paragraph[0][0],), heading))
                paragraph.clear()
                continue
            flush()
            continue
        found = _HEADING.match(line)
        if found:
            flush()
            heading = clean_markup(found.group(1))
            units.append(Unit(number, "heading", heading, line, (number,), heading))
            continue
        if stripped.startswith("|"):
            flush()
            if not _TABLE_SEPARATOR.match(stripped):
                units.append(Unit(number, "table", clean_markup(stripped), line, (number,), heading))
            continue
        if stripped.startswith(">"):
            flush()
            units.append(Unit(number, "quote", clean_markup(stripped.lstrip("> ")), line, (number,), heading))
            continue
        bullet = _ITEM.match(line)
        if bullet:
            flush()
            item_indent = len(bullet.group(1))
            item.append((number, bullet.group(2)))
            continue
        if item and (len(line) - len(line.lstrip()) > item_indent or not paragraph):
            item.append((number, stripped))  # a wrapped (or lazily continued) list item
            continue
        paragraph.append((number, stripped))
    flush()
    return units


__all__ = ["Unit", "UnitKind", "clean_markup", "parse"]
