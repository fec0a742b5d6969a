"""Rules that say a command is due in other words than "run CMD [moment]", rewritten to that form for the
required-event reader (`events`)."""

from __future__ import annotations

import re

from heedful.rules.lazy_regex import lazy

# Shapes that say "run CMD [moment]" in other words, rewritten to it: "Lint after making changes (`make lint`)",
# "Ensure all tests pass (`swift test`) before submitting", "Tests must pass with `go test ./...` before work is done",
# "`govulncheck ./...` must report no vulnerabilities".
_CMD = r"`[^`]+`|[\w./:@-]+(?:\s+[\w./:@=-]+){0,4}"
_SAID_OTHERWISE = (
    lazy(
        r"^(?:(?:always|please|also)\s+)*(?:lint|test|format|type-?check|build|compile|check|vet)\w*\s+"
        rf"(?P<when>(?:after|before|when(?:ever)?|once|prior to)\b[^()]*?)\s*\(\s*(?P<what>{_CMD})\s*\)\W*$",
        re.I,
    ),
    lazy(
        r"^(?:always\s+)?(?:make sure|ensure|check|verify|confirm)\s+(?:that\s+)?(?:all\s+|the\s+)?[\w-]+"
        r"(?:\s+[\w-]+)?\s+(?:pass(?:es)?|succeeds?|(?:is|are) (?:clean|green))\s*"
        rf"\(\s*(?P<what>{_CMD})\s*\)\s*(?P<when>(?:before|after|prior to)\b.*)$",
        re.I,
    ),
    lazy(
        r"^(?:the\s+|all\s+)?(?:tests?|test suite|lint(?:ing|er|s)?|checks?|build|type-?checks?|format(?:ting)?)\s+"
        r"(?:must|should|has to|have to|needs? to)\s+(?:always\s+)?(?:pass|be clean|be green|succeed)\s+"
        r"(?:with|using|via|under)\s+(?P<what>`[^`]+`)\s*(?P<when>.*)$",
        re.I,
    ),
    lazy(
        r"^(?P<what>`[^`]+`)\s+(?:must|should|has to|needs? to)\s+(?:report|show|find|return|produce|give)\s+no\s+"
        r"[\w -]+?(?P<when>\s+(?:before|after|prior to)\b.*)?\W*$",
        re.I,
    ),
)


# A list of commands after a colon, as an instruction file's intro is read with its list (`import_lists`):
# "Before opening a PR, run: `swift test`, `swiftlint --strict`", "verify that it builds and passes tests: `a`, `b`",
# "All code must pass before committing: `make lint`, `make test`".
_LISTED = r"(?P<what>`[^`]+`(?:\s*,\s*(?:and\s+|or\s+)?`[^`]+`)*)\W*$"
_COLON_LISTS = (
    lazy(rf"^(?P<lead>.*?\b(?:run|execute))\s*:\s*{_LISTED}", re.I),
    lazy(
        r"^(?P<lead>(?:(?:when(?:ever)?|after|before|once|prior to)\b[^,:]*,\s*)?)(?:always\s+)?"
        rf"(?:verify|ensure|make sure|check|confirm)\b[^:`]*:\s*{_LISTED}",
        re.I,
    ),
    lazy(
        r"^(?:the\s+|all\s+)?[\w\s-]{1,30}?\s+(?:must|should|has to|needs? to)\s+(?:pass|be clean|be green|succeed)\s+"
        rf"(?P<when>(?:before|after|prior to)\s+[^:`]+):\s*{_LISTED}",
        re.I,
    ),
)


def _commands(listed: str) -> str:
    return " and ".join(re.findall(r"`[^`]+`", listed))


def said_otherwise(text: str) -> str:
    """The rule as "run CMD [moment]" when it says so in other words, else the rule unchanged."""
    for pattern in _COLON_LISTS:
        found = pattern.match(text.strip())
        if found is None:
            continue
        named = found.groupdict()
        if named.get("when"):
            return f"run {_commands(found.group('what'))} {named['when'].strip()}"
        lead = (named.get("lead") or "").strip()
        verb = "" if re.search(r"\b(?:run|execute)$", lead, re.I) else "run"
        return " ".join(p for p in (lead, verb, _commands(found.group("what"))) if p)
    for pattern in _SAID_OTHERWISE:
        found = pattern.match(text.strip())
        if found:
            return f"run {found.group('what')} {found.group('when') or ''}".strip()
    return text
