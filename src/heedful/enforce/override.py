"""When the user's current request overrides a learned rule for one turn (pure).

"Current instructions take precedence": a user who taught "keep replies under 20 words" and now
asks "give me a 200-word summary" or says "longer than usual is fine this time" wants the long
reply, so the rule yields for that turn, without a revision request and an appeal round trip.
Only explicit requests count, and only for what they name: a number of words above the limit, a
phrase that allows a long reply, a request to use what the rule forbids ("use emoji"), or
permission to run the forbidden program ("use pip this time"). A negated mention ("don't use pip")
never overrides. `override(check, prompt)` returns the words of the prompt that override, or None.
"""

from __future__ import annotations

import re
from typing import Any

_UNITS = {
    "words": r"words?",
    "word": r"words?",
    "lines": r"lines?",
    "sentences": r"sentences?",
    "paragraphs": r"paragraphs?",
    "characters": r"char(?:acter)?s?",
    "chars": r"char(?:acter)?s?",
    "bullets": r"bullet(?:s| points?)?",
}
_LONG = re.compile(
    r"\b(?:longer than usual|(?:a )?long(?:er)? (?:reply|answer|summary|explanation|version|one)"
    r"(?: is| would be)? (?:fine|ok|okay|good|welcome)|in (?:full |great |more )?detail|detailed|be thorough|"
    r"as long as (?:it takes|needed|necessary|you need|you like)|(?:no|without a?) (?:length|word) limit|"
    r"(?:don't|do not) (?:keep it|be) (?:short|brief)|length (?:doesn't|does not) matter)\b",
    re.IGNORECASE,
)
_PERMISSION = re.compile(
    r"\b(?:this time|just this once|for once|(?:is|it's|that's) (?:fine|ok|okay|allowed)|go ahead|i know|"
    r"anyway|you may|you can|allowed)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:don't|do not|never|no|not|without|avoid|stop)\b[^.;!?\n]{0,24}$", re.IGNORECASE)
_PLAIN = re.compile(r"\b(?:plain text|in prose|not (?:as |in )?json|no json|without json)\b", re.IGNORECASE)


def _quote(prompt: str, match: re.Match[str]) -> str:
    """The sentence of the prompt around a match (what the log and the agent are shown)."""
    start = max(prompt.rfind(sep, 0, match.start()) for sep in ".;!?\n") + 1
    ends = [i for i in (prompt.find(sep, match.end()) for sep in ".;!?\n") if i >= 0]
    return prompt[start : min(ends) if ends else len(prompt)].strip()[:200]


def _count_limit(params: dict[str, Any], prompt: str) -> str | None:
    limit = params.get("limit")
    unit = str(params.get("unit") or "words").lower()
    pattern = _UNITS.get(unit)
    if isinstance(limit, int) and pattern:
        for match in re.finditer(rf"\b(\d[\d,]*)[\s-]*{pattern}\b", prompt, re.IGNORECASE):
            if int(match.group(1).replace(",", "")) > limit and not _NEGATION.search(prompt[: match.start()]):
                return _quote(prompt, match)
    long = _LONG.search(prompt)
    if long and not _NEGATION.search(prompt[: long.start()]):
        return _quote(prompt, long)
    return None


def _asks_for(term: str, prompt: str) -> str | None:
    """A request that names `term` with a verb that asks for it, not negated."""
    verbs = r"\b(?:use|using|with|include|including|add|adding|run|running|want)\b"
    pattern = rf"{verbs}[^.;!?\n]{{0,24}}\b{re.escape(term)}"
    for match in re.finditer(pattern, prompt, re.IGNORECASE):
        if not _NEGATION.search(prompt[: match.start()]) and not re.search(
            r"\b(?:don't|do not|never|no|not|without)\b", match.group(0), re.IGNORECASE
        ):
            return _quote(prompt, match)
    return None


def override(check: dict[str, Any] | None, prompt: str | None) -> str | None:
    """The words of the current prompt that override the rule with this check for the turn, or None."""
    if not check or not prompt:
        return None
    kind = check.get("kind")
    params_value = check.get("params")
    params: dict[str, Any] = params_value if isinstance(params_value, dict) else {}
    if kind in ("reply_word_limit", "reply_count_limit"):
        return _count_limit({"unit": "words", **params}, prompt)
    if kind == "reply_forbidden_text":
        for pattern in params.get("patterns") or []:
            if isinstance(pattern, str) and pattern.strip():
                term = "emoji" if pattern.lower() in ("emoji", "emojis") else pattern
                found = _asks_for(term, prompt)
                if found:
                    return found
        return None
    if kind == "reply_json_fields":
        plain = _PLAIN.search(prompt)
        return _quote(prompt, plain) if plain and not _NEGATION.search(prompt[: plain.start()]) else None
    if kind == "forbidden_command":
        program = params.get("program")
        if isinstance(program, str) and program and _PERMISSION.search(prompt):
            return _asks_for(program, prompt)
    return None
