"""The role a rule gives a program it names: forbidden, preferred, or named in passing.

Read from the words around the mention: a negation before it ("never use pip", "stop running npm"), a contrast
("instead of grep", "not npm - pnpm"), a verb after it ("pip is banned", "yarn should never be used"), a replacement
("replace black with ruff"), or the project's tool stated as a fact ("we're a yarn shop").
"""

from __future__ import annotations

import re

from heedful.rules import vocabulary as vocab
from heedful.rules.compile.words import NEGATED
from heedful.rules.lazy_regex import lazy
from heedful.rules.vocabulary import CONTRAST_BAD, NEGATIONS, PREFER_VERBS

# "instead of calling pytest", "not plain pytest", "rather than running npm": the contrast still names the program.
_CONTRAST_TAILS = (
    "",
    " using",
    " the",
    " calling",
    " running",
    " invoking",
    " plain",
    " a",
    " the system",
    " a system",
    " bare",
    " the bare",
    " a bare",
    " the plain",
    " raw",
    " naked",
    " directly",
)
_CLAUSE_STARTS = frozenset(
    "we i you they it it's its this our here use prefer try just only instead always go switch stick"
    " regenerate generate run fix update create make add edit write rebuild".split()
)


NEVER_USED = frozenset(
    {
        "should never be",
        "should not be",
        "shouldn't be",
        "must never be",
        "must not be",
        "mustn't be",
        "is not to",
        "may not be",
        "can't be used",
        "cannot be used",
    }
)
_REPLACE_VERBS = frozenset({"replace", "replacing", "ditch", "ditching"})
_JOINS = frozenset({"and", "but", "then", "instead", "so", "&"})


# What joins the programs of one list: "instead of yarn, bun, or npm", "rather than npm and yarn".
_LIST_JOINS = frozenset({",", "or", "and", "nor", "/", "&"})
# A verb right after the program makes it a new clause's subject ("instead of npm, pnpm is what we use").
_SUBJECT_VERBS = frozenset("is are was were should must will would can does do handles works runs".split())


def _listed_after(words: list[str], start: int, end: int) -> int | None:
    """Where the program this mention is listed after starts: only list joiners between them, or None."""
    k = start - 1
    while k >= 0 and words[k] in _LIST_JOINS:
        k -= 1
    if k == start - 1 or k < 0 or (end < len(words) and words[end] in _SUBJECT_VERBS):
        return None
    return k if vocab.program_named(words[k]) is not None else None


def role(words: list[str], start: int, end: int) -> str:
    """forbid | prefer | neutral, from the words before (and just after) the mention."""
    listed = _listed_after(words, start, end)
    if listed is not None and role(words, listed, listed + 1) == "forbid":
        return "forbid"  # "instead of yarn, bun, or npm": a program listed after a banned one is banned with it
    before: list[str] = []
    for word in reversed(words[max(0, start - 8) : start]):
        if word in (".", ";", "!", "?") or (word == ":" and before):
            break  # "do not use poetry: this project migrated to uv": the words after the colon are a new clause
        if word in (",", "-", "–", "—") and before and before[0] in _CLAUSE_STARTS:
            break  # "never use pip, we use uv" / "don't use npm, use pnpm": a new clause after the comma
        if word in ("-", "–", "—", "->", "=>", "→") and not before:
            break  # "not npm - pnpm": what the dash points to is not under the negation before it
        before.insert(0, word)
    joined = " ".join(before)
    # "is strictly prohibited": an adverb between the verb and the ban changes nothing; "git push --force is
    # banned": the command's own words come before the verb
    after = [w for w in words[end : end + 9] if w not in ("strictly", "absolutely", "totally", "completely")]
    verb = next((k for k, w in enumerate(after[:5]) if w in ("is", "are", "banned", "forbidden")), 0)
    if not all(w.startswith("-") or re.fullmatch(r"[a-z][\w.:-]*", w) for w in after[:verb]):
        verb = 0
    after = after[verb : verb + 4]
    contrast = next((c for c in CONTRAST_BAD if joined.endswith(tuple(c + tail for tail in _CONTRAST_TAILS))), None)
    sentence = " ".join(words)
    unless = {
        "from": not re.search(r"\b(?:switch|switched|move|moved|migrat\w*)\b", joined),
        "over": not re.search(r"\bprefer|favou?r|choose|pick\b", sentence),
        "than": "rather" not in joined and "other" not in joined,
    }
    if contrast and not joined.endswith("not only") and not unless.get(contrast, False):
        return "forbid"
    if after[:2] in (["is", "banned"], ["is", "forbidden"], ["is", "off-limits"], ["is", "deprecated"]) or (
        after[:1] in (["banned"], ["forbidden"])
    ):
        return "forbid"
    if " ".join(after[:3]) in NEVER_USED or after[:2] in ([":", "never"], [":", "no"], [":", "banned"]):
        return "forbid"  # "pip should never be used", "npm: never"
    if before[-1:] and before[-1] in _REPLACE_VERBS:
        return "forbid"  # "replace black with ruff": what is replaced
    if (
        " ".join(after[:3])
        in (
            "is not allowed",
            "is off limits",
            "isn't allowed",
            "is never allowed",
            "is off the",  # "pkexec is off the table"
            "is a no-go",
            "is not okay",
            "is not ok",
        )
        or after[:2] in (["is", "prohibited"], ["is", "verboten"], ["is", "disallowed"])
    ):
        return "forbid"
    last_neg = max((i for i, w in enumerate(before) if w in NEGATIONS or w.endswith("n't")), default=-1)
    last_pref = max((i for i, w in enumerate(before) if w in PREFER_VERBS), default=-1)
    # "stop using npm and use pnpm": a second verb joined to the negated one starts its own clause
    joined_verb = last_pref > last_neg >= 0 and any(w in _JOINS for w in before[last_neg + 1 : last_pref])
    if (
        last_neg >= 0
        and not joined_verb
        and (
            last_pref < last_neg
            or (
                last_pref > last_neg
                and before[last_neg] in ("never", "stop", "don't", "dont", "not", "avoid", "quit", "cease")
            )
        )
    ):
        # "never use pip", "stop using sudo", "don't use doas": a verb after the negation stays negated,
        # unless a contrast turned it ("don't use X, use Y" is split by the comma before Y).
        return "forbid"
    if last_pref >= 0 or after[:1] == ["only"] or joined.endswith(("to", "with")) or stated_tool(joined, after):
        return "prefer"
    return "neutral"


# "we're a yarn shop", "this is a pnpm workspace", "poetry manages deps here": the project's tool stated as a fact.
_TOOL_NOUNS = frozenset("shop house team workspace workspaces monorepo project repo repository codebase setup".split())
_TOOL_VERBS = frozenset("manages handles owns runs drives installs".split())


def stated_tool(before: str, after: list[str]) -> bool:
    """Whether the words around a program state it as the project's tool rather than name it in passing."""
    if after[:1] and after[0] in _TOOL_NOUNS and re.search(r"(?:^|\s)(?:a|an)$", before):
        return True
    if re.search(
        r"\b(?:repo|repository|project|codebase|monorepo|workspace|we|we're|here)\s+(?:is|are|runs?|standardi[sz]ed)"
        r"\s+on$|\b(?:managed|handled|installed)\s+(?:with|by|via|through|using)$|"
        r"\b(?:switched|moved|migrated)\s+(?:over\s+)?to$",
        before,
    ):
        return True
    return bool(after[:1]) and after[0] in _TOOL_VERBS and not before.strip()


# "this repo uses pnpm", "we use uv here", "our project is on poetry": the project's tool stated as a fact.
_USES = lazy(
    r"\b(?:we|repo|repository|project|codebase|monorepo|workspace|here|this)\s+(?:(?:only|now|always)\s+)?"
    r"(?:uses?|is on|are on|'re on|runs? on|standardi[sz]ed on|(?:(?:has|have) )?(?:moved|switched|migrated) "
    r"(?:over )?to)\b|\b(?:managed|handled|installed)\s+(?:with|by|via|through|using)$",
    re.I,
)


def project_tool(text: str) -> tuple[str, list[str]] | None:
    """(tool, its rivals) when the rule states which of rival tools the project uses, with no contrast of its own.

    "We're a yarn shop" -> ("yarn", ["npm", "pnpm", "bun"]); "use yarn" alone is a preference, not a fact: None."""
    mentions = vocab.read_commands(text)
    if len(mentions) != 1 or mentions[0].role != "prefer" or mentions[0].subcommand or NEGATED.search(text):
        return None
    mention = mentions[0]
    words = vocab.plain_words(text)
    before = " ".join(words[: mention.start])
    if not _USES.search(before) and not stated_tool(before, words[mention.end :]):
        return None
    rivals = vocab.rivals_of(mention.program)
    return (mention.program, rivals) if rivals else None
