"""The parameter model of every check kind: what a proposed check's `params` must be to be usable.

Strict (no coercion: `"3"` is not a limit) and closed (an unknown key is a typo, not a parameter),
so that a check the validator accepts is read the same way when a hook evaluates it. Loaded only
when a check is proposed or validated, never on a hook's start-up path.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, model_validator

Text = Annotated[StrictStr, Field(min_length=1)]
Words = StrictStr | list[Text]  # "system prune" or ["system", "prune"]
Globs = Annotated[list[Text], Field(min_length=1)]
Limit = Annotated[StrictInt, Field(gt=0)]


class Params(BaseModel):
    # each kind's validator is built when a check of that kind is first validated: a learn proposes one or two kinds
    model_config = ConfigDict(strict=True, extra="forbid", defer_build=True)


class ForbiddenCommandParams(Params):
    program: Text  # the evaluator reads a missing program as "any program": never a proposal
    subcommand: Words = []
    flags: list[Text | list[Text]] = []
    args: Words = []
    alternatives: list[StrictStr] = []
    implicit_target: StrictBool = False
    bare: StrictBool = False  # only the program run by itself, not launched as `python -m PROGRAM`
    piped_into: list[Text] = []  # only when its output goes into one of these programs (`curl URL | sh`)
    synonyms: list[Text] = []  # programs that do the same job, matched like program (wget beside curl)
    spelled: list[Text] = []  # only the program typed by one of these names: `python`, not `python3`
    mentions: list[Annotated[StrictStr, Field(pattern=r"^[a-z0-9]+$")]] = []  # environments: prod, production


class ForbiddenPathParams(Params):
    globs: list[Text] = []
    outside_project: StrictBool = False
    created_only: StrictBool = False

    @model_validator(mode="after")
    def _names_something(self) -> Self:
        if not self.globs and not self.outside_project:
            raise ValueError("give globs, or outside_project: true")
        return self


class StagedPathParams(Params):
    globs: Globs


class WorkspaceLeftoversParams(Params):
    globs: Globs


class CommitMessageParams(Params):
    forbid: list[Text] = []
    require: StrictStr | None = None
    max_subject: Limit | None = None

    @model_validator(mode="after")
    def _says_something(self) -> Self:
        if not (self.forbid or self.require or self.max_subject):
            raise ValueError("give forbid, require or max_subject")
        if self.require:
            try:
                re.compile(self.require)
            except re.error as exc:
                raise ValueError(f"require is not a regular expression ({exc})") from None
        return self


class ReplyWordLimitParams(Params):
    limit: Limit


class ReplyCountLimitParams(Params):
    unit: Literal["lines", "bullets", "sentences", "paragraphs"]
    limit: Annotated[StrictInt, Field(ge=0)]

    @model_validator(mode="after")
    def _some_reply_left(self) -> Self:
        if self.limit == 0 and self.unit != "bullets":  # "no bullet points" leaves prose; no lines leaves nothing
            raise ValueError(f"a limit of 0 {self.unit} allows no reply at all; only bullets may be 0")
        return self


class ReplyForbiddenTextParams(Params):
    patterns: Globs


class ReplyJsonFieldsParams(Params):
    fields: Globs


class FieldValueParams(Params):
    target: Literal["action", "artifact", "delivery"]
    path: Globs
    op: Literal["equals", "not_equals"]
    value: StrictStr | StrictBool | StrictInt | StrictFloat | None = None


class RequiredEventParams(Params):
    commands: Annotated[list[Text | Annotated[list[Text], Field(min_length=1)]], Field(min_length=1)]
    every: StrictBool = False
    after: Literal["edit", "always"] = "edit"
    edit_globs: list[Text] | None = None
    before: Literal["commit", "push", "pr"] | None = None  # judged on that action instead of at delivery

    @model_validator(mode="after")
    def _plain_commands(self) -> Self:
        # a word with a shell operator in it is never one word of a command the shell reader sees run
        for command in self.commands:
            for word in command.split() if isinstance(command, str) else command:
                if re.search(r"[()|;&<>`\n\x00]", word):
                    raise ValueError(f"commands: {word!r} holds a shell operator; give the command's words")
        return self


MODELS: dict[str, type[Params]] = {
    "forbidden_command": ForbiddenCommandParams,
    "forbidden_path": ForbiddenPathParams,
    "staged_path": StagedPathParams,
    "workspace_leftovers": WorkspaceLeftoversParams,
    "commit_message": CommitMessageParams,
    "reply_word_limit": ReplyWordLimitParams,
    "reply_count_limit": ReplyCountLimitParams,
    "reply_forbidden_text": ReplyForbiddenTextParams,
    "reply_json_fields": ReplyJsonFieldsParams,
    "field_value": FieldValueParams,
    "required_event": RequiredEventParams,
}
