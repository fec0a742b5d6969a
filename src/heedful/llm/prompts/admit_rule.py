"""Prompt: does one user message to a coding agent hold a lasting rule, and where does it bind?"""

from __future__ import annotations

from pydantic import BaseModel

from heedful.llm.prompts import DATA_NOTE, data_block
from heedful.llm.protocol import ChatMessage
from heedful.rules.models import Admission

RESPONSE = Admission
SYSTEM = (
    "Decide whether one user message to a coding agent holds a lasting behavioural rule. "
    "Read the message alone. Answer decision: persist (a lasting preference, recurring friction or "
    "mistake to avoid; 'from now on X' is lasting), task_local (only for the current task: a request, "
    "an answer, a temporary exception such as 'be detailed this time'), underspecified (reusable but "
    "its meaning or activation is unclear: 'be careful with that', 'when the project is done'), or none "
    "(no instruction). Scope for persist: project when the user binds it to this repo/project/codebase/"
    "'here'/'we', else global. Set retraction when the user explicitly withdraws an earlier rule. " + DATA_NOTE
)


class AdmitInput(BaseModel):
    text: str


def messages(context: AdmitInput) -> list[ChatMessage]:
    return [ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=data_block(context.text))]
