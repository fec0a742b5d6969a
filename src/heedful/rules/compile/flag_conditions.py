"""A flag named alone, with the git action it belongs to in the rule's condition: "stop using --force when pushing"."""

from __future__ import annotations

import re

from heedful.rules import vocabulary as vocab
from heedful.rules.compile.commands import command_checks
from heedful.rules.compile.words import NEGATED
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

_GIT_ACT = lazy(
    r"^(?:when|whenever|while|during|if)\s+(?:you(?:'re| are)?\s+|we(?:'re| are)?\s+)?(?P<verb>[a-z-]+)\b", re.I
)


def flag_in_condition(text: str, conditions: list[str]) -> list[CheckSpec]:
    """ "Stop using --force when pushing": a flag named alone, with the git action it belongs to in the condition."""
    flags = re.findall(r"(?<![\w-])--?[a-zA-Z][\w-]*", text)
    if not flags or not NEGATED.search(text) or vocab.read_commands(text):
        return []
    git = vocab.vocabulary().programs["git"]
    for condition in conditions:
        act = _GIT_ACT.match(condition.strip())
        canonical = git.subcommands.get(act.group("verb").lower()) if act else None
        if canonical is not None:
            return command_checks(f"never run git {canonical} {' '.join(flags)}")
    return []
