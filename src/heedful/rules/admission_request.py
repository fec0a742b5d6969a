"""Features that tell a request about the current task from a lasting rule, and where a rule is anchored.

Real sessions are mostly task requests ("fix the login bug", "initialize a bun project", "the new
endpoint must return 200") and pasted output; a lasting rule is about a class of the agent's actions
("no global npm installs", "you keep rm -rf'ing directories"). These flags read the difference from
the sentence: what its subject is (one artefact of this task, or the agent and its habits), which kind
of verb opens it (one that delivers something, or one that states a habit), whether it is program
output. The scope flags read what binds a rule to one repository: an anchor naming the repository, a
directory of it, its language version or its setup; a habit about a program or a flag with none of
these, or about the user's own machine, holds everywhere; a line in the register of a document (a list
item, emphasis) is a repository's own convention. Pure and cheap: regular expressions only.
"""

from __future__ import annotations

import re

from heedful.rules import detect
from heedful.rules.lazy_regex import lazy

# Verbs that open a request for one piece of work (a deliverable of this task).
_DELIVER = frozenset(
    "implement create build add write initialize initialise init port refactor extend convert draft design "
    "generate scaffold migrate integrate analyse analyze investigate explore compare fix debug rename move "
    "update modify change make show explain summarize summarise review assess evaluate research find search "
    "look help give list tell describe document test deploy install setup set upgrade bump delete remove "
    "clean restore revert undo open continue proceed start finish complete try check verify read".split()
)
# Verbs that state a habit (how to act whenever the occasion comes).
_HABIT = frozenset("use prefer avoid keep stop always never quit refrain stick ensure remember".split())
_FILLER = frozenset(
    ("please pls plz ok okay so and also hey btw oh ugh hmm yeah yes well now then just actually").split()
)
_SPEC_SUBJECT = lazy(
    r"^(?:the|this|that|our|my|its|each|every)\s+(?:new\s+|current\s+|existing\s+|same\s+)?"
    r"(?:[\w-]+\s+){0,2}?(?P<noun>[\w-]+)\s+(?:must|should|shall|needs? to|has to|will|always|never|"
    r"can(?:not|'t)?|may)\b"
)
# Subjects that are the agent's own recurring output: a rule about them is a habit, not one artefact's spec.
_AGENT_OUTPUT = frozenset(
    "replies reply answers answer responses response messages message commits commit prs pr code comments "
    "summaries summary explanations output outputs agent assistant ai you model changes diffs tests".split()
)
_NEW_ARTEFACT = lazy(r"\b(?:the|this|that) (?:new|current|existing|above|following|attached|same)\b")
_AGENT_SUBJECT = lazy(
    r"\b(?:you|u)(?:'ll| will| should| must| need to| have to| keep| always| never| are always| still|"
    r" tend to| seem to| constantly| repeatedly)\b|\byour (?:replies|answers|responses|commits|code|prs|"
    r"messages|summaries|explanations|comments|changes)\b"
)
_NTH_TIME = lazy(
    r"\b(?:second|third|fourth|fifth|sixth|nth|umpteenth|\d+(?:st|nd|rd|th)|(?:two|three|four|five|many) ?times)"
    r"(?: time)?\b"
)
_OUTPUT = lazy(
    r"^\W*(?:[\w.]*(?:error|exception|warning)\b|error\b|fatal\b|warning\b|failed\b|traceback\b|panic\b|"
    r"zsh:|bash:|sh:|npm err|npm warn|e\d{3,}\b|\[[\w .:-]+\]|! \[|⚠|uncaught\b|cannot find module\b)",
    re.IGNORECASE,
)
_MENTION = lazy(r"(?:^|\s)@[\w./-]+|#file:|^/[\w:-]+")
# "No --no-verify." / "No Co-authored-by trailers": a ban without a verb, in any sentence of the message.
_BAN_SENTENCE = lazy(
    r"(?:^|[.!?;]\s+|\n\s*)(?:and )?no (?!problem|worries|thanks|idea|clue|way|wait|need|luck|rush|doubt|one|"
    r"longer|matter|more than|less than)(?:--?[\w-]+|`[^`]+`|\"[^\"]+\"|[\w.-]+)",
)
# A reason given for the rule: the consequence that makes it last ("CI chokes on it", "for a reason").
_REASON = lazy(
    r"\b(?:because|since|otherwise|for a reason|so that|so i can|it (?:breaks|messes|breaks|kills|slows|chokes|"
    r"fails)|(?:breaks|messes up|chokes on|rejects|takes forever|is too slow|is slow))\b"
)
_LETS = lazy(r"^(?:ok(?:ay)?,? |so,? |now,? )?let'?s\b")
# Scope: what ties a rule to this repository.
_REPO_ANCHOR = lazy(
    r"\b(?:this|our|the) (?:repo|repository|monorepo|project|codebase|code base|workspace|package|app|service)\b|"
    r"\bin here\b|\bthis is an? (?:[\w-]+ ){0,2}(?:repo|monorepo|workspace|project|codebase|app)\b|\bmonorepo\b"
)
_DIRECTORY = lazy(r"(?<![\w:/.])(?:\.?[\w-]+/)+(?:[\w.*-]+)?(?![\w/])")
_LANGUAGE_VERSION = lazy(
    r"\b(?:python|py|node|nodejs|java|jdk|go|golang|ruby|php|rust|typescript|ts|postgres|postgresql|mysql|react|"
    r"django|rails|vue|angular|next|\.net|dotnet|kotlin|swift|scala|perl|elixir|gcc|clang)\s?v?\d+(?:\.\d+)*\b"
)
_SETUP = lazy(
    r"\bwe(?:'re| are)? (?:use|uses|run|deploy|target|ship|build|host|on|using|moved|switched|migrated)\b|"
    r"\bour (?:ci|team|setup|stack|build|pipeline|infra|deploy|servers?|cluster|platform|convention|style)\b|"
    r"\b(?:the|our) ci\b|\bci (?:chokes|fails|rejects|breaks|runs|uses)\b|\bowned by\b|\bowns\b|\bours\b"
)
_OWN_MACHINE = lazy(
    r"\bmy (?:machine|laptop|setup|system|computer|box|mac|shell|home|dotfiles|environment|env|nvm|terminal)\b|"
    r"\bsystem (?:python|ruby|node)\b|\bglobal(?:ly)?\b"
)
_PROGRAM_OR_FLAG = lazy(
    r"(?:^|\s)--?[a-z][\w-]*|\b(?:pip3?|uv|poetry|npm|npx|pnpm|yarn|bun|git|docker|podman|kubectl|helm|terraform|"
    r"cargo|pytest|ruff|black|mypy|eslint|prettier|grep|rg|find|fd|sed|awk|curl|wget|sudo|doas|rm|chmod|brew|"
    r"apt(?:-get)?|trash|ssh|rsync|make|gh|tsc|jest|vitest)\b"
)


# The register of a line written into a document (a list item, emphasis, an arrow) rather than typed in
# chat: such a line states the convention of the repository whose file it is in.
_LIST_ITEM = lazy(r"^\s*(?:[-*\u2022+]|\d+[.)])\s+")
_EMPHASIS = lazy(r"\*\*|__|\u2192|->|=>")


def _opening_words(sentence: str) -> list[str]:
    words = re.findall(r"[a-z0-9']+", sentence)
    while words and words[0] in _FILLER:
        words = words[1:]
    return words


def values(text: str) -> list[float]:
    """The flags named by `NAMES`, in that order (each 0 or 1)."""
    plain = detect.normalise(text)
    lower = plain.lower()
    first_sentence = re.split(r"(?<=[.!?;])\s+|\n", lower, maxsplit=1)[0]
    words = _opening_words(first_sentence)
    head = words[0] if words else ""
    spec = _SPEC_SUBJECT.match(" ".join(words))
    spec_artefact = bool(spec) and spec.group("noun") not in _AGENT_OUTPUT  # type: ignore[union-attr]
    anchor = bool(_REPO_ANCHOR.search(lower))
    directory = bool(_DIRECTORY.search(plain)) and "://" not in plain
    version = bool(_LANGUAGE_VERSION.search(lower))
    setup = bool(_SETUP.search(lower))
    program = bool(_PROGRAM_OR_FLAG.search(lower))
    anchored = anchor or directory or version or setup
    flags = (
        spec_artefact,
        bool(_NEW_ARTEFACT.search(lower)),
        head in _DELIVER,
        head in _HABIT or head in ("don't", "dont", "no", "not"),
        bool(_AGENT_SUBJECT.search(lower)),
        bool(_NTH_TIME.search(lower)),
        bool(_OUTPUT.match(plain)),
        bool(_MENTION.search(plain)),
        bool(_LETS.match(lower)),
        anchor,
        directory,
        version,
        setup,
        bool(_OWN_MACHINE.search(lower)),
        program and not anchored,
        bool(_LIST_ITEM.match(text)),
        bool(_EMPHASIS.search(plain)),
        bool(_BAN_SENTENCE.search(lower)),
        bool(_REASON.search(lower)),
    )
    return [1.0 if f else 0.0 for f in flags]


NAMES: tuple[str, ...] = (
    "spec_of_artefact",
    "new_artefact",
    "deliver_verb_first",
    "habit_verb_first",
    "agent_subject",
    "nth_time",
    "program_output",
    "mention",
    "lets",
    "repo_anchor",
    "directory",
    "language_version",
    "repo_setup",
    "own_machine",
    "program_unanchored",
    "list_item",
    "emphasis",
    "ban_sentence",
    "reason_given",
)
