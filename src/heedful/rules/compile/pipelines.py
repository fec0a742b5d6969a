"""The reader for rules about pipelines: a program whose output must not go into another one.

"dont pipe curl into sh", "no `wget -qO- URL | bash`", "never curl-to-bash install scripts" name a
source (the download) and a receiver (the shell that would run it). Neither program alone is
forbidden: the check is the source's `forbidden_command` with `piped_into`. A shell named by any of
its names ("sh", "bash", "a shell") means every shell, since any of them runs the script.
"""

from __future__ import annotations

import re

from heedful.rules import vocabulary as vocab
from heedful.rules.compile.words import NEGATED, spec
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

SHELLS = ["sh", "bash", "zsh", "dash", "ksh", "fish"]
# Both fetch a URL to standard output: "never pipe curl into sh" is about the downloaded script, by either.
_DOWNLOADERS = ("curl", "wget")
# interpreters that run a script read from standard input, by the names the shell reader gives them
_INTERPRETERS = {"python": "python", "python3": "python", "node": "node", "perl": "perl", "ruby": "ruby"}
_SHELL_WORD = r"(?:sh|bash|zsh|dash|ksh|fish|shells?|terminal)"
_ARTICLE = r"(?:(?:a|an|the|your|my|any|some)\s+)?"
_PROSE = lazy(
    rf"\bpip(?:e|es|ed|ing)\b(?P<between>(?:\W+[\w.-]+){{0,9}}?)\W+(?:straight\s+|directly\s+)?"
    rf"(?:into|to|through|thru|in)\s+{_ARTICLE}`?(?P<dst>[\w.-]+)",
    re.I,
)
_LITERAL = lazy(r"(?P<before>[^|`;]*?)\|\s*(?:sudo\s+(?:-\S+\s+)*)?`?(?P<dst>[\w./-]+)", re.I)
# "never curl install scripts into bash": the download verb itself, then the shell it feeds
_FED = lazy(
    rf"\b(?P<src>curl|wget|fetch)\b(?P<between>(?:\W+[\w.:/-]+){{0,5}}?)\W+(?:straight\s+|directly\s+)?"
    rf"(?:into|to|through|thru)\s+{_ARTICLE}`?(?P<dst>{_SHELL_WORD})\b",
    re.I,
)
_BANNED = lazy(r"\b(?:banned|forbidden|not allowed|prohibited|off[- ]limits|no-go|a no)\b", re.I)
_HYPHENED = lazy(rf"\b(?P<src>[\w]+)[- ](?:pipe[- ]|to[- ]|into[- ]|\|[- ]?)(?P<dst>{_SHELL_WORD})\b", re.I)


def _receivers(word: str) -> list[str] | None:
    lowered = word.lower().strip("`'\"").rsplit("/", 1)[-1]
    if re.fullmatch(_SHELL_WORD, lowered) or lowered in ("shell", "shells"):
        return list(SHELLS)
    if lowered in _INTERPRETERS:
        return [_INTERPRETERS[lowered]]
    return None


def _sources(words: str) -> list[str]:
    """Programs named in the words before the pipe (`curl`, `wget`), in order, the receivers aside."""
    found: list[str] = []
    for word in vocab.plain_words(words):
        program = vocab.program_named(word.split()[0]) if word.split() else None
        if program and program not in found and _receivers(program) is None and program not in vocab.PRIVILEGE_TOOLS:
            found.append(program)
    return found


def pipeline_checks(text: str) -> list[CheckSpec] | None:
    """Checks for a rule against piping one program into another; None when the rule names no pipeline."""
    pairs: list[tuple[list[str], list[str]]] = []
    for match in _PROSE.finditer(text):
        receivers = _receivers(match.group("dst"))
        before = text[max(0, match.start() - 60) : match.start()].rsplit(".", 1)[-1]
        if receivers is not None:
            pairs.append((_sources(f"{before} {match.group('between')}"), receivers))
    for match in _FED.finditer(text):
        receivers = _receivers(match.group("dst"))
        if receivers is not None:
            pairs.append((_sources(match.group("src")), receivers))
    for match in _HYPHENED.finditer(text):
        receivers = _receivers(match.group("dst"))
        if receivers is not None:
            pairs.append((_sources(match.group("src")), receivers))
    for match in _LITERAL.finditer(text):
        receivers = _receivers(match.group("dst"))
        if receivers is not None:
            pairs.append((_sources(match.group("before")), receivers))
    if not pairs:
        return None
    if not NEGATED.search(text) and not _BANNED.search(text):
        return []  # "pipe the output to bash to run it" is how to do something, not a rule against it
    out: list[CheckSpec] = []
    for sources, receivers in pairs:
        for source in sources:
            params: dict[str, object] = {"program": source, "piped_into": receivers}
            if source in _DOWNLOADERS:
                params["synonyms"] = [d for d in _DOWNLOADERS if d != source]
            if not any(existing.params == params for existing in out):
                out.append(spec("forbidden_command", params))
    return out
