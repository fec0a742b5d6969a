"""Readers for rules about what must happen before the agent finishes: commands to run, files to clean up."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from heedful.rules.compile import runs
from heedful.rules.compile.said_otherwise import said_otherwise
from heedful.rules.compile.words import LANGUAGE_GLOBS, spec
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

TEST_COMMANDS = [
    ["pytest"],
    ["python", "-m", "pytest"],
    ["tox"],
    ["nox"],
    ["npm", "test"],
    ["npm", "run", "test"],
    ["yarn", "test"],
    ["pnpm", "test"],
    ["bun", "test"],
    ["go", "test"],
    ["cargo", "test"],
    ["make", "test"],
    ["make", "check"],
    ["jest"],
    ["vitest"],
    ["mocha"],
    ["unittest"],
    ["gradle", "test"],
    ["mvn", "test"],
    ["rspec"],
    ["rake", "test"],
    ["uv", "run", "pytest"],
    ["poetry", "run", "pytest"],
    ["ctest"],
    ["dotnet", "test"],
    ["phpunit"],
]
_UNTIL = lazy(
    r"\b(?:don'?t|do not|never)\s+(?:say|tell me|claim|report|declare|mark|call|finish|consider|reply|"
    r"hand)\b.{0,40}?\b(?:until|before|without|unless)\s+(?:you(?:'ve| have)?\s+)?(?:run(?:ning)?|ran|"
    r"execut\w+)?\s*(?P<what>.+)$"
    # "never push without running go vet": the command is due before the action (read at delivery)
    r"|\b(?:don'?t|do not|never)\s+(?:commit|push|merge|open (?:a |the )?(?:prs?|pull requests?))\b.{0,40}?"
    r"\b(?:until|before|without|unless)\s+(?:first\s+)?(?:you(?:'ve| have)?\s+)?(?:first\s+)?"
    r"(?:run(?:ning)?|ran|having run|execut\w+)\s+(?P<what2>.+)$",
    re.I,
)
# "ruff check must pass before you push": a command that must succeed before a moment.
_MUST_PASS = lazy(
    r"^(?P<what>`[^`]+`|[\w./:@-]+(?:\s+[\w./:@-]+){0,3}?(?:\s*&&\s*[\w./:@-]+(?:\s+[\w./:@-]+){0,3}?)*)\s+"
    r"(?:must|should|has to|needs to)\s+(?:always\s+)?"
    r"(?:pass|succeed|be clean|be green|run|be run|come back clean)\s+(?P<when>before|after|prior to)\b(?P<rest>.*)$",
    re.I,
)
# "Tests must pass: go test -race ./...", "Lint must be clean: golangci-lint run": a quality named, then its command.
_MUST_BE_COLON = lazy(
    r"^(?:the\s+|all\s+)?(?:tests?|test suite|lint(?:ing|er|s)?|the code|code|build|type-?check(?:s|ing)?|types|"
    r"format(?:ting)?|checks?|ci|vet|(?:pre-commit\s+)?hooks)\s+(?:must|should|has to|have to|needs? to)\s+"
    r"(?:always\s+)?"
    r"(?:pass|be clean|be green|build|succeed|compile|be formatted|check|type-?check|lint clean)\s*[:—–]\s*"
    r"(?P<what>.+)$",
    re.I,
)
# "Docs must pass `npm run lint:docs`": a part of the work, then the command it must pass (due when the condition says)
_MUST_PASS_COMMAND = lazy(
    r"^(?:the\s+|all\s+|every\s+)?[\w-]+(?:\s+[\w-]+)?\s+(?:must|should|has to|have to|needs? to)\s+(?:always\s+)?"
    r"pass\s+(?!(?:before|after|when|whenever|prior|once|on|in|for|with|locally|first)\b)"
    r"(?P<what>`[^`]+`|[\w./:@-]+(?:\s+[\w./:@-]+){0,3})\W*$",
    re.I,
)
# "Commit every turn", "commit your work at the end of every turn": a commit is due once the turn has edited
_COMMIT_EVERY = lazy(
    r"^(?:always\s+)?commit\s+(?:(?:your|the|all)\s+)?(?:work|changes\s+)?\s*(?:at the end of\s+|after\s+)?"
    r"(?:every|each)\s+(?:turn|task|session|response)\W*$",
    re.I,
)
# "make sure `npm test` passes before you finish", "ensure cargo clippy is clean before pushing"
_ENSURE_PASSES = lazy(
    r"^(?:always\s+|please\s+)*(?:make sure|ensure|check|verify|confirm)\s+(?:that\s+)?(?P<what>`[^`]+`|"
    r"[\w./:@-]+(?:\s+[\w./:@-]+){0,3}?)\s+(?:passes|pass|succeeds?|is clean|are clean|is green|are green|"
    r"runs? clean(?:ly)?|exits 0)\s+"
    r"(?P<when>before|after|prior to)\b(?P<rest>.*)$",
    re.I,
)
# "For code changes run …", "For docs-only changes, run …": the kind of change, then the commands.
_FOR_CHANGES = lazy(
    r"^for\s+(?P<rest>[\w\s/.*`-]{1,40}?\b(?:changes?|edits?|modifications?))\s*,?\s*"
    r"(?:(?:always|please|also|then|make sure to|be sure to|you must|must)\s+)*(?:run|execute)\s+(?P<what>.+)$",
    re.I,
)
# "never push without running the linter": running something first is the rule, never a ban on the action.
PRECONDITION = lazy(
    r"\b(?:without|until|unless)\s+(?:first\s+)?(?:you(?:'ve| have)?\s+)?(?:first\s+)?(?:running|having run|run|ran|"
    r"testing|linting|formatting|checking|building|type-?checking)\b",
    re.I,
)
# "Run X <when>": the words that end the command and start the moment it is due.
_WHEN = lazy(
    r"\s+(?P<when>before|prior to|after|once|when(?:ever)?|if|at the end of|by the end of|every time|each time|"
    r"on(?= (?:the |any |all |every |your )?(?:changed|edited|modified|touched|new)\b)|"
    r"to (?:verify|ensure|check|validate|confirm|make sure|format|lint|catch|fix|keep)|"
    r"for (?:\w+ )?(?:style|lint(?:ing)?|formatting|type[- ]?check(?:ing|s)?|typing))\b(?P<rest>.*)$",
    re.I,
)
# "Finish by running make markdown", "as a last step, run make lint": a command due when the work is handed back.
_FINISH_BY = lazy(
    r"^(?:always\s+)?(?:(?:finish|end|wrap up|conclude|close out)\w*\s+(?:(?:each|every|the|your|a|any)\s+(?:task|"
    r"change|session|turn|work)\s+)?(?:off\s+|up\s+)?by\s+(?:running|executing)|(?:as\s+(?:a|the|your)\s+(?:last|final)"
    r"\s+step|at the (?:very )?end|lastly|finally)\s*,?\s*(?:always\s+)?(?:run|execute))\s+(?P<what>.+)$",
    re.I,
)
# A condition that only says the command comes last ("as the last step"): the moment the rule itself names.
_LAST_STEP = lazy(r"^(?:as\s+(?:a|the|your)\s+(?:last|final)\s+step|at the (?:very )?end|last(?:ly)?|finally)$", re.I)
# "Validate changes by running bunx tsc --noEmit and bun run lint": the commands that check the work, due after it.
_BY_RUNNING = lazy(
    r"^(?:always\s+)?(?:validate|verify|check|test|confirm)\w*\s+(?:(?:your|the|all|any|each|every)\s+)?"
    r"(?:changes?|code|work|edits?)\s+by\s+(?:running|executing)\s+(?P<what>.+)$",
    re.I,
)
_RUN_LEAD = lazy(
    r"^(?:(?:always|please|also|then|and|make sure (?:to|you)|be sure to|remember to|you must|must)\s+)*"
    r"(?:run|execute|rerun|re-run|use(?=\s+`))\s+(?P<body>.+)$",
    re.I,
)
# Instruction files map what changed to what to run: "Any `.go` file → `make lint && make test`".
_ARROW = lazy(r"^(?P<what_changed>[^→]+?)\s*(?:→|->|=>)\s*(?P<what>`[^`]+`(?:\s*(?:,|and|&&|then)\s*`[^`]+`)*)\W*$")
_LEAD_WHEN = lazy(
    r"^(?P<when>after|once|when(?:ever)?|before|prior to|every time|each time|if)\s+(?P<rest>[^,]+),\s*"
    r"(?:(?:always|please|also|then|make sure to|be sure to|you must|must)\s+)*"
    r"(?P<verb>run|execute|re-?run|(?:format|lint|check|type-?check)\s+(?:(?:the|your|all)\s+)?(?:code\s+)?(?:with|using)|"
    r"(?:confirm|verify|check|reinstall|rebuild|regenerate|refresh|sync)\s+(?:the\s+|your\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:with|using|via))\s+"
    r"(?P<what>.+)$",
    re.I,
)
_WITH = lazy(
    r"^(?:always\s+)?(?:add|create|generate|regenerate|format|lint|check|update|validate|type-?check|typecheck|test|"
    r"scan|audit|verify|confirm|build|compile|bundle|reinstall|rebuild|regenerate|refresh|sync)\b[^,]*?\bwith\s+"
    r"(?P<what>`[^`]+`|[\w./:-]+(?:\s+[\w./:-]+){0,4}?)(?:\s+(?P<when>when(?:ever)?|after|before|once)\b(?P<rest>.*))?$",
    re.I,
)
_DELIVERY_MOMENT = lazy(
    r"\b(?:done|finish\w*|complet\w*|wrap\w* up|hand\w* (?:it )?(?:back|over)|repl(?:y|ying)|respond\w*|"
    r"report\w*|prompt\w*|deliver\w*|ship(?:s|ping)?|end of (?:a|the|each|every|your) (?:task|session|change|turn)|"
    r"commit\w*|push\w*|(?:open|creat|mak|rais|fil)\w* (?:a |the |your )?(?:prs?|pull requests?|merge requests?)|"
    r"submit\w*|send\w* (?:a |the )?(?:prs?|pull requests?)|"
    r"(?:a|the|any|each|every|your) (?:pr|pull request|merge request))\b",
    re.I,
)
_EDIT_MOMENT = lazy(
    r"\b(?:edit\w*|chang\w*|modif\w*|touch\w*|updat\w*|add(?:ing|s)?|writ\w*|rewrit\w*|refactor\w*|"
    r"creat\w*|renam\w*|delet\w*|remov\w*|bump\w*|"
    r"fix(?:es|ing|ed)?|bug\s?fix\w*|implement\w*|develop\w*|coding)\b",  # "when fixing bugs": code changes
    re.I,
)
# Handing the work to a person: "before human review", "before requesting a review" (a "manual review" is a tip's aside)
_REVIEW = lazy(r"\bhuman review\b|\b(?:request\w*|ask\w* for)\s+(?:a\s+|the\s+)?(?:code\s+)?review\b", re.I)
# What is run, named by its kind, then the command that runs it: "the tests with `go test ./...`"
_NAMED_WITH = lazy(
    r"^(?:the\s+|all\s+|your\s+|any\s+)?(?:[\w/-]+\s+){0,2}?(?:tests?|test suite|suite|checks?|lint(?:ers?|ing)?|"
    r"formatters?|formatting|type[- ]?checks?|type[- ]?checking)\s+(?:with|using|via|through)\s+(?P<command>.+)$",
    re.I,
)
_PATH_TOKEN = lazy(r"`[^`\s]+`|(?<![\w*])\*?\.?[\w*.-]*[/.](?:[\w./*-]*[\w*/])?|(?<![\w.])\.[a-z]{1,8}\b")


def moment(phrase: str) -> tuple[str, list[str]] | None:
    """("delivery" | "edit", the edited paths it names) for a phrase that says when a command is due.

    "before committing" / "when you're done" -> delivery; "after changing go.mod" -> edit with [go.mod];
    "after changing Python files" -> edit with [*.py]; "after the deploy" -> None (no evidence decides it)."""
    text = phrase.strip().strip(",.;")
    if re.match(r"^for\b", text, re.I) and not re.search(r"\b(?:changes?|edits?|modifications?)\b", text, re.I):
        return None  # "for tests that create spans": which work, not a moment an edit or a hand-over marks
    if re.match(r"^(?:before|prior to)\b", text, re.I) and (_DELIVERY_MOMENT.search(text) or _REVIEW.search(text)):
        return "delivery", []  # "before human review": the work is handed over for it
    if _EDIT_MOMENT.search(text) or re.search(r"\b(?:code|file) changes?\b|\bchanged\b", text, re.I):
        return "edit", edit_globs(text)
    if _DELIVERY_MOMENT.search(text):
        return "delivery", []
    return None


def edit_globs(text: str) -> list[str]:
    """Paths an edit condition names: go.mod, proto/*.proto, packages/, .go files, Python files."""
    lowered = text.lower()
    if re.search(
        r"\b(?:any|all|every) (?:code|file|source)|\bcode (?:edits?|changes?)\b|\bevery (?:edit|change)", lowered
    ):
        return []
    globs: list[str] = []
    prose = _PATH_TOKEN.sub(" ", text).lower()
    for match in _PATH_TOKEN.finditer(text):
        raw = match.group(0).strip("`").rstrip(".")
        if not re.search(r"[/*]|\.\w", raw):
            continue  # "in the repo." is a word at the end of a sentence
        if (
            not raw
            or raw in (".", "..", "/")
            or re.fullmatch(r"e\.g|i\.e|etc|\W+", raw)
            or raw.startswith(("/", "~", "http"))
        ):
            continue
        if re.fullmatch(r"\.[a-z]{1,8}", raw):
            raw = "*" + raw
        elif raw.endswith("/"):
            raw = raw + "**"
        globs.append(raw)
    # a language names files only as "Python files", "Go code", "TypeScript sources"
    named = r"\s+(?:files?|code|sources?|modules?|changes?|edits?)\b"
    globs += [g for lang, exts in LANGUAGE_GLOBS.items() if re.search(rf"\b{lang}{named}", prose) for g in exts]
    return list(dict.fromkeys(globs))


def _due(when: str, rest: str, conditions: Sequence[str]) -> tuple[str, list[str]] | None:
    when = when.lower()
    if when.startswith(("to ", "for ")):
        # "run X to verify", "run X for Python style": after the changes it checks
        later = re.search(r"\b(?:after|once|when(?:ever)?|before)\b.*$", rest, re.I)
        found = moment(later.group(0)) if later else None
        return found if found and not conditions else ("edit", found[1] if found else [])
    found = moment(re.sub(r"\s+", " ", f"{when} {rest}")) if when else None
    if found is None and (when or not conditions):
        return None
    kind, globs = found or ("delivery", [])
    for condition in conditions:
        extra = moment(condition)
        if extra is None:
            return None
        kind = "edit" if "edit" in (kind, extra[0]) else kind
        globs = [*globs, *extra[1]]
    return kind, list(dict.fromkeys(globs))


# "Typecheck (npm run type:check) when you're done", "Lint (`pnpm lint`) before committing": an activity named with
# its command in parentheses is running that command
_ACTIVITY_IN_PARENS = lazy(
    r"^(?:(?:always|please|also|then)\s+)*(?:type-?check|lint|format|test|build|compile|validate|verify|check|"
    r"regenerate|generate|push|commit)\w*(?:\s+(?:the|your|all|any)?\s*(?:code|changes|sources?|project|files?)){0,1}\s*"
    r"\(\s*(?P<command>`[^`]+`|[\w./:@-]+(?:\s+[\w./:@=-]+){0,4})\s*\)\s*(?P<rest>.*)$",
    re.I,
)
# "Use gofmt -w on all Go files you modify", "run black on every Python file you change": due after those edits
_ON_FILES_EDITED = lazy(
    r"^(?:(?:always|please|also)\s+)*(?:run|use|apply)\s+(?P<command>`[^`]+`|[\w./:@-]+(?:\s+[\w./:@=-]+){0,3}?)\s+"
    r"(?:on|against|over)\s+(?:all\s+(?:the\s+)?|every\s+|each\s+|any\s+|the\s+)?(?P<kind>[\w.*`-]+(?:\s+[\w-]+)?)\s+"
    r"(?:files?|sources?|code)\s+(?:(?:that\s+|which\s+)?you(?:'ve| have)?\s+)?"
    r"(?:modify|modified|change|changed|edit|edited|touch|touched|create|created|write|wrote|written|add|added)\W*$",
    re.I,
)


def _restated(text: str) -> tuple[str, str, list[str]] | None:
    """The two shapes above, as (command phrase, moment, edit globs); None for any other rule."""
    on_files = _ON_FILES_EDITED.match(text.strip())
    if on_files:
        kind = on_files.group("kind").strip("`")
        globs = edit_globs(f"{kind} files") if not re.fullmatch(r"\*?\.\w+", kind) else [f"*.{kind.split('.')[-1]}"]
        return (on_files.group("command"), "edit", globs) if globs else None
    return None


def _read(text: str, conditions: Sequence[str]) -> tuple[str, str, list[str]] | None:
    """(the command phrase, "edit" | "delivery", edit globs) of a rule that says a command must run."""
    text = said_otherwise(text)
    restated = _restated(text)
    if restated is not None:
        return restated
    in_parens = _ACTIVITY_IN_PARENS.match(text.strip())
    if in_parens and runs.command_list(in_parens.group("command")):
        text = f"run {in_parens.group('command')} {in_parens.group('rest')}".strip()
    finish = _FINISH_BY.match(text.strip())
    if finish:
        what = finish.group("what")
        when = _WHEN.search(what)
        what = what[: when.start()] if when and when.group("when").lower().startswith(("to ", "for ")) else what
        rest = [c for c in (p.strip() for c in conditions for p in c.split(",")) if c and not _LAST_STEP.match(c)]
        due = _due("", "", rest) if rest else ("delivery", [])
        return (what, *due) if due else None
    arrow = _ARROW.match(text)
    if arrow and (_PATH_TOKEN.search(arrow.group("what_changed")) or edit_globs(arrow.group("what_changed"))):
        return arrow.group("what"), "edit", edit_globs(arrow.group("what_changed"))
    must_pass = _MUST_PASS_COMMAND.match(text.strip())
    if must_pass:
        due = _due("", "", conditions) if conditions else ("delivery", [])
        return (must_pass.group("what"), *due) if due else None
    colon = _MUST_BE_COLON.match(text.strip())
    if colon:  # due when the rule's condition says ("before a PR is merge-ready"), else before finishing
        due = _due("", "", conditions) if conditions else ("delivery", [])
        return (colon.group("what"), *due) if due else None
    ensure = _ENSURE_PASSES.match(text.strip())
    if ensure:
        due = _due(ensure.group("when"), ensure.group("rest"), conditions)
        return (ensure.group("what"), *due) if due else None
    changes = _FOR_CHANGES.match(text.strip())
    if changes:
        found = moment(f"after {changes.group('rest')}")
        return (changes.group("what"), "edit", found[1] if found else []) if found else None
    leading = _LEAD_WHEN.match(text)
    if leading:
        due = _due(leading.group("when"), leading.group("rest"), conditions)
        named_by = _NAMED_WITH.match(leading.group("what"))  # "…, run all tests with cargo nextest run"
        return ((named_by or leading).group("command" if named_by else "what"), *due) if due else None
    by_running = _BY_RUNNING.match(text.strip())
    if by_running:
        due = _due("", "", conditions) if conditions else ("edit", [])
        return (by_running.group("what"), *due) if due else None
    with_ = _WITH.match(text)
    if with_ and (with_.group("when") or conditions):
        due = _due(with_.group("when") or "", with_.group("rest") or "", conditions)
        return (with_.group("what"), *due) if due else None
    run = _RUN_LEAD.match(text.strip())
    if run and run.group(0).lower().lstrip().startswith("use"):
        # "use `./check.sh` when you're done" names a command due at delivery; "use `x` when editing" is how to
        read = _read(re.sub(r"^\s*use\b", "run", text.strip(), flags=re.I), conditions)
        return read if read is not None and read[1] == "delivery" else None
    if run:
        # "run the tests with `go test ./...`", "run lint/static checks using go vet": the command is after "with"
        named_by = _NAMED_WITH.match(run.group("body"))
        body = named_by.group("command") if named_by else run.group("body")
        when = _WHEN.search(body)
        if when is None:
            if not conditions:
                return None
            due = _due("", "", conditions)
            return (body, *due) if due else None
        due = _due(when.group("when"), when.group("rest"), conditions)
        return (body[: when.start()], *due) if due else None
    must = _MUST_PASS.match(text.strip())
    if must:
        due = _due(must.group("when"), must.group("rest"), conditions)
        return (must.group("what"), *due) if due else None
    until = _UNTIL.search(text)
    if until:
        return until.group("what") or until.group("what2"), "delivery", []
    return None


# "before every commit", "prior to pushing", "never push without …": the git action the command is due before;
# "before opening a PR", "before making PRs": the command that opens a pull request.
_PR = r"(?:prs?|pull requests?|merge requests?|mrs?)"
_GATE = lazy(
    r"\b(?:before|prior to)\s+(?:(?:every|each|any|a|an|you|your|the|we|i)\s+)*(?P<what>commit\w*|push\w*)\b"
    r"|\b(?:don'?t|do not|never)\s+(?P<what2>commit|push)\s+(?:anything\s+|code\s+)?(?:without|before|until)\b"
    r"|\b(?:before|prior to)\s+(?:(?:every|each|any|a|an|you|your|the|we|i)\s+)*(?:(?P<pr>open|creat|mak|submit|send|"
    rf"rais|fil|propos)\w*\s+(?:(?:a|an|the|your|any|new)\s+)?)?{_PR}\b",
    re.I,
)
# A moment besides the pull request ("before presenting final changes or submitting a PR"): due at delivery too.
_OTHER_MOMENT = lazy(
    r"(?<![\w-])(?:done|finish\w*|final|complet\w*|wrap\w* up|hand\w* (?:it )?(?:back|over)|repl(?:y|ying)|respond\w*|"
    r"report\w*|present\w*|deliver\w*|commit\w*|push\w*|merg\w*)\b",
    re.I,
)


def gate(text: str) -> str | None:
    """ "commit" or "push" when the rule says the command is due before that git action, "pr" before opening a pull
    request (and no other moment), else None."""
    found = _GATE.search(text)
    if found is None:
        return None
    word = found.group("what") or found.group("what2")
    if word is None:
        rest = text[: found.start()] + " " + text[found.end() :]
        return None if _OTHER_MOMENT.search(rest) else "pr"
    return "commit" if word.lower().startswith("commit") else "push"


def required_event(text: str, conditions: Sequence[str]) -> CheckSpec | None:
    """A command that must run before delivery: "Run `make lint` before committing", "After changing any
    .go file, run make format, make lint and make test_fast", "don't say it's done until the tests pass"."""
    if re.search(r"\b(?:run|execute)\s+only\b|\bonly\s+(?:run|execute)\b", text, re.I):
        return None  # "run only the relevant tests for small fixes": which tests, not that they must run
    text = re.sub(r"\b(run|execute)\s+at\s+least\b", r"\1", text, flags=re.I)  # "run at least make test"
    if _COMMIT_EVERY.match(text.strip()):
        return spec("required_event", {"commands": [["git", "commit"]], "after": "edit"})
    read = _read(text, conditions)
    if read is None:
        return None
    what, due, globs = read
    params: dict[str, Any] = {}
    if runs.is_test_phrase(what):
        # Which runner is unknown: any of the usual runners counts, and only a rule about finishing names a
        # moment every runner can be checked at ("run the tests after every change" is about each edit).
        if not _DELIVERY_MOMENT.search(" ".join([text, *conditions])):
            return None
        params["commands"] = TEST_COMMANDS
    else:
        commands = runs.command_list(what)
        if commands is None:
            return None
        every = len(commands) > 1 and runs.every_one(what)
        if not every:
            # "run cargo xtask tidy for generated-code changes": a word of prose read as another choice is dropped
            commands = [c for c in commands if runs.plausible_program(c[0], text)] or commands
        params["commands"] = commands
        if every:
            params["every"] = True
    params["after"] = "edit"
    if due == "edit" and globs:
        params["edit_globs"] = globs
    before = gate(" ".join([text, *conditions]))
    if before:
        params["before"] = before  # judged on the commit or push itself, before it happens
        # "before every commit" asks for the command before each one, whether or not this turn edited
        # anything (a commit also takes what earlier turns left uncommitted)
        params["after"] = "always"
        params.pop("edit_globs", None)
    return spec("required_event", params)


_LEFTOVER = lazy(
    r"\b(?:clean up|cleanup|delete|remove|get rid of|(?:don'?t|do not|never) leave)\b.{0,40}?"
    r"(?P<what>temp(?:orary)? files|tmp files|scratch files|backup files|debug (?:scripts|files)|core dumps|`[^`]+`|"
    r"[\w-]+\.[a-z]{1,5}(?=\s+(?:behind|around|lying around|in the (?:repo|project|workspace))\b)|"
    r"\.[a-z]{1,6}\s+files(?=\s+(?:behind|around|lying around|in the (?:repo|project|workspace))\b)|"
    r"[\w*.-]*\*[\w*.-]*(?:\s+(?:or|and)\s+[\w*.-]*\*[\w*.-]*)*)",
    re.I,
)
_LEFTOVER_GLOBS = {
    "temp files": ["*.tmp", "*.temp"],
    "temporary files": ["*.tmp", "*.temp"],
    "tmp files": ["*.tmp"],
    "scratch files": ["scratch*"],
    "backup files": ["*.bak", "*.orig", "*~"],
    "debug scripts": ["debug_*", "*_debug.*"],
    "debug files": ["debug_*", "*_debug.*"],
    "core dumps": ["core", "core.*"],
}


_CODE_NOUN = lazy(
    r"\s*(?:statements?|calls?|lines?|prints?|invocations?|debug(?:ging)?|comments?|in (?:the )?code)\b", re.I
)


def leftovers(text: str) -> CheckSpec | None:
    leftover = _LEFTOVER.search(text)
    if not leftover:
        return None
    verb = re.match(r"\s*(?:clean up|cleanup|delete|remove|get rid of)\b", leftover.group(0), re.I)
    before = text[: leftover.start()]
    negated = re.search(r"\b(?:never|don'?t|do not|no|not|stop|avoid)\W+(?:\w+\W+){0,2}$", before, re.I)
    if verb and negated:
        return None  # "never delete the .env file" keeps the file: the opposite of cleaning it up
    what = leftover.group("what").lower()
    extension = re.fullmatch(r"(\.[a-z]{1,6})\s+files", what)  # "don't leave .orig files behind"
    if extension:
        return spec("workspace_leftovers", {"globs": [f"*{extension.group(1)}"]})
    globs = _LEFTOVER_GLOBS.get(what) or [g.strip("`") for g in re.split(r"\s+(?:or|and)\s+", what) if g.strip("`")]
    if "`" in what and not re.search(r"[./*]", what):
        return None  # "remove lines for `_SomeTable`": a name, not a file
    if _CODE_NOUN.match(text[leftover.end() :]):
        return None  # "don't leave `console.log` statements in code": code, not a file
    named = re.fullmatch(r"[\w-]+\.[a-z]{1,5}", what) is not None  # "don't leave out.txt behind"
    if not globs or not all("*" in g or "`" in what or named or what == "core dumps" for g in globs):
        return None
    return spec("workspace_leftovers", {"globs": globs})
