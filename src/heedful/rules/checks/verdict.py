"""What a check returns. Deliberately free of pydantic so that a hook process, which only
evaluates checks, starts fast; the rule data model re-exports these names."""

from __future__ import annotations

from typing import Any, Literal

Stage = Literal["pre_action", "artifact", "delivery"]
Result = Literal["pass", "violated", "not_applicable", "unknown"]


class Verdict:
    """The result of one check on one observation, with the reason and exact quotes of the evidence."""

    __slots__ = ("quotes", "reason", "result")

    def __init__(self, *, result: Result, reason: str, quotes: list[str] | None = None) -> None:
        self.result: Result = result
        self.reason = reason
        self.quotes: list[str] = list(quotes or [])

    def model_dump(self) -> dict[str, Any]:
        return {"result": self.result, "reason": self.reason, "quotes": list(self.quotes)}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Verdict) and self.model_dump() == other.model_dump()

    def __hash__(self) -> int:
        return hash((self.result, self.reason, tuple(self.quotes)))

    def __repr__(self) -> str:
        return f"Verdict(result={self.result!r}, reason={self.reason!r}, quotes={self.quotes!r})"
