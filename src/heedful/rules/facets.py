"""Facets: what a task is about and what a rule governs, read from their words (pure).

The offline selector's reading of applicability: a rule applies when it governs an activity
the task involves (installing packages, committing, editing the database schema, writing
code, ...), when it governs every reply, or when it is close in meaning or wording. Rules that
name a language or platform the task and project do not use are set aside.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from heedful.rules.lazy_regex import given_flags, lazy

_I = re.IGNORECASE

FACETS: dict[str, re.Pattern[str]] = {
    name: lazy(pattern, _I)
    for name, pattern in {
        "deps": r"\binstall(?:ing|s)?\b(?!\s+(?:guide|instructions|docs|documentation|steps|page))|dependenc|"
        r"\bpackages?\b|librar(?:y|ies)|requirements|\bpip\b|\buv\b|\bnpm\b|\bpnpm\b|"
        r"\byarn\b|\bpoetry\b|lockfile|\bpin\b",
        "git": r"\bcommit|\bpush|pull request|\bprs?\b|\bbranch|\bmerg|\brebas|\bgit\b",
        "search": r"\bsearch|\bgrep\b|\brg\b|\bfind (?:every|all|where|the places|uses|usages)|\buses of\b|look for|"
        r"occurrences|where .{0,30}(?:is |are )?(?:used|called|defined)",
        "db": r"databas|\btables?\b|\bcolumns?\b|migration|\bsql\b|quer(?:y|ies)|schema",
        "frontend": r"react|component|\btsx\b|\bjsx\b|\bcss\b|tailwind|\bstyles?\b|\bui\b|frontend|"
        r"hover|avatar|button|typescript|javascript",
        "tests": r"\btests?\b|pytest|unittest|regression",
        "bugfix": r"\bfix|\bbugs?\b|crash|broken|regression",
        "docs": r"\bdocs?\b|readme|\bguide\b|documentation|changelog|spelling",
        "docker": r"docker|container|\bimages?\b",
        "secrets": r"secret|\btokens?\b|password|credential|api key|environment variables?|\benv\b",
        "logging": r"\blog(?:s|ging)?\b|\bprint|debug",
        "delete": r"\bdelet|\bremov(?:e|ing) (?:the |any |all )?(?:\w+ )?(?:files?|scripts?|folders?|director)|"
        r"\bunused\b|clean(?: |-)?up|"
        # destructive steps a request implies without saying "delete"
        r"\bwip(?:e|es|ed|ing)\b|\bpurg|\bnuke|\berase|\bdiscard|\bthrow (?:\w+ )?away|\btruncat|\bprune|"
        r"\bdrop (?:the |a |an |that |this )?(?:\w+ )?(?:tables?|databases?|db|columns?|schema|index)\b|"
        r"\breset --hard|\bforce[- ]push|\brm -r|\bclean slate|\bfrom scratch|\bstart (?:\w+ ){0,3}over\b",
        "refactor": r"refactor|renam|restructur|\bsplit\b|\blong\b|\blines?\b",
        "api": r"endpoint|\bapi\b|\bhandlers?\b|\bservices?\b|webhook|payload",
        "cli": r"\bcommands?\b|\bcli\b|\bflags?\b|command-line options?",
        "time": r"\bdates?\b|\btimes?\b|timestamp",
        "strings": r"\bstrings?\b|greeting|string formatting|\bformat (?:the|a)\b",
        "data": r"payload|\bdicts?\b|structured|dataclass|pydantic|\bobjects?\b",
    }.items()
}
# Rules that govern how any code is written (style, naming, imports, tests before done).
_RULE_CODE = lazy(
    r"type hints|docstrings?|f-strings|snake_case|camelcase|pascalcase|wildcard imports|\bimports?\b|"
    r"\bfunctions?\b|naming|\bnames?\b|run (?:the )?tests|\bvariables\b(?! for)|\bcomments?\b",
    _I,
)
# Rules about every reply apply to every task.
ALWAYS = lazy(r"\brepl(?:y|ies)\b|\banswers?\b|\bresponses?\b|\bat the end of each task\b", _I)
# The form of any answer: length, language, tone, format (a prior for the learned every-answer reader).
ANSWER_FORM = lazy(
    r"\brepl(?:y|ies)\b|\banswers?\b|\brespon(?:ses?|d)\b|\btone\b|\bemojis?\b|\bapologi[sz]e|\bpreamble\b|"
    r"\b(?:in|using) (?:plain |simple |british |american )?(?:english|german|spanish|french|italian|portuguese|dutch|"
    r"japanese|chinese|korean|russian|polish|turkish|simple words?)\b|"
    r"\b(?:under|at most|max(?:imum)?|no more than) \d+ (?:words|lines|sentences|paragraphs)\b|"
    r"\bbullet points?\b|\bsentences\b|\bessays?\b|\bhope this helps\b|\bgreat question\b|"
    r"\bconcise\b|\bterse\b|\bverbose\b|\bwordy\b|\bplain text\b|\bexclamation|\bsmall talk\b|\bfiller\b",
    _I,
)
# An answer-form rule that names an answer ("keep replies short") governs every answer; one that only names a form
# (a tone, a language, a length) does so unless it names another thing that has that form (commit messages,
# comments, code) or holds only on a condition ("when I ask for a poem, ...").
_ANSWER_NAMED = lazy(r"\brepl(?:y|ies)\b|\banswers?\b|\brespon(?:ses?|d)\b", _I)
_API_RESPONSE = lazy(
    r"\brequests? and responses?|\brespon(?:se|ses) (?:bod|codes?|status|schema|headers?|payload|times?)", _I
)
_OTHER_ARTEFACT = lazy(
    r"\bcommit messages?\b|\bcomments?\b|\bdocstrings?\b|\bcode\b|\bfunctions?\b|\bmodules?\b|\bfiles?\b|"
    r"\bendpoints?\b|\blogs?\b|\bchangelog|\bpull requests?\b|\bemails?\b|\bmessages?\b|\bdocs?\b|\breadme",
    _I,
)
_CONDITIONAL = lazy(r"^\W*(?:when|whenever|if|for)\b", _I)
# What makes a task a code change: code nouns, or a change verb with a facet beyond chores.
_CODE_NOUNS = lazy(
    r"\bfunctions?\b|\bhelpers?\b|\bmodules?\b|\bclass(?:es)?\b|\bendpoints?\b|implement|"
    r"refactor|\bcode\b|\bscripts?\b|\bmethods?\b|\bbug\b",
    _I,
)
_CODE_TASK = lazy(
    r"^\s*(?:please\s+)?(?:add|write|fix|implement|refactor|convert|create|rename|update|store|"
    r"read|format|change|make|build)\b",
    _I,
)
_NOT_CODE = frozenset({"docs", "git", "search", "deps", "docker", "delete"})

LANGUAGES: dict[str, re.Pattern[str]] = {
    "python": lazy(
        r"\bpython\b|\.py\b|pytest|\bpip\b|\buv\b|django|flask|fastapi|pandas|numpy|notebook|"
        r"\bruff\b|mypy|pydantic|dataclass|f-strings?|snake_case|docstrings?|\bpep ?8\b|structlog|jupyter|"
        r"\blogging module\b|\brequirements files?\b",
        _I,
    ),
    "typescript": lazy(
        r"typescript|javascript|\bts\b|\btsx\b|\bjsx\b|react|\bnode\b|\bnpm\b|\bpnpm\b|"
        r"\byarn\b|\bvue\b|angular|svelte|tailwind|\bjest\b|vitest|\bbun\b|\bzod\b|\bdeno\b|eslint|next\.js",
        _I,
    ),
    **{
        name.lower(): lazy(pattern, _I)
        for name, pattern in {
            "kotlin": r"\bkotlin\b",
            "swift": r"\bswift\b",
            "haskell": r"\bhaskell\b",
            "elixir": r"\belixir\b",
            "scala": r"\bscala\b",
            "clojure": r"\bclojure\b",
            "erlang": r"\berlang\b",
            "ocaml": r"\bocaml\b",
            "perl": r"\bperl\b",
            "zig": r"\bzig\b",
            "nim": r"\bnim\b",
            "dart": r"\bdart\b|\bflutter\b",
            "lua": r"\blua\b",
            "julia": r"\bjulia\b",
            "matlab": r"\bmatlab\b",
            "fortran": r"\bfortran\b",
            "cobol": r"\bcobol\b",
            "groovy": r"\bgroovy\b",
            "powershell": r"\bpowershell\b",
            "solidity": r"\bsolidity\b",
            "fsharp": r"\bf#",
            "crystal": r"\bcrystal\b",
            "racket": r"\bracket\b",
            "ada": r"\bada\b",
            "pascal": r"\bpascal\b",
            "vhdl": r"\bvhdl\b",
            "verilog": r"\bverilog\b",
            "prolog": r"\bprolog\b",
            "objc": r"objective-c",
            "elm": r"\belm\b",
            "gleam": r"\bgleam\b",
            "rust": r"\brust\b|\bcargo\b|clippy|rustfmt|\bcrates?\b",
            # "go file by file" is not the language; a capital Go before a colon or a code noun is
            "go": r"\bgolang\b|\bgo (?:code|modules?|files?|errors?|tests?)\b(?! by)|gofmt|goroutines?|"
            r"(?-i:\bGo\b(?=:|'s\b|\s+(?:code|modules?|files?|errors?|tests?|structs?|interfaces?|packages?)\b)|"
            r"\bin Go\b)",
            "java": r"\bjava\b",
            "csharp": r"\bc#|\.net\b",
            "cpp": r"c\+\+",
            "php": r"\bphp\b",
            "ruby": r"\bruby\b|\brails\b|rspec|rubocop|sorbet",
            "terraform": r"terraform",
            "ansible": r"ansible",
            "kubernetes": r"kubernetes|\bk8s\b",
            "helm": r"\bhelm\b",
            "unity": r"\bunity\b",
            "blender": r"\bblender\b",
            "latex": r"\blatex\b",
            "excel": r"\bexcel\b",
            "arduino": r"arduino",
            "android": r"\bandroid\b",
            "ios": r"\bios\b|storyboard",
            "jenkins": r"jenkins",
            "nginx": r"nginx",
            "bazel": r"\bbazel\b",
            "protobuf": r"protobuf",
            "grafana": r"grafana",
            "airflow": r"airflow",
            "dbt": r"\bdbt\b",
            "vim": r"\bvim\b",
            "emacs": r"\bemacs\b",
            "docker": r"docker",
        }.items()
    },
    "r": lazy(r"(?:^|\s)R(?:\s|$)|\bR (?:code|scripts?|packages?)\b"),
}
_MARKERS = {
    "python": ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile"),
    "typescript": ("package.json", "tsconfig.json"),
    "rust": ("Cargo.toml",),
    "go": ("go.mod",),
    "java": ("pom.xml", "build.gradle"),
    "ruby": ("Gemfile",),
    "php": ("composer.json",),
    "docker": ("Dockerfile", "docker-compose.yml", "compose.yaml"),
    "kotlin": ("build.gradle.kts",),
    "elixir": ("mix.exs",),
    "dart": ("pubspec.yaml",),
    "swift": ("Package.swift",),
    "terraform": ("main.tf",),
}


def facets(text: str, task: bool = False) -> frozenset[str]:
    return _facets(text, task)


@lru_cache(maxsize=8192)
def _facets(text: str, task: bool) -> frozenset[str]:
    found = {name for name, pattern in FACETS.items() if pattern.search(text)}
    if task and (_CODE_NOUNS.search(text) or (_CODE_TASK.search(text) and found - _NOT_CODE)):
        found.add("code")
    if not task and _RULE_CODE.search(text):
        found.add("code")
    return frozenset(found)


# One pass that tells whether any language is named at all: most rules name none, and the hook
# reads every rule of the library at each prompt.
_ANY_LANGUAGE = lazy(
    "|".join(
        f"(?:{pattern.pattern})" if not given_flags(pattern) & re.IGNORECASE else f"(?i:{pattern.pattern})"
        for pattern in LANGUAGES.values()
    )
)


@lru_cache(maxsize=8192)
def languages(text: str) -> frozenset[str]:
    if not _ANY_LANGUAGE.search(text):
        return frozenset()
    return frozenset(name for name, pattern in LANGUAGES.items() if pattern.search(text))


def always_applies(text: str) -> bool:
    return bool(ALWAYS.search(text))


def answer_form(text: str) -> bool:
    """Whether the text speaks about the form of answers (length, language, tone, format)."""
    return bool(ANSWER_FORM.search(text))


def governs_every_answer(text: str) -> bool:
    """Whether a rule reads as governing the form of every answer (see `_ANSWER_NAMED`): a reading that does
    not depend on which rules the learned reader saw, since few libraries have more than a handful of them."""
    if not ANSWER_FORM.search(text) or _CONDITIONAL.search(text):
        return False
    if _ANSWER_NAMED.search(text):
        return not _API_RESPONSE.search(text)
    return not _OTHER_ARTEFACT.search(text)


def detect_languages(project: str | None) -> set[str] | None:
    """Languages and platforms of a project directory from its marker files (None: unknown)."""
    if not project:
        return None
    root = Path(project)
    try:
        if not root.is_dir():
            return None
        names = {entry.name for entry in root.iterdir()}
    except OSError:
        return None
    found = {language for language, markers in _MARKERS.items() if names & set(markers)}
    return found or None
