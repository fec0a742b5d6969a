"""Programs a rule names without banning them: how to run one thing ("use pnpm test:unit to run the unit tests"),
and the tools whose versions a rule is about ("don't change the Node or npm versions")."""

from __future__ import annotations

import re

from heedful.rules import vocabulary as vocab

# Between a program and "versions", the words of a list of tools: "the Volta, Yarn or package manager versions".
_TOOL_LIST = frozenset(", or and package manager managers tool tools runtime runtimes".split())


def version_of(words: list[str]) -> bool:
    """Whether the words after a program make it the owner of a version ("the Node or npm versions")."""
    for index, word in enumerate(words[:6]):
        if word in ("version", "versions"):
            return index > 0 or word == "versions"  # "npm version" is npm's own subcommand
        if word not in _TOOL_LIST and vocab.program_named(word) is None:
            return False
    return False


# What a tool has that code uses: "Bun features", "Node APIs", "Deno built-ins".
_OWN_THINGS = frozenset("features feature apis api built-ins builtins globals idioms syntax sdk primitives".split())


def how_to_run(text: str, mention: vocab.Mention) -> bool:
    """ "Run tests with uv run pytest", "always run pnpm i from the root": how to run something, not which
    tool replaces another, so nothing is forbidden by default; nor "use the pinned pnpm version"."""
    every = vocab.plain_words(text)
    if every[mention.end : mention.end + 1] and every[mention.end] in (*_OWN_THINGS, "version", "versions"):
        return True  # "use Bun features and APIs": the tool's own things in code, not the tool run instead of another
    j = mention.end
    while (
        j < min(len(every), mention.end + 3)
        and every[j] not in vocab.STOP
        and re.fullmatch(r"[\w:.-]+|<[\w -]+>|--?[\w-]+", every[j])
    ):
        j += 1  # the command's own words, flags and placeholders: "use pnpm test:unit", "use bunx <package>"
    named_more = j > mention.end or bool(mention.subcommand or mention.args or mention.flags)
    if named_more and every[j : j + 1] == ["to"] and every[j + 1 : j + 2] != ["the"]:
        return True  # "use pnpm test:unit to run the unit tests": how to do one thing, no ban on npm
    words = every[: mention.start]
    clause = " ".join(words).rsplit(",", 1)[-1].rsplit(";", 1)[-1]
    verbs = r"run|runs|running|execute|executing|build|builds|building|regenerate|generate|compile|create|format|lint"
    return bool(re.search(rf"\b(?:{verbs})\b(?!\s+on\b)", clause)) and not (
        re.search(r"\b(?:use|using|prefer|stick|switch|only)\b", clause)
    )
