"""Rules that say to run a program only through a runner ("run tox via uv", "use `poetry run` for pytest").

The shell reader sees such a command as the runner (`uv run tox` is uv), so the bare program is what the rule
forbids, with the runner form as the alternative.
"""

from __future__ import annotations

import re

from heedful.rules import vocabulary as vocab
from heedful.rules.compile.words import spec
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

# "run tox via uv", "always run pytest through poetry", "invoke jest with npx": the program only through a runner,
# which the shell reader sees as the runner (`uv run tox` is uv): the bare program is what the rule forbids.
_RUNNER_FORMS = {
    "uv": "uv run",
    "poetry": "poetry run",
    "pipenv": "pipenv run",
    "pdm": "pdm run",
    "hatch": "hatch run",
    "npx": "npx",
    "pnpm": "pnpm exec",
    "yarn": "yarn",
    "bunx": "bunx",
    "bun": "bunx",
    "uvx": "uvx",
    "pipx": "pipx run",
    "nix": "nix run",
    "bundle": "bundle exec",
    "bundler": "bundle exec",
    "mise": "mise exec --",
}
_THROUGH_RUNNER = lazy(
    r"^(?:(?:always|please|only)\s+)*(?:run|invoke|call|execute|launch|start|use)\s+`?(?P<program>[\w.-]+)`?"
    r"\s+(?:only\s+)?(?:via|through|with|using|under|inside|in)\s+`?(?P<runner>"
    + "|".join(sorted(map(re.escape, _RUNNER_FORMS), key=len, reverse=True))
    + r")`?(?:\s+(?:run|exec|x))?\W*$",
    re.I,
)


# "always use `uv run` to run python scripts", "use poetry run for pytest": the runner form named first
_RUNNER_FIRST = lazy(
    r"^(?:(?:always|please|only)\s+)*(?:use|run)\s+`?(?P<runner>"
    # longest first; equal lengths in a fixed order, so that the pattern is the same text in every process
    + "|".join(sorted({re.escape(form) for form in _RUNNER_FORMS.values() if " " in form}, key=lambda f: (-len(f), f)))
    + r")`?\s+(?:to|for)\s+(?:(?:run|running|execute|executing|invoke|invoking|start|starting)\s+)?"
    r"(?:the\s+|all\s+|any\s+|your\s+)?`?(?P<program>[\w.-]+)`?(?:\s+(?:scripts?|files?|code|commands?))?\W*$",
    re.I,
)


# "Run tests using `uv run pytest -vxs tests/ci`", "run the type checker with `uv run pyright`", "use `poetry run
# pytest` to run the tests": the way to run something, given as a whole command line through a runner. The shell
# reader sees that line as the runner, so the bare program is what the rule forbids. `yarn X` is left out: it
# names a package script as often as a program; `python -m X` is the preferred-invocation class (`bare`).
_LAUNCHED_FORMS = sorted(
    {form for form in _RUNNER_FORMS.values() if form != "yarn"},
    key=lambda f: (-len(f), f),
)
_LAUNCHED = "(?P<runner>" + "|".join(re.escape(f).replace(r"\ ", r"\s+") for f in _LAUNCHED_FORMS) + ")"
_RUN_USING = lazy(
    r"^(?:(?:always|please|only)\s+)*(?:run|execute|invoke|launch|start|check|lint|format|type-?check)\s+"
    r"(?:[\w-]+\s+){0,4}?(?:using|with|via|through|by running)\s+`?"
    + _LAUNCHED
    + r"\s+(?P<program>[\w.-]+)(?:\s[^`]*)?`?\W*$",
    re.I,
)
_USE_TO_RUN = lazy(
    r"^(?:(?:always|please|only)\s+)*use\s+`?"
    + _LAUNCHED
    + r"\s+(?P<program>[\w.-]+)(?:\s[^`]*)?`?\s+(?:to|for)\s+(?:run|running|execute|executing|check|checking)?"
    r"[\w\s-]{0,40}\W*$",
    re.I,
)


def _launched(text: str) -> CheckSpec | None:
    found = _RUN_USING.match(text) or _USE_TO_RUN.match(text)
    if found is None:
        return None
    program = vocab.program_named(found.group("program"))
    runner = re.sub(r"\s+", " ", found.group("runner").lower())
    if program is None or program == vocab.program_named(runner.split()[0]) or program in vocab.PRIVILEGE_TOOLS:
        return None
    return spec(
        "forbidden_command", {"program": program, "alternatives": [f"{runner} {found.group('program').lower()}"]}
    )


def through_runner(text: str) -> CheckSpec | None:
    launched = _launched(text.strip())
    if launched is not None:
        return launched
    found = _THROUGH_RUNNER.match(text.strip())
    first = _RUNNER_FIRST.match(text.strip()) if found is None else None
    if first is not None:
        program = vocab.program_named(first.group("program"))
        if program is None or program in vocab.PRIVILEGE_TOOLS:
            return None
        alternative = f"{first.group('runner').lower()} {first.group('program').lower()}"
        return spec("forbidden_command", {"program": program, "alternatives": [alternative]})
    if found is None:
        return None
    program = vocab.program_named(found.group("program"))
    runner = found.group("runner").lower()
    if program is None or program == vocab.program_named(runner) or program in vocab.PRIVILEGE_TOOLS:
        return None
    alternative = f"{_RUNNER_FORMS[runner]} {found.group('program').lower()}"
    return spec("forbidden_command", {"program": program, "alternatives": [alternative]})
