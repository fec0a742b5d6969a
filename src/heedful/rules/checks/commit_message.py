"""commit_message: the message of a `git commit -m/--message` (also `-F -` and `$(cat <<EOF ...)`).

params: forbid ([str]: case-insensitive phrases the message must not contain; "emoji" means any
emoji), require (str: a regular expression the message must match, searched from its start),
max_subject (int: the longest first line allowed).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from heedful.rules.checks.evidence import clip, shell_action
from heedful.rules.checks.kind import CheckKind
from heedful.rules.checks.text_match import find, naive_find
from heedful.rules.checks.verdict import Result, Stage, Verdict
from heedful.rules.shell import simple_commands
from heedful.rules.shell_git import git_commit

if TYPE_CHECKING:
    from heedful.rules.models import Case

KIND = "commit_message"
STAGE: Stage = "pre_action"
EVIDENCE = ["action.command"]


def _forbid(params: Any) -> list[str]:
    value = params.get("forbid") if isinstance(params, dict) else None
    return [v for v in value if isinstance(v, str) and v.strip()] if isinstance(value, list) else []


def _require(params: Any) -> re.Pattern[str] | None:
    value = params.get("require") if isinstance(params, dict) else None
    if not isinstance(value, str) or not value:
        return None
    try:
        return re.compile(value)
    except (re.error, RecursionError):
        return None


def _max_subject(params: Any) -> int | None:
    value = params.get("max_subject") if isinstance(params, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def describe(params: dict[str, Any]) -> str:
    parts = []
    if _forbid(params):
        parts.append("without " + ", ".join(repr(f) for f in _forbid(params)))
    if isinstance(params.get("require"), str):
        parts.append(f"matching {params['require']!r}")
    if _max_subject(params):
        parts.append(f"with a subject of at most {_max_subject(params)} characters")
    return "commit messages " + (" and ".join(parts) or "(no requirement)")


def _judge(params: dict[str, Any], message: str) -> tuple[Result, str, str]:
    """(result, reason, quote) for one message."""
    for phrase in _forbid(params):
        found = find(phrase, message)
        if found is not None:
            what = "an emoji" if phrase.strip().lower() in ("emoji", "emojis") else repr(phrase)
            return "violated", f"the commit message contains {what}", found
    pattern = _require(params)
    if isinstance(params.get("require"), str) and params.get("require") and pattern is None:
        return "unknown", "the required pattern is not a valid regular expression", ""
    if pattern is not None and not pattern.search(message):
        return (
            "violated",
            f"the commit message does not match {params['require']!r}",
            message.splitlines()[0][:120] if message.strip() else "",
        )
    limit = _max_subject(params)
    subject = message.strip().splitlines()[0] if message.strip() else ""
    if limit is not None and len(subject) > limit:
        return "violated", f"the subject has {len(subject)} characters; the limit is {limit}", subject
    return "pass", "the commit message follows the rule", ""


def evaluate(params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    if not isinstance(params, dict) or not (_forbid(params) or params.get("require") or _max_subject(params)):
        return Verdict(result="unknown", reason="the check states no requirement on commit messages")
    if stage != STAGE:
        return Verdict(result="not_applicable", reason=f"checked before a commit runs, not at {stage}")
    action = shell_action(evidence)
    if isinstance(action, Verdict):
        return action
    line: str = action["command"]
    commits = [(c, parts) for c in simple_commands(line) if (parts := git_commit(c)) is not None]
    if not commits:
        return Verdict(result="not_applicable", reason="the command makes no commit")
    for command, parts in commits:
        if parts.messages is None:
            return Verdict(
                result="unknown",
                reason="the commit message is written in a file or an editor",
                quotes=[clip(command.raw)],
            )
        message = "\n\n".join(parts.messages)
        if not parts.messages:
            continue
        if _signs_off(command.args):
            message += "\n\nSigned-off-by: (added by git commit -s)"  # git writes the trailer itself
        result, reason, quote = _judge(params, message)
        if result != "pass":
            return Verdict(result=result, reason=reason, quotes=[clip(quote)] if quote and quote in line else [])
    return Verdict(result="pass", reason=f"every commit message is {describe(params).removeprefix('commit messages ')}")


def _signs_off(args: Any) -> bool:
    """Whether `git commit` was told to add the Signed-off-by trailer itself (`-s`, `--signoff`, `-sm "…"`)."""
    return any(a == "--signoff" or re.fullmatch(r"-[a-zA-Z]*s[a-zA-Z]*", str(a)) for a in args)


def _bash(command: str) -> dict[str, Any]:
    return {"action": {"tool": "Bash", "command": command}}


def _good_message(params: dict[str, Any]) -> str:
    require = params.get("require")
    subject = "fix: handle empty input"
    forbidden = [f.lower() for f in _forbid(params)]
    if any(f in subject for f in forbidden):  # a rule against "fix:" itself
        subject = next(
            (c for c in ("Handle empty input", "handle empty input") if not any(f in c.lower() for f in forbidden)),
            subject,
        )
    if isinstance(require, str) and "Signed-off-by" in require:
        return "fix: handle empty input\n\nSigned-off-by: Dev <dev@example.com>"
    trailer = (
        re.fullmatch(r"\(\?i?m\)\^(?P<key>[A-Za-z]+(?:-[A-Za-z]+)+): ", require) if isinstance(require, str) else None
    )
    if trailer:  # a required trailer ("Assisted-by: "), on a line of its own
        return f"fix: handle empty input\n\n{trailer.group('key')}: Dev <dev@example.com>"
    if isinstance(require, str) and _require(params) is not None and not _require(params).search(subject):  # type: ignore[union-attr]
        types = re.match(r"\^\((?P<first>[a-z]+)(?:\|[a-z]+)*\)", require)
        literal = re.sub(r"\\(.)", r"\1", require[1:]) if require.startswith("^") else ""
        literal = literal if literal and re.escape(literal) == require[1:] else ""  # `^\[LLM\]`: a literal prefix
        for candidate in (
            *([f"{literal} handle empty input"] if literal else []),
            *([f"{types.group('first')}: handle empty input"] if types else []),  # "^(ci|docs)...": a listed type
            "PAY-123: handle empty input",
            "handle empty input",
            "Handle empty input",
            "[core] handle empty input",
            "feat(core): handle empty input",
            "Handle empty input.",
        ):
            if _require(params).search(candidate):  # type: ignore[union-attr]
                return candidate
    return subject


def cases(params: dict[str, Any]) -> list[Case]:
    from heedful.rules.models import Case

    good = _good_message(params)
    subject, newline, rest = good.partition("\n")  # the first line, and the body or trailers after it
    limit = _max_subject(params)
    if limit is not None:  # a limit shorter than the sample subject: the passing message is cut to it
        subject = subject[:limit]
        good = subject + newline + rest
    found: list[Case] = [
        Case(stage=STAGE, evidence=_bash(f'git commit -m "{good}"'), expected="pass"),
        Case(stage=STAGE, evidence=_bash("git status && git diff --stat"), expected="not_applicable", note="no commit"),
    ]
    for phrase in _forbid(params)[:2]:
        bad = "🚀 ship it" if phrase.strip().lower() in ("emoji", "emojis") else f"{phrase}: Someone"
        found.append(Case(stage=STAGE, evidence=_bash(f'git commit -m "{good}" -m "{bad}"'), expected="violated"))
        found.append(
            Case(
                stage=STAGE,
                evidence=_bash(f"git add -A && git commit -m \"$(cat <<'EOF'\n{good}\n\n{bad}\nEOF\n)\""),
                expected="violated",
                note="message in a heredoc",
            )
        )
    if isinstance(params.get("require"), str) and "Signed-off-by" in str(params["require"]):
        found.append(Case(stage=STAGE, evidence=_bash(f'git commit -s -m "{subject}"'), expected="pass"))
    required = _require(params)
    if required is not None:
        # a message the requirement rejects ("wip stuff" passes a lower-case rule)
        rejected = next((m for m in ("wip stuff", "WIP stuff", "Update stuff.") if not required.search(m)), None)
        if rejected is not None:
            found.append(Case(stage=STAGE, evidence=_bash(f'git commit -am "{rejected}"'), expected="violated"))
    if limit is not None:
        found.append(Case(stage=STAGE, evidence=_bash(f'git commit -m "{good}"'), expected="pass", note="at the limit"))
        long = (subject + " and " + "x" * (limit + 10))[: limit + 10]
        found.append(Case(stage=STAGE, evidence=_bash(f'git commit -m "{long}{newline}{rest}"'), expected="violated"))
    return found[:9]


def review(params: dict[str, Any], stage: str, evidence: dict[str, Any]) -> Result:
    """Independent labeller: the text after -m in quotes, read with plain string operations."""
    if stage != STAGE:
        return "not_applicable"
    line = (evidence.get("action") or {}).get("command")
    if not isinstance(line, str) or "git commit" not in line:
        return "not_applicable"
    parts = re.findall(r"-[a-z]*m\s+\"((?:[^\"\\]|\\.)*)\"", line, re.S) + re.findall(
        r"<<'EOF'\n(.*?)\nEOF", line, re.S
    )
    message = "\n\n".join(p for p in parts if not p.startswith("$(cat"))
    if re.search(r"\s(?:--signoff|-[a-zA-Z]*s[a-zA-Z]*)(?=\s|$)", line.split(" -m ", 1)[0] + " "):
        message += "\n\nSigned-off-by: git"  # `git commit -s` adds the trailer itself
    if any(naive_find(f, message) for f in _forbid(params)):
        return "violated"
    pattern = _require(params)
    if pattern is not None and not pattern.match(message) and not re.search(str(params.get("require")), message):
        return "violated"
    limit = _max_subject(params)
    if limit is not None and len(message.split("\n", 1)[0]) > limit:
        return "violated"
    return "pass"


class CommitMessage(CheckKind):
    name = KIND
    stage = STAGE
    evidence = tuple(EVIDENCE)
