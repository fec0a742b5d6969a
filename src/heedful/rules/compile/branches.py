"""Branches a push rule names: "main/master" and "main or master" are two, "release/1.x" is one."""

from __future__ import annotations

import re

from heedful.rules.lazy_regex import lazy

# The main lines people name together ("main/master", "main or master"): a slash between two of them is a choice.
_MAIN_LINES = frozenset("main master trunk develop development dev".split())
# "never force push the main branch": the branch named as the object of the push
PUSHED_BRANCH = lazy(r"push\w*\s+(?:the\s+)?`?(?P<b>[\w./*-]+)`?\s+branch\b", re.I)
# Words after "to"/"on" that start no branch name ("push to the remote", "on your own")
NOT_BRANCH = frozenset(
    "it the remote origin github upstream a any that this there them shared your my our their his her its own".split()
)
_MORE_BRANCHES = lazy(r"^\s*(?:/|,|\bor\b|\band\b)\s*(?:the\s+)?`?(?P<b>[\w.-]+)`?", re.I)


def branches(named: str, after: str) -> list[str]:
    """The branches a push rule names: "main/master" and "main or master" are two, "release/1.x" is one."""
    parts = named.split("/")
    if len(parts) > 1 and all(p.lower() in _MAIN_LINES for p in parts):
        names = parts
    else:
        names = [named]
    more = _MORE_BRANCHES.match(after)
    while more and more.group("b").lower() in _MAIN_LINES and len(names) < 4:
        names.append(more.group("b"))
        after = after[more.end() :]
        more = _MORE_BRANCHES.match(after)
    return names
