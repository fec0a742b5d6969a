"""Readers for rules about paths: files not to edit (or outside the project) and files not to stage."""

from __future__ import annotations

import re
from typing import Any

from heedful.rules.checks.path import system_path
from heedful.rules.compile.words import spec
from heedful.rules.lazy_regex import lazy
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
    *(DOC_STEMS := ("CHANGELOG", "README", "CONTRIBUTING", "AUTHORS", "NOTICE", "CHANGES", "HISTORY")),
)
KNOWN_CONFIG = {
    "circleci": ".circleci/**",
    "travis": ".travis.yml",
    "github actions": ".github/workflows/**",
    "gitlab ci": ".gitlab-ci.yml",
    "migration files": "**/migrations/**",
    "migration": "**/migrations/**",
}
# Files people name by what they are: "never commit Jupyter notebooks", "never hand-edit snapshot files".
FILE_NOUNS = {
    "(?:jupyter )?notebooks?": "*.ipynb",
    "snapshot files": "*.snap",
    "private keys?": "*.pem",
    "sqlite (?:databases?|files?)": "*.sqlite",
}
# Kinds of files named in the plural that stand for several spellings: "never commit terraform state files".
FILE_KINDS = {
    r"terraform state(?: files?)?|tfstate files?": ["*.tfstate", "*.tfstate.backup"],
    r"kubeconfigs?(?: files?)?": ["kubeconfig", "*.kubeconfig"],
    r"screen ?shots?(?: files?)?": ["*.png", "*.jpg", "*.jpeg"],
    r"(?:private |ssh |secret )?key files?|private keys?": ["*.pem", "*.key"],
    # yarn.lock, Cargo.lock, poetry.lock, uv.lock, Gemfile.lock, composer.lock, bun.lock are all *.lock
    r"lock ?files?|dependency locks?": ["*.lock", "package-lock.json", "pnpm-lock.yaml"],
    r"(?:new )?markdown(?: files?| docs?| documents?)?": ["*.md"],
    r"minified (?:files?|js|javascript|css|bundles?|assets?)": ["*.min.js", "*.min.css"],
    r"source ?maps?(?: files?)?": ["*.map"],
    r"(?:tls |ssl )?certificates?(?: files?)?|certs?": ["*.pem", "*.crt", "*.key", "*.p12"],
    r"(?:the )?xcode project(?: files?)?": ["*.xcodeproj/**"],
    r"compiled python(?: files?)?|(?:python )?bytecode(?: files?)?": ["*.pyc", "__pycache__/**"],
    r"database files?|(?:local )?databases?|db files?": ["*.sqlite", "*.sqlite3", "*.db"],
    r"ide (?:settings|config(?:uration)?|files?|folders?)|editor (?:settings|config(?:uration)?|folders?)": [
        ".vscode/**",
        ".idea/**",
    ],
    r"env(?:ironment)? files?|dotenv files?": [".env", ".env.*"],
}
# Families of files named by what they do, anywhere in the object ("CI/GitHub Actions workflows", "the Gradle build
# scripts"): the spellings the family has in a repository, however the rule qualifies it.
FILE_FAMILIES = {
    r"(?:(?:ci|ci/cd|github|github actions?|gha)\s*/?\s*)*workflows?(?:\s+(?:files?|definitions?|configs?|ya?ml))?": [
        ".github/workflows/**"
    ],
    r"gradle\s+(?:build\s+)?(?:scripts?|files?|configs?|configuration)|build\.gradle(?:\.kts)?\s+files": [
        "**/*.gradle",
        "**/*.gradle.kts",
    ],
    r"(?:maven\s+)?pom(?:\.xml)?\s+files?|maven\s+poms?": ["**/pom.xml"],
    r"shell\s+scripts?|bash\s+scripts?": ["*.sh"],
    r"terraform\s+(?:files?|code|configs?|configuration|modules?)": ["*.tf"],
    r"(?:protobuf|proto)\s+(?:files?|definitions?|schemas?)": ["*.proto"],
    r"vendored\s+(?:files?|code|sources?|dependencies|deps|packages|modules|libraries)": ["vendor/**"],
}
# File extensions people name: a dotted name whose last part is none of these ("tools.jackson", "os.path") is a
# module or package, not a file.
FILE_EXTENSIONS = frozenset(
    "py pyi pyc pyx ipynb js mjs cjs jsx ts tsx mts cts vue svelte astro json jsonc json5 yaml yml toml ini cfg conf "
    "config env lock lockb md mdx markdown rst txt adoc html htm css scss sass less xml svg png jpg jpeg gif webp ico "
    "pdf csv tsv parquet sql sqlite sqlite3 db go mod sum rs rb erb rake gemspec php java kt kts gradle scala groovy "
    "clj c h cc cpp cxx hpp hh cs csproj fsproj vbproj sln props targets swift m mm plist pbxproj xcodeproj dart ex "
    "exs erl hs elm ml lua pl pm r jl zig nim sh bash zsh fish ps1 psm1 bat cmd tf tfvars tfstate hcl proto graphql "
    "gql prisma snap log pem key crt p12 pfx pub lst patch diff tar gz tgz zip whl jar war so dll dylib exe bin wasm "
    "map min lcov out tmp bak orig swp nix dockerfile mk cmake bzl bazel in template tpl j2 jinja njk hbs mustache "
    "liquid twig blade properties editorconfig gitignore gitattributes npmrc nvmrc yarnrc prettierrc eslintrc".split()
)
# Folders that live beside the code they belong to, one per app or test folder: named alone, they are at any depth.
NESTED_DIRS = frozenset({"migrations", "__snapshots__", "__pycache__", "generated", "_generated", "__generated__"})
_DIR_WORDS = frozenset(
    "migrations vendor node_modules dist build generated third_party __generated__ venv virtualenv target coverage "
    "__pycache__ logs".split()
)
# Files named by a bare word: private keys people name in rules ("never commit id_rsa").
_BARE_FILES = frozenset("id_rsa id_ed25519 id_ecdsa id_dsa".split())
_EDIT_VERB = lazy(
    r"\b(?:never|don'?t|do not|stop|avoid|no)\s+(?:ever\s+)?(?:(?:manually|directly|proactively|unnecessarily)\s+|"
    r"hand-?\s*)?(?:edit(?:ing|s)?|"
    r"modify(?:ing)?|touch(?:ing)?|chang(?:e|ing)|writ(?:e|ing)(?:\s+(?:to|in|into))?|overwrit(?:e|ing)|"
    r"creat(?:e|ing)|add(?:ing)?|put(?:ting)?|delet(?:e|ing)|remov(?:e|ing)|mess(?:ing)? with|rewrit(?:e|ing)|"
    r"regenerat(?:e|ing)|reformat(?:ting)?|updat(?:e|ing)|add(?:ing)?|replac(?:e|ing)|overwrit(?:e|ing)|"
    r"(?:mak(?:e|ing)\s+)?(?:any\s+)?(?:changes|edits|modifications|writes)\s+(?:to|in)|"
    r"(?:hand-?\s*)?writ(?:e|ing)(?:\s+or\s+(?:edit|modify|change))?|bypass(?:ing)?)\b(?:\s+or\s+\w+)?(?P<rest>.*)$",
    re.I,
)
_LEAVE_ALONE = lazy(
    r"^(?:leave|keep)\s+(?P<rest>.+?)\s+(?:alone|untouched|as is|unchanged)\b|"
    r"^(?P<rest2>.+?)\s+(?:is|are)\s+(?:read-?only|off[- ]limits|hands[- ]off)\b|"
    r"^(?:treat|consider)\s+(?P<rest4>.+?)\s+(?:as\s+)?(?:read-?only|off[- ]limits|immutable)\b|"
    r"^(?:(?:keep|take)\s+(?:your\s+)?)?hands[- ]off\s+(?:of\s+)?(?P<rest3>.+)$|"
    r"^(?:stay|keep)\s+out\s+of\s+(?P<rest6>.+)$|"
    # "X must not be modified", "X is generated, do not edit it": the path first
    r"^(?P<rest7>.+?)\s+(?:must|should|shall|may|can|is|are)\s*(?:n'?t|not|never)\s*(?:ever\s+)?(?:be\s+)?"
    r"(?:modified|edited|changed|touched|written(?: to)?|overwritten|updated|deleted|removed|hand-edited)\b|"
    r"^(?P<rest8>.+?)\s+(?:is|are)\s+(?:auto-?)?generated\s*[,;.:—–-]?\s*(?:so\s+)?(?:do\s+not|don'?t|never)\s+"
    r"(?:edit|modify|touch|change)\b|"
    r"^(?P<rest5>.+?)\s*[:,—–-]\s*(?:hands[- ]off|read[- ]only|off[- ]limits|do not touch|don'?t touch)\b",
    re.I,
)
_ALONE_GROUPS = ("rest", "rest2", "rest3", "rest4", "rest5", "rest6", "rest7", "rest8")
# Territory named in prose: who owns a path says the agent must not write there ("nothing under infra/ is ours
# to change", "vendor/ belongs to another team", "gen/ is managed by buf", "third_party/ is vendored").
_NOT_OURS = (
    r"(?:is|are|'s|'re)\s+(?:not|n'?t|never)\s+(?:ours|mine|yours|our (?:code|concern|business)|your (?:concern|"
    r"business|code)|(?:for you|ours|yours) to (?:change|touch|edit|modify|fix|update))\b|"
    r"(?:isn'?t|aren'?t)\s+(?:ours|mine|yours|our (?:code|concern)|your (?:concern|code)|(?:for you|ours|yours) to "
    r"(?:change|touch|edit|modify|fix|update))\b"
)
_OWNED_BY_OTHERS = (
    r"(?:belongs?|belonged)\s+to\s+(?:another|a different|an? other|other|some other|the)\s+[\w -]{0,30}?"
    r"(?:team|group|org|organi[sz]ation|repo|repository|project|people|folks|vendor|upstream)\b|"
    r"(?:is|are)\s+(?:owned|maintained|managed|controlled|provisioned|applied)\s+(?:by|from|upstream|elsewhere|"
    r"outside)\b|"
    r"(?:is|are)\s+(?:vendored|synced from|copied from|mirrored from)\b|"
    r"(?:is|are)\s+(?:someone else'?s|another team'?s|third[- ]party(?: code)?|upstream(?:'?s)? code|"
    r"external code|not under our control)\b"
)
_OWNED = lazy(
    rf"^(?:(?P<none>nothing|none of(?: the (?:files|code))?)\s+(?:under|in|inside|within|below|from|of)\s+"
    rf"(?P<nested>[^,;]{{2,80}}?)\s+(?:is|are)\s+(?:ours|mine|yours|for you)\b|"
    rf"(?P<subject>[^,;]{{2,80}}?)\s+(?:{_NOT_OURS}|{_OWNED_BY_OTHERS}))",
    re.I,
)
_SUBJECT_VERB = lazy(r"\b(?:never|don'?t|do not|please|always|you|we|i|should|must|will)\b", re.I)


def owned_elsewhere(text: str) -> list[str]:
    """The paths a rule says belong to someone else, so they are not the agent's to write; [] when none."""
    found = _OWNED.match(text.strip())
    if found is None:
        return []
    subject = found.group("nested") or found.group("subject") or ""
    if found.group("subject") and _SUBJECT_VERB.search(subject):
        return []  # "we never edit what is generated by protoc": a sentence about something else
    subject = re.sub(
        r"^(?:(?:anything|everything|all|any|the)\s+)?(?:(?:files?|code)\s+)?"
        r"(?:under|in|inside|within|below|from)\s+",
        "",
        subject.strip(),
        flags=re.I,
    )
    return _globs(subject)


# Files and folders that live in the user's home directory only: shell start-up files, global git config, keys.
HOME_ONLY = frozenset(
    ".bashrc .zshrc .bash_profile .zprofile .zshenv .profile .bash_logout .bash_aliases .gitconfig .ssh .aws .kube "
    ".gnupg".split()
)


_STAGE_VERB = lazy(
    r"\b(?:never|don'?t|do not|stop|avoid|no)\s+(?:ever\s+)?(?:(?:git\s+)?add(?:ing)?|"
    r"stag(?:e|ing)|commit(?:ting)?|check(?:ing)? in|push(?:ing)?|includ(?:e|ing)|track(?:ing)?)\b(?P<rest>.*)$",
    re.I,
)
# Verbs that stage a file only where the rule says it is git's: "never include X in a commit", "don't track X in git".
_GIT_ONLY_VERBS = lazy(r"\b(?:add(?:ing)?|includ(?:e|ing)|track(?:ing)?)\b", re.I)
_VERSION_CONTROL = r"(?:git|the repo|the repository|version control|source control|commits?|the index|vcs)"
# The file first, the staging after: "X must never be committed", "keep X out of git", "X doesn't belong in git".
_STAGED_SUBJECT = lazy(
    r"^(?:(?:please\s+)?(?:make sure|ensure|be sure)(?:\s+that)?\s+)?(?P<rest>.+?)\s+(?:(?:must|should|shall|may|can|"
    r"is|are|gets?)\s*(?:n'?t|not)?\s*(?:never\s+|not\s+|ever\s+)*(?:be\s+|get\s+)?(?:committed|staged|checked in|"
    r"pushed|tracked)|(?:does|do)\s*(?:n'?t|not)\s+belong\s+(?:in|into)\s+" + _VERSION_CONTROL + r"|"
    r"(?:stays?|remains?)\s+out\s+of\s+" + _VERSION_CONTROL + r")\b|"
    r"^(?:always\s+)?keep\s+(?P<kept>.+?)\s+out\s+of\s+" + _VERSION_CONTROL + r"\b",
    re.I,
)
_NEGATED_SUBJECT = lazy(r"\b(?:never|not|n't)\b|\bdoes\s*n|\bout of\b", re.I)
_OUTSIDE = lazy(
    r"\b(?:never|don'?t|do not)\b.{0,40}\b(?:write|edit|modify|touch|create|change)\w*\b.{0,30}"
    r"\boutside\s+(?:of\s+)?(?:the|this|our)\s+(?:repo|repository|project|workspace|working directory|"
    r"codebase)\b",
    re.I,
)


def _globs(rest: str, staged: bool = False) -> list[str]:
    """Path patterns named right after a verb: `vendor/`, files under src/gen/, *.pem files, the migrations folder.
    `staged`: the paths are staged in the repository, where a `.ssh` is the project's own, not the home one."""
    rest = re.sub(r"\$\{?HOME\}?/", "~/", rest)
    # "generated files — notably `x`, `y/`": a dash before examples goes on naming the object, not a reason
    rest = re.sub(r"\s*(?:[—–]|\s-)\s*(?=(?:notably|especially|including|in particular|namely|such as)\b)", ", ", rest)
    head = re.split(r"[;:—–,]|\s-\s|\.\s|\s(?:instead|so|because|since|use|unless|except|when|if)\b", rest)[0]
    head = re.sub(r"\b(?:by hand|manually|directly|ever|again|anymore)\b", " ", head, flags=re.I).strip()
    for noun, globs in FILE_KINDS.items():  # the whole object is a kind of file: "terraform state files"
        if re.fullmatch(rf"\s*(?:(?:any|the|all|our|your)\s+)?(?:[\w-]+\s+)?(?:{noun})\s*", head, re.I):
            return list(globs)
    for family, globs in FILE_FAMILIES.items():  # "CI/GitHub Actions workflows": the family, not a path CI/GitHub
        # "generated proto files" are what the family's files generate, not the family
        qualifier = r"(?:(?!generated|compiled|built|output)[\w-]+\s+)?"
        if re.fullmatch(rf"\s*(?:(?:any|the|all|our|your|existing)\s+)*{qualifier}(?:{family})[\s.!]*", head, re.I):
            return list(globs)
    rest = re.split(
        r"[;:—–]|\s-\s|\.\s+(?=[A-Z`])|,\s*(?:use|instead|edit|run|ask|make|create|regenerate|generate|rebuild|fix|update|"
        r"move|mv|put|copy|keep|trash|archive|rename)\b|"
        r"\s(?:instead|so|because|since|use)\b",
        rest,
    )[0]
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
                found.append(f"{name}*" if name in DOC_STEMS else name)  # CHANGELOG.md, README.rst alike
            elif word in _BARE_FILES:
                found.append(word)
            elif (
                word in _DIR_WORDS
                and match.group("k").islower()
                and not re.match(r"\s+(?!folder|directory|dir|or\b|and\b)[a-z]", rest[match.end() :])
            ):
                # "the generated client" is an adjective, not the generated/ folder
                found.append(f"**/{word}/**" if word in NESTED_DIRS else f"{word}/**")
            continue
        raw = (match.group("p") or match.group("w") or "").strip("`")
        if raw.startswith(("~/", "$HOME/")) and len(raw.split("/", 1)[1].strip("/.")) > 0:
            found.append("~/" + raw.split("/", 1)[1])  # "never touch ~/.ssh": the user's home, not the project
            continue
        if raw.rstrip("/") in HOME_ONLY and not staged:
            found.append(f"~/{raw.rstrip('/')}")  # "my .zshrc": only the home directory holds one
            continue
        if (
            not raw
            or raw.startswith(("~", "http", "//"))
            or raw.strip("/.") == ""
            or re.fullmatch(r"e\.g|i\.e|etc\.?|i/o|and/or|w/o|n/a", raw, re.I)
        ):
            return []
        last = raw.rstrip("/").rsplit("/", 1)[-1]
        if system_path(raw):
            found.append(raw.rstrip("/"))  # "/etc/hosts" is that file, or everything below it if a folder
            continue
        if (
            match.group("w")
            or match.group("dir")
            or raw.endswith("/")
            or ("/" in raw and "." not in last.lstrip(".") and "*" not in last)
        ):
            raw = raw.rstrip("/") + "/**"
            if raw.removesuffix("/**") in NESTED_DIRS:
                raw = "**/" + raw  # "files under __snapshots__/": every such folder
        elif (
            re.fullmatch(r"\.?\w+", raw) is None
            and re.fullmatch(r"\*?\.[\w]+", raw) is None
            and "/" not in raw
            and "." not in raw
        ):
            continue
        if re.fullmatch(r"\.[a-z0-9]{1,6}", raw) and re.search(rf"{re.escape(raw)}\s+files\b", rest) and raw != ".env":
            raw = "*" + raw  # ".pem files" is an extension; ".DS_Store files" names the file itself
        if raw.startswith("*/"):
            raw = "*" + raw  # "*/migrations/" is a directory at any depth
        if raw.endswith(".") and not raw.endswith(".."):
            continue  # "communication." is the end of a sentence, not a file
        if (
            re.fullmatch(r"[a-z]\w*(?:\.[a-z]\w*)+", raw)
            and raw.rsplit(".", 1)[-1].lower() not in FILE_EXTENSIONS
            and not match.group("dir")
        ):
            continue  # "tools.jackson", "os.path": a module or package named by its dotted name
        found.append(raw)
    ext = re.search(r"\b(?P<e>pem|key|p12|pfx|crt|log|sqlite|db|ipynb|env|tfstate)\s+files\b", rest, re.I)
    if ext and not found:
        found.append(f"*.{ext.group('e').lower()}")
    for noun, glob in FILE_NOUNS.items():
        if not found and re.search(rf"\b{noun}\b", rest, re.I):
            found.append(glob)
    for phrase, glob in KNOWN_CONFIG.items():
        if not found and re.search(rf"\b{phrase}\b", rest, re.I):
            found.append(glob)
    return list(dict.fromkeys(found))


# What follows a staging verb when the file is not its object: "add logging in x.py", "add a dep to package.json".
_INDIRECT = lazy(
    r"^\s+(?!(?:the|any|a|an|your|my|all|those|these|them|files?|anything|everything|nothing|stuff|things)\b)[a-z][\w-]*"
    r"(?:,| (?:[a-z]+ )*(?:to|in|into|inside)\b)|"
    r"^\s+(?:a|an|any|the)\s+(?!files?\b|folders?\b|director)[a-z][\w-]*\s+(?:to|in|into)\b",
    re.I,
)
_ASPECTS = (
    r"signatures?|verbiage|wording|behaviou?r|semantics|logic|apis?|interfaces?|public api|format(?:ting)?|style|"
    r"structure|names?|exports?|types?|versions?|version numbers?|values?|settings?|fields?|keys?|entries|sections?|"
    r"properties|layout|order(?:ing)?|schema|shape|copyright(?: headers?| notices?)?|licen[cs]e headers?"
)
# "don't change the signatures of APIs in pkg/", "the structure or properties of X": a part of the files, not the files
_ASPECT = lazy(
    rf"^\s+(?:the\s+|any\s+)?(?:[\w-]+\s+)?(?:{_ASPECTS})(?:\s+(?:or|and)\s+(?:the\s+)?(?:{_ASPECTS}))?\s+(?:of|in)\b",
    re.I,
)
_GIT_CONTEXT = lazy(
    r"\bgit\b|\bstag(?:e|ed|ing)\b|\b(?:to|in|into) (?:the |a |any )?(?:index|repo|repository|version control|"
    r"source control|commits?|history)\b",
    re.I,
)
_NAMING = lazy(
    r"\bfiles?\s+(?:use|are named|end (?:in|with)|should (?:use|end (?:in|with)))\s+`?\*?\.[\w.]+`?\s*,?\s*\(?"
    r"(?:not|never|instead of|rather than)\s+`?\*?(?P<bad>\.[a-z][\w.]*)`?\)?$",
    re.I,
)
_WHICH_ONES = lazy(r"\b(?:files?|folders?|director(?:y|ies)|modules?)\s+(?:that|which|whose|containing|where)\b", re.I)
_PURPOSE = lazy(r"\bto (?:make|get|fix|pass|silence|satisfy|work around|speed up|hide|force)\b", re.I)


# "don't create README files in every folder": how many, or where each one goes, which no single path states
_EVERY_PLACE = lazy(
    r"\b(?:in|for|under|inside)\s+(?:every|each|all)\s+(?:the\s+)?(?:folders?|director(?:y|ies)|dirs?|packages?|"
    r"modules?|subfolders?|subdirector(?:y|ies)|crates?|apps?)\b",
    re.I,
)


_OUTSIDE_PATH = lazy(
    r"\b(?:outside|(?<!stay )(?<!keep )out of|beyond|other than|except(?: for| in)?|apart from|besides)\s+"
    r"(?:of\s+)?(?:the\s+)?"
    r"(?!(?:repo|repository|project|workspace|working directory|codebase)\b)`?[\w.~-]*/",
    re.I,
)


def path_checks(text: str) -> list[CheckSpec]:
    if _EVERY_PLACE.search(text) or _OUTSIDE_PATH.search(text):
        return []  # "outside the src/ directory": everything but a path, which no glob list states
    naming = _NAMING.search(text)
    if naming:  # "test files use `.test.ts` (not `.spec.ts`)": files named the other way are not to be written
        return [spec("forbidden_path", {"globs": [f"*{naming.group('bad')}"], "outside_project": False})]
    if _OUTSIDE.search(text):
        return [spec("forbidden_path", {"globs": [], "outside_project": True})]
    owned = owned_elsewhere(text)
    if owned:
        return [spec("forbidden_path", {"globs": owned, "outside_project": False})]
    subject = _STAGED_SUBJECT.match(text.strip())
    if subject and _NEGATED_SUBJECT.search(subject.group(0)):
        globs = _globs(subject.group("rest") or subject.group("kept") or "", staged=True)
        if globs:
            return [spec("staged_path", {"globs": globs})]
    staged = _STAGE_VERB.search(text)
    if staged and _GIT_ONLY_VERBS.search(staged.group(0)[:24]) and not _GIT_CONTEXT.search(text):
        staged = None  # "do not add CircleCI config": creating the file, not staging it
    if staged and not re.search(r"\bcommit messages?\b|\bto\s+(?:main|master)\b|\bbranch(?:es)?\b", text, re.I):
        # "add node_modules to git", "include X in a commit": where it is staged is the rule's own word for git
        rest: str | None = re.sub(
            r"\s+(?:to|in|into|from)\s+(?:a\s+|any\s+|the\s+|your\s+|our\s+)?(?:git|repo|repository|version control|"
            r"source control|commits?|index|vcs)\b\W*$",
            "",
            staged.group("rest"),
            flags=re.I,
        )
        staged_rest = rest or ""
        if re.match(r"\s+(?:directly\s+)?(?:to|into|onto)\b", staged_rest, re.I):
            return []  # "never push to origin/main": where it goes, not what is staged
        if _INDIRECT.match(staged_rest):
            return []  # "add logging in engine.py", "adding a dependency to package.json": the file is not staged
        globs = _globs(staged_rest, staged=True)
        return [spec("staged_path", {"globs": globs})] if globs else []
    edit = _EDIT_VERB.search(text)
    alone = _LEAVE_ALONE.search(text)
    rest = (
        edit.group("rest")
        if edit
        else (alone and next((alone.group(g) for g in _ALONE_GROUPS if alone.group(g)), None))
    )
    if (
        edit
        and re.search(r"\b(?:add|adding|put|putting)\s*$", text[: edit.start("rest")], re.I)
        and _INDIRECT.match(rest or "")
    ):
        return []  # "never add a dependency to package.json": the file is where, not what
    if edit and _ASPECT.match(rest or ""):
        return []  # "don't change the signatures of APIs in pkg/": an aspect of the files, not the files
    if edit and alone and not _globs(edit.group("rest")):
        # "vendor/: do not touch": the verb ends the rule, the path came first
        rest = next((alone.group(g) for g in _ALONE_GROUPS if alone.group(g)), rest)
    left = _LEAVE_PRONOUN.search(text)
    pointed = left.start() if left else edit.start() if edit and _PRONOUN.match(rest or "") else None
    if pointed is not None and not _PURPOSE.search(rest or ""):
        # "generated code lives in gen/; don't edit it": the path named before, in the clause the pronoun points to
        named = _globs(re.split(r"[;—–]|\s-\s|\.\s", text[:pointed].strip())[0])
        return [spec("forbidden_path", {"globs": named, "outside_project": False})] if named else []
    if not rest or _PURPOSE.search(rest) or _WHICH_ONES.search(rest):
        # "don't update snapshots to make tests pass": the purpose decides, no path does; "index.ts files that
        # re-export": which of those files, which no glob states
        return []
    globs = _globs(rest)
    if not globs:
        return []
    params: dict[str, Any] = {"globs": globs, "outside_project": False}
    verb = text[edit.start() : edit.start("rest")] if edit else ""
    if re.search(r"\bcreat(?:e|ing)\b", verb, re.I) or (edit and re.match(r"\s*(?:any\s+)?new\b", rest, re.I)):
        params["created_only"] = True  # "don't create new markdown files": editing README.md is still allowed
    return [spec("forbidden_path", params)]


_LEAVE_PRONOUN = lazy(
    r"[;,.—–-]\s*(?:so\s+)?(?:please\s+)?(?:leave|keep)\s+(?:it|them|these|those)\s+"
    r"(?:alone|untouched|as is|unchanged)\b",
    re.I,
)
_PRONOUN = lazy(
    r"^\s*(?:it|them|these|those|this|that|any of (?:it|them|those)|(?:these|those|the|such) files)"
    r"(?:\s+(?:by hand|manually|directly|ever|again|yourself))*\W*$",
    re.I,
)
