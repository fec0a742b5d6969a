"""The environment a command line names: "never kubectl apply against production" is decided by the command.

A command names its environment in an argument or an option value (`--context prod-eu`, `-n shared`,
`--project acme-production`, `deploy production`). `named(line, mentions)` says whether it names one of the
rule's environments, another known environment, or none: with none, only the command's defaults (the current
kube context, the default project) know, which no check can see.
"""

from __future__ import annotations

import re
from typing import Literal

# Names of deployment environments people use in command lines, by the environment they name.
ENVIRONMENTS: dict[str, tuple[str, ...]] = {
    "production": ("prod", "production", "prd", "live"),
    "staging": ("staging", "stage", "stg"),
    "development": ("dev", "development", "local", "sandbox", "test", "testing", "qa", "preview"),
    "shared": ("shared",),
}
_ALL = frozenset(word for words in ENVIRONMENTS.values() for word in words)

Named = Literal["named", "other", "none"]


def _words(line: str) -> set[str]:
    """The lower-case word pieces of a command line: `--context=prod-eu` gives context, prod, eu."""
    return set(re.findall(r"[a-z0-9]+", line.lower()))


def named(line: str, mentions: list[str]) -> Named:
    """Whether the command line names one of `mentions`, only other environments, or no environment at all."""
    pieces = _words(line)
    if any(str(m).lower() in pieces for m in mentions):
        return "named"
    return "other" if pieces & _ALL else "none"


def spellings(environment: str) -> list[str]:
    """The names a command line may give the environment a rule names ("prod" -> prod, production, prd, live)."""
    word = environment.lower()
    for names in ENVIRONMENTS.values():
        if word in names:
            return list(names)
    return [word]
