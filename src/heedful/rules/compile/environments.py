"""A rule's environment: "never kubectl apply against production", "no kubectl delete in the shared namespace".

A command line names where it runs (`--context prod`, `-n shared`), so a condition that names a deployment
environment is one the command decides: the check gets the environment's names as `mentions` (see
checks/environment.py) and fires only where the command names it.

    environment_of("against the production cluster")  # -> "production"
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from heedful.rules.checks.environment import spellings
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

_ENVIRONMENT = lazy(
    r"^(?:against|on|in|into|to|for|inside|within)\s+(?:the\s+|a\s+|any\s+|our\s+|a\s+|all\s+)?"
    r"(?P<env>prod(?:uction)?|staging|stage|shared|live)\b"
    r"(?:\s+(?:cluster|clusters|project|projects|namespace|namespaces|environment|environments|env|pods?|"
    r"databases?|dbs?|servers?|accounts?|instances?|deployments?|stacks?|contexts?|workspaces?))?\s*$",
    re.I,
)


def environment_of(condition: str) -> str | None:
    """The deployment environment a condition names, when that is all it says."""
    found = _ENVIRONMENT.match(condition.strip().strip(",.;"))
    return found.group("env").lower() if found else None


def with_environment(check: CheckSpec, conditions: Sequence[str]) -> CheckSpec:
    """A command check narrowed to the environment its rule names; any other check as it is."""
    if check.kind != "forbidden_command":
        return check
    names = [name for c in conditions if (env := environment_of(c)) for name in spellings(env)]
    if not names:
        return check
    return check.model_copy(update={"params": {**check.params, "mentions": list(dict.fromkeys(names))}})


def environment_decided(condition: str, check: CheckSpec) -> bool:
    """Whether the check fires only where the condition's environment is named."""
    env = environment_of(condition)
    mentions = {str(m) for m in check.params.get("mentions") or []}
    return env is not None and bool(mentions) and set(spellings(env)) <= mentions
