"""Rules said as complaints or reminders, restated as the rule they state before the readers see them.

"you keep using pip" is "never use pip"; "you committed the .envrc again, don't" is "never commit the .envrc";
"don't forget to run mypy" is "run mypy before finishing" (a reminder requires the command, it never bans it);
"`cargo clippy` before every commit" is "run `cargo clippy` before every commit".
"""

from __future__ import annotations

import re

from heedful.rules.lazy_regex import lazy

# A complaint that states the rule: "you keep using pip", "why do you keep running git push --force?" is "never ..."
_COMPLAINT = lazy(
    r"^\s*(?:(?:ugh+|omg|come on|seriously|again|dude|bro|man|wtf|hey|ok|okay|look|so)[,!.]*\s+)*"
    r"(?:(?:why|how come)\s+(?:do|are|did|would|is|does)\s+you\s+(?:keep\s+|still\s+|always\s+)?(?:on\s+)?|"
    r"you(?:'re| are)?\s+(?:keep|kept|still|always|again)\s+(?:on\s+)?)"
    r"(?P<verb>using|running|doing|calling|adding|installing|committing|pushing|editing|touching|creating|writing|"
    r"deleting|modifying)\b(?P<rest>[^.?!;]*)",
    re.I,
)
_BASE = {
    "using": "use",
    "running": "run",
    "doing": "",
    "calling": "call",
    "adding": "add",
    "installing": "install",
    "committing": "commit",
    "pushing": "push",
    "editing": "edit",
    "touching": "touch",
    "creating": "create",
    "writing": "write",
    "deleting": "delete",
    "modifying": "modify",
}


# "you committed the .envrc again, don't", "why did you run rm -rf again??": what the agent did again
_DID_AGAIN = lazy(
    r"^\s*(?:(?:ugh+|omg|come on|seriously|dude|hey|ok|okay|look)[,!.]*\s+)*"
    r"(?:you(?:'ve| have)?|why (?:did|do|would) you)\s+(?:just\s+)?"
    r"(?P<verb>committed|pushed|staged|used|ran|deleted|edited|touched|modified|installed|added|"
    r"commit|push|stage|use|run|delete|edit|touch|modify|install|add)\s+"
    r"(?P<rest>(?:[^.?!;]|\.(?=\S))+?)\s+again\b[^.?!;]*",
    re.I,
)
_PAST = {
    "committed": "commit",
    "pushed": "push",
    "staged": "stage",
    "used": "use",
    "ran": "run",
    "deleted": "delete",
    "edited": "edit",
    "touched": "touch",
    "modified": "modify",
    "installed": "install",
    "added": "add",
}


# A reminder states a command that must run, not one to avoid: "don't forget to run X", "do not skip X", "you forgot
# to run X again". Without a moment of its own it is due before the work is handed back.
_REMINDER = lazy(
    r"^\s*(?:(?:please|pls|and|also|again)[,!]?\s+)*"
    r"(?:(?:don'?t|do not|never)\s+(?:ever\s+)?(?:forget|neglect|fail)\s+to|remember\s+to|make sure (?:to|you)|"
    r"(?:don'?t|do not|never)\s+(?:ever\s+)?(?:skip|omit|forget)(?:ping)?"
    r"(?:\s+running)?|you(?:'ve| have)?\s+(?:forgot(?:ten)?\s+to|did\s*n[o']t|never)(?=\s+run\b))"
    r"\s+(?:run(?:ning)?\s+)?(?P<what>.+?)(?:\s+again)?(?P<end>[.!]\s.*|[.!]*)$",
    re.I,
)
_MOMENT_WORDS = lazy(r"\b(?:before|after|once|when(?:ever)?|until|prior to|every time)\b", re.I)
# "cargo clippy before every commit": a command named first, then when it runs
_COMMAND_FIRST = lazy(
    r"^(?P<cmd>`[^`]+`|(?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)*(?:\s+[\w./:-]+){0,3}?)\s+"
    r"(?=(?:before|after|prior to)\s+(?:every|each|any|all|you|committing|pushing|a|the|finishing|merging)\b)",
    re.I,
)


_CMD = r"`[^`]+`(?:\s*(?:,|and|&&|then)\s*`[^`]+`)*"
# How instruction files write a required command without the words "run X before Y"; each is restated as that.
_WRITTEN_FORMS = (
    # "`make check` runs the linters; run it before committing"
    lazy(rf"^(?P<cmd>{_CMD})[^;.]*[;.]\s*(?:always\s+|please\s+)?run (?:it|them|this|that)\s+(?P<when>.+?)\W*$", re.I),
    # "Before committing: `ruff check .`", "Pre-commit: run `just lint`"
    lazy(
        rf"^(?P<when>before [\w ]+?|pre-?(?P<hook>commit|push))\s*:\s*(?:always\s+)?(?:run\s+)?(?P<cmd>{_CMD})\W*$",
        re.I,
    ),
    # "All tests must pass before merging (`pytest -q`)"
    lazy(
        rf"^.+?\s+(?:must|should|have to|has to)\s+pass\s+(?P<when>(?:before|after) .+?)"
        rf"\s*\(\s*(?P<cmd>{_CMD})\s*\)\W*$",
        re.I,
    ),
    # "Tests: `go test ./...` (run before every commit)"
    lazy(rf"^[\w /-]+:\s*(?P<cmd>{_CMD})\s*\(\s*(?:run\s+|required\s+)?(?P<when>(?:before|after)[^)]*)\)\W*$", re.I),
    # "Always finish by running `./scripts/verify.sh`"
    lazy(rf"^(?:always\s+)?(?:finish|end|wrap up|close out)\s+(?:\w+\s+)?by\s+running\s+(?P<cmd>{_CMD})\W*$", re.I),
)


def _written_form(text: str) -> str | None:
    for form in _WRITTEN_FORMS:
        found = form.match(text.strip())
        if found is None:
            continue
        groups = found.groupdict()
        hook = groups.get("hook")
        when = f"before {hook.lower()}ing" if hook else groups.get("when") or "before finishing"
        return f"run {found.group('cmd')} {when.replace('commiting', 'committing')}"
    return None


def _as_required(text: str) -> str:
    """A reminder or a command named before its moment, read as the run it requires."""
    written = _written_form(text)
    if written is not None:
        return written
    reminder = _REMINDER.match(text)
    if reminder is not None and re.search(r"\bhooks?\b|--no-verify|\bverification\b", text, re.I):
        reminder = None  # "never skip the git hooks": the bypass flag (`--no-verify`), read by the command reader
    if reminder is not None and vocab_program(reminder.group("what")):
        what = reminder.group("what").strip()
        due = "" if _MOMENT_WORDS.search(what) else " before finishing"
        return f"run {what}{due}"
    first = _COMMAND_FIRST.match(text)
    if first is not None and vocab_program(first.group("cmd"), cued=True):
        return f"run {text}"
    return text


def vocab_program(phrase: str, cued: bool = False) -> bool:
    """Whether a phrase is a command: a program of the vocabulary (or a script by its path) with its own words.
    `cued`: nothing before it says it is a command, so an English word (`make`) counts only in backticks, and
    the words after the program must be its arguments, not a sentence ("mypy has to pass")."""
    from heedful.rules.vocabulary import AMBIGUOUS, STOP, program_named

    quoted = phrase.strip().startswith("`")
    words = phrase.strip().strip("`").split()
    if not words:
        return False
    program = program_named(words[0])
    if program is None and not words[0].startswith(("./", "scripts/", "bin/")):
        return False
    sentence = program in AMBIGUOUS or any(w.lower() in STOP or w.lower() in _SENTENCE_WORDS for w in words[1:])
    return not (cued and not quoted and sentence)


_SENTENCE_WORDS = frozenset("has have had pass passes passing need needs sure be green clean runs".split())


def as_rule(text: str) -> str:
    """A complaint that names what the agent keeps doing, read as the rule it states."""
    text = _as_required(text)
    again = _DID_AGAIN.match(text)
    if again is not None:
        verb = again.group("verb").lower()
        return f"never {_PAST.get(verb, verb)} {again.group('rest').strip()}" + text[again.end() :]
    found = _COMPLAINT.match(text)
    if found is None:
        return text
    base = _BASE[found.group("verb").lower()]
    return f"never {base} {found.group('rest').strip()}".replace("  ", " ") + text[found.end() :]
