"""What every reader of the compiler shares: number words, the words that name an activity, `spec`.

The activity words (EDIT_WORDS, REPLY_WORDS, ...) say which conditions a check of each kind decides
by its own firing (`qualifiers.condition_decided`); NEGATED, EMOJI and `quoted` are read the same
way in replies and commit messages.
"""

from __future__ import annotations

import re
from typing import Any

from heedful.rules.checks import stage_of
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "a single": 1,
    "single": 1,
}
NUM = r"(?P<n>\d{1,5}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a single)"
LANGUAGE_GLOBS = {
    "python": ["*.py"],
    "typescript": ["*.ts", "*.tsx"],
    "ts": ["*.ts", "*.tsx"],
    "javascript": ["*.js", "*.jsx"],
    "js": ["*.js", "*.jsx"],
    "go": ["*.go"],
    "rust": ["*.rs"],
    "shell": ["*.sh"],
    "bash": ["*.sh"],
    "ruby": ["*.rb"],
    "java": ["*.java"],
    "kotlin": ["*.kt"],
    "swift": ["*.swift"],
    "terraform": ["*.tf"],
    "proto": ["*.proto"],
}
GENERIC = frozenset(
    "you your you're youre yourself i i'm we we're me us it it's its they are is be been being am was do does doing "
    "did have has the a an any some something anything stuff thing things working work writing write using use running "
    "run make making need needs needed to of in on for with at about new my our this that these those want try "
    "trying go going get getting when whenever if while during time times every each always ever just also etc "
    "there here one ones or and all whole project projects repo repository codebase code only".split()
)
EDIT_WORDS = (
    frozenset(
        "edit editing edits edited change changes changing changed modify modifying modified write writes touch "
        "touching file files source sources add adding create creating update updating script scripts module modules "
        "function functions imports import dependencies templates template chart charts schema config configs tests "
        "test docs types type".split()
    )
    | frozenset(LANGUAGE_GLOBS)
    | frozenset({"sh", "shell", "tf", "proto", "rs", "py"})
)
REPLY_WORDS = frozenset(
    "reply replies replying answer answers answering respond responding response responses chat "
    "talk talking message messages explain explaining summary summaries summarize".split()
)
COMMIT_WORDS = frozenset(
    "commit commits committing committed git message messages stage staging add adding push pushing".split()
)
DELIVERY_WORDS = frozenset(
    "done finish finishing finished reply replying before after say saying tell telling claim "
    "claiming complete completing wrap wrapping hand report reporting end task".split()
)


def number(word: str) -> int | None:
    word = word.lower()
    return int(word) if word.isdigit() else NUMBERS.get(word)


def spec(kind: str, params: dict[str, Any]) -> CheckSpec:
    from heedful.rules.checks import KINDS

    evidence = KINDS[kind].evidence_for(params)
    return CheckSpec(kind=kind, stage=stage_of(kind, params), params=params, evidence=evidence)


EMOJI = lazy(r"\bemoji(?:s)?\b|\bemoticons?\b|\bsmiley(?:s| faces?)?\b", re.I)
NEGATED = lazy(r"(?<![\w-])(?:never|no|don'?t|do not|stop|avoid|without|quit|not)(?![\w-])", re.I)
_QUOTED = lazy(r"[\"“](?P<a>[^\"”]{2,80})[\"”]|(?<![\w])['‘](?P<b>[^‘’]{2,80}?)['’](?=[\s,.;:!?)]|$)")


def quoted(text: str) -> list[str]:
    """Quoted phrases without closing punctuation ("'Happy coding!'" forbids "Happy coding"); a single word keeps
    its "!" ("'Certainly!'"), which tells the interjection from the word used in a sentence."""
    out = []
    for match in _QUOTED.finditer(text):
        phrase = (match.group("a") or match.group("b")).strip().rstrip(".…").strip()
        out.append(phrase.rstrip("!").strip() if " " in phrase else phrase)
    return out


def mask_quoted(text: str) -> str:
    """The text with every quoted phrase blanked (same length): its words are data, not the rule's grammar."""
    return _QUOTED.sub(lambda m: m.group(0)[0] + "_" * (len(m.group(0)) - 2) + m.group(0)[-1], text)


# A message quoted in the rule ("Module not found" in Pyright): its negations are the message's, not the rule's.
_QUOTED_NEGATION = lazy(r"\b(?:not|no|never|don't|cannot|can't|won't)\b", re.I)


def unquoted_negations(text: str) -> str:
    """The text with the negations inside quoted messages replaced by a neutral word, word for word."""
    return _QUOTED.sub(lambda m: _QUOTED_NEGATION.sub("quoted", m.group(0)), text)
