"""Names of command-line programs beyond the command vocabulary: a rule that names one bans or requires a program.

`commands.toml` knows a few hundred programs with their families, subcommands and flags. People's rules name many
more ("do not use mkdocs", "avoid lerna", "never use doas"), and a name the compiler does not know leaves the rule
guidance. `data/program_names.txt` lists some 4,000 more: the titles of the tldr-pages (CC BY 4.0) that are one
program (subcommand pages such as "git push" are left out), less every name that is also an English word (a whole
word of the bundled tokenizer's vocabulary, or a word of some frequency in English text): "make", "black" and
"helm" name programs only where the vocabulary's own reading says so. A listed name is read as a program only
beside a command cue ("use X", "run X") or as the whole object of a short ban (`compile.mentions`).

Rebuild the list from a tldr-pages checkout with `python -m heedful.rules.program_names TLDR_DIR` (word frequency
comes from the `wordfreq` package when it is installed; without it only the tokenizer's vocabulary is consulted).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path

NAMES_FILE = "data/program_names.txt"
_NAME = re.compile(r"[a-z0-9][a-z0-9_+-]*")
_PLATFORMS = ("common", "linux", "osx", "windows")
_FREQUENT = 2.5  # a Zipf frequency at or above this is an English word (about once in 3 million words)


@lru_cache(maxsize=1)
def known_names() -> frozenset[str]:
    """The listed program names (empty when the file is missing: the compiler then knows only its vocabulary)."""
    try:
        text = resources.files("heedful.rules").joinpath(NAMES_FILE).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return frozenset()
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def is_program_name(word: str) -> bool:
    return word.lower() in known_names()


def page_title(page: str) -> str:
    """A tldr page's title: its first line without the heading mark ("# git push" -> "git push")."""
    first = page.split("\n", 1)[0].strip()
    return first[2:].strip() if first.startswith("# ") else ""


def program_names(titles: Iterable[str], is_english: Callable[[str], bool]) -> list[str]:
    """The one-program titles, lower case, that are not English words, sorted."""
    names = set()
    for title in titles:
        name = title.strip().lower()
        if " " in name or len(name) < 2 or not _NAME.fullmatch(name) or is_english(name):
            continue
        names.add(name)
    return sorted(names)


def english_test() -> Callable[[str], bool]:
    """Whether a word is English: a whole word of the bundled tokenizer's vocabulary, or frequent (`wordfreq`)."""
    tokenizer = Path(__file__).resolve().parent.parent / "embed" / "data" / "tokenizer.json"
    vocabulary = set(json.loads(tokenizer.read_text(encoding="utf-8"))["model"]["vocab"])
    try:
        from wordfreq import zipf_frequency  # type: ignore[import-not-found]  # a tool of this build only
    except ImportError:
        return lambda word: word in vocabulary
    return lambda word: word in vocabulary or zipf_frequency(word, "en") >= _FREQUENT


def titles_in(tldr: Path) -> list[str]:
    pages = [p for platform in _PLATFORMS for p in sorted((tldr / "pages" / platform).glob("*.md"))]
    return [page_title(p.read_text(encoding="utf-8", errors="replace")) for p in pages]


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not (Path(argv[0]) / "pages").is_dir():
        print("usage: python -m heedful.rules.program_names TLDR_DIR (a tldr-pages checkout)", file=sys.stderr)
        return 2
    names = program_names(titles_in(Path(argv[0])), english_test())
    header = [
        "# Program names from the titles of the tldr-pages (https://github.com/tldr-pages/tldr, CC BY 4.0,",
        "# the tldr-pages team and contributors), less English words; see heedful/rules/program_names.py.",
    ]
    target = Path(__file__).resolve().parent / NAMES_FILE
    target.write_text("\n".join([*header, *names]) + "\n", encoding="utf-8")
    print(f"{len(names)} names written to {target.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
