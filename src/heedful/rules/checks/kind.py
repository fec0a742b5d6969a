"""What every check kind is: a class whose methods are pure, and a parameter model that validates.

    kind = KINDS["reply_word_limit"]
    kind.evaluate({"limit": 10}, "delivery", {"delivery": "a reply"})   # -> Verdict(result="pass", ...)
    kind.cases({"limit": "ten"})      # CheckParamsError: reply_word_limit parameters: limit: ...

Evaluating never raises and reads parameters leniently (a bad parameter gives `unknown`): a stored
check is judged by a hook, which must fail open. Proposing a check is where parameters are
validated, against the kind's pydantic model (`heedful.rules.checks.params`), which only loads
then: a hook process imports neither pydantic nor `dataclasses`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, ClassVar

from heedful.errors import InputError
from heedful.rules.checks.verdict import Result, Stage, Verdict

if TYPE_CHECKING:
    from heedful.rules.models import Case


class CheckParamsError(InputError):
    """Parameters the kind cannot use: one sentence naming the kind and the first bad field."""


class CheckKind:
    """One programmatic check kind. Subclasses name themselves; the four pure methods are their module's functions."""

    name: ClassVar[str]
    stage: ClassVar[Stage]
    evidence: ClassVar[tuple[str, ...]]

    @property
    def summary(self) -> str:
        """The kind's documentation (its module's docstring): what the compiler's prompt shows a model."""
        return (sys.modules[type(self).__module__].__doc__ or "").strip()

    def stage_for(self, params: dict[str, Any]) -> Stage:
        return self.stage

    def evidence_for(self, params: dict[str, Any]) -> list[str]:
        return list(self.evidence)

    def check_params(self, params: Any) -> None:
        """Raise `CheckParamsError` unless the parameter model accepts `params` exactly as given."""
        from pydantic import ValidationError

        from heedful.rules.checks.params import MODELS

        try:
            MODELS[self.name].model_validate(params)
        except ValidationError as exc:
            errors = exc.errors()
            first = errors[0]
            where = "".join(f"{part}: " for part in (".".join(str(p) for p in first["loc"]),) if part)
            message = str(first["msg"]).removeprefix("Value error, ")
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise CheckParamsError(f"{self.name} parameters: {where}{message}{more}") from None

    def cases(self, params: dict[str, Any]) -> list[Case]:
        """Validation cases for these parameters; `CheckParamsError` when the kind cannot use them."""
        self.check_params(params)
        return self.make_cases(params)

    # The four pure methods are the kind's module functions of the same names (`cases` for
    # make_cases): a kind overrides one only where it differs.
    def _module_function(self, name: str) -> Any:
        return getattr(sys.modules[type(self).__module__], name)

    def describe(self, params: dict[str, Any]) -> str:
        return str(self._module_function("describe")(params))

    def evaluate(self, params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
        verdict: Verdict = self._module_function("evaluate")(params, stage, evidence)
        return verdict

    def make_cases(self, params: dict[str, Any]) -> list[Case]:
        made: list[Case] = self._module_function("cases")(params)
        return made

    def review(self, params: dict[str, Any], stage: str, evidence: dict[str, Any]) -> Result:
        result: Result = self._module_function("review")(params, stage, evidence)
        return result

    def __repr__(self) -> str:
        return f"<check kind {self.name}>"
