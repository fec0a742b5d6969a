"""Readers for rules about what must happen before the agent finishes: commands to run, files to clean up."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from heedful.rules import vocabulary as vocab
from heedful.rules.compile.words import LANGUAGE_GLOBS, spec
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
_RUN = re.compile(
    r"\b(?:run|execute|rerun|re-run)\s+(?P<what>.+?)\s+(?P<when>before|after|once|prior to)\s+"
    r"(?P<rest>.+)$",
    re.I,
)
_UNTIL = re.compile(
    r"\b(?:don'?t|do not|never)\s+(?:say|tell me|claim|report|declare|mark|call|finish|consider|reply|"
    r"hand)\b.{0,40}?\b(?:until|before|without|unless)\s+(?:you(?:'ve| have)?\s+)?(?:run(?:ning)?|ran|"
    r"execut\w+)?\s*(?P<what>.+)$",
    re.I,
)
_DELIVERY = re.compile(
    r"\b(?:say|saying|tell|telling|report|reporting|claim|claiming|declare|finish|finishing|deliver|"
    r"hand(?:ing)? (?:it )?(?:back|over)|repl(?:y|ying)|respond(?:ing)?|done|complete|wrap(?:ping)? up|"
    r"call(?:ing)? it done|mark(?:ing)? (?:it|the task) (?:as )?(?:done|complete)|commit(?:ting)?|"
    r"push(?:ing)?)\b",
    re.I,
)
_AFTER_EDIT = re.compile(
    r"\b(?:edit|edits|editing|change|changes|changing|modify|modifying|touch|touching|writing|"
    r"every (?:code )?(?:edit|change))\b",
    re.I,
)


def _command_words(phrase: str) -> list[str] | None:
    phrase = phrase.strip().strip("`").strip()
    if re.fullmatch(r"(?:the |all )?(?:full |whole |unit |relevant )?(?:tests?|test suite)", phrase, re.I):
        return None
    words: list[str] = []
    for word in phrase.split():
        plain = word.strip("`,.;").lower()
        if plain in vocab.STOP or plain in ("on", "with", "against", "and", "or", "every", "each"):
            break
        if plain.startswith("-") or "/" in plain:
            continue
        words.append(plain)
    if not words or (
        vocab.program_named(words[0]) is None and not phrase.startswith("`") and not re.fullmatch(r"[\w.-]+", words[0])
    ):
        return None
    known = vocab.program_named(words[0])
    if known is None and len(phrase.split()) > 3 and not phrase.startswith("`"):
        return None
    return [known or words[0], *words[1:3]]


def required_event(text: str, conditions: Sequence[str]) -> CheckSpec | None:
    run = _RUN.search(text)
    what = None
    after_edit = False
    if run and (_DELIVERY.search(run.group("rest")) or _AFTER_EDIT.search(run.group("rest"))):
        what = run.group("what")
        after_edit = run.group("when").lower() == "after" or bool(_AFTER_EDIT.search(run.group("rest")))
    else:
        until = _UNTIL.search(text)
        if until:
            what = until.group("what")
    if what is None:
        return None
    if re.fullmatch(r"(?:the |all )?(?:full |whole |unit )?(?:tests?|test suite)", what.strip(), re.I):
        # Which runner is unknown: only a rule about finishing names a moment every runner can be checked at.
        if not (
            run
            and re.search(
                r"\b(?:done|finish\w*|complete|wrap\w* up|hand\w* (?:it )?(?:back|over)|"
                r"repl(?:y|ying)|respond\w*)\b",
                run.group("rest"),
                re.I,
            )
        ):
            return None
        commands = TEST_COMMANDS
    else:
        words = _command_words(what)
        if words is None or " and " in what:
            return None
        commands = [words]
    params: dict[str, Any] = {"commands": commands, "after": "edit"}
    if after_edit:
        scope = " ".join([text, *conditions]).lower()
        globs = [g for lang, exts in LANGUAGE_GLOBS.items() if re.search(rf"\b{lang}\b", scope) for g in exts]
        globs += [f"*{ext}" for ext in re.findall(r"(?<![\w*])(\.[a-z]{1,6})\s+files\b", scope)]
        if globs and not re.search(r"\bcode (?:edits?|changes?)\b|\bevery (?:code )?(?:edit|change)\b", scope):
            params["edit_globs"] = list(dict.fromkeys(globs))
    return spec("required_event", params)


_LEFTOVER = re.compile(
    r"\b(?:clean up|cleanup|delete|remove|get rid of|(?:don'?t|do not|never) leave)\b.{0,40}?"
    r"(?P<what>temp(?:orary)? files|tmp files|scratch files|backup files|debug (?:scripts|files)|`[^`]+`|"
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
}


def leftovers(text: str) -> CheckSpec | None:
    leftover = _LEFTOVER.search(text)
    if not leftover:
        return None
    what = leftover.group("what").lower()
    globs = _LEFTOVER_GLOBS.get(what) or [g.strip("`") for g in re.split(r"\s+(?:or|and)\s+", what) if g.strip("`")]
    if not globs or not all("*" in g or "`" in what for g in globs):
        return None
    return spec("workspace_leftovers", {"globs": globs})
