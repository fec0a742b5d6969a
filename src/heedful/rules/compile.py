"""Compilation: read a rule's directive as one of the closed check kinds, or decline.

`propose(text, condition, exceptions)` returns candidate check specs, most faithful first (the
offline compiler). Commands are read against the command vocabulary (rules/vocabulary.py): which
program or family, subcommand, flags and alternative the words name, and with which polarity.
Replies, commit messages, staged and edited paths and required commands have their own readers.

A condition or exception stays with the rule: a check is proposed only when the evidence decides
it ("use fd instead of find when you look for files": the check fires only when find runs, which
is the condition). "Unless I ask" or "for large files" is not decided by any evidence: guidance.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from heedful.rules import vocabulary as vocab
from heedful.rules.checks import stage_of
from heedful.rules.models import CheckSpec

NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "a single": 1,
    "single": 1,
}
_NUM = r"(?P<n>\d{1,5}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a single)"
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
LANGUAGE_GLOBS = {
    "python": ["*.py"],
    "typescript": ["*.ts", "*.tsx"],
    "ts": ["*.ts", "*.tsx"],
    "javascript": ["*.js", "*.jsx"],
    "js": ["*.js", "*.jsx"],
    "go": ["*.go"],
    "rust": ["*.rs"],
    "shell": ["*.sh"],
    "bash": ["*.sh"],
    "ruby": ["*.rb"],
    "java": ["*.java"],
    "kotlin": ["*.kt"],
    "swift": ["*.swift"],
    "terraform": ["*.tf"],
    "proto": ["*.proto"],
}
_RETRACTION = re.compile(
    r"^\s*(?:retract|withdraw|drop|forget|cancel|undo|ignore)\b|\bno longer\b|\bis allowed again\b", re.I
)
_CONDITION = re.compile(
    r"(?:^|(?<=[,;(])|(?<=\s))(?P<q>(?:when(?:ever)?|if|while|during|only (?:when|if|for)|"
    r"as long as|in case)\b[^,;()]*)",
    re.I,
)
_EXCEPTION = re.compile(
    r"(?:^|(?<=[,;(])|(?<=\s))(?P<q>(?:unless|except|other than|apart from|but not|"
    r"but (?:it'?s|that'?s) (?:ok|okay|fine)|\w+ is (?:ok|okay|fine))\b[^;()]*)",
    re.I,
)
_QUALIFIER = re.compile(
    r"\bfor (?:\w+ ){0,2}?(?:large|big|huge|small|tiny|long|short|important|major|minor|complex|"
    r"simple|trivial|quick|critical|sensitive|risky|shared|public|production|prod)\b[\w ]*|"
    r"\b(?:inside|outside|within|in|on|against) (?:the |a |an |any |our )?(?:containers?|docker|ci|"
    r"prod(?:uction)?|servers?|vms?|clusters?|host|remote|staging|pods?|prod pods)\b[\w ]*",
    re.I,
)
# "Without asking" forbids the action until the user approves it: blocking it is exactly that.
_ASK_FIRST = re.compile(
    r"[,;(]?\s*\b(?:without (?:asking|approval|permission|checking with me|my (?:ok|okay|approval|"
    r"permission)|the user'?s? (?:ok|approval|permission))|ask(?: me)? first|check with me first)\b"
    r"[^,;]*",
    re.I,
)
GENERIC = frozenset(
    "you your you're youre yourself i i'm we we're me us it it's its they are is be been being am was do does doing "
    "did have has the a an any some something anything stuff thing things working work writing write using use running "
    "run make making need needs needed to of in on for with at about new my our this that these those want try "
    "trying go going get getting when whenever if while during time times every each always ever just also etc "
    "there here one ones or and all whole project projects repo repository codebase code only".split()
)
EDIT_WORDS = (
    frozenset(
        "edit editing edits edited change changes changing changed modify modifying modified write writes touch "
        "touching file files source sources add adding create creating update updating script scripts module modules "
        "function functions imports import dependencies templates template chart charts schema config configs tests "
        "test docs types type".split()
    )
    | frozenset(LANGUAGE_GLOBS)
    | frozenset({"sh", "shell", "tf", "proto", "rs", "py"})
)
REPLY_WORDS = frozenset(
    "reply replies replying answer answers answering respond responding response responses chat "
    "talk talking message messages explain explaining summary summaries summarize".split()
)
COMMIT_WORDS = frozenset(
    "commit commits committing committed git message messages stage staging add adding push pushing".split()
)
DELIVERY_WORDS = frozenset(
    "done finish finishing finished reply replying before after say saying tell telling claim "
    "claiming complete completing wrap wrapping hand report reporting end task".split()
)


def number(word: str) -> int | None:
    word = word.lower()
    return int(word) if word.isdigit() else NUMBERS.get(word)


def spec(kind: str, params: dict[str, Any]) -> CheckSpec:
    from heedful.rules.checks import KINDS

    module = KINDS[kind]
    evidence = module.evidence_for(params) if hasattr(module, "evidence_for") else list(module.EVIDENCE)
    return CheckSpec(kind=kind, stage=stage_of(kind, params), params=params, evidence=evidence)


# -- qualifiers -------------------------------------------------------------------------------
def split_qualifiers(text: str) -> tuple[str, list[str], list[str]]:
    """(the directive, its conditions, its exceptions) as written inside one rule's text."""
    conditions: list[str] = []
    exceptions: list[str] = []
    main = _ASK_FIRST.sub("", text)
    for pattern, found in ((_EXCEPTION, exceptions), (_CONDITION, conditions), (_QUALIFIER, conditions)):
        for match in list(pattern.finditer(main)):
            found.append(match.group(0).strip(" ,;"))
        main = pattern.sub(" ", main)
    return re.sub(r"\s+", " ", main).strip(" ,;:.!?"), conditions, exceptions


def _content_words(text: str) -> list[str]:
    words = [w.strip("'\"`").rstrip(".").lower() for w in re.findall(r"[\w.'`/*-]+", text)]
    return [w for w in words if w and w not in GENERIC and not w.startswith("when") and w not in ("if", "as", "long")]


def condition_decided(condition: str, check: CheckSpec) -> bool:
    """Whether the check's own firing decides the condition (it only fires when the activity happens)."""
    allowed: set[str] = set()
    params = check.params
    if check.kind == "forbidden_command":
        for program in [params.get("program"), *(params.get("alternatives") or [])]:
            if isinstance(program, str):
                allowed |= vocab.activity_words(program.split()[0])
                allowed |= {program.lower(), *program.lower().split()}
        allowed |= {str(w).lower() for w in params.get("subcommand") or []}
    elif check.kind in ("forbidden_path",):
        allowed |= EDIT_WORDS
    elif check.kind in ("staged_path", "commit_message"):
        allowed |= COMMIT_WORDS
    elif check.kind.startswith("reply_") or check.kind == "field_value":
        allowed |= REPLY_WORDS
    elif check.kind in ("required_event", "workspace_leftovers"):
        allowed |= DELIVERY_WORDS | EDIT_WORDS
    content = _content_words(condition)
    return bool(content) and all(w in allowed or re.fullmatch(r"\*?\.\w+", w) for w in content)


def exception_decided(exception: str, check: CheckSpec) -> bool:
    """Only an exception the check already leaves out: "--force-with-lease is fine" for --force, or
    "grep is fine again" beside a rule against rg (another program being fine restricts nothing)."""
    if check.kind != "forbidden_command":
        return False
    if "lease" in exception.lower():
        return all("--force-with-lease" not in group for group in check.params.get("flags") or [])
    fine = re.match(r"^`?([\w.-]+)`? is (?:ok|okay|fine|allowed)\b", exception.strip(), re.I)
    named = vocab.program_named(fine.group(1)) if fine else None
    return named is not None and named != check.params.get("program")


# -- replies ----------------------------------------------------------------------------------
_REPLY = r"(?:replies|reply|answers?|responses?|messages to me|final messages?|explanations?|summaries|summary|output)"
_OP = (
    r"(?P<op>under|below|fewer than|less than|at most|no more than|max(?:imum)?(?: of)?|within|not exceed(?:ing)?|"
    r"limit(?:ed)? to|up to|no longer than|to|in)"
)
_UNIT = r"(?P<unit>words?|lines?|bullet points?|bullets?|points|sentences?|paragraphs?|items)"
_COUNTS = (
    re.compile(rf"\b{_OP}\s+{_NUM}\s+{_UNIT}\b", re.I),
    re.compile(rf"\b{_NUM}\s+{_UNIT}\s+(?:max(?:imum)?|or (?:fewer|less)|tops|at most|or shorter)\b", re.I),
    re.compile(
        r"\b(?P<n>one|single)[- ](?P<unit>line|sentence|paragraph)\s+(?:replies|answers|responses|summaries)\b", re.I
    ),
)
_NOT_REPLY = re.compile(
    r"\b(?:commit|functions?|methods?|files?|classes|modules?|docstrings?|comments?|tests?|"
    r"PR|pull requests?|titles?|names?|variables?|logs?|lines? of code|code|changelog|readme|"
    r"issues?|tickets?|subjects?)\b",
    re.I,
)
_UNITS = {
    "word": "words",
    "line": "lines",
    "bullet": "bullets",
    "point": "bullets",
    "sentence": "sentences",
    "paragraph": "paragraphs",
    "item": "bullets",
}
_EMOJI = re.compile(r"\bemoji(?:s)?\b|\bemoticons?\b|\bsmiley(?:s| faces?)?\b", re.I)
_NEGATED = re.compile(r"(?<![\w-])(?:never|no|don'?t|do not|stop|avoid|without|quit|not)(?![\w-])", re.I)
_QUOTED = re.compile(r"[\"“](?P<a>[^\"”]{2,80})[\"”]|(?<![\w])['‘](?P<b>[^‘’]{2,80}?)['’](?=[\s,.;:!?)]|$)")
_SAY = re.compile(
    r"\b(?:never|don'?t|do not|stop|no more|avoid|quit)\s+(?:ever\s+)?(?:say(?:ing)?|writ(?:e|ing)|"
    r"us(?:e|ing)|start(?:ing)?|begin(?:ning)?|open(?:ing)?|end(?:ing)?|clos(?:e|ing)|sign(?:ing)? off|"
    r"add(?:ing)?|includ(?:e|ing)|put(?:ting)?|respond(?:ing)?|repl(?:y|ying)|tell(?:ing)? me)\b",
    re.I,
)
_APOLOGY = re.compile(r"\b(?:don'?t|do not|never|stop|no)\s+(?:apologi[sz](?:e|ing)|apologies|saying sorry)\b", re.I)
_EM_DASH = re.compile(r"\bem[- ]?dash(?:es)?\b|—", re.I)


def _reply_count(text: str) -> CheckSpec | None:
    match = next((m for m in (p.search(text) for p in _COUNTS) if m), None)
    if not match or _NOT_REPLY.search(text):
        return None
    n, unit = number(match.group("n") or ""), match.group("unit")
    op = match.groupdict().get("op")
    if (
        op
        and op.lower() in ("to", "in")
        and not re.search(rf"\b(?:keep|limit|reply|respond|answer|{_REPLY})\b", text, re.I)
    ):
        return None
    if not n or n <= 0:
        return None
    unit_name = _UNITS.get(unit.lower().rstrip("s").replace(" point", ""), "words")
    if unit_name == "words":
        return spec("reply_word_limit", {"limit": n})
    return spec("reply_count_limit", {"unit": unit_name, "limit": n})


def _quoted(text: str) -> list[str]:
    return [(m.group("a") or m.group("b")).strip().rstrip(".…").strip() for m in _QUOTED.finditer(text)]


def _forbidden_text(text: str) -> list[str]:
    """Patterns a negated rule forbids in text: any emoji, em dashes, apologies, quoted phrases."""
    if not _NEGATED.search(text):
        return []
    if _EMOJI.search(text):
        return ["emoji"]
    if _EM_DASH.search(text):
        return ["—"]
    if _APOLOGY.search(text):
        return ["sorry", "I apologize"]
    if _SAY.search(text) or re.search(r"\b(?:words?|phrases?)\b", text, re.I):
        return [q for q in _quoted(text) if q]
    return []


_OTHER_TEXT = re.compile(
    r"\b(?:code|comments?|docstrings?|files?|variable|names?|logs?|docs?|documentation|readme|"
    r"PR|pull requests?|issues?|UI|strings?|tests?|markdown|headers?|commit)\b",
    re.I,
)


def _reply_text(text: str) -> CheckSpec | None:
    patterns = _forbidden_text(text)
    if not patterns:
        return None
    if _OTHER_TEXT.search(text) and not re.search(rf"\b{_REPLY}\b|\bchat\b", text, re.I):
        return None
    return spec("reply_forbidden_text", {"patterns": patterns})


# -- commits ----------------------------------------------------------------------------------
_COMMIT = re.compile(r"\bcommit(?:s|ting)?\b|\bcommit messages?\b", re.I)
_CONVENTIONAL = re.compile(r"\bconventional[- ]commits?\b|\b(?:feat|fix|chore)\s*:", re.I)
CONVENTIONAL = r"^(feat|fix|chore|docs|refactor|test)(\(.+\))?: "
_SUBJECT = re.compile(
    rf"\b(?:subjects?|first lines?|titles?|summary lines?|headers?|commit messages?)\b.{{0,40}}?"
    rf"(?:\b(?:under|below|at most|max(?:imum)?(?: of)?|no more than|within|to|up to)\s+|<=?\s*)"
    rf"{_NUM}\s*(?:char(?:acter)?s?)?\b|\b{_NUM.replace('?P<n>', '?P<m>')}\s+char(?:acter)?s?\s+"
    r"(?:or (?:fewer|less)|max)\b",
    re.I,
)
_TRAILER = re.compile(r"\b(?:co-?authored[- ]by|co-?author(?:s|ed)?|yourself as (?:a )?(?:co-?)?author)\b", re.I)
_MENTION = re.compile(
    r"\b(?:mention(?:ing)?|name|naming|reference|referencing|credit(?:ing)?)\s+(?P<who>claude|"
    r"anthropic|openai|chatgpt|gpt|copilot|codex|cursor|gemini)\b",
    re.I,
)


def _commit_message(text: str) -> CheckSpec | None:
    if not _COMMIT.search(text) and not _TRAILER.search(text):
        return None
    params: dict[str, Any] = {}
    subject = _SUBJECT.search(text)
    if subject:
        n = number(subject.group("n") or subject.group("m") or "") or 0
        if n > 0:
            params["max_subject"] = n
    if _CONVENTIONAL.search(text) and re.search(r"\b(?:use|follow|write|always|must)\b", text, re.I):
        params["require"] = CONVENTIONAL
    start = re.search(
        r"\b(?:start|begin|prefix)\w*\b.{0,40}\bwith\s+(?:an? |the )?(?P<what>lower-?case|upper-?case|"
        r"capital|jira|ticket|issue)",
        text,
        re.I,
    )
    if start:
        what = start.group("what").lower()
        params["require"] = (
            "^[a-z]"
            if what.startswith("lower")
            else "^[A-Z]"
            if what in ("upper-case", "uppercase", "capital")
            else "^[A-Z][A-Z0-9]+-[0-9]+"
        )
    if _NEGATED.search(text):
        forbid: list[str] = []
        if _TRAILER.search(text):
            forbid.append("Co-Authored-By")
        if _EMOJI.search(text):
            forbid.append("emoji")
        mention = _MENTION.search(text)
        if mention:
            forbid.append(mention.group("who").capitalize() if mention.group("who").lower() != "openai" else "OpenAI")
        for phrase in _quoted(text):
            if phrase and phrase.lower() not in (f.lower() for f in forbid):
                forbid.append(phrase)
        if re.search(r"\bgenerated[- ](?:with|by)\b", text, re.I) and not any("generated" in f.lower() for f in forbid):
            forbid.append("Generated with")
        if not forbid and re.search(r"\bsigned-off-by\b", text, re.I):
            forbid.append("Signed-off-by")
        if not forbid and re.search(r"\bWIP\b", text):
            forbid.append("WIP")
        if forbid:
            params["forbid"] = forbid
    elif re.search(r"\bsigned-off-by\b", text, re.I):
        params["require"] = "Signed-off-by: "
    return spec("commit_message", params) if params else None


# -- paths --------------------------------------------------------------------------------------
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
_LOCKFILES = ["*.lock", "package-lock.json", "pnpm-lock.yaml"]
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


def _path_checks(text: str) -> list[CheckSpec]:
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


# -- required commands --------------------------------------------------------------------------
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


def _required_event(text: str, conditions: Sequence[str]) -> CheckSpec | None:
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


# -- commands -----------------------------------------------------------------------------------
FLAG_SUBCOMMAND = {"--no-gpg-sign": "commit", "--amend": "commit"}
FLAG_OWNERS = {
    "--no-verify": "git",
    "--force-with-lease": "git",
    "--amend": "git",
    "--no-gpg-sign": "git",
    "--break-system-packages": "pip",
    "--legacy-peer-deps": "npm",
}
_BRANCH = re.compile(r"\b(?:to|into|on|onto)\s+(?:the\s+)?`?(?P<b>[\w./*-]+)`?(?:\s+branch)?", re.I)
_NOT_BRANCH = frozenset("it the remote origin github upstream a any that this there them shared".split())


def _from_mention(mention: vocab.Mention, text: str, single: bool = True) -> dict[str, Any] | None:
    params: dict[str, Any] = {"program": mention.program}
    subcommand = list(mention.subcommand)
    flags = [list(g) for g in mention.flags]
    if [w for w in mention.unread if w not in vocab.FILLER and w not in vocab.CONCEPT_WORDS]:
        return None  # the rule says more about the command than a check can state
    for concept in mention.concepts:
        rule = vocab.concept_flags(mention.program, concept, subcommand)
        if rule is None:
            if concept in vocab.STRICT_CONCEPTS:
                return None
            continue
        if rule.subcommand_words:
            subcommand = list(rule.subcommand_words)
        elif rule.subcommand and not subcommand:
            subcommand = rule.subcommand.split()
        elif rule.subcommand and subcommand[: len(rule.subcommand.split())] != rule.subcommand.split():
            return None
        for group in rule.flags:
            if not any(set(group) & set(existing) for existing in flags):
                flags.append(list(group))
    read_flags = {alias for group in flags for alias in group}
    flagged = text.split(" instead", 1)[0] if mention.role == "forbid" else text
    for literal in re.findall(r"(?<![\w-])--[a-zA-Z][\w-]*|(?<![\w-])-[a-zA-Z](?![\w-])", flagged):
        owner = FLAG_OWNERS.get(literal)
        if literal not in read_flags and (owner == mention.program or (owner is None and single)):
            flags.append(vocab.flag_groups_for(mention.program, literal))
            read_flags.add(literal)
    args = list(mention.args)
    if mention.program == "git" and subcommand[:1] == ["push"] and not args:
        branch = _BRANCH.search(text[text.lower().find("push") :] if "push" in text.lower() else "")
        if branch and branch.group("b").lower() not in _NOT_BRANCH:
            args = [branch.group("b")]
            params["implicit_target"] = True
    if subcommand:
        params["subcommand"] = subcommand
    unique: list[list[str]] = []
    for group in flags:  # one alias group per flag, however many times the rule names it
        if not any(set(group) <= set(other) for other in unique):
            unique = [other for other in unique if not set(other) < set(group)] + [group]
    if unique:
        params["flags"] = unique
    if args:
        params["args"] = args
    return params


def _command_checks(text: str) -> list[CheckSpec]:
    mentions = vocab.read_commands(text)
    forbid = [m for m in mentions if m.role == "forbid"]
    prefer = [m for m in mentions if m.role == "prefer" and m.program not in {f.program for f in forbid}]
    alternatives = list(dict.fromkeys(" ".join([m.program, *m.subcommand]) for m in prefer))
    if not forbid:
        literal = next((f for f in re.findall(r"(?<![\w-])--[a-z][\w-]*", text) if f in FLAG_OWNERS), None)
        if literal and _NEGATED.search(text):
            group = [literal]  # without a subcommand a short alias may mean something else (`git push -n`)
            params: dict[str, Any] = {"program": FLAG_OWNERS[literal], "flags": [group]}
            if literal in FLAG_SUBCOMMAND:
                params["subcommand"] = [FLAG_SUBCOMMAND[literal]]
            return [spec("forbidden_command", params)]
        defaults = [(vocab.family_default(m.program), m) for m in prefer if not m.subcommand or m.program == "uv"]
        defaults = [(d, m) for d, m in defaults if d]
        if defaults and not _NEGATED.search(text.split(defaults[0][1].program)[0]):
            return [spec("forbidden_command", {"program": defaults[0][0], "alternatives": alternatives})]
        return []
    out: list[CheckSpec] = []
    for mention in forbid:
        params = _from_mention(mention, text, single=len(forbid) == 1)
        if params is None:
            continue
        if alternatives:
            params["alternatives"] = alternatives
        if not any(existing.params == params for existing in out):
            out.append(spec("forbidden_command", params))
    return out


# -- the other kinds ------------------------------------------------------------------------------
_JSON_REPLY = re.compile(rf"\b(?:{_REPLY}|respond|reply|answer|output)\b.{{0,30}}\bjson\b", re.I)
_FIELDS = re.compile(
    r"\b(?:fields?|keys?|properties)\s*:?\s+(?P<list>.+?)(?:$|\.(?:\s|$))|\b(?:with|including|include|includes|"
    r"containing|contain|has|have)\s+(?:an? |the )?(?P<list2>`[^`]+`(?:(?:,\s*|,?\s+and\s+)`[^`]+`)*|"
    r"[\w-]+(?:,\s*[\w-]+)*,?\s+and\s+[\w-]+)",
    re.I,
)
_FIELD_VALUE = re.compile(
    r"`(?P<field>[\w.-]+)`\s+(?:field\s+)?(?:must|should|has to|needs to)\s+(?:always\s+)?(?P<neg>not\s+|never\s+)?"
    r"(?:be|equal|equals|be set to)\s+`?(?P<value>[^`\s]+)`?"
    r"|never set\s+`(?P<field2>[\w.-]+)`\s+to\s+`?(?P<value2>[^`\s]+)`?",
    re.I,
)
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


def _json_checks(text: str) -> list[CheckSpec]:
    out: list[CheckSpec] = []
    if _JSON_REPLY.search(text):
        fields_match = _FIELDS.search(text)
        if fields_match:
            raw = fields_match.group("list") or fields_match.group("list2") or ""
            fields = re.findall(r"`([^`]+)`", raw) or [
                f.strip(" .'\"")
                for f in re.split(r",\s*(?:and\s+)?|\s+and\s+", raw)
                if re.fullmatch(r"[\w-]+", f.strip(" .'\""))
            ]
            if fields:
                out.append(spec("reply_json_fields", {"fields": fields}))
    value = _FIELD_VALUE.search(text)
    if value and re.search(r"\bjson\b|\breply\b|\bresponse\b|\boutput\b|\bpayload\b", text, re.I):
        field = value.group("field") or value.group("field2")
        literal = value.group("value") or value.group("value2")
        negated = bool(value.group("neg")) or bool(value.group("field2"))
        parsed: Any = literal.strip("'\"")
        if parsed in ("true", "false"):
            parsed = parsed == "true"
        elif re.fullmatch(r"-?\d+", parsed):
            parsed = int(parsed)
        target = "artifact" if re.search(r"\bfile\b|\bartifact\b|\.json\b", text, re.I) else "delivery"
        out.append(
            spec(
                "field_value",
                {
                    "target": target,
                    "path": field.split("."),
                    "op": "not_equals" if negated else "equals",
                    "value": parsed,
                },
            )
        )
    return out


def _leftovers(text: str) -> CheckSpec | None:
    leftover = _LEFTOVER.search(text)
    if not leftover:
        return None
    what = leftover.group("what").lower()
    globs = _LEFTOVER_GLOBS.get(what) or [g.strip("`") for g in re.split(r"\s+(?:or|and)\s+", what) if g.strip("`")]
    if not globs or not all("*" in g or "`" in what for g in globs):
        return None
    return spec("workspace_leftovers", {"globs": globs})


# -- entry point ----------------------------------------------------------------------------------
def _all_proposals(text: str, conditions: Sequence[str]) -> list[CheckSpec]:
    proposals: list[CheckSpec] = [*_json_checks(text)]
    for found in (
        _commit_message(text),
        _reply_count(text),
        _reply_text(text),
        _required_event(text, conditions),
        _leftovers(text),
    ):
        if found is not None:
            proposals.append(found)
    if not any(p.kind in ("commit_message", "required_event", "workspace_leftovers") for p in proposals):
        proposals += _path_checks(text)
    if not proposals and not re.search(r"\bcommit (?:messages?|subjects?|titles?)\b", text, re.I):
        proposals += _command_checks(text)
    return proposals


def qualifiers_decided(text: str, check: CheckSpec, condition: str | None, exceptions: Sequence[str]) -> bool:
    """Whether every condition and exception of the rule (in its text or given apart) is one the check decides."""
    _, conditions, found_exceptions = split_qualifiers(text.strip().rstrip(".!?;:, "))
    conditions += [condition] if condition else []
    return all(condition_decided(c, check) for c in conditions) and all(
        exception_decided(e, check) for e in [*found_exceptions, *exceptions]
    )


def propose(text: str, condition: str | None = None, exceptions: Sequence[str] = ()) -> list[CheckSpec]:
    """Programmatic check specs this directive fully states; empty when it states none."""
    text = text.strip().rstrip(".!?;:, ")
    if not text or _RETRACTION.search(text):
        return []
    main, conditions, _ = split_qualifiers(text)
    proposals = _all_proposals(main, [*conditions, *([condition] if condition else [])])
    return [p for p in proposals if qualifiers_decided(text, p, condition, exceptions)]


def command_words(phrase: str, keep_adverbs: bool = False) -> list[str]:
    """The leading words of a command named in prose, up to the first word that is not part of it."""
    words: list[str] = []
    for word in phrase.split():
        lowered = word.lower()
        if lowered in vocab.STOP or (not keep_adverbs and lowered.endswith("ly") and word[0] != "-"):
            break
        words.append(word)
    return words
