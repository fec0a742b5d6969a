"""Commands named in prose: "run `make lint`", "run make format, make lint and make test_fast".

`command_list(phrase)` reads one or more command lines out of the words after a verb of running,
as the leading words a check matches on (program and subcommand words; flags, placeholders and
arguments dropped). Backticks are strong evidence: a backticked command is a command even when the
vocabulary does not know its program. Wrappers that start another command (`mise exec --`,
`uv run --group dev`) are peeled off, since the check sees through them too.
"""

from __future__ import annotations

import re

from heedful.rules import vocabulary as vocab
from heedful.rules.checks.command import INTERPRETERS
from heedful.rules.compile.words import GENERIC
from heedful.rules.lazy_regex import lazy
from heedful.rules.scope_grounding import SCRIPT_RUNNERS, TARGET_RUNNERS

# Words that end a command named in prose ("run make lint *in* the package", "run pytest *to* check").
_END = frozenset(vocab.STOP | {"every", "each", "first", "again", "then", "locally", "yourself", "too", "also"})
# Wrappers peeled off a command (the check's runners see through them the same way).
_WRAPPERS = (
    ("mise", "exec"),
    ("mise", "x"),
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("pdm", "run"),
    ("hatch", "run"),
    ("rye", "run"),
    ("bundle", "exec"),
    ("npx",),
    ("bunx",),
    ("uvx",),
)
_TEST_PHRASE = lazy(
    r"(?:the |all |your )?(?:full |whole |unit |relevant |existing |project'?s? )?(?:tests?|test ?suite|specs?)", re.I
)
# Verbs of checking and fixing that prose puts after "run X and": "run make build and verify the output".
_PROSE_VERBS = frozenset("confirm verify ensure include review address resolve inspect investigate fix".split())
# Prose words that are never a program even right after "run".
_NOT_COMMAND = frozenset(
    vocab.NOT_PROGRAMS
    | GENERIC
    | _PROSE_VERBS
    | frozenset(
        "linter linters formatter formatters checks check-ins ci pipeline build builds suite suites it everything "
        "nothing them those these commands command relevant appropriate necessary same following full whole".split()
    )
)
# A first word that never starts a command written without backticks: prose words and the reader's stop words
_NEVER_FIRST = _NOT_COMMAND | vocab.STOP
# Words before a command that say how much of it to run ("a targeted pnpm test", "the relevant cargo test").
_MODIFIERS = frozenset("targeted relevant affected scoped focused".split())
# "the type checker (mypy)", "the linter (`ruff check`)": the tool named in parentheses is the command
_NAMED_IN_PARENS = lazy(
    r"^(?:the |your |our )?[a-z][\w -]{1,30}?\s*\(\s*`?(?P<command>[^()`]+?)`?\s*\)"
    r"(?:\s+(?:once|first|again|locally|too|also))?$",
    re.I,
)
_COMMAND_WORD = lazy(r"(?:\.{0,2}/)?[a-zA-Z][\w.+-]*(?:/[\w.+-]+)*")
# "RUBY_BOX=1 bundle exec rake": an environment setting before the command, not its program
_ENV_SETTING = lazy(r"[A-Z_][A-Z0-9_]*=\S*")
# "run the linter to catch style issues": what it is for, after the command (its words are not more commands)
_PURPOSE = lazy(r"\s+(?:to|so that|so|in order to)\s+(?!the\b)[a-z][\w-]*\b.*$", re.I)


# Hook managers whose hooks run by one subcommand: "run the pre-commit hooks" is `pre-commit run`.
_HOOKS_RUN_BY = {"pre-commit": "run", "prek": "run", "lefthook": "run"}
# What a program is, said after its name ("the ruff linter", "the pytest suite"): never one of its subcommands, so a
# required command read with it could never be run. Target and script runners take any word as a target.
_ROLE_NOUNS = frozenset("linter linters formatter formatters suite suites checker checkers checks hooks hook".split())


def peel(words: list[str]) -> list[str]:
    """`mise exec -- make tidy` -> make tidy; `uv run --only-group dev --locked prek` -> prek."""
    for wrapper in _WRAPPERS:
        if tuple(words[: len(wrapper)]) == wrapper and len(words) > len(wrapper):
            rest = words[len(wrapper) :]
            while rest and rest[0].startswith("-"):
                flag = rest.pop(0)
                # a long flag without "=" may take the next word as its value (`--only-group dev`)
                takes_value = flag.startswith("--") and flag != "--" and "=" not in flag and len(rest) > 1
                if takes_value and not rest[0].startswith("-") and flag not in ("--locked", "--frozen", "--offline"):
                    rest.pop(0)
            return peel(rest) if rest else words
    return words


def _subcommands(program: str | None) -> dict[str, str]:
    known = vocab.vocabulary().programs.get(program or "")
    return known.subcommands if known else {}


def _leading(words: list[str], backticked: bool) -> list[str] | None:
    """The program and up to two subcommand words of one command line, or None when it names no command."""
    words = [w for w in words if w]
    while len(words) > 1 and _ENV_SETTING.fullmatch(words[0].strip("`'\"(")):
        words = words[1:]
    words = peel(words)
    if not words:
        return None
    if not backticked and len(words) > 1 and words[0].lower() == "the" and vocab.program_named(words[1].strip("`")):
        words = words[1:]  # "run the ruff linter": the program, named with its article
    first = words[0].strip("`'\"").rstrip(",.;:")
    if re.match(r"\.{1,2}\\", first):
        first = first.replace("\\", "/")  # `.\eng\check.ps1`: a Windows path to a script, as a shell spells it
    known = vocab.program_named(first)
    lowered = first.lower()
    if known is None and not backticked and len(words) == 1 and lowered in ("commit", "push"):
        return ["git", lowered]  # "run Prebuild.ps1 and commit before pushing": a commit is due too
    if known is None:
        if not _COMMAND_WORD.fullmatch(first) or (not backticked and lowered in _NEVER_FIRST):
            return None
        if not backticked and lowered.endswith("ing"):
            return None
        if not backticked and {w.lower().strip("`'\",.;:") for w in words[1:3]} & vocab.NOUN_HEADS:
            return None  # "run model evals", "individual tests": a word that modifies a noun, not a program
    out = [known or (first if "/" in first else lowered)]
    rest = [] if words[0].rstrip("`'\"").endswith((";", ",")) else words[1:]
    for position, word in enumerate(rest):
        plain = word.strip("`'\"").rstrip(",.;:")
        if len(out) == 1 and _option_before_goal(known, plain, rest[position + 1 : position + 2]):
            continue  # "mvn -q package", "make -j4 test": an option of the tool before its goal
        if not plain or plain.startswith(("-", "<", "[", "{", "$")):
            break
        if plain.lower() in _END and not (len(out) == 1 and plain.lower() in _subcommands(known)):
            break
        noun = plain.lower() in _ROLE_NOUNS and known not in TARGET_RUNNERS | SCRIPT_RUNNERS
        plural = plain.lower() in vocab.FILLER and plain.endswith("s")
        if known and (noun or plural) and plain.lower() not in _subcommands(known):
            if len(out) == 1 and known in _HOOKS_RUN_BY and plain.lower() in ("hooks", "checks"):
                out.append(_HOOKS_RUN_BY[known])  # "run pre-commit hooks": `pre-commit run` runs them
            break  # "run pre-commit hooks", "the ruff linter": what the program is, not its words
        if len(out) == 1 and out[0] in INTERPRETERS and _SCRIPT_FILE.search(plain) and not plain.startswith("-"):
            out.append(plain)  # `bash scripts/check.sh`: the script is what runs
            break
        if "/" in plain and not backticked:
            break
        if not re.fullmatch(r"[\w.:@+-]+", plain):
            break
        out.append(plain.lower() if not known or known not in ("make", "gradle") else plain)
        if len(out) == (5 if known in ("make", "gradle") else 3):  # a list of targets ("make tidy fmt vet")
            break
        if word.rstrip("`'\"").endswith((";", ",")):
            break  # "run scripts/check.py; do not skip it": the clause ends the command
    return out


# Build tools whose options come before the goal or target the rule names (`mvn -q package`, `make -j4 test`).
_OPTIONS_FIRST = frozenset({"mvn", "gradle", "make", "dotnet", "bazel", "ant", "sbt", "just", "ninja"})


def _option_before_goal(program: str | None, word: str, following: list[str]) -> bool:
    """A short option (no value joined by "=") of a build tool, followed by a plain word: the goal comes next."""
    if program not in _OPTIONS_FIRST or not re.fullmatch(r"-[a-zA-Z]\w*|--[a-z][\w-]*(?:=\w+)?", word) or not following:
        return False
    goal = following[0].strip("`'\"").rstrip(",.;:")
    return bool(re.fullmatch(r"[a-z][\w:-]*", goal)) and goal.lower() not in _END


def command_list(phrase: str) -> list[list[str]] | None:
    """Each command the phrase names, in order; None when any part of it is not a command."""
    phrase = phrase.strip().rstrip(".!;: ")
    if is_test_phrase(phrase):
        return None
    named = _NAMED_IN_PARENS.match(phrase)
    if named:
        inner = [w for w in named.group("command").split() if not _ENV_SETTING.fullmatch(w)]
        if inner and vocab.program_named(inner[0]):
            phrase = named.group("command")
    if named is None or phrase != named.group("command"):
        # "make e2e (slow, cluster required)": an aside in parentheses after the command is not another command
        phrase = re.sub(r"(?<=\S)\s*\([^()`]*\)", "", phrase).strip() or phrase
    spans = re.findall(r"`([^`]+)`", phrase)
    if spans:
        # prose beside the backticks ("`just f` for formatting") is read as prose, not as a command
        # one span may chain commands (`make format && make lint`); `cd somewhere` only sets the directory
        pieces = [p for span in spans for p in re.split(r"\s*(?:&&|;|\|\|)\s*", span) if p.strip()]
        out = [_leading(p.split(), True) for p in pieces if not re.match(r"^cd\b", p.strip())]
        commands = [c for c in out if c]
        return commands or None
    phrase = _PURPOSE.sub("", phrase)
    parts = [
        p
        for p in re.split(r"\s*,\s*(?:and\s+|or\s+|then\s+)?|\s+(?:and|or|then|&&)\s+(?:run\s+)?", phrase)
        if p.strip()
    ]
    commands = []
    for index, part in enumerate(parts):
        words = part.split()
        if index and words and words[0].lower() in _PROSE_VERBS:
            break  # "run make build and verify the generated output": the rest is what to do with the result
        if index and [w.lower() for w in words[:2]] in (["make", "sure"], ["make", "certain"]):
            break  # "run ruff check . and make sure it passes": what the result must be, not `make sure`
        if words and words[0].lower() in ("run", "execute"):
            words = words[1:]
        while len(words) > 1 and (
            words[0].lower() in _MODIFIERS
            or (words[0].lower() in ("a", "an", "the") and words[1].lower() in _MODIFIERS)
        ):
            words = words[1:]  # "targeted pnpm test --run": which tests, not another program
        found = _leading(words, False)
        if found is None:
            return None
        commands.append(found)
    return commands or None


def is_test_phrase(phrase: str) -> bool:
    return bool(_TEST_PHRASE.fullmatch(phrase.strip().strip("`").strip()))


def every_one(phrase: str) -> bool:
    """Whether a list of commands is meant all together ("make format and make lint"), not as alternatives."""
    return not re.search(r"\bor\b|\beither\b|\|\|", re.sub(r"`[^`]+`", " ", phrase), re.I)


# The names projects give their own scripts and targets ("run lint and typecheck before committing"): a required
# command named by one is the project's, run through its runner (`pnpm lint`, `make typecheck`).
SCRIPT_WORDS = frozenset(
    "lint lints linting format fmt formatting typecheck type-check typechecks types check checks test tests build "
    "ci verify validate precommit pre-commit prepush pre-push fix style tidy vet analyze analyse audit compile "
    "generate gen codegen docs e2e unit coverage bench benchmark clean dev start serve preview release sync".split()
)
_SCRIPT_FILE = lazy(r"[/\\]|\.(?:sh|bash|ps1|psm1|py|rb|js|mjs|cjs|ts|pl|bat|cmd|exe|nu)$", re.I)
_STARTED_BY = (
    r"(?:npx|bunx|uvx|pnpx|(?:pnpm|npm|yarn) (?:exec|dlx)|pipx run|uv run|poetry run|pdm run|hatch run|"
    r"bundle exec|mise (?:exec|x)(?: --)?)"
)


def plausible_program(first: str, text: str) -> bool:
    """Whether a shell would find the first word of a command the rule requires: a program the vocabulary or the
    program list knows, an interpreter, a script path, a project script's usual name (`lint`, `test:unit`), a
    name the rule puts in backticks, after a runner (`npx hereby build`) or after "with" (`staticcheck`), or one
    given a flag or a path. "cluster", "otherwise" and "programmatic verification" are prose read as a command."""
    from heedful.rules.compile.events import TEST_COMMANDS
    from heedful.rules.program_names import is_program_name

    lowered = first.lower()
    script = lowered.replace("_", "-")
    return bool(
        vocab.program_named(first) is not None
        or is_program_name(lowered)
        or lowered in INTERPRETERS
        or any(c[0] == lowered for c in TEST_COMMANDS)
        or _SCRIPT_FILE.search(first)
        or script in SCRIPT_WORDS
        or any(part in SCRIPT_WORDS for part in re.split(r"[:-]", script))
        or re.search(rf"`[^`]*(?<![\w-]){re.escape(first)}(?![\w-])[^`]*`", text, re.I)
        or re.search(rf"\b{_STARTED_BY}\s+(?:-\S+\s+)*{re.escape(first)}(?![\w-])", text, re.I)
        # "static checks with staticcheck", "staticcheck ./...": a tool named as the means, or given a flag or path
        or re.search(rf"\b(?:with|using|via)\s+{re.escape(first)}(?![\w-])", text, re.I)
        or re.search(rf"(?<![\w-]){re.escape(first)}\s+(?:--?[a-zA-Z]|\.{{0,2}}/|\.(?:\s|$))", text, re.I)
    )
