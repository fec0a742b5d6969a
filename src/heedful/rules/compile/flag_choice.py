"""Flags a rule names as a choice: "never `pip install --user` or `--break-system-packages`" forbids either.

A check's flag groups must all be present (`rm -rf` is `-r` and `-f`), so two flags joined by "or" read as
two groups would forbid only the command that has both, and `pip install --user x` would pass. Flags the
rule joins by "or", "nor", a slash or a comma are one group: any of them is the forbidden command.
"""

from __future__ import annotations

import re

_CHOICE = r"\s*(?:,\s*(?:or\s+|nor\s+)?|\bor\b|\bnor\b|/)\s*"


def _joined(text: str, first: list[str], second: list[str]) -> bool:
    """Whether the rule writes a flag of `first` and one of `second` side by side as alternatives."""
    for a in first:
        for b in second:
            pattern = rf"(?<![\w-]){re.escape(a)}`?{_CHOICE}`?(?:[\w-]+\s+){{0,2}}?{re.escape(b)}(?![\w-])"
            if re.search(pattern, text):
                return True
    return False


def either_flags(text: str, groups: list[list[str]]) -> list[list[str]]:
    """The flag groups with those the rule names as alternatives merged into one group."""
    merged: list[list[str]] = []
    for group in groups:
        home = next((m for m in merged if _joined(text, m, group) or _joined(text, group, m)), None)
        if home is None:
            merged.append(list(group))
        else:
            home.extend(alias for alias in group if alias not in home)
    return merged
