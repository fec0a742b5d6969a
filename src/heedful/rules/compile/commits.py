"""The reader for rules about commit messages: subject length, required form, forbidden trailers and words."""

from __future__ import annotations

import re
from typing import Any

from heedful.rules.compile.words import EMOJI, NEGATED, NUM, number, quoted, spec
from heedful.rules.models import CheckSpec

_COMMIT = re.compile(r"\bcommit(?:s|ting)?\b|\bcommit messages?\b", re.I)
_CONVENTIONAL = re.compile(r"\bconventional[- ]commits?\b|\b(?:feat|fix|chore)\s*:", re.I)
CONVENTIONAL = r"^(feat|fix|chore|docs|refactor|test)(\(.+\))?: "
_SUBJECT = re.compile(
    rf"\b(?:subjects?|first lines?|titles?|summary lines?|headers?|commit messages?)\b.{{0,40}}?"
    rf"(?:\b(?:under|below|at most|max(?:imum)?(?: of)?|no more than|within|to|up to)\s+|<=?\s*)"
    rf"{NUM}\s*(?:char(?:acter)?s?)?\b|\b{NUM.replace('?P<n>', '?P<m>')}\s+char(?:acter)?s?\s+"
    r"(?:or (?:fewer|less)|max)\b",
    re.I,
)
_TRAILER = re.compile(r"\b(?:co-?authored[- ]by|co-?author(?:s|ed)?|yourself as (?:a )?(?:co-?)?author)\b", re.I)
_MENTION = re.compile(
    r"\b(?:mention(?:ing)?|name|naming|reference|referencing|credit(?:ing)?)\s+(?P<who>claude|"
    r"anthropic|openai|chatgpt|gpt|copilot|codex|cursor|gemini)\b",
    re.I,
)


def commit_message(text: str) -> CheckSpec | None:
    if not _COMMIT.search(text) and not _TRAILER.search(text):
        return None
    params: dict[str, Any] = {}
    subject = _SUBJECT.search(text)
    if subject:
        n = number(subject.group("n") or subject.group("m") or "") or 0
        if n > 0:
            params["max_subject"] = n
    if _CONVENTIONAL.search(text) and re.search(r"\b(?:use|follow|write|always|must)\b", text, re.I):
        params["require"] = CONVENTIONAL
    start = re.search(
        r"\b(?:start|begin|prefix)\w*\b.{0,40}\bwith\s+(?:an? |the )?(?P<what>lower-?case|upper-?case|"
        r"capital|jira|ticket|issue)",
        text,
        re.I,
    )
    if start:
        what = start.group("what").lower()
        params["require"] = (
            "^[a-z]"
            if what.startswith("lower")
            else "^[A-Z]"
            if what in ("upper-case", "uppercase", "capital")
            else "^[A-Z][A-Z0-9]+-[0-9]+"
        )
    if NEGATED.search(text):
        forbid: list[str] = []
        if _TRAILER.search(text):
            forbid.append("Co-Authored-By")
        if EMOJI.search(text):
            forbid.append("emoji")
        mention = _MENTION.search(text)
        if mention:
            forbid.append(mention.group("who").capitalize() if mention.group("who").lower() != "openai" else "OpenAI")
        for phrase in quoted(text):
            if phrase and phrase.lower() not in (f.lower() for f in forbid):
                forbid.append(phrase)
        if re.search(r"\bgenerated[- ](?:with|by)\b", text, re.I) and not any("generated" in f.lower() for f in forbid):
            forbid.append("Generated with")
        if not forbid and re.search(r"\bsigned-off-by\b", text, re.I):
            forbid.append("Signed-off-by")
        if not forbid and re.search(r"\bWIP\b", text):
            forbid.append("WIP")
        if forbid:
            params["forbid"] = forbid
    elif re.search(r"\bsigned-off-by\b", text, re.I):
        params["require"] = "Signed-off-by: "
    return spec("commit_message", params) if params else None
