"""Detection and admission: is there a possible learning signal, and should it last?

`has_signal(text)` reads the message alone and errs toward yes. `admit(text)` decides
persist / task_local / underspecified / none and the scope (global or project). Both are pure:
the offline paths of the `detect` and `admit` steps.
"""

from __future__ import annotations

import re

from heedful.rules import lexicon as lx
from heedful.rules.models import Admission, Scope

_LOG_LINE = re.compile(r"(?:Traceback|Error:|Exception|^\s+at |^\s*File \"|\[\w+\]|^\d{4}-\d\d-\d\d)", re.MULTILINE)


def normalise(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", text).strip()


def looks_like_paste(text: str) -> bool:
    """Pasted logs or code: many lines and mostly machine output."""
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) >= 4 and len(_LOG_LINE.findall(text)) >= 2


def is_question(text: str) -> bool:
    plain = normalise(text)
    return plain.endswith("?") or bool(lx.QUESTION_START.match(plain))


def has_signal(text: str) -> bool:
    """Could this message hold a correction or a lasting preference? Errs toward yes."""
    plain = normalise(text)
    if not plain or (lx.ACK.match(plain) and not lx.DIRECTIVE.search(plain)) or looks_like_paste(text):
        return False
    if lx.LASTING.search(plain) or lx.RETRACT.search(plain) or lx.VAGUE.search(plain):
        return True
    if is_question(plain) and not lx.GENERIC_CORRECTION.search(plain):
        return bool(re.match(r"^(?:can|could|would|will) you\b", plain, re.IGNORECASE))
    return bool(lx.DIRECTIVE.search(plain))


def project_scoped(text: str) -> bool:
    return bool(lx.PROJECT.search(normalise(text)))


def _task_local(plain: str) -> bool:
    return bool(lx.TASK_LOCAL.search(plain)) and not lx.NOT_TASK_LOCAL.search(plain)


def _generic_correction(plain: str) -> bool:
    """A correction of general behaviour (tools, style, process), not of one artifact."""
    if not lx.GENERIC_CORRECTION.search(plain):
        return False
    return not lx.ARTIFACT_SPECIFIC.search(plain)


def _asks_for_lasting(plain: str) -> bool:
    """A question that is really a lasting request or a complaint about a habit."""
    if re.search(r"\bwhy (?:do|did|are|would) you (?:always|keep)\b", plain, re.IGNORECASE):
        return True
    return bool(
        re.match(
            r"^(?:can|could|would|will) you (?:please )?(?:always|never|stop|remember|from now on|"
            r"start|make sure|in future)",
            plain,
            re.IGNORECASE,
        )
    )


def admit(text: str) -> Admission:
    """The admission decision for one user message, read alone."""
    plain = normalise(text)
    reasons: list[str] = []
    if not has_signal(text):
        if is_question(plain) or lx.ACK.match(plain) or looks_like_paste(text) or not plain:
            return Admission(decision="none", reasons=["no learning signal in the message"])
        return Admission(decision="none", reasons=["no instruction in the message"])
    scope: Scope = "project" if project_scoped(plain) else "global"
    if lx.RETRACT.search(plain) and not _task_local(plain):
        return Admission(decision="persist", scope=scope, retraction=True, reasons=["explicit retraction"])
    if _task_local(plain):
        match = lx.TASK_LOCAL.search(plain)
        reasons.append(f"bound to the current task ({match.group(0)!r})" if match else "bound to the current task")
        return Admission(decision="task_local", reasons=reasons)
    vague = lx.VAGUE.search(plain)
    if vague:
        return Admission(
            decision="underspecified",
            scope=scope,
            reasons=[f"the meaning or trigger is unclear ({vague.group(0)!r})"],
        )
    if is_question(plain) and not _asks_for_lasting(plain):
        return Admission(decision="none", reasons=["a question, not an instruction"])
    lasting = lx.LASTING.search(plain)
    if lasting:
        return Admission(decision="persist", scope=scope, reasons=[f"lasting wording ({lasting.group(0)!r})"])
    if _generic_correction(plain):
        return Admission(decision="persist", scope=scope, reasons=["a correction of general behaviour"])
    if is_question(plain):
        return Admission(decision="none", reasons=["a question, not an instruction"])
    return Admission(decision="task_local", reasons=["a request about the current task"])
