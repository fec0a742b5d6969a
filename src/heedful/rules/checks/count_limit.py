"""reply_count_limit: the candidate reply has at most `limit` lines, bullets, sentences or paragraphs.

params: unit (lines | bullets | sentences | paragraphs), limit (int > 0; 0 for bullets: "no bullet
points", prose only). Lines and paragraphs
count non-blank ones; bullets are list items (`-`, `*`, `+`, `•`, `1.`); sentences are counted
outside code blocks, a list item or line without end punctuation counting as one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from heedful.rules.checks.evidence import clip, reply_at_delivery
from heedful.rules.checks.kind import CheckKind
from heedful.rules.checks.verdict import Result, Stage, Verdict

if TYPE_CHECKING:
    from heedful.rules.models import Case

KIND = "reply_count_limit"
STAGE: Stage = "delivery"
EVIDENCE = ["delivery"]
UNITS = ("lines", "bullets", "sentences", "paragraphs")
_BULLET = re.compile(r"^\s*(?:[-*+•‣◦]|\d{1,3}[.)])\s+\S", re.MULTILINE)
_FENCE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=\S)")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|Mr|Mrs|Dr|cf|approx)\.$", re.IGNORECASE)


def _params(params: Any) -> tuple[str, int] | None:
    if not isinstance(params, dict):
        return None
    unit, limit = params.get("unit"), params.get("limit")
    if unit not in UNITS or not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        return None
    if limit == 0 and unit != "bullets":
        return None
    return unit, limit


def items(unit: str, text: str) -> list[str]:
    """The counted pieces of a reply, in order."""
    if unit == "lines":
        return [line for line in text.splitlines() if line.strip()]
    if unit == "bullets":
        return [m.group(0).strip() for m in _BULLET.finditer(text)]
    if unit == "paragraphs":
        return [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    prose = _FENCE.sub(" ", text)
    pieces: list[str] = []
    for line in prose.splitlines():
        current = ""
        for part in _SENTENCE_END.split(line.strip()):
            current = f"{current} {part}".strip()
            if current and not _ABBREVIATION.search(current):
                pieces.append(current)
                current = ""
        if current:
            pieces.append(current)
    return [p for p in pieces if re.search(r"\w", p)]


def describe(params: dict[str, Any]) -> str:
    read = _params(params)
    if read == ("bullets", 0):
        return "replies without bullet points"
    return f"replies of at most {read[1]} {read[0]}" if read else "replies of limited length"


def evaluate(params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    read = _params(params)
    if read is None:
        return Verdict(result="unknown", reason="the check has no valid unit and limit")
    unit, limit = read
    reply = reply_at_delivery(stage, evidence)
    if isinstance(reply, Verdict):
        return reply
    found = items(unit, reply)
    if len(found) > limit:
        first_extra = found[limit]
        quote = first_extra if first_extra in reply else reply
        reason = f"the reply has {len(found)} {unit}; the limit is {limit}"
        if limit == 0:
            reason = f"the reply has {len(found)} bullet points; the rule allows none"
        return Verdict(result="violated", reason=reason, quotes=[clip(quote, 120)])
    return Verdict(result="pass", reason=f"the reply has {len(found)} {unit} (limit {limit})")


def _reply(unit: str, count: int) -> str:
    if unit == "lines":
        return "\n".join(f"Line {i + 1} of the answer" for i in range(count))
    if unit == "bullets":
        return "Summary:\n" + "\n".join(f"- point {i + 1}" for i in range(count))
    if unit == "paragraphs":
        return "\n\n".join(f"Paragraph {i + 1} says one thing. It has two sentences." for i in range(count))
    return " ".join(f"This is sentence {i + 1}." for i in range(count))


def cases(params: dict[str, Any]) -> list[Case]:
    from heedful.rules.models import Case

    unit, limit = _params(params) or ("lines", 1)
    if limit == 0:  # no bullet points: prose passes, even prose that mentions a list or a dash
        return [
            Case(stage=STAGE, evidence={"delivery": "Done. The files - a, b and c - are updated."}, expected="pass"),
            Case(stage=STAGE, evidence={"delivery": "Fixed the parser.\n\nTests pass."}, expected="pass"),
            Case(stage=STAGE, evidence={"delivery": _reply(unit, 1)}, expected="violated", note="one bullet"),
            Case(stage=STAGE, evidence={"delivery": _reply(unit, 3)}, expected="violated"),
            Case(stage="pre_action", evidence={"action": {"tool": "Bash", "command": "ls"}}, expected="not_applicable"),
        ]
    return [
        Case(stage=STAGE, evidence={"delivery": _reply(unit, max(1, limit - 1))}, expected="pass"),
        Case(stage=STAGE, evidence={"delivery": _reply(unit, limit)}, expected="pass", note="exactly at the limit"),
        Case(stage=STAGE, evidence={"delivery": _reply(unit, limit + 2)}, expected="violated"),
        Case(stage="pre_action", evidence={"action": {"tool": "Bash", "command": "ls"}}, expected="not_applicable"),
    ]


def review(params: dict[str, Any], stage: str, evidence: dict[str, Any]) -> Result:
    """Independent labeller: plain splitting on newlines, blank lines, dashes and full stops."""
    if stage != STAGE:
        return "not_applicable"
    reply = evidence.get("delivery")
    read = _params(params)
    if not isinstance(reply, str) or read is None:
        return "unknown"
    unit, limit = read
    if unit == "lines":
        count = len([line for line in reply.split("\n") if line.strip()])
    elif unit == "bullets":
        count = len([line for line in reply.split("\n") if line.lstrip().startswith(("- ", "* ", "• "))])
    elif unit == "paragraphs":
        count = len([p for p in reply.split("\n\n") if p.strip()])
    else:
        count = len([s for s in reply.replace("!", ".").replace("?", ".").split(".") if s.strip()])
    return "violated" if count > limit else "pass"


class ReplyCountLimit(CheckKind):
    name = KIND
    stage = STAGE
    evidence = tuple(EVIDENCE)
