"""The reader for rules about commit messages: subject length, required form, forbidden trailers and words."""

from __future__ import annotations

import re
from typing import Any

from heedful.rules.compile.words import EMOJI, NEGATED, NUM, number, quoted, spec
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

# "Subject line: max 72 characters" in a coding agent's rules is the commit's (an e-mail's says so)
_COMMIT = lazy(
    r"\bcommit(?:s|ting)?\b|\bcommit messages?\b|^(?!.*\b(?:e-?mails?|mails?|newsletters?|notifications?)\b)"
    r".*\bsubject lines?\b",
    re.I,
)
# "semantic commit messages" is another name for the same convention
_CONVENTIONAL = lazy(r"\b(?:conventional|semantic)[- ]commits?\b|\b(?:feat|fix|chore)\s*:", re.I)
# The Conventional Commits specification: a lower-case type (feat and fix are two of any), an optional scope,
# `!` for a breaking change. A rule that names no types must not invent a list: "perf(db): …" is conventional.
CONVENTIONAL = r"^[a-z]+(\([^)]+\))?!?: "
_SUBJECT = lazy(
    rf"\b(?:subjects?|first lines?|titles?|summary lines?|headers?|commit messages?)\b.{{0,40}}?"
    rf"(?:\b(?:under|below|at most|max(?:imum)?(?: of)?|no more than|within|to|up to|(?:less|fewer|shorter) than)\s+|"
    rf"<=?\s*)"
    rf"{NUM}\s*(?:char(?:acter)?s?)?\b|\b{NUM.replace('?P<n>', '?P<m>')}\s+char(?:acter)?s?\s+"
    r"(?:or (?:fewer|less)|max)\b",
    re.I,
)
_TRAILER = lazy(r"\b(?:co-?authored[- ]by|co-?author(?:s|ed)?|yourself as (?:a )?(?:co-?)?author)\b", re.I)
_VENDORS = r"claude|anthropic|openai|chatgpt|gpt|copilot|codex|cursor|gemini"
_MENTION = lazy(
    rf"\b(?:mention(?:ing)?|name|naming|reference|referencing|credit(?:ing)?)\s+(?P<who>{_VENDORS})\b"
    rf"(?P<more>(?:\s*(?:,|\bor\b|\band\b|/)\s*(?:{_VENDORS})\b)*)",
    re.I,
)
# "Reference the issue number in every commit message", "include the Jira ticket ID at the start"
_ISSUE_REF = lazy(
    r"\b(?:reference|include|mention|link|add|contain|cite)s?\b.{0,30}?\b(?:the\s+|an?\s+|its\s+)?"
    r"(?:(?P<jira>jira)\s+(?:ticket|issue|key)s?(?:\s+(?:ids?|numbers?|keys?))?|(?:github\s+)?(?:issue|ticket)\s+"
    r"(?:numbers?|ids?|references?|refs?))\b",
    re.I,
)


_TYPES = lazy(
    r"\bcommit (?:message )?(?:types?|labels?|prefix(?:es)?)\s*(?:are|:|must be|include)?\s+"
    r"(?P<list>[a-z]+(?:(?:\s*,\s*(?:and |or )?|\s+(?:and|or)\s+)[a-z]+)+)",
    re.I,
)
_TRAILING_PERIOD = lazy(
    r"\b(?:end|finish|terminate)\w*(?:\s+[\w-]+){0,4}?\s+(?:with|in)\s+(?:a\s+)?(?:period|full stop|dot)\b|"
    r"\b(?:trailing|final|ending)\s+(?:period|full stop|dot)s?\b",
    re.I,
)
_PR_TEXT = lazy(r"\b(?:PR|pull[- ]request|merge[- ]request)\s+(?:titles?|descriptions?|bod(?:y|ies))\b", re.I)
# A rule that also covers code, comments or issues says more than a commit message check can state.
_ELSEWHERE = lazy(r"\b(?:source|code|comments?|docs?|documentation|issues?|diagnostics|tests?|rustdoc)\b", re.I)


_AGENTS = r"claude(?: code)?|anthropic|openai|chatgpt|gpt|copilot|codex|cursor|gemini|aider|cline|devin|ai"
# "Co-authored-by Claude lines", "co-authored-by: Copilot trailers": the trailer naming one agent
_TRAILER_OF = lazy(
    rf"\bco-?authored[- ]by:?\s+`?(?P<who>{_AGENTS})\b|"
    rf"\b(?:add|list|credit|includ(?:e|ing)|put)\s+(?P<as>{_AGENTS})\s+as\s+(?:a\s+|the\s+)?co-?authors?\b",
    re.I,
)


_AGENT_NAMED = lazy(r"\bwith (?:your|the|an|its) (?:own )?(?:agent|assistant|model|bot|ai)(?:'s)? names?\b", re.I)


def _agent_name(who: str) -> str:
    known = {"openai": "OpenAI", "chatgpt": "ChatGPT", "gpt": "GPT", "ai": "AI", "claude code": "Claude"}
    return known.get(who.lower(), who.capitalize())


# "with an Assisted-by trailer", "add a `Signed-off-by` trailer": a trailer named by its key
_NAMED_TRAILER = lazy(
    r"(?:\b(?:an?|the|your|no|any)\s+)?`?\b(?P<key>[A-Za-z]+(?:-[A-Za-z]+)+)`?:?\s+(?:trailers?|lines?|footers?)\b",
    re.I,
)


# Trailer keys that only commit messages carry: naming one is naming the commit message.
_KNOWN_TRAILER = lazy(
    r"\b(?:signed-off|reviewed|acked|tested|reported|assisted|suggested|helped|generated)-by\b|\bchange-id\b", re.I
)


# "BREAKING CHANGE:", "TODO:": an upper-case keyword written with its colon, as a message would carry it
_CAPS_KEYWORD = lazy(r"(?<![\w-])([A-Z]{2,}(?: [A-Z]{2,})*:)(?=\s|$)")
# The verbs of a rule that asks for a trailer rather than keeping one out
_ADDED = lazy(r"\b(?:add|adds|adding|include|includes|including|identify|append|put|credit)\b", re.I)


_TYPE_PREFIX = r"(?:feat|fix|chore|docs|refactor|test|tests|style|perf|build|ci|revert)"


def _prefix_list(text: str) -> CheckSpec | None:
    """ "Use the prefixes feat:, fix:, chore:": a list of conventional types names the commit subject's form."""
    # the last one lost its colon; "test:unit" is a script's name, not the type `test:`
    types = re.findall(rf"(?<![\w:-]){_TYPE_PREFIX}(?=\s*:(?![\w-])|\W*$)", text, re.I)
    if len(set(types)) < 2 or NEGATED.search(text) or not re.search(r"\b(?:use|prefix\w*|start|begin)\b", text, re.I):
        return None
    names = list(dict.fromkeys(t.lower() for t in types))
    return spec("commit_message", {"require": rf"^({'|'.join(names)})(\(.+\))?!?: "})


# Markers CI services read in a commit message to skip a run: they live nowhere else, so a rule naming one is about
# commit messages even when it never says "commit".
_CI_SKIP = lazy(r"\[(?:skip ci|ci skip|no ci|skip actions|actions skip|skip azurepipelines|skip netlify)\]", re.I)
# "Prefix the commit title with `[LLM]`": a literal the subject must start with.
_LITERAL_PREFIX = lazy(r"\b(?:prefix|start|begin)\w*\b.{0,40}?\bwith\s+`(?P<literal>[^`]+)`", re.I)


def commit_message(text: str) -> CheckSpec | None:
    marker = _CI_SKIP.search(text)
    if marker and NEGATED.search(text[: marker.start()]):
        return spec("commit_message", {"forbid": [marker.group(0)]})
    if not _COMMIT.search(text) and not _TRAILER.search(text):
        listed = _prefix_list(text)
        if listed is not None:
            return listed
    named = _NAMED_TRAILER.search(text)
    key_named = named.group("key") if named else ""
    trailer_words = re.search(r"\btrailers?\b", text, re.I) or _KNOWN_TRAILER.search(key_named)
    if named and trailer_words and not _TRAILER.search(named.group("key")):
        key = named.group("key")
        if re.fullmatch(r"sign-?offs?|signed-off", key, re.I):
            key = "Signed-off-by"  # "no sign-off trailers": the trailer as git writes it
        if NEGATED.search(text[: named.start("key")]):
            return spec("commit_message", {"forbid": [key]})
        return spec("commit_message", {"require": f"(?m)^{key}: "})  # the key is letters and dashes only
    if not _COMMIT.search(text) and not _TRAILER.search(text):
        return None
    own = re.search(r"(?<!-)\bcommit (?:messages?|subjects?|titles?|bod(?:y|ies)|footers?)\b", text, re.I)
    if (_PR_TEXT.search(text) or re.search(r"\btitles?\b", text, re.I)) and not own:
        return None  # a PR title or description is not a commit message
    params: dict[str, Any] = {}
    subject = _SUBJECT.search(text)
    if subject:
        n = number(subject.group("n") or subject.group("m") or "") or 0
        if n > 0:
            params["max_subject"] = n
    conventional = _CONVENTIONAL.search(text)
    if conventional and NEGATED.search(text[: conventional.start()]):
        # "do not use conventional commit prefixes such as feat:, fix:": the prefixes are forbidden
        prefixes = [f"{p.lower()}:" for p in re.findall(r"\b([A-Za-z]+):(?=[\s,.]|$)", text)]
        last = re.search(r"\b(?:or|and)\s+([a-z]+)$", text)  # the sentence's final colon was stripped with its stop
        if prefixes and last:
            prefixes.append(f"{last.group(1)}:")
        if prefixes:
            params["forbid"] = list(dict.fromkeys(prefixes))
    elif conventional and re.search(r"\b(?:use|follow|write|always|must|start|begin|prefix)\w*\b", text, re.I):
        params["require"] = CONVENTIONAL
    types = _TYPES.search(text)
    if types:
        names = [t.lower() for t in re.findall(r"[A-Za-z]+", types.group("list")) if t.lower() not in ("and", "or")]
        if len(names) >= 2:
            params["require"] = rf"^({'|'.join(names)})(\(.+\))?!?: "
    start = re.search(
        r"\b(?:start|begin|prefix)\w*\b.{0,40}\bwith\s+(?:an? |the |its |their |a )?(?P<what>lower-?case|"
        r"upper-?case|capital|jira|ticket|issue)",
        text,
        re.I,
    )
    literal = _LITERAL_PREFIX.search(text) if own and not start else None
    if literal and not NEGATED.search(text):
        params["require"] = "^" + re.escape(literal.group("literal"))
    if start:
        what = start.group("what").lower()
        params["require"] = (
            "^[a-z]"
            if what.startswith("lower")
            else "^[A-Z]"
            if what in ("upper-case", "uppercase", "capital")
            else "^[A-Z][A-Z0-9]+-[0-9]+"
        )
    if _TRAILING_PERIOD.search(text) and "require" not in params:
        negated = NEGATED.search(text)
        # "don't end commit subjects with a period" / "end the commit subject line with a period"
        params["require"] = r"^[^\n]*[^.\n](\n|$)" if negated else r"^[^\n]*\.(\n|$)"
    if NEGATED.search(text):
        forbid: list[str] = []
        agent = _TRAILER_OF.search(text)
        if agent:  # "no Co-authored-by Claude lines": that agent's trailer; a human co-author is still welcome
            forbid.append(f"Co-authored-by: {_agent_name(agent.group('who') or agent.group('as'))}")
        elif _TRAILER.search(text) and not _AGENT_NAMED.search(text):
            forbid.append("Co-Authored-By")  # "with your agent name" names which trailers: not a human co-author's
        if EMOJI.search(text) and not _ELSEWHERE.search(text):
            forbid.append("emoji")
        forbid += [
            f"{m.lower()}!"
            for m in re.findall(r"\b(fixup|squash|amend)!?(?=[\s,]|$)", text, re.I)
            if m.lower() != "amend" or "amend!" in text.lower()
        ]
        mention = _MENTION.search(text) if not agent else None  # "credit Copilot as co-author": the trailer only
        if mention:  # "never mention AI or Claude": each name
            for who in [mention.group("who"), *re.findall(r"[A-Za-z]+", mention.group("more") or "")]:
                if who.lower() not in ("or", "and"):
                    forbid.append(_agent_name(who))
        for phrase in quoted(text) if own or re.search(r"\bin (?:the |your )?commits?\b", text, re.I) else []:
            if phrase and phrase.lower() not in (f.lower() for f in forbid):
                forbid.append(phrase)
        if re.search(r"\bgenerated[- ](?:with|by)\b", text, re.I) and not any("generated" in f.lower() for f in forbid):
            forbid.append("Generated with")
        sign_off = r"\bsigned-off-by\b|\bsign[- ]?offs?(?:\s+(?:lines?|trailers?))\b|\bDCO sign[- ]?offs?\b"
        if not forbid and re.search(sign_off, text, re.I) and not _AGENT_NAMED.search(text):
            forbid.append("Signed-off-by")
        if own:  # "never add BREAKING CHANGE: to a commit footer": a capitalised keyword the message must not carry
            forbid += [k for k in _CAPS_KEYWORD.findall(text) if k.lower() not in (f.lower() for f in forbid)]
        if not forbid and re.search(r"\bWIP\b", text) and not re.search(r"\bcommit\s+(?:the\s+)?WIP\b", text):
            forbid.append("WIP")  # "commit WIP instead" names the way to do it, not text to keep out
        if forbid:
            params["forbid"] = forbid
    elif (issue := _ISSUE_REF.search(text)) and "require" not in params:
        # a GitHub issue is `#123`, a Jira key `ABC-123`; "at the start" puts it first
        pattern = r"[A-Z][A-Z0-9]+-[0-9]+" if issue.group("jira") else r"(?:#[0-9]+|[A-Z][A-Z0-9]+-[0-9]+)"
        first = re.search(r"\b(?:at the (?:start|beginning)|first|prefix|start with|begin with)\b", text, re.I)
        params["require"] = f"^{pattern}" if first else pattern
    elif re.search(r"\bsigned-off-by\b|\bDCO\b|\bsign[- ]?off\b|\bgit commit -s\b|(?<![\w-])-s flag\b", text, re.I):
        params["require"] = "Signed-off-by: "  # the Developer Certificate of Origin's sign-off, which `-s` adds
    elif (trailer := _TRAILER.search(text)) and _ADDED.search(text[: trailer.start()]) and "require" not in params:
        # "AI commits must include a Co-Authored-By line", "add a co-author paragraph after the body"
        params["require"] = "(?im)^co-authored-by: "  # the trailer on a line of its own, in any case as git reads it
    return spec("commit_message", params) if params else None
