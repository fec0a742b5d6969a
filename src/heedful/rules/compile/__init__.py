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
from heedful.rules.compile.commands import FLAG_OWNERS, command_checks, command_words
from heedful.rules.compile.commits import commit_message
from heedful.rules.compile.environments import with_environment
from heedful.rules.compile.events import PRECONDITION, TEST_COMMANDS, leftovers, required_event
from heedful.rules.compile.flag_conditions import flag_in_condition
from heedful.rules.compile.paths import path_checks
from heedful.rules.compile.qualifiers import ASKED, qualifiers_decided, split_qualifiers
from heedful.rules.compile.replies import json_checks, reply_count, reply_text
from heedful.rules.compile.restate import as_rule
from heedful.rules.compile.words import LANGUAGE_GLOBS, NUMBERS, number, spec
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

# A retraction states no check: it withdraws one (rules/retraction.py).
_RETRACTION = lazy(
    # "the project no longer uses it" is the reason for a rule, not the rule withdrawn
    r"^\s*(?:retract|withdraw|drop|forget|cancel|undo|ignore)\b|"
    r"\bno longer\b(?!\s+(?:uses?|used|supports?|ships?|has|have|includes?|depends|needs? it|works?)\b)|"
    r"\bis allowed again\b",
    re.I,
)


_LEADING_CONDITION = lazy(r"^(?:if|when(?:ever)?|after|once|before)\b", re.I)
_FILE = r"`?[\w.*/-]*(?:\.[\w*]+|/)`?"
_FILES_IN_PARENS = lazy(rf"\s*\(\s*({_FILE}(?:\s*(?:,|or|and|,\s*or|,\s*and)\s*{_FILE})*)\s*\)")
_PLACEHOLDER = lazy(r"\s*<[\w .|/-]{1,30}>")  # "npx <bin>", "just gen-grammar <lang>"
_ASK_BEFORE = lazy(
    r"^(?:always\s+|please\s+)?(?:ask|(?:double[- ]?)?check with (?:me|the user)|confirm with (?:me|the user)|"
    r"get (?:my |explicit )?(?:approval|confirmation|permission))"
    r"(?:\s+(?:me|the user|first|(?:from|of) (?:me|the user|a human|a maintainer)|"
    r"for (?:approval|confirmation|permission)|to (?:confirm|approve)))*\s+before\s+"
    r"(?P<rest>\w+ing\b.*)$",
    re.I,
)
# "Use `npm run bump-version` only when the task explicitly asks", "only run terraform apply when I ask": a command
# kept for when the user asks is blocked until then
_ONLY_WHEN_ASKED = lazy(
    rf"^(?P<only>only\s+)?(?P<verb>use|run|execute|invoke)\s+(?P<what>.+?)\s+(?(only)|only\s+)(?:when|if)\s+{ASKED}",
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
    (
        lazy(
            r"\b(?:stay|keep|steer) (?:away|clear) (?:from|of)\b|\brefrain from\b|^(?:enough|stop) with (?:the )?", re.I
        ),
        "never use ",
    ),
)


def plain_rule(text: str) -> str:
    """The rule without markdown decoration and with set phrases of negation read as "never"."""
    for pattern in _EMPHASIS:
        text = pattern.sub(r"\2", text)
    text = _LIST_MARKER.sub("", text)
    for pattern, replacement in _NEVER_PHRASES:
        text = pattern.sub(replacement, text)
    return re.sub(r"\s{2,}", " ", text).strip()


# "Do not hand-edit generated files: a/, b/*.go", "never commit these: .env, id_rsa": a list of paths after a colon is
# the object of the rule, as if written without the colon
_PATH_ITEM = r"`[^`\s]+`|~?[\w.*-]*[/*.][\w./*-]*"
_COLON_PATHS = lazy(rf":\s+(?=(?:{_PATH_ITEM})(?:\s*(?:,|\band\b|\bor\b|,\s*and\b|,\s*or\b)\s*(?:{_PATH_ITEM}))*\W*$)")


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
    text = re.sub(
        r"(\bgit\s+(?:add|stage|checkout|restore)\s+(?:--\s+)?)\.(?:\s*[.!?]*\s*$|(?=\s+[a-z]))", r"\1`.`", text.strip()
    )
    text = text.strip().rstrip(".!?;:, ")
    if not text or _RETRACTION.search(text):
        return []
    text = as_rule(strip_placeholders(_COLON_PATHS.sub(" ", plain_rule(text), count=1)))
    # "If you change Rust dependencies (Cargo.toml or Cargo.lock), run …": the files the condition names, as words of it
    if _LEADING_CONDITION.match(text):
        text = _FILES_IN_PARENS.sub(r" \1", text)
    ask = _ASK_BEFORE.match(text)
    if ask:  # "ask before running git clean": the command is blocked until the user says yes
        text = f"never {ask.group('rest')}"
    kept = _ONLY_WHEN_ASKED.match(text)
    if kept:
        text = f"never {kept.group('verb')} {kept.group('what')}"
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
