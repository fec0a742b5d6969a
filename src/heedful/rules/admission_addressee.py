"""Whom a "must never" binds: the agent's conduct, or the behaviour of the code being written.

"The export function must never include the password hash" and "never block health checks" inside a
feature request read like lasting rules, but they specify what the code should do: they are the task.
A lasting rule governs what the agent does (runs, commits, installs, writes, replies). These features
tell the two apart by the sentence's subject and verbs; the admission model weighs them.
Pure and cheap: regular expressions only.
"""

from __future__ import annotations

import re

from heedful.rules import detect

_MODAL = (
    r"(?:must|should|shall|needs? to|has to|have to|cannot|can't|can not|must not|mustn't|should not|"
    r"shouldn't|may not|won't|will never|never|always|is not allowed to|are not allowed to)"
)
# "The CLI must never prompt", "this endpoint should return", "the export function must never include"
_CODE_SUBJECT = re.compile(
    rf"(?:^|[.;:!?]\s+|,\s+(?:and|but)\s+)(?:the|this|that|our|each|every|any|all)\s+(?:new\s+)?"
    rf"(?!agent\b|assistant\b|model\b|ai\b|bot\b)[a-z_-]+(?:\s+[a-z_-]+)?\s+{_MODAL}\b"
)
_IT_SUBJECT = re.compile(rf"\b(?:it|they|these|those)\s+{_MODAL}\b")
# what code does (a behaviour the task specifies)
_CODE_VERBS = re.compile(
    r"\b(?:return|returns|reject|rejects|accept|accepts|prompt|prompts|output|outputs|include|includes|throw|"
    r"throws|raise|raises|render|renders|display|displays|show|shows|emit|emits|expose|exposes|respond|responds|"
    r"redirect|redirects|map|maps|default|defaults|validate|validates|parse|parses|store|stores|send|sends|"
    r"load|loads|fetch|fetches|handle|handles|support|supports|block|blocks|allow|allows|trigger|triggers|"
    r"persist|persists|crash|crashes|fail|fails|timeout|retry|retries)\b"
)
# what an agent does in a session (the conduct a lasting rule governs)
_AGENT_VERBS = re.compile(
    r"\b(?:commit|commits|committing|push|pushing|run|running|install|installing|use|using|edit|editing|"
    r"touch|touching|modify|modifying|write|writing|reply|replying|ask|asking|delete|deleting|create|creating|"
    r"add|adding|merge|merging|rebase|rebasing|deploy|deploying|open|opening|read|reading|check|checking|"
    r"format|formatting|lint|linting|test|testing|mock|mocking|generate|generating|comment|commenting|"
    r"name|naming|import|importing|stage|staging|amend|amending|squash|squashing|bump|bumping|skip|skipping)\b"
)
# "I want it to", "make it so that", "so that the button": a spec of the result
_WANT_RESULT = re.compile(
    r"\b(?:i want (?:it|the|this|them|a|an)|i need (?:it|the|this|them) to|make (?:it|the \w+|sure the \w+) "
    r"(?:so|do|return|reject|accept|show|work)|so that (?:it|the|users?)|such that|should look like|"
    r"should behave|expected behaviou?r|acceptance criteria)\b"
)
_YOU_MODAL = re.compile(rf"\b(?:you|u)\s+(?:{_MODAL}|keep|always|never|still)\b")
_FEATURE_REQUEST = re.compile(
    r"^(?:please\s+)?(?:add|implement|create|build|make|modify|change|update|refactor|extend|adapt|write)\s+"
    r"(?:a|an|the|support|this|that|my|new|some)\b"
)

NAMES: tuple[str, ...] = (
    "addressee_code_subject",
    "addressee_it_subject",
    "addressee_code_verbs",
    "addressee_agent_verbs",
    "addressee_want_result",
    "addressee_you_modal",
    "addressee_feature_request",
    "addressee_spec",
)


def values(text: str) -> list[float]:
    """The features named by `NAMES`, each in [0, 1]."""
    lower = detect.normalise(text).lower()
    code_subject = bool(_CODE_SUBJECT.search(lower))
    code_verbs = min(len(_CODE_VERBS.findall(lower)), 3) / 3.0
    agent_verbs = min(len(_AGENT_VERBS.findall(lower)), 3) / 3.0
    you_modal = bool(_YOU_MODAL.search(lower))
    feature_request = bool(_FEATURE_REQUEST.match(lower))
    return [
        float(code_subject),
        float(bool(_IT_SUBJECT.search(lower))),
        code_verbs,
        agent_verbs,
        float(bool(_WANT_RESULT.search(lower))),
        float(you_modal),
        float(feature_request),
        float((code_subject or feature_request) and code_verbs > agent_verbs and not you_modal),
    ]
