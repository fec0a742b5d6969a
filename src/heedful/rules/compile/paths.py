"""Readers for rules about paths: files not to edit (or outside the project) and files not to stage."""

from __future__ import annotations

import re

from heedful.rules.compile.words import spec
from heedful.rules.models import CheckSpec

_PATHLIKE = r"`[^`\s]+`|~?[\w.*-]*[/*.](?:[\w./*-]*[\w*/])?|\.[\w.-]+"
_FILE_NAMES = (
    "Makefile",
    "Dockerfile",
    "Procfile",
    "CODEOWNERS",
    "Jenkinsfile",
    "Gemfile",
    "Rakefile",
    "Vagrantfile",
    "LICENSE",
    "Justfile",
    "Containerfile",
    "Brewfile",
    "Pipfile",
)
_KNOWN_CONFIG = {
    "circleci": ".circleci/**",
    "travis": ".travis.yml",
    "github actions": ".github/workflows/**",
    "gitlab ci": ".gitlab-ci.yml",
    "migration files": "migrations/**",
    "migration": "migrations/**",
}
_DIR_WORDS = frozenset("migrations vendor node_modules dist build generated third_party __generated__".split())
_EDIT_VERB = re.compile(
    r"\b(?:never|don'?t|do not|stop|avoid|no)\s+(?:ever\s+)?(?:(?:manually|directly|hand-?)\s+)?(?:edit(?:ing|s)?|"
    r"modify(?:ing)?|touch(?:ing)?|chang(?:e|ing)|writ(?:e|ing)(?:\s+(?:to|in|into))?|overwrit(?:e|ing)|"
    r"creat(?:e|ing)|add(?:ing)?|put(?:ting)?|delet(?:e|ing)|remov(?:e|ing)|mess(?:ing)? with|rewrit(?:e|ing)|"
    r"regenerat(?:e|ing)|reformat(?:ting)?|updat(?:e|ing))\b(?P<rest>.*)$",
    re.I,
)
_LEAVE_ALONE = re.compile(
    r"^(?:leave|keep)\s+(?P<rest>.+?)\s+(?:alone|untouched|as is|unchanged)\b|"
    r"^(?P<rest2>.+?)\s+(?:is|are)\s+(?:read-?only|off[- ]limits|hands[- ]off)\b|"
    r"^hands off\s+(?P<rest3>.+)$",
    re.I,
)
_STAGE_VERB = re.compile(
    r"\b(?:never|don'?t|do not|stop|avoid|no)\s+(?:ever\s+)?(?:(?:git\s+)?add(?:ing)?|"
    r"stag(?:e|ing)|commit(?:ting)?|check(?:ing)? in|push(?:ing)?)\b(?P<rest>.*)$",
    re.I,
)
_OUTSIDE = re.compile(
    r"\b(?:never|don'?t|do not)\b.{0,40}\b(?:write|edit|modify|touch|create|change)\w*\b.{0,30}"
    r"\boutside\s+(?:of\s+)?(?:the|this|our)\s+(?:repo|repository|project|workspace|working directory|"
    r"codebase)\b",
    re.I,
)


def _globs(rest: str) -> list[str]:
    """Path patterns named right after a verb: `vendor/`, files under src/gen/, *.pem files, the migrations folder."""
    rest = re.split(r"[;:]|,\s*(?:use|instead|edit|run|ask|make|create)\b|\s(?:instead|so|because|since|use)\b", rest)[
        0
    ]
    rest = re.sub(r"\b(?:by hand|manually|directly|ever|again|anymore)\b", " ", rest, flags=re.I)
    found: list[str] = []
    for match in re.finditer(
        rf"(?P<p>{_PATHLIKE})(?P<dir>\s+(?:folder|directory|dir)\b)?|"
        r"\bthe\s+(?P<w>[\w.-]+)\s+(?:folder|directory|dir)\b|\b(?P<k>[a-z_]+)\b",
        rest,
        re.I,
    ):
        if match.group("k"):
            word = match.group("k").lower()
            name = next((f for f in _FILE_NAMES if match.group("k").rstrip("s") == f), None)
            if name:
                found.append(name)
            elif word in _DIR_WORDS:
                found.append(f"{word}/**")
            elif word in ("lockfile", "lockfiles"):
                return []
            continue
        raw = (match.group("p") or match.group("w") or "").strip("`")
        if (
            not raw
            or raw.startswith(("/", "~", "http"))
            or raw in (".", "..")
            or re.fullmatch(r"e\.g|i\.e|etc\.?", raw)
        ):
            return []
        last = raw.rstrip("/").rsplit("/", 1)[-1]
        if (
            match.group("w")
            or match.group("dir")
            or raw.endswith("/")
            or ("/" in raw and "." not in last.lstrip(".") and "*" not in last)
        ):
            raw = raw.rstrip("/") + "/**"
        elif (
            re.fullmatch(r"\.?\w+", raw) is None
            and re.fullmatch(r"\*?\.[\w]+", raw) is None
            and "/" not in raw
            and "." not in raw
        ):
            continue
        if re.fullmatch(r"\.\w+", raw) and re.search(rf"{re.escape(raw)}\s+files\b", rest) and raw not in (".env",):
            raw = "*" + raw
        found.append(raw)
    ext = re.search(r"\b(?P<e>pem|key|p12|pfx|crt|log|sqlite|db|ipynb|env|tfstate)\s+files\b", rest, re.I)
    if ext and not found:
        found.append(f"*.{ext.group('e').lower()}")
    for phrase, glob in _KNOWN_CONFIG.items():
        if not found and re.search(rf"\b{phrase}\b", rest, re.I):
            found.append(glob)
    return list(dict.fromkeys(found))


def path_checks(text: str) -> list[CheckSpec]:
    if _OUTSIDE.search(text):
        return [spec("forbidden_path", {"globs": [], "outside_project": True})]
    staged = _STAGE_VERB.search(text)
    if staged and not re.search(r"\bcommit messages?\b|\bto\s+(?:main|master)\b", text, re.I):
        globs = _globs(staged.group("rest"))
        return [spec("staged_path", {"globs": globs})] if globs else []
    edit = _EDIT_VERB.search(text)
    alone = _LEAVE_ALONE.search(text)
    rest = (
        edit.group("rest")
        if edit
        else (alone and (alone.group("rest") or alone.group("rest2") or alone.group("rest3")))
    )
    if not rest:
        return []
    globs = _globs(rest)
    return [spec("forbidden_path", {"globs": globs, "outside_project": False})] if globs else []
