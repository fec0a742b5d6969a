"""Which units of an instruction file are directives to the agent (not headings, prose or examples).

Pure and offline. A list item or sentence is a directive when it tells the agent what to do:
it opens with an imperative verb (after an optional "When ...," / "If ...," / "Before ...,"
clause, a "**Label**:" lead or "Always"/"Never"/"Do not"), or it carries an obligation word
("must", "should", "never", "is required", "not permitted"), or it pairs a command with
"never"/"not". Descriptions ("`pnpm build`: Build all packages.", "**Frontend**: Next.js"),
lead-ins ending in a colon, questions and bare references are not. Word lists were tuned on the
tuning half of the labelled instruction files (`heedful bench import`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from heedful.rules.import_parse import Unit

# Imperative openers seen in agent-instruction files (base forms).
VERBS = frozenset(
    """
add aim annotate apply ask assume avoid be bump build call catch check choose clean comment commit configure confirm
consider consult continue convert copy create debug declare default define delete describe design document do
don't double-check edit emit enable ensure escape explain export extend favor favour fix flag follow format gate
generate give group handle ignore implement import include inject inline insist install keep lead leave let limit
lint list load log look maintain make mark match mention migrate minimize mirror modify move name never note omit open
order organize organise pass pin place point prefer prefix preserve prioritize prioritise propose prove provide push
put question raise read rebase recommend refactor reference refer register regenerate reject remember remove rename
reply report request require rerun resolve respect respond return reuse review rewrite run scope scrutinize search
see separate set ship show skip sort specify split start state stay stick stop store structure submit suggest
summarize summarise support surface switch target test throw treat trust try type update upgrade use validate verify
wait wire wrap write colocate inherit mock understand checkout analyze analyse reproduce investigate
look
""".split()
)
_OBLIGATION = re.compile(
    r"\b(?:must|mustn'?t|should|shouldn'?t|shall|never|always|do not|don'?t|need(?:s)? to|have to|has to|"
    r"is required|are required|required to|not (?:permitted|allowed|accepted)|is forbidden|are forbidden|"
    r"prefer(?:red)?|avoid|make sure|ensure|only use|instead of|rather than|is mandatory|important:)\b",
    re.IGNORECASE,
)
_CONDITION_LEAD = re.compile(
    r"^(?:(?:when|whenever|if|before|after|while|once|unless|for|in|on|during|where)\b[^,:;]{2,120}[,:]\s+|"
    r"(?:please|also|then|first|finally|instead|additionally|otherwise|next|always|never|only|generally|"
    r"important|note|tip|rule|in general|by default)\b[,:]?\s+)",
    re.IGNORECASE,
)
_LABEL = re.compile(r"^(?:[^:]{1,60}?)\s*(?::|—|–| - )\s+(?=\S)")
_CODE_LEAD = re.compile(r"^`[^`]+`\s*(?::|—|–|-|→|->)\s+")
_NEGATED_COMMAND = re.compile(
    r"`[^`]+`.*\b(?:never|not|no|instead of|rather than|over)\b.*`[^`]+`|\bnever\b\s+`", re.IGNORECASE
)
# "Build: `make build`", "Lint fix: `make lint_fix` (or ...)": a glossary of commands, not a rule.
_GLOSSARY = re.compile(r"^[^`:]{1,60}:\s*`[^`]+`(?:\s*(?:\([^)]*\)|or `[^`]+`))*\.?$")
_SHORT_LABEL = re.compile(r"^([^:`]{1,40}):\s+(?=\S)")
_SPLIT = re.compile(r"(?<![Ee]\.g\.)(?<![Ii]\.e\.)(?<!\betc\.)[.!](?=\s+[A-Z`(\[])|;(?=\s)")
_ARROW = re.compile(r"(?:→|->|=>)\s*`[^`]+`")
_NEGATIVE_OPENER = re.compile(r"^(?:do not|don'?t|never|no|avoid|stop|not)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Detection:
    directive: bool
    reason: str


def _first_word(text: str) -> str:
    match = re.match(r"[`'\"(\[]*([A-Za-z][A-Za-z'-]*)", text)
    return match.group(1).lower() if match else ""


def _imperative(text: str) -> bool:
    body = text.strip()
    for _ in range(3):
        stripped = _CONDITION_LEAD.sub("", body, count=1)
        if stripped == body:
            break
        body = stripped
    if _NEGATIVE_OPENER.match(body):
        return True
    word = _first_word(body)
    return word in VERBS


def _lead_in(text: str) -> bool:
    """ "Here are the steps:", "Use:" - an introduction to what follows, not a rule of its own."""
    return (
        text.rstrip().endswith(":")
        and len(text.split()) <= 12
        and not _OBLIGATION.search(text)
        and (
            len(text.split()) < 3
            or not _imperative(text)
            or bool(re.search(r"\b(?:these|the following|below|as follows)\b", text, re.IGNORECASE))
        )
    )


def detect(unit: Unit) -> Detection:
    """Is this unit a directive to the agent? An item is one when any of its sentences is."""
    if unit.kind in ("heading", "table", "quote"):
        return Detection(False, f"a {unit.kind}")
    text = unit.text.strip()
    if _GLOSSARY.match(text) and not _OBLIGATION.search(text):
        return Detection(False, "a glossary entry (a name and its command)")
    label = _SHORT_LABEL.match(text)
    if label and len(label.group(1).split()) <= 4:
        text = text[label.end() :]  # "**Imports**: Use absolute imports": the label is not the verb
    first = None
    for part in [p.strip() for p in _SPLIT.split(text) if p.strip()] or [text]:
        found = detect_text(part if part is not text else text)
        if found.directive:
            return found
        first = first or found
    whole = detect_text(text)
    return whole if whole.directive or first is None else first


def detect_text(text: str) -> Detection:
    """Is this sentence a directive?"""
    if len(text.split()) < 2:
        return Detection(False, "too short to state a rule")
    if text.endswith("?"):
        return Detection(False, "a question")
    if _lead_in(text):
        return Detection(False, "a lead-in to what follows")
    code_lead = _CODE_LEAD.match(text)
    if code_lead:
        rest = text[code_lead.end() :]
        if _OBLIGATION.search(rest) or _NEGATED_COMMAND.search(text):
            return Detection(True, "a command with an obligation")
        return Detection(False, "a description of a command or path")
    if _NEGATED_COMMAND.search(text) or _ARROW.search(text):
        return Detection(True, "a command paired with what to run or avoid")
    if _imperative(text):
        return Detection(True, "opens with an imperative")
    label = _LABEL.match(text)
    if label and _imperative(text[label.end() :]):
        return Detection(True, "a labelled imperative")
    if _OBLIGATION.search(text):
        return Detection(True, "states an obligation")
    return Detection(False, "a description, not an instruction")


__all__ = ["VERBS", "Detection", "detect"]
