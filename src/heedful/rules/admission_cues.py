"""A vocabulary of the cues that tell a lasting correction from a one-off request, by family.

Each family lists words and short phrases of one kind (a recurring trigger, a durable marker, a
complaint about a habit, a time bound, one concrete instance, a vague object ...). The admission
model reads one feature per family (does any cue of it occur) and one per pair of families whose
meeting matters (a bare imperative *with* a recurring trigger is a habit; a fact about the repository's
stack *with* a prohibition is a project rule), so the weights decide what each family is worth and a
new phrasing only needs its words added to a family, never a pattern for its sentence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# The things people do over and over with an agent: what a recurring trigger attaches to.
_OCCASIONS = (
    "commit commits push pushes pr prs pull request pull requests merge merges change changes edit edits file files "
    "time times run runs build builds deploy deploys release releases test tests session sessions task tasks "
    "reply replies response responses answer answers message messages feature features bug bugs fix fixes "
    "migration migrations script scripts function functions class classes component components module modules "
    "branch branches install installs package packages dependency dependencies query queries endpoint endpoints "
    "step steps turn turns change request review reviews"
).split()
# "before every commit", "after each change", "on all pushes"; bare "all tests" / "any file" name a task's
# objects as often as a habit, so "all" and "any" count only after a preposition of time.
_EVERY = ("every", "each", "every single", "each and every")
_WHEN = ("before", "after", "on", "for", "with", "at", "in", "when", "during", "between")


def _phrases(*groups: Iterable[str]) -> tuple[str, ...]:
    return tuple(phrase for group in groups for phrase in group)


def _every_occasion() -> tuple[str, ...]:
    bare = tuple(f"{q} {o}" for q in _EVERY for o in _OCCASIONS)
    timed = tuple(f"{w} {q} {o}" for w in _WHEN for q in ("all", "any") for o in _OCCASIONS)
    return bare + timed


FAMILIES: dict[str, tuple[str, ...]] = {
    # "before every commit", "after each change", "whenever you", "at the end of each response"
    "recurring": _phrases(
        _every_occasion(),
        (
            "whenever",
            "every time",
            "everytime",
            "each time",
            "any time",
            "anytime",
            "at the end of each",
            "at the end of every",
            "at the start of each",
            "at the start of every",
            "at the beginning of each",
            "at the beginning of every",
            "as you go",
            "on save",
            "on every",
        ),
    ),
    # Words that make a statement last: the classic markers, and the terse ones ("Ever.", "period").
    "durable": (
        "always",
        "never",
        "ever",
        "ever again",
        "from now on",
        "going forward",
        "from here on",
        "from here on out",
        "in the future",
        "in future",
        "next time",
        "for good",
        "permanently",
        "by default",
        "as a rule",
        "no exceptions",
        "without exception",
        "under no circumstances",
        "at all times",
        "in all cases",
        "period",
        "full stop",
        "anymore",
        "any more",
        "no more",
        "not again",
        "for all future",
        "all future",
        "in general",
        "generally",
    ),
    # The user asks for the lesson to be written down: a lasting rule by intent.
    "rule_request": (
        "make a rule",
        "add a rule",
        "create a rule",
        "write a rule",
        "make it a rule",
        "make that a rule",
        "make this a rule",
        "record this",
        "record that",
        "remember this",
        "remember that",
        "note this",
        "note that for",
        "document this",
        "claude.md",
        "agents.md",
        "memory",
        "keep in mind",
        "learn this",
        "lesson",
    ),
    # A complaint about something the agent does again and again (which states the rule to keep).
    "habit_complaint": (
        "you keep",
        "you always",
        "you never",
        "you still",
        "again",
        "yet again",
        "once again",
        "how many times",
        "i told you",
        "i already told you",
        "i've told you",
        "i have told you",
        "i asked you",
        "i said",
        "every single time",
        "stop doing",
        "quit doing",
        "why do you keep",
        "why do you always",
        "for the last time",
        "as i said",
        "like i said",
    ),
    # A time bound or a single occasion: this task only.
    "one_off": (
        "just this once",
        "this once",
        "this time",
        "for now",
        "right now",
        "for this pr",
        "for this commit",
        "for this branch",
        "for this task",
        "in this pr",
        "in this commit",
        "in this branch",
        "today",
        "tonight",
        "tomorrow",
        "temporarily",
        "for the moment",
        "at the moment",
        "until",
        "for the demo",
        "this one",
        "only here",
        "just here",
        "first",
        "now",
        "then",
        "next step",
        "continue",
        "go ahead",
        "let's",
        "lets",
    ),
    # A request for information rather than an instruction.
    "info_request": (
        "what is",
        "what's",
        "whats",
        "what does",
        "what do",
        "how do i",
        "how can i",
        "how to",
        "how does",
        "why does",
        "why is",
        "is there",
        "are there",
        "do you know",
        "can you explain",
        "explain",
        "tell me",
        "summarize",
        "summarise",
        "overview",
        "describe",
        "where is",
        "which",
    ),
    # A fact about the repository's stack or setup: a rule it motivates binds to the project.
    "repo_fact": (
        "this repo",
        "this repository",
        "this project",
        "this codebase",
        "our repo",
        "our project",
        "our codebase",
        "in this repo",
        "in here",
        "we use",
        "we're on",
        "we are on",
        "is on python",
        "is on node",
        "runs on",
        "targets",
        "pinned to",
        "stuck on",
        "our ci",
        "the ci",
        "monorepo",
        "our team",
        "the team",
    ),
    # A ban phrased without a verb ("No force pushes", "no global installs").
    "verbless_ban": (
        "no force",
        "no global",
        "no direct",
        "no emojis",
        "no emoji",
        "no comments",
        "no console",
        "no print",
        "no sudo",
        "no secrets",
        "no magic",
        "no hardcoded",
        "no inline",
        "no trailing",
        "no new",
        "no more",
        "nothing but",
        "only ever",
    ),
}


class _PhraseSet:
    """Where a family's cues occur: each phrase as a whole-word match (not after a letter, digit, `_` or `.`,
    not before a letter, digit or `_`), found by looking the phrases up by their first word.

    The same matches as one regular-expression alternation of the phrases, without compiling ~2,000
    alternatives at import (about 40 ms of every command that admits a message).
    """

    def __init__(self, phrases: Iterable[str]) -> None:
        self._by_first_word: dict[str, dict[int, set[str]]] = {}
        for phrase in phrases:
            first = _WORD.match(phrase)
            if first is None:
                raise ValueError(f"a cue must start with a word character: {phrase!r}")
            self._by_first_word.setdefault(first.group(), {}).setdefault(len(phrase), set()).add(phrase)

    def occurs_in(self, text: str) -> bool:
        # A phrase can only start where a run of word characters starts (not after a word character), and
        # since it ends at a word boundary that run is exactly the phrase's first word.
        for word in _WORD.finditer(text):
            start = word.start()
            if start and text[start - 1] == ".":
                continue
            for length, phrases in self._by_first_word.get(word.group(), {}).items():
                end = start + length
                if text[start:end] in phrases and not _WORD_CHAR.match(text, end):
                    return True
        return False


_WORD = re.compile(r"\w+")
_WORD_CHAR = re.compile(r"\w")
_SETS = {family: _PhraseSet(words) for family, words in FAMILIES.items()}
NAMES: tuple[str, ...] = tuple(f"cue_{family}" for family in FAMILIES)
# Pairs whose meeting says more than either alone; read together with the sentence's form.
PAIRS: tuple[tuple[str, str], ...] = (
    ("imperative", "recurring"),
    ("prohibition", "durable"),
    ("prohibition", "repo_fact"),
    ("imperative", "repo_fact"),
    ("habit_complaint", "imperative"),
    ("habit_complaint", "prohibition"),
    ("rule_request", "imperative"),
    ("verbless_ban", "short"),
    ("one_off", "imperative"),
)
PAIR_NAMES: tuple[str, ...] = tuple(f"pair_{a}_{b}" for a, b in PAIRS)


def families(lower: str) -> dict[str, bool]:
    """Which families have a cue in the (lower-cased, normalised) message."""
    return {family: phrases.occurs_in(lower) for family, phrases in _SETS.items()}


def values(lower: str, form: dict[str, bool]) -> list[float]:
    """The family flags (`NAMES`) then the pair flags (`PAIR_NAMES`); `form` gives the sentence-form flags
    the pairs use (imperative, prohibition, short)."""
    found = families(lower)
    flags = {**found, **form}
    return [float(found[f]) for f in FAMILIES] + [float(flags[a] and flags[b]) for a, b in PAIRS]
