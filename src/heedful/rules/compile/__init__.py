"""Compilation: read a rule's directive as one of the closed check kinds, or decline.

`propose(text, condition, exceptions)` returns candidate check specs, most faithful first (the
offline compiler). Each family of kinds has its reader: commands (`commands`, against the command
vocabulary read by `mentions`, which takes each program's role from `roles` and tells English words from
programs in `english`; runner forms such as `uv run tox` in `runners`; pipelines such as `curl | sh` in
`pipelines`), paths and staged paths (`paths`), replies
(`replies`), commit messages (`commits`), required commands and leftovers (`events`). Conditions and
exceptions stay with the rule unless the check decides them (`qualifiers`); a phrase after a command that
narrows it to one use keeps the rule guidance unless the command decides it (`reach`), and a deployment
environment the rule names is one the command line decides (`environments`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from heedful.rules.compile.actions import action_checks
from heedful.rules.compile.commands import FLAG_OWNERS, command_checks, command_words, flag_in_condition
from heedful.rules.compile.commits import commit_message
from heedful.rules.compile.environments import with_environment
from heedful.rules.compile.events import PRECONDITION, TEST_COMMANDS, leftovers, required_event
from heedful.rules.compile.paths import path_checks
from heedful.rules.compile.qualifiers import qualifiers_decided, split_qualifiers
from heedful.rules.compile.replies import json_checks, reply_count, reply_text
from heedful.rules.compile.words import LANGUAGE_GLOBS, NUMBERS, number, spec
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

# A retraction states no check: it withdraws one (rules/retraction.py).
_RETRACTION = lazy(
    r"^\s*(?:retract|withdraw|drop|forget|cancel|undo|ignore)\b|\bno longer\b|\bis allowed again\b", re.I
)


_PLACEHOLDER = lazy(r"\s*<[\w .|/-]{1,30}>")  # "npx <bin>", "just gen-grammar <lang>"
_ASK_BEFORE = lazy(
    r"^(?:always\s+|please\s+)?(?:ask|check with (?:me|the user)|confirm with (?:me|the user)|get (?:my |explicit )?"
    r"(?:approval|confirmation|permission))(?:\s+(?:me|the user|first|for (?:approval|confirmation|permission)))*"
    r"\s+before\s+(?P<rest>\w+ing\b.+)$",
    re.I,
)


# How rules are written in instruction files and chat: list markers, emphasis and set phrases of negation
# ("- **NEVER** run `git push`", "Under no circumstances should you run X") say nothing a check needs.
_LIST_MARKER = lazy(r"^\s*(?:[-*+>•]|\d{1,2}[.)])\s+")
# paired markers only: `**/*.py`, `rm -rf *` and `__init__.py` keep their stars and underscores
_EMPHASIS = (
    lazy(r"(?<![\w/.])(\*\*|__)(?=[^\s/*])(.+?)(?<=[^\s/*])\1(?![\w.*/])"),  # `src/__generated__` stays
    lazy(r"(?<![\w*/])(\*)(?=[A-Za-z])([^*\n]+?)(?<=[A-Za-z!])\*(?![\w.*/])"),
)
_NEVER_PHRASES = (
    (
        lazy(
            r"\b(?:under no circumstances|at no time|in no case|on no account)(?:\s+(?:should|must|may|will)\s+you)?\b",
            re.I,
        ),
        "never",
    ),
    (lazy(r",?\s*\b(?:under any circumstances|for any reason|ever again|at all costs|whatsoever)\b,?", re.I), " "),
    # "stay away from X", "refrain from using X", "quit using X": set phrases of "never use X"
    (lazy(r"\b(?:stay|keep|steer) (?:away|clear) (?:from|of)\b|\brefrain from\b", re.I), "never use"),
)


# A complaint that states the rule: "you keep using pip", "why do you keep running git push --force?" is "never ..."
_COMPLAINT = lazy(
    r"^\s*(?:(?:ugh+|omg|come on|seriously|again|dude|bro|man|wtf|hey|ok|okay|look|so)[,!.]*\s+)*"
    r"(?:(?:why|how come)\s+(?:do|are|did|would|is|does)\s+you\s+(?:keep\s+|still\s+|always\s+)?(?:on\s+)?|"
    r"you(?:'re| are)?\s+(?:keep|kept|still|always|again)\s+(?:on\s+)?)"
    r"(?P<verb>using|running|doing|calling|adding|installing|committing|pushing|editing|touching|creating|writing|"
    r"deleting|modifying)\b(?P<rest>[^.?!;]*)",
    re.I,
)
_BASE = {
    "using": "use",
    "running": "run",
    "doing": "",
    "calling": "call",
    "adding": "add",
    "installing": "install",
    "committing": "commit",
    "pushing": "push",
    "editing": "edit",
    "touching": "touch",
    "creating": "create",
    "writing": "write",
    "deleting": "delete",
    "modifying": "modify",
}


# "you committed the .envrc again, don't": what the agent did again, said as a complaint
_DID_AGAIN = lazy(
    r"^\s*(?:(?:ugh+|omg|come on|seriously|dude|hey|ok|okay|look)[,!.]*\s+)*you(?:'ve| have)?\s+(?:just\s+)?"
    r"(?P<verb>committed|pushed|staged|used|ran|deleted|edited|touched|modified|installed|added)\s+"
    r"(?P<rest>(?:[^.?!;]|\.(?=\S))+?)\s+again\b[^.?!;]*",
    re.I,
)
_PAST = {
    "committed": "commit",
    "pushed": "push",
    "staged": "stage",
    "used": "use",
    "ran": "run",
    "deleted": "delete",
    "edited": "edit",
    "touched": "touch",
    "modified": "modify",
    "installed": "install",
    "added": "add",
}


# A reminder states a command that must run, not one to avoid: "don't forget to run X", "do not skip X", "you forgot
# to run X again". Without a moment of its own it is due before the work is handed back.
_REMINDER = lazy(
    r"^\s*(?:(?:please|pls|and|also|again)[,!]?\s+)*(?:(?:don'?t|do not|never)\s+(?:ever\s+)?(?:forget|neglect|fail)\s+to"
    r"|remember\s+to|make sure (?:to|you)|(?:don'?t|do not|never)\s+(?:ever\s+)?(?:skip|omit|forget)(?:ping)?"
    r"(?:\s+running)?|you(?:'ve| have)?\s+(?:forgot(?:ten)?\s+to|did\s*n[o']t|never)(?=\s+run\b))"
    r"\s+(?:run(?:ning)?\s+)?(?P<what>.+?)(?:\s+again)?(?P<end>[.!]\s.*|[.!]*)$",
    re.I,
)
_MOMENT_WORDS = lazy(r"\b(?:before|after|once|when(?:ever)?|until|prior to|every time)\b", re.I)
# "cargo clippy before every commit": a command named first, then when it runs
_COMMAND_FIRST = lazy(
    r"^(?P<cmd>`[^`]+`|(?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)*(?:\s+[\w./:-]+){0,3}?)\s+"
    r"(?=(?:before|after|prior to)\s+(?:every|each|any|all|you|committing|pushing|a|the|finishing|merging)\b)",
    re.I,
)


def _as_required(text: str) -> str:
    """A reminder or a command named before its moment, read as the run it requires."""
    reminder = _REMINDER.match(text)
    if reminder is not None and re.search(r"\bhooks?\b|--no-verify|\bverification\b", text, re.I):
        reminder = None  # "never skip the git hooks": the bypass flag (`--no-verify`), read by the command reader
    if reminder is not None and vocab_program(reminder.group("what")):
        what = reminder.group("what").strip()
        due = "" if _MOMENT_WORDS.search(what) else " before finishing"
        return f"run {what}{due}"
    first = _COMMAND_FIRST.match(text)
    if first is not None and vocab_program(first.group("cmd"), cued=True):
        return f"run {text}"
    return text


def vocab_program(phrase: str, cued: bool = False) -> bool:
    """Whether a phrase is a command: a program of the vocabulary (or a script by its path) with its own words.
    `cued`: nothing before it says it is a command, so an English word (`make`) counts only in backticks, and
    the words after the program must be its arguments, not a sentence ("mypy has to pass")."""
    from heedful.rules.vocabulary import AMBIGUOUS, STOP, program_named

    quoted = phrase.strip().startswith("`")
    words = phrase.strip().strip("`").split()
    if not words:
        return False
    program = program_named(words[0])
    if program is None and not words[0].startswith(("./", "scripts/", "bin/")):
        return False
    if cued and not quoted:
        if program in AMBIGUOUS or any(w.lower() in STOP or w.lower() in _SENTENCE_WORDS for w in words[1:]):
            return False
    return True


_SENTENCE_WORDS = frozenset("has have had pass passes passing need needs sure be green clean runs".split())


def _as_rule(text: str) -> str:
    """A complaint that names what the agent keeps doing, read as the rule it states."""
    text = _as_required(text)
    again = _DID_AGAIN.match(text)
    if again is not None:
        return f"never {_PAST[again.group('verb').lower()]} {again.group('rest').strip()}" + text[again.end() :]
    found = _COMPLAINT.match(text)
    if found is None:
        return text
    base = _BASE[found.group("verb").lower()]
    return f"never {base} {found.group('rest').strip()}".replace("  ", " ") + text[found.end() :]


def plain_rule(text: str) -> str:
    """The rule without markdown decoration and with set phrases of negation read as "never"."""
    for pattern in _EMPHASIS:
        text = pattern.sub(r"\2", text)
    text = _LIST_MARKER.sub("", text)
    for pattern, replacement in _NEVER_PHRASES:
        text = pattern.sub(replacement, text)
    return re.sub(r"\s{2,}", " ", text).strip()


def strip_placeholders(text: str) -> str:
    """Placeholders in a command ("npx <bin>", "just gen-grammar <lang>") are not words of the rule."""
    return _PLACEHOLDER.sub(" ", text)


def _all_proposals(text: str, conditions: Sequence[str]) -> list[CheckSpec]:
    proposals: list[CheckSpec] = [*json_checks(text)]
    for found in (
        commit_message(text),
        reply_count(text),
        reply_text(text),
        required_event(text, conditions),
        leftovers(text),
    ):
        if found is not None:
            proposals.append(found)
    if not any(p.kind in ("commit_message", "required_event", "workspace_leftovers") for p in proposals):
        proposals += path_checks(text)
    if (
        not proposals
        and not re.search(r"\bcommit (?:messages?|subjects?|titles?)\b", text, re.I)
        and not PRECONDITION.search(text)
    ):
        # an action phrase ("push tags", "prune docker volumes") is more specific than the words it contains
        actions = action_checks(text)
        replacing = {str(a) for action in actions for a in action.params.get("alternatives") or []}
        proposals += actions + [
            c
            for c in command_checks(text)
            if c.params not in [a.params for a in actions] and c.params.get("program") not in replacing
        ]
    if not proposals:
        proposals += flag_in_condition(text, list(conditions))
    return proposals


def propose(text: str, condition: str | None = None, exceptions: Sequence[str] = ()) -> list[CheckSpec]:
    """Programmatic check specs this directive fully states; empty when it states none."""
    # "never git add ." ends with the path it stages, not with a full stop: keep it as a word of the rule
    text = re.sub(r"(\bgit\s+(?:add|stage|checkout|restore)\s+(?:--\s+)?)\.\s*[.!?]*\s*$", r"\1`.`", text.strip())
    text = text.strip().rstrip(".!?;:, ")
    if not text or _RETRACTION.search(text):
        return []
    text = _as_rule(strip_placeholders(plain_rule(text)))
    ask = _ASK_BEFORE.match(text)
    if ask:  # "ask before running git clean": the command is blocked until the user says yes
        text = f"never {ask.group('rest')}"
    main, conditions, _ = split_qualifiers(text)
    every_condition = [*conditions, *([condition] if condition else [])]
    proposals = [with_environment(p, every_condition) for p in _all_proposals(main, every_condition)]
    return [p for p in proposals if qualifiers_decided(text, p, condition, exceptions)]


__all__ = [
    "FLAG_OWNERS",
    "LANGUAGE_GLOBS",
    "NUMBERS",
    "TEST_COMMANDS",
    "command_words",
    "number",
    "propose",
    "qualifiers_decided",
    "spec",
    "split_qualifiers",
    "strip_placeholders",
]
