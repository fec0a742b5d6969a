"""A rule that points at a path named in the sentence before it: "`cli.md` is generated. Don't edit that file."

People name a file or folder in one sentence and give the rule about it in the next ("Everything under
`src/generated/` comes from protoc. Please don't edit those files."). Read alone, the second sentence has no
object a check can name. When the rule's object is a demonstrative file or folder ("that file", "those
files", "this directory") and the sentence just before names exactly one path, the rule is restated with that
path, and the sentence that names it joins the rule's evidence (both are the user's own words).

An edit ban with no object ("`_generated/`: type definitions. **Do not edit by hand**") reads the same way.

    with_path_referent(text, clause_start, candidate) -> the candidate, restated when it points back
"""

from __future__ import annotations

import re

from heedful.rules.lazy_regex import lazy
from heedful.rules.models import Candidate

# "**Do not edit by hand**" after "`_generated/` — type definitions": an edit ban with no object at all.
_OBJECTLESS = lazy(
    r"^(?P<ban>[\W_]*(?:please\s+)?(?:do not|don'?t|never)\s+(?:hand-?\s*)?(?:edit|modify|change|touch|update))"
    r"(?P<rest>(?:\s+(?:by hand|manually|directly|it|them))?[\W_]*)$",
    re.I,
)
_DEMONSTRATIVE = lazy(r"\b(?:that|this|these|those)\s+(?P<noun>files?|folders?|director(?:y|ies)|dirs?)\b", re.I)
# A path as people write one: backticked with a slash or an extension, or bare with a slash.
_PATH = lazy(r"`(?P<tick>[^`\s]*[/.][^`\s]*)`|(?<![\w/])(?P<bare>[\w.-]+/[\w./*-]*)")
_SENTENCE_END = lazy(r"[.!?;]\s+|\n")


# A path after these words is the tool or the source ("regenerated via `gen.py`", "built from `api.proto`").
_MEANS = lazy(r"\b(?:via|using|with|by|from|run|running|runs)\s*$", re.I)


def _paths(sentence: str) -> list[str]:
    """The paths a sentence is about (not those it names as the means or the source)."""
    found = []
    for match in _PATH.finditer(sentence):
        path = match.group("tick") or match.group("bare") or ""
        if path.startswith(("http", "//")) or path.endswith(".") or re.fullmatch(r"e\.g|i\.e|etc", path, re.I):
            continue
        if _MEANS.search(sentence[: match.start()]):
            continue
        found.append(path)
    return list(dict.fromkeys(found))


def _previous_sentence(text: str, start: int) -> str:
    before = text[:start].rstrip()
    ends = [m.end() for m in _SENTENCE_END.finditer(before)]
    # the sentence just before the clause: from the end of the one before it (its own end excluded)
    cut = max((e for e in ends if e < len(before)), default=0)
    return before[cut:].strip()


def with_path_referent(text: str, start: int, candidate: Candidate) -> Candidate:
    """`candidate` (its clause starting at `start` in `text`) restated with the path the sentence before names,
    when its object is "that file", "those files", "this folder" … and it names no path of its own."""
    pointer = _DEMONSTRATIVE.search(candidate.text)
    bare = _OBJECTLESS.match(candidate.text)
    if (pointer is None and bare is None) or _paths(candidate.text):
        return candidate
    previous = _previous_sentence(text, start)
    paths = _paths(previous)
    if len(paths) != 1 or not previous:
        return candidate
    path = paths[0]
    if pointer is None:
        assert bare is not None  # one of the two, checked above
        restated = f"{bare.group('ban')} `{path}`{bare.group('rest')}"
    else:  # "those files" of a folder are the files under it; "that folder" is the folder itself
        under = pointer.group("noun").lower() == "files" and path.endswith("/")
        named = f"files under `{path}`" if under else f"`{path}`"
        restated = candidate.text[: pointer.start()] + named + candidate.text[pointer.end() :]
    return candidate.model_copy(update={"text": restated, "evidence": [previous, *candidate.evidence]})


__all__ = ["with_path_referent"]
