"""Actions forbidden together: "never edit X or commit Y" is two rules, each with the negation.

"Or" under a negation forbids each action ("never A or B" is never A and never B), and each action is its own
check: read as one rule, "never edit package-lock.json or commit .env files" kept every path from being
edited and none from being committed. "And" is left alone ("never edit the lockfile and run npm install"
usually says what to do instead) except between git's verbs of one object: "never commit and push" forbids
both. A qualifier closing the sentence that waits for the user's word ("… without asking") holds for each
action.
"""

from __future__ import annotations

import re

from heedful.rules.compile.qualifiers import ASK_ONLY, waits_for_permission
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import Candidate

# Actions a rule forbids on a thing it names: editing, committing, running, installing, deleting ...
_ACTIONS = (
    "edit modify change touch alter rewrite delete remove rename move commit push stage add merge rebase run "
    "execute use install uninstall upgrade update downgrade create write generate publish deploy release call "
    "import disable skip bypass"
).split()
_BASE = "|".join(_ACTIONS)
_DOUBLED = frozenset({"commit", "run", "skip"})  # committing, running, skipping


def _gerund(verb: str) -> str:
    if verb in _DOUBLED:
        return f"{verb}{verb[-1]}ing"
    return f"{verb[:-1]}ing" if verb.endswith("e") and not verb.endswith("ee") else f"{verb}ing"


_ING = "|".join(_gerund(verb) for verb in _ACTIONS)
_FORBIDDEN_ACTIONS = lazy(
    rf"^(?P<lead>(?:please\s+)?(?:never|don'?t|dont|do not|must not|should not|no longer)\s+)"
    rf"(?P<first>(?:{_BASE})\b.+?)"
    rf"(?:,?\s+(?:or|nor)\s+)(?P<second>(?:{_BASE})\b.+)$|"
    rf"^(?P<ing_lead>(?:please\s+)?(?:avoid|stop|no|quit|refrain from)\s+)(?P<ing_first>(?:{_ING})\b.+?)"
    rf"(?:,?\s+(?:or|nor)\s+)(?P<ing_second>(?:{_ING})\b.+)$",
    re.I,
)
_CLOSING_QUALIFIER = lazy(r",?\s+(?P<words>(?:without|unless|until)\b[^,;]*?)[.!]*$", re.I)


# Git's actions named as verbs, several of one object: "never commit or push without asking", "don't stage and commit
# anything": each is its own command, so each is its own rule ("and" under a negation forbids both too).
_GIT_VERB = r"(?:commit|push|stage|pull|rebase|stash|merge|force-push)"
_GIT_VERBS = lazy(
    rf"^(?P<lead>(?:please\s+)?(?:never|don'?t|dont|do not|must not|should not)\s+(?:ever\s+)?)"
    rf"(?P<verbs>{_GIT_VERB}(?:\s*(?:,|/|\band\b|\bor\b|\bnor\b|,\s*and\b|,\s*or\b)\s*{_GIT_VERB})+)\b(?P<rest>.*)$",
    re.I,
)


def split_git_verbs(candidate: Candidate) -> list[Candidate] | None:
    """One candidate per git action of "never commit or push …", or None when the rule names no such list."""
    found = _GIT_VERBS.match(candidate.text.strip())
    if found is None:
        return None
    lead = found.group("lead")[0].upper() + found.group("lead")[1:]
    verbs = dict.fromkeys(v.lower() for v in re.findall(_GIT_VERB, found.group("verbs"), re.I))
    return [candidate.model_copy(update={"text": f"{lead}{verb}{found.group('rest')}"}) for verb in verbs]


def split_forbidden_actions(candidate: Candidate) -> list[Candidate]:
    """One candidate per action of "never A or B" when each action has its own object."""
    git = split_git_verbs(candidate)
    if git is not None:
        return git
    found = _FORBIDDEN_ACTIONS.match(candidate.text.strip())
    if found is None:
        return [candidate]
    lead = found.group("lead") or found.group("ing_lead")
    first = found.group("first") or found.group("ing_first")
    second = found.group("second") or found.group("ing_second")
    if len(first.split()) < 2:
        return [candidate]  # "never add or commit .env": two verbs of one object, read as one rule
    closing = _CLOSING_QUALIFIER.search(second)
    # "... without asking" waits for the user's word on each action; "... without a review" may name the last one's
    waits = closing is not None and (
        ASK_ONLY.match(closing.group("words")) or waits_for_permission(closing.group("words"))
    )
    qualifier = f" {closing.group('words')}" if closing and waits else ""
    first = re.sub(r"[,;]+$", "", first.strip())
    if qualifier and not first.endswith(qualifier):
        first += qualifier
    ending = "." if candidate.text.rstrip().endswith(".") else ""
    second = second.strip()
    lead = lead[0].upper() + lead[1:]
    return [
        candidate.model_copy(update={"text": f"{lead}{first.rstrip('.')}{ending}"}),
        candidate.model_copy(update={"text": f"{lead}{second}"}),
    ]
