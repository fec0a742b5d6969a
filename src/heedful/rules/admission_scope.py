"""What a lasting rule is anchored to: one repository, or the user's habits everywhere.

A rule binds to the project when its words point at the repository: the repository itself ("this
monorepo", "our codebase", "in here"), a fact about its stack ("we're on Python 3.8", "the app uses
Zustand"), a named path or file, or a script of its own ("make check", "npm run lint"). A rule that
bans or asks for a program, a flag or a habit with none of those anchors is the user's own, for every
repository ("No --privileged containers", "never force push"). Each anchor is one feature; the scope
head weighs them beside the embedding. Pure and cheap: regular expressions only.
"""

from __future__ import annotations

import re

from heedful.rules import detect

_REPO_WORDS = (
    r"repo|repository|repositories|monorepo|mono-repo|project|codebase|code base|code-base|workspace|"
    r"service|app|application|package|library|lib|crate|module|backend|frontend|api|site|cli|sdk|server|team|org"
)
# "this monorepo", "our codebase", "the project's", "in here"
_REPO_DEICTIC = re.compile(rf"\b(?:this|our|the|in this|for this|across this)\s+(?:{_REPO_WORDS})\b|\bin here\b")
_MONOREPO = re.compile(r"\bmono-?repo\b|\bworkspaces?\b|\bpackages/|\bapps/")
_WE = re.compile(r"\b(?:we|we're|we've|our|ours|us)\b")
# a fact about the stack: a language or runtime with a version, a pinned or targeted version
_VERSION = re.compile(
    r"\b(?:python|py|node|nodejs|java|jdk|go|golang|ruby|php|rust|rustc|postgres|postgresql|mysql|react|vue|"
    r"angular|django|rails|next|nextjs|typescript|ts|es|ecmascript|dotnet|\.net|kotlin|swift|scala|elixir|"
    r"erlang|perl|lua|bash|terraform|k8s|kubernetes|ubuntu|debian|alpine|gcc|clang|cmake|gradle|spring)"
    r"\s?v?\d+(?:\.\d+)*\b|\b(?:on|to|at|targets?|pinned to|stuck on|supports?)\s+v?\d+\.\d+\b|\bes20\d\d\b"
)
_STACK_VERB = re.compile(
    r"\b(?:uses|use|runs on|is on|are on|targets|is built with|is written in|ships|deploys to|depends on|"
    r"relies on|is pinned|are pinned|stuck on)\b"
)
# a named path: a directory, a file with an extension, a dotfile, a glob
_NAMED_PATH = re.compile(
    r"(?:\b[\w.-]+/[\w./*-]*|\b[\w-]+\.(?:py|pyi|js|jsx|mjs|cjs|ts|tsx|md|mdx|json|ya?ml|toml|lock|sh|env|txt|"
    r"sql|cfg|ini|rs|go|java|rb|php|c|h|cpp|hpp|cs|css|scss|html|vue|svelte|proto|kt|swift|xml|csv|gradle|tf|"
    r"mod|sum|dockerfile)\b|(?:^|\s)\.[\w-]{2,}\b|\*\*?/?\*?\.\w+|\bMakefile\b|\bDockerfile\b|\bJustfile\b)",
    re.IGNORECASE,
)
# the repository's own scripts and targets
_OWN_SCRIPT = re.compile(
    r"\b(?:make|just|task|mise|nx|turbo|lerna|bazel|gradle|mvn|rake)\s+[a-z][\w:-]*|\b(?:npm|pnpm|yarn|bun)\s+run\s+"
    r"[\w:-]+|\./[\w./-]+|\bscripts?/|\bbin/|\btox\s+-e\b|\bnox\s+-s\b"
)
# a named library or framework, written as code or as a proper noun inside the sentence
_CODE_NAME = re.compile(r"`[^`\s]{2,40}`")
_PROPER_NOUN_INSIDE = re.compile(r"(?<=[a-z,;:] )[A-Z][a-z]+[A-Z]?\w*\b")
# the user's own habit, stated for everywhere
_EVERYWHERE = re.compile(
    r"\b(?:any|every|all|each|other)\s+(?:repo|repos|repository|repositories|project|projects|codebase|codebases)\b|"
    r"\b(?:all|any) (?:of )?my\b|\bmy (?:code|commits|prs|machine|laptop|setup|projects|repos)\b|\beverywhere\b|"
    r"\bacross (?:repos|projects|the board)\b|\bin general\b|\bno matter (?:which|what) (?:repo|project)\b|"
    r"\bwherever\b|\bever\b"
)
# programs and flags an agent runs anywhere: a ban on one, with no anchor, is the user's habit
_PROGRAM = re.compile(
    r"\b(?:sudo|doas|su|rm|chmod|chown|curl|wget|git|gh|docker|podman|kubectl|helm|pip|pip3|pipx|npm|npx|pnpm|yarn|"
    r"bun|brew|apt|apt-get|dnf|yum|grep|rg|ripgrep|find|fd|sed|awk|ssh|scp|rsync|terraform|aws|gcloud|az)\b|"
    r"(?:^|\s)--?[a-z][\w-]*"
)
_PROHIBITION = re.compile(r"\b(?:no|never|don'?t|do not|dont|avoid|stop|not allowed|forbidden|banned)\b")
_PERSONAL = re.compile(r"\b(?:i|i'm|i've|me|my)\b")
_CONVERSATION = re.compile(
    r"\b(?:repl(?:y|ies)|answers?|responses?|respond|explain|tone|emojis?|apologi[sz]e|sorry|ask me|tell me|"
    r"talk|chat|summar(?:y|ies|ise|ize)|words|sentences|paragraphs|bullets?)\b"
)

NAMES: tuple[str, ...] = (
    "scope_repo_deictic",
    "scope_monorepo",
    "scope_we",
    "scope_version",
    "scope_stack_verb",
    "scope_named_path",
    "scope_own_script",
    "scope_code_name",
    "scope_proper_noun",
    "scope_everywhere",
    "scope_program",
    "scope_unanchored_ban",
    "scope_personal",
    "scope_conversation",
    "scope_anchors",
)


def values(text: str) -> list[float]:
    """The features named by `NAMES`, each in [0, 1]."""
    plain = detect.normalise(text)
    lower = plain.lower()
    anchors = [
        bool(_REPO_DEICTIC.search(lower)),
        bool(_MONOREPO.search(lower)),
        bool(_WE.search(lower)),
        bool(_VERSION.search(lower)),
        bool(_STACK_VERB.search(lower)) and bool(_WE.search(lower) or _REPO_DEICTIC.search(lower)),
        bool(_NAMED_PATH.search(plain)),
        bool(_OWN_SCRIPT.search(lower)),
    ]
    program = bool(_PROGRAM.search(lower))
    unanchored_ban = program and bool(_PROHIBITION.search(lower)) and not any(anchors)
    return [
        *(float(a) for a in anchors),
        float(bool(_CODE_NAME.search(plain))),
        float(bool(_PROPER_NOUN_INSIDE.search(plain))),
        float(bool(_EVERYWHERE.search(lower))),
        float(program),
        float(unanchored_ban),
        float(bool(_PERSONAL.search(lower))),
        float(bool(_CONVERSATION.search(lower))),
        min(sum(anchors), 3) / 3.0,
    ]
