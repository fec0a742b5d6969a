"""What the agent is told when a check fails: the rule, what matched, and the compliant way (pure).

The texts are phrased so that the agent corrects course rather than stopping: they state the
rule in the user's terms, quote what matched, and say what to do instead.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from heedful.enforce.results import Judgment

APPEAL_LINE = re.compile(
    r"^[ \t>*-]*heedful-appeal[ \t]+([A-Za-z0-9_-]+)[ \t]*:[ \t]*(.*)$", re.IGNORECASE | re.MULTILINE
)


def _words(value: Any) -> list[str]:
    return [str(v) for v in value if isinstance(v, str) and v] if isinstance(value, list) else []


def _rewrite(quote: str, program: str, alternative: str, subcommand: list[str]) -> str | None:
    """`pip install x` with the alternative `uv` gives `uv pip install x`; with `uv add`, `uv add x` (best effort)."""
    tokens = quote.split()
    replacement = alternative.split()
    if replacement == ["uv"] and program in ("pip", "python", "pytest"):
        replacement = ["uv", "pip"] if program == "pip" else ["uv", "run", program]
    for index, token in enumerate(tokens):
        if token.rsplit("/", 1)[-1] == program:
            end = index + 1
            # An alternative that names its own subcommand ("uv add") replaces the forbidden one too.
            if (
                len(replacement) > 1
                and subcommand
                and [t.lower() for t in tokens[end : end + len(subcommand)]] == [w.lower() for w in subcommand]
            ):
                end += len(subcommand)
            return " ".join([*tokens[:index], *replacement, *tokens[end:]])
    return None


def _without_flags(quote: str, groups: list[list[str]]) -> str | None:
    """The matched command without the forbidden flags (`git push -f origin x` -> `git push origin x`)."""
    aliases = {alias for group in groups for alias in group}
    letters = {alias[1] for alias in aliases if len(alias) == 2 and alias.startswith("-") and alias[1] != "-"}
    kept: list[str] = []
    for token in quote.split():
        if token.split("=", 1)[0] in aliases:
            continue
        if re.fullmatch(r"-[A-Za-z]{2,}", token) and set(token[1:]) & letters:
            rest = "".join(ch for ch in token[1:] if ch not in letters)
            if rest:
                kept.append(f"-{rest}")
            continue
        kept.append(token)
    result = " ".join(kept)
    return result if result != quote.strip() else None


def hint(kind: str | None, params: dict[str, Any], quotes: list[str]) -> str:
    """The compliant alternative for one violated check (it follows "Instead:", so it never says "instead")."""
    if kind == "forbidden_command":
        alternatives = _words(params.get("alternatives"))
        program = str(params.get("program") or "")
        subcommand = params.get("subcommand")
        sub_words = subcommand.split() if isinstance(subcommand, str) else _words(subcommand)
        if alternatives:
            if quotes and program:
                rewritten = _rewrite(quotes[0], program, alternatives[0], sub_words)
                if rewritten and rewritten != quotes[0]:
                    return f"use {' or '.join(alternatives)}, e.g. `{rewritten}`"
            return f"use {' or '.join(alternatives)}"
        targets = _words(params.get("args"))
        if program == "git" and sub_words[:1] == ["push"] and targets:
            return f"push to another branch than {' or '.join(targets)} (e.g. a feature branch) and open a pull request"
        groups = [g for g in params.get("flags") or [] if isinstance(g, list)]
        if groups and quotes:
            stripped = _without_flags(quotes[0], [_words(g) for g in groups])
            if stripped:
                named = " / ".join(_words(groups[0])[:2])
                return f"run it without {named}, e.g. `{stripped}`, or ask the user first"
        return "do not run this command; reach the goal another way the rule allows"
    if kind == "forbidden_path":
        globs = _words(params.get("globs"))
        where = ", ".join(globs) if globs else "those paths"
        if params.get("outside_project"):
            where = (where + " or anything outside the project") if globs else "anything outside the project"
        if params.get("created_only"):
            return f"do not create a new file matching {where}; put the content in an existing file instead"
        return f"leave {where} unchanged and make the change in a file the rule allows"
    if kind == "required_event":
        commands = params.get("commands") or []
        first = commands[0] if commands else None
        name = " ".join(first) if isinstance(first, list) else str(first or "the required command")
        return f"run `{name}` now, after your last edit, and then finish"
    if kind == "workspace_leftovers":
        left = ", ".join(quotes) if quotes else "the files you created"
        return f"delete {left} before finishing"
    if kind == "staged_path":
        staged = ", ".join(_words(params.get("globs"))) or "those paths"
        return f"stage files by name and leave {staged} out (unstage it with `git restore --staged`)"
    if kind == "commit_message":
        parts = []
        if _words(params.get("forbid")):
            parts.append("remove " + ", ".join(_words(params.get("forbid"))) + " from the message")
        if isinstance(params.get("require"), str):
            parts.append(f"make the message match {params['require']!r}")
        if isinstance(params.get("max_subject"), int):
            parts.append(f"keep the subject line to {params['max_subject']} characters")
        return "; ".join(parts) or "write the commit message as the rule says"
    if kind == "reply_count_limit":
        if params.get("limit") == 0:
            return f"rewrite the reply as prose, without {params.get('unit') or 'bullet points'}"
        return f"shorten the reply to at most {params.get('limit')} {params.get('unit')}"
    if kind == "reply_forbidden_text":
        patterns = ["emoji" if p.lower() in ("emoji", "emojis") else repr(p) for p in _words(params.get("patterns"))]
        return "rewrite the reply without " + " or ".join(patterns)
    if kind == "reply_word_limit":
        return f"shorten the reply to at most {params.get('limit')} words"
    if kind == "reply_json_fields":
        return "reply with one JSON object that has the fields " + ", ".join(_words(params.get("fields")))
    if kind == "field_value":
        dotted = ".".join(_words(params.get("path")))
        verb = "set" if params.get("op") == "equals" else "do not set"
        return f"{verb} `{dotted}` to `{_json(params.get('value'))}`"
    return "change it so that it follows the rule"


def _json(value: Any) -> str:
    """A JSON value as JSON writes it (`true`, `null`, `"x"`), which is how the agent will write it back."""
    return json.dumps(value, ensure_ascii=False)


def _reason(violation: Judgment) -> str:
    """The check's reason; a field's value is restated in JSON spelling (the check's own uses Python's)."""
    params = violation.get("params") or {}
    if violation.get("kind") != "field_value" or not isinstance(params, dict):
        return str(violation["reason"])
    dotted = ".".join(_words(params.get("path")))
    value = _json(params.get("value"))
    if params.get("op") == "equals":
        quotes = violation.get("quotes") or []
        found = f" (it is {_json(quotes[0])})" if quotes else ""
        return f"`{dotted}` must be `{value}`{found}"
    return f"`{dotted}` is `{value}`, which the rule forbids"


def _item(number: int, violation: Judgment) -> str:
    quotes = violation.get("quotes") or []
    quote = f" Matched: `{quotes[0]}`." if quotes else ""
    return (
        f"{number}. “{violation['rule_text']}” [{violation['rule_id']}]: {_reason(violation)}.{quote} "
        f"Instead: {violation.get('hint')}."
    )


def deny(violations: list[Judgment], used: int, budget: int) -> str:
    head = (
        "This tool call was not run: it breaks a rule the user taught"
        if len(violations) == 1
        else f"This tool call was not run: it breaks {len(violations)} rules the user taught"
    )
    body = "\n".join(_item(i + 1, v) for i, v in enumerate(violations))
    return (
        f"{head} (heedful).\n{body}\nContinue the task with the compliant alternative; there is no need to "
        f"stop or ask the user. (Correction {used} of {budget} this turn.)"
    )


def feedback(violations: list[Judgment], used: int, budget: int) -> str:
    body = "\n".join(_item(i + 1, v) for i, v in enumerate(violations))
    return (
        f"The change just made breaks a rule the user taught (heedful). The tool has "
        f"already run, so fix the result now:\n{body}\n(Correction {used} of {budget} this turn.)"
    )


APPEAL_HOW = (
    "The user's instructions in this conversation take precedence over learned rules: if they asked for this "
    "explicitly, or a judgment is wrong, you may appeal once per rule by running the shell command "
    "`heedful-appeal <rule id>: <your evidence>` (heedful reads it and does not run it; the user does not see "
    "it) before giving the reply again; the rule is then checked again."
)


def revise(violations: list[Judgment], used: int, budget: int) -> str:
    """The revision request; how to appeal is said with the turn's first request only."""
    count = "a rule" if len(violations) == 1 else f"{len(violations)} rules"
    body = "\n".join(_item(i + 1, v) for i, v in enumerate(violations))
    text = (
        f"Before this reply is final: it breaks {count} the user taught (heedful).\n{body}\n"
        f"Do what is needed and give the revised reply (revision {used} of {budget} this turn)."
    )
    return f"{text} {APPEAL_HOW}" if used == 1 else text


def appeal_filed(rule_id: str) -> str:
    return (
        f"Appeal of rule [{rule_id}] filed (heedful); it is reviewed when you give your reply. This command is "
        "not run. Give the reply now, without any appeal line in it."
    )


def reminder(unknown: list[Judgment]) -> str:
    lines = [f"- “{u['rule_text']}” [{u['rule_id']}]: {u['reason']}" for u in unknown]
    return "heedful could not check these rules on this step (not enough evidence); they still apply:\n" + "\n".join(
        lines
    )


def appeals_in(text: str) -> tuple[str, list[tuple[str, str]]]:
    """(the reply without appeal lines, [(rule id, evidence)])."""
    found = [(m.group(1), m.group(2).strip()) for m in APPEAL_LINE.finditer(text)]
    if not found:
        return text, []
    return APPEAL_LINE.sub("", text).strip(), found


def appeal_in_command(command: str) -> tuple[str, str] | None:
    """(rule id, evidence) of a shell command `heedful-appeal <rule id>: <evidence>`, else None."""
    found = APPEAL_LINE.match(command.strip())
    if found is None:
        return None
    return found.group(1), found.group(2).strip().strip("'\"").strip()


def is_own_text(prompt: str) -> bool:
    """A continuation prompt made from heedful's own revision request (the texts above) is not the user's word."""
    head = prompt[:400]
    return "(heedful)" in head and ("Before this reply is final" in head or "This tool call was not run" in head)
