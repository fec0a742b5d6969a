"""Which rules to show the agent for a turn, without a model or an embedder (pure).

The hook-side selector reads applicability from words, like the offline selector in
`heedful.rules.select` minus the embedding: a rule is set aside when a stated exception is met,
when its condition has nothing to do with the request, or when it names a language the task and
project do not use; it is shown when it governs every reply, governs an activity the request
involves (facets), or shares enough key words with the request. Checked rules stay armed at every
stage whatever the selection: a check that does not apply answers not_applicable.
"""

from __future__ import annotations

import re
from typing import Any

from heedful.rules.facets import always_applies, facets, languages

KEYWORD_THRESHOLD = 0.34
MAX_RULES = 20
MAX_CHARS = 8000
PRECEDENCE = (
    "The user's current instructions and any required output format take precedence over these rules; "
    "the rules are the user's standing preferences, not facts about this task."
)
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*")
_SUFFIX = re.compile(r"(?:ing|ed|es|s)$")
_STOP = frozenset(
    "a an the and or but if then so to of in on at by for with from as is are was were be been it its this that"
    " these those there here i me my we our you your please always never dont don't do does did not no stop use"
    " using make sure should must can could would will just also any all every each some when whenever instead"
    " than into about".split()
)
_LEADING_CONDITION = re.compile(r"^((?:when(?:ever)?|if|for|in) [^,]{3,80}),", re.IGNORECASE)
_EXCEPTION_LEAD = re.compile(r"^(?:unless|except(?: for| when| in| if)?|but not (?:for|in|when))\s+", re.IGNORECASE)


def stems(text: str) -> set[str]:
    words = {w.strip(".-+") for w in _WORD.findall(text.lower().replace("'", ""))}
    return {(_SUFFIX.sub("", w) if len(w) > 4 else w) for w in words if w and w not in _STOP and len(w) > 1}


def _condition(rule: dict[str, Any]) -> str | None:
    if rule.get("condition"):
        return str(rule["condition"])
    match = _LEADING_CONDITION.match(str(rule.get("text", "")))
    return match.group(1) if match else None


def judge(rule: dict[str, Any], request: str, request_words: set[str], available: set[str] | None) -> str:
    """'+why' when the rule applies to the request, '-why' when it does not."""
    for exception in rule.get("exceptions") or []:
        words = stems(_EXCEPTION_LEAD.sub("", str(exception)))
        if words and words <= request_words:
            return f"-exception applies: {exception}"
    text = " ".join([str(rule.get("text", "")), str(rule.get("condition") or "")])
    named = languages(text)
    if named and available is not None and not named & available:
        return f"-names {', '.join(sorted(named))}, which this task and project do not use"
    request_facets = facets(request, task=True)
    condition = _condition(rule)
    if condition and not (stems(condition) & request_words or facets(condition) & request_facets):
        return f"-its condition ({condition}) does not hold"
    if always_applies(str(rule.get("text", ""))):
        return "+governs every reply"
    shared = facets(text) & request_facets
    if shared:
        return f"+governs {', '.join(sorted(shared))}"
    words = stems(text)
    overlap = len(words & request_words) / len(words) if words else 0.0
    if overlap >= KEYWORD_THRESHOLD:
        return f"+shares key words ({overlap:.2f})"
    return "-not related"


def select(rules: list[dict[str, Any]], request: str, available: set[str] | None = None) -> list[dict[str, Any]]:
    """The rules that apply to `request`, each with `why`; checked rules first, at most MAX_RULES."""
    words = stems(request)
    chosen = []
    for rule in rules:
        verdict = judge(rule, request, words, available)
        if verdict.startswith("+"):
            chosen.append({**rule, "why": verdict[1:]})
    chosen.sort(key=lambda r: 0 if r.get("status") == "checked" else 1)
    return chosen[:MAX_RULES]


def _line(rule: dict[str, Any]) -> str:
    parts = [f"- {rule.get('text', '').strip()}"]
    if rule.get("condition"):
        parts.append(f"(when: {rule['condition']})")
    if rule.get("exceptions"):
        parts.append(f"(except: {'; '.join(map(str, rule['exceptions']))})")
    scope = "this project" if rule.get("scope") == "project" else "all projects"
    check = rule.get("check") or {}
    checked = f"checked {str(check.get('stage', '')).replace('_', '-')}" if rule.get("status") == "checked" else (
        "guidance")
    parts.append(f"[{rule.get('id')}; {scope}; {checked}]")
    return " ".join(parts)


def turn_context(selected: list[dict[str, Any]], library_version: int, armed: int) -> str | None:
    """The text injected with the user's prompt (None when there is nothing to say)."""
    if not selected and not armed:
        return None
    lines = [f"Rules this user taught in earlier sessions (heedful rule library v{library_version}). {PRECEDENCE}"]
    for rule in selected:
        line = _line(rule)
        if sum(len(x) + 1 for x in lines) + len(line) > MAX_CHARS:
            break
        lines.append(line)
    if armed:
        lines.append(f"{armed} checked rule(s) are enforced before tool calls, after file writes and before the "
                     "final reply; a blocked step says which rule applies and what to do instead.")
    return "\n".join(lines)


def session_index(rules: list[dict[str, Any]], project: str | None) -> str | None:
    """A compact index of the rules that apply in this project (SessionStart)."""
    if not rules:
        return None
    where = f" in {project}" if project else ""
    lines = [f"heedful: {len(rules)} learned rule(s) apply{where}. {PRECEDENCE}"]
    for rule in rules:
        text = str(rule.get("text", "")).strip()
        line = f"- {text[:160]}" + (" [this project]" if rule.get("scope") == "project" else "")
        if sum(len(x) + 1 for x in lines) + len(line) > MAX_CHARS:
            lines.append(f"- … and {len(rules) - len(lines) + 1} more (run `heedful rules list`)")
            break
        lines.append(line)
    return "\n".join(lines)
