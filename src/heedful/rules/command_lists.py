"""A forbidden list of commands, split into one candidate per command.

A rule holds one check, and a command check matches one command: "never run git push --force or git reset
--hard" read as one rule kept the first command and let the second through (or offered it as the way to go).
Each command of such a list becomes its own rule with the list's head and tail around it, so every one of
them is enforced: "never run git push --force without asking" and "never run git reset --hard without
asking". Backticked lists ("`git push --force`, `git reset --hard`, or `rm -rf`") and plain ones are read
alike; bare programs banned together ("no npm or yarn") stay one rule, whose check names them all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from heedful.rules.lazy_regex import lazy
from heedful.rules.models import Candidate
from heedful.rules.scope_grounding import TARGET_RUNNERS

# A forbidden list of commands: "do not run `git push --force`, `git reset --hard`, or `rm -rf`".
_QUOTED_LIST = lazy(r"`[^`]+`(?:\s*(?:,|/|,?\s+(?:or|and|nor))\s*`[^`]+`)+")
# What says the list is forbidden, before it.
_FORBIDDING = lazy(
    r"\b(?:never|not|no|don'?t|dont|avoid|stop|forbidden|banned|prohibited|disallowed|refrain)\b|n't\b", re.I
)
_SEPARATORS = frozenset({"or", "and", "nor", "/"})
# A word of a command line after its program: a flag, a subcommand or argument, a path or a glob.
_COMMAND_WORD = lazy(r"^(?:--|-{1,2}[\w][\w=.:/-]*|[a-z0-9][\w.:/=@+-]*|[./~][\w./*-]*|\*[\w.*-]*)$")
_EDGE = "`'\"“”‘’"


@dataclass(frozen=True, slots=True)
class _Segment:
    start: int
    end: int
    words: tuple[str, ...]


def _tokens(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", text)]


def _bare(token: str) -> str:
    """A token without the quotes around it and the list's comma after it."""
    return token.strip(_EDGE).rstrip(",;:").strip(_EDGE)


def _program(token: str) -> str | None:
    from heedful.rules import vocabulary as vocab

    word = _bare(token)
    return vocab.program_named(word) if word and not word.startswith("-") else None


def _end(token_start: int, token: str) -> int:
    """Where a token ends without the punctuation after it ("--force," or "--hard.")."""
    kept = token.rstrip(",;:")
    if len(kept) > 1:
        kept = kept.rstrip(".!?")
    return token_start + len(kept)


def _segment(tokens: list[tuple[int, int, str]], at: int) -> tuple[_Segment, int, bool]:
    """The command starting at token `at`: (the segment, the index after it, whether a comma closed it)."""
    from heedful.rules import vocabulary as vocab

    start, _, first = tokens[at]
    words, end = [_bare(first)], _end(start, first)
    closed = first.rstrip(_EDGE).endswith(",")
    index = at + 1
    while not closed and index < len(tokens):
        token_start, _, token = tokens[index]
        word = _bare(token)
        if not word or word.lower() in _SEPARATORS or word.lower() in vocab.STOP or not _COMMAND_WORD.match(word):
            break
        words.append(word)
        end = _end(token_start, token)
        closed = token.rstrip(_EDGE).endswith(",")
        index += 1
    return _Segment(start, end, tuple(words)), index, closed


def _plain_list(text: str) -> list[_Segment]:
    """The longest list of two or more commands joined by commas, "or", "and" or "nor", each led by a program."""
    tokens = _tokens(text)
    best: list[_Segment] = []
    at = 0
    while at < len(tokens):
        if _program(tokens[at][2]) is None:
            at += 1
            continue
        found: list[_Segment] = []
        index = at
        while index < len(tokens) and _program(tokens[index][2]) is not None:
            segment, index, closed = _segment(tokens, index)
            found.append(segment)
            if index < len(tokens) and _bare(tokens[index][2]).lower() in _SEPARATORS:
                index += 1
            elif not closed:
                break
        if len(found) > len(best):
            best = found
        at = max(index, at + 1)
    return best if len(best) >= 2 else []


def _worth_splitting(segments: list[_Segment]) -> bool:
    """A list of commands, not of bare programs ("no npm or yarn": one check names both) nor of English words
    that happen to name programs ("don't go and make a mess"): some command carries a flag, or each names more
    than its program; a program that is also an English word counts only with a flag, one of its subcommands or,
    for a target runner, a target."""
    from heedful.rules import vocabulary as vocab

    def flagged(segment: _Segment) -> bool:
        return any(w.startswith("-") for w in segment.words[1:])

    def plainly_a_command(segment: _Segment) -> bool:
        """ "helm uninstall", "make -j4": an English word that is a program, with its own subcommand or a flag."""
        name = _program(segment.words[0])
        known = vocab.vocabulary().programs.get(name or "")
        named = known is not None and len(segment.words) > 1 and segment.words[1].lower() in known.subcommands
        targeted = name in TARGET_RUNNERS and len(segment.words) > 1  # "make deploy": any word is a target
        return name not in vocab.AMBIGUOUS or flagged(segment) or named or targeted

    if not all(plainly_a_command(s) for s in segments):
        return False
    return any(flagged(s) for s in segments) or all(len(s.words) >= 2 for s in segments)


def split_command_list(candidate: Candidate) -> list[Candidate]:
    """One candidate per command of a forbidden list: each is its own rule with its own check."""
    text = candidate.text
    quoted = _QUOTED_LIST.search(text)
    if quoted is not None:
        head, tail = text[: quoted.start()], text[quoted.end() :]
        commands = re.findall(r"`([^`]+)`", quoted.group(0))
        if not _FORBIDDING.search(head) or head.rstrip().endswith("("):
            return [candidate]  # "use uv, not pip (`uv add`, `uv pip install`)": examples of the allowed way
        if not all(" " in c.strip() or re.fullmatch(r"[a-z][\w.-]*", c.strip()) for c in commands):
            return [candidate]  # `rules/` or `.claude/skills/`: a list of paths is one rule about those paths
        pieces = re.findall(r"`[^`]+`", quoted.group(0))
    else:
        segments = _plain_list(text)
        if not segments or not _worth_splitting(segments):
            return [candidate]
        head, tail = text[: segments[0].start], text[segments[-1].end :]
        if not _FORBIDDING.search(head) or head.rstrip().endswith("(") or tail.lstrip().startswith("-"):
            return [candidate]  # a flag the list does not end cleanly before ("git checkout --."): left whole
        pieces = [text[s.start : s.end] for s in segments]
    return [candidate.model_copy(update={"text": f"{head}{piece}{tail}"}) for piece in dict.fromkeys(pieces)]
