"""Conditions and exceptions written inside a rule, and whether a proposed check decides them.

A condition or exception stays with the rule: a check is proposed only when the evidence decides
it ("use fd instead of find when you look for files": the check fires only when find runs, which
is the condition). "Unless I say so" or "for large files" is not decided by any evidence: guidance;
"unless the user asks" on a blocking check is: the block makes the agent ask.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from heedful.rules import vocabulary as vocab
from heedful.rules.compile.environments import environment_decided
from heedful.rules.compile.events import moment
from heedful.rules.compile.words import COMMIT_WORDS, DELIVERY_WORDS, EDIT_WORDS, GENERIC, REPLY_WORDS, mask_quoted
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

_CONDITION = lazy(
    r"(?:^|(?<=[,;(])|(?<=\s))(?P<q>(?:when(?:ever)?|if|while|during|only (?:when|if|for)|"
    r"as long as|in case)\b[^,;()]*)",
    re.I,
)
_EXCEPTION = lazy(
    r"(?:^|(?<=[,;(])|(?<=\s))(?P<q>(?:unless|except|other than|apart from|but not|"
    r"but (?:it'?s|that'?s) (?:ok|okay|fine)|`?-{0,2}[\w.-]*\w`? (?:is|are) (?:ok|okay|fine|allowed))\b[^;()]*)",
    re.I,
)
_QUALIFIER = lazy(
    r"\bfor (?:\w+ ){0,2}?(?:large|big|huge|small|tiny|long|short|important|major|minor|complex|"
    r"simple|trivial|quick|critical|sensitive|risky|shared|public|production|prod)\b[\w ]*|"
    r"\b(?:inside|outside|within|in|into|on|against) (?:the |a |an |any |our )?(?:containers?|docker|ci|"
    r"prod(?:uction)?|servers?|vms?|clusters?|host|remote|staging|pods?|prod pods|"
    r"(?:build |ci |dev |test |shared |remote )?(?:box(?:es)?|runners?|servers?)|(?:build|ci) agents?)\b[\w ]*",
    re.I,
)
# "Without asking" forbids the action until the user approves it: blocking it is exactly that.
_ASK_FIRST = lazy(
    r"[,;(]?\s*\b(?:without (?:asking|approval|permission|checking with me|my (?:ok|okay|approval|"
    r"permission)|the user'?s? (?:ok|approval|permission)|(?:(?:an?|the|any|explicit|prior|express|first)\s+)+"
    r"(?:instructions?|requests?|confirmation|go-ahead|consent)|first confirming)|ask(?: me)? first|"
    r"check with me first)\b"
    r"[^,;]*",
    re.I,
)


# A condition or exception that only waits for the user's explicit go-ahead: a block that makes the agent ask is
# exactly the rule ("unless explicitly asked", "unless the user asks", "without explicit confirmation from the
# user", "autonomously"). "Unless I say so" or "unless asked for detail" stays an exception no evidence decides.
ASK_ONLY = lazy(
    r"^\W*(?:(?:without|w/o)\s+(?:(?:an?|explicit|prior|express|written|the user'?s?|my|a human'?s?|first)\s+)*"
    r"(?:confirmation|confirming|approval|permission|consent|instructions?|requests?|direction|asking|checking|go-ahead|"
    r"sign-?off|ok|okay|say-?so)\b.*|"
    r"(?:before|until)\s+(?:the user|i|we|a human|a maintainer|someone)\s+(?:has\s+|have\s+)?(?:\w+\s+){0,4}?"
    r"(?:approv\w*|confirm\w*|sign\w* off|ok(?:ay)?s? it|gives? the go-ahead|says? so)\b.*|"
    r"unless\s+(?:(?:the user|i|we|a human|a maintainer|someone|the task|you(?:'re| are)?)\s+)?"
    r"(?:explicitly|specifically|expressly)\s+(?:asks?|asked|requests?|requested|tells? you|told|instructed|prompted|"
    r"directed|approves?|approved|says? so)\b.*|"
    r"unless\s+(?:explicitly\s+|specifically\s+)?(?:asked|requested|told(?: to)?|instructed|prompted|directed)"
    r"(?:\s+to)?\W*$|"
    r"unless\s+(?:the user|i|we|a human|a maintainer|someone)\s+(?:explicitly\s+)?(?:asks?|approves?|requests? it|"
    r"tells? you to)(?:\s+(?:to|first|for it))?\W*$|"
    r"unless\s+(?:a|an|the)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:is|was|has been)\s+(?:explicitly|specifically)\s+"
    r"(?:requested|asked for|approved)\b.*|"
    r"(?:autonomously|on your own|by yourself|unprompted|unasked|without being asked)\W*)$",
    re.I,
)


# The same reading by vocabulary, for the phrasings the pattern above does not list ("unless the user asks in the
# current message", "without explicit user approval", "until I have signed off on it in this chat"): a lead that
# waits, a word of the user's permission, and nothing else but who, how explicitly and where it was said.
_WAITING_LEADS = frozenset({"without", "w/o", "unless", "until", "till", "except"})
_PERMISSION_WORDS = frozenset(
    "ask asks asked asking request requests requested requesting approval approve approves approved approving "
    "confirm confirms confirmed confirmation confirming permission permits permitted consent consents consented "
    "instruct instructs instructed instruction instructions instructing told tell tells go-ahead "
    "goahead sign-off signoff signed prompted directed direction authorization authorisation authorized authorised "
    "authorizes authorises ok okay okays okayed greenlight green-light show showing shown".split()
)
_WAITING_FILLER = frozenset(
    "the a an user users user's i me my we us our you your their them it its so this that these those to for from "
    "in on by of off with do does did has have had been is was are being get gets getting receive receiving got "
    "explicit explicitly specific specifically express expressly direct directly clear clearly prior first "
    "human maintainer maintainers someone owner owners written verbal current same message turn prompt chat "
    "conversation session task otherwise there there's as such light green".split()
)


# A condition that is the asking itself ("ask first", "ask the user to confirm first", "confirm with me before
# running it"): a blocking check makes the agent ask, which is all the condition says.
_ASK_CONDITION = lazy(
    r"^\W*(?:always\s+)?(?:ask|confirm with|check with|get (?:approval|permission|confirmation|sign-?off)(?: from)?)\b"
    r"(?:\s+(?:me|us|the user|the maintainers?|a human|a maintainer))?"
    r"(?:\s+(?:to confirm|to approve|for (?:approval|confirmation|permission|the go-ahead)))?"
    r"(?:\s+(?:first|beforehand|before\b.*))?\W*$",
    re.I,
)


def waits_for_permission(qualifier: str) -> bool:
    """Whether a condition or exception only waits for the user's own word ("unless the user asks in the current
    message", "without explicit user approval"): a block that makes the agent ask decides it."""
    words = re.findall(r"[\w'/-]+", qualifier.lower())
    if len(words) < 2 or words[0] not in _WAITING_LEADS:
        return False
    rest = words[1:]
    return any(w in _PERMISSION_WORDS for w in rest) and all(
        w in _PERMISSION_WORDS or w in _WAITING_FILLER for w in rest
    )


# "only when explicitly asked" on a command: the command waits for the user's word (and nothing else: "only when
# asked or before a release" names another moment). A file rule said so ("create docs only when asked") would block
# every edit of such files, so only a command's check decides it.
ASKED = (
    r"(?!.*\b(?:or|and)\b)(?:(?:the user|i|we|you(?:'re| are)?|the task|someone)\s+)?"
    r"(?:explicitly\s+|specifically\s+)?(?:asks?|asked|requests?|requested|tells? you|told|instructs?|instructed)\b.*$"
)
ONLY_WHEN_ASKED = lazy(rf"^\W*only\s+(?:when|if)\s+{ASKED}", re.I)
# Kinds that block an action: blocking until the user approves is what an ask-first rule asks for.
ACTION_KINDS = frozenset({"forbidden_command", "forbidden_path", "staged_path", "commit_message"})


def split_qualifiers(text: str) -> tuple[str, list[str], list[str]]:
    """(the directive, its conditions, its exceptions) as written inside one rule's text."""
    conditions: list[str] = []
    exceptions: list[str] = []
    main = _ASK_FIRST.sub("", text)
    for pattern, found in ((_EXCEPTION, exceptions), (_CONDITION, conditions), (_QUALIFIER, conditions)):
        # a qualifier inside a quoted phrase ("'let me know if you need anything'") is the phrase's own words
        spans = [m.span() for m in pattern.finditer(mask_quoted(main))]
        for start, end in reversed(spans):
            found.insert(0, main[start:end].strip(" ,;"))
            main = main[:start] + " " + main[end:]
    main = re.sub(r"\s+", " ", main).strip(" ,;:!?").rstrip(".")
    # a leading dot names a dotfile (".env must never be committed"), not punctuation
    return re.sub(r"^[.\s]+(?![\w/*~])", "", main).strip(" ,;:!?"), conditions, exceptions


# "when signing blocks a commit", "if the hook fails", "when the push is rejected": the moment a bypass flag would be
# reached for. A ban on the bypass holds then, which is the only time it is used: the flag's check decides it.
_WHEN_IT_FAILS = lazy(
    r"^(?:when(?:ever)?|if|once|in case)\b[^,;]{0,60}?\b(?:fail\w*|block\w*|reject\w*|refus\w*|error\w*|"
    r"break\w*|complain\w*|is slow|are slow|takes? too long|(?:does|do|did)\s*n[o']t (?:work|pass))\b[^,;]*$",
    re.I,
)
_BYPASS_FLAGS = frozenset(
    "--force -f --no-verify --no-gpg-sign --legacy-peer-deps --force-with-lease --break-system-packages --insecure "
    "--ignore-scripts --skip-tests --hard --allow-empty --no-check".split()
)


def _bypasses(check: CheckSpec) -> bool:
    """Whether every flag the check forbids is a way around a failure (`--no-verify`, `--force`, `--no-*`)."""
    groups = [g for g in check.params.get("flags") or [] if isinstance(g, list)]
    return bool(groups) and all(
        any(str(f) in _BYPASS_FLAGS or str(f).startswith(("--no-", "--skip")) for f in g) for g in groups
    )


# Kinds of code change: a required command after a fix, a feature or a refactor runs after the edits that make it.
_CODING = frozenset(
    "fix fixes fixing fixed bug bugs bugfix bugfixes feature features implement implementing implementation refactor "
    "refactors refactoring develop developing development coding".split()
)
# Conditions every command the agent runs meets: it runs them on the machine it develops on.
_ALWAYS_TRUE = frozenset("develop developing development dev coding locally local host machine".split())
# Prepositions of a condition carry no activity of their own ("when you look *through* the code").
_PREPOSITIONS = frozenset("if as long through across into over around inside within from at by via".split())


def _content_words(text: str) -> list[str]:
    words = [w.strip("'\"`").rstrip(".").lower() for w in re.findall(r"[\w.'`/*-]+", text)]
    return [w for w in words if w and w not in GENERIC and not w.startswith("when") and w not in _PREPOSITIONS]


def condition_decided(condition: str, check: CheckSpec) -> bool:
    """Whether the check's own firing decides the condition (it only fires when the activity happens)."""
    allowed: set[str] = set()
    params = check.params
    if check.kind == "forbidden_command":
        for program in [params.get("program"), *(params.get("alternatives") or [])]:
            if isinstance(program, str) and program.split():
                allowed |= vocab.activity_words(program.split()[0])
                allowed |= {program.lower(), *program.lower().split()}
        allowed |= {str(w).lower() for w in params.get("subcommand") or []}
        allowed |= {"command", "commands", "shell", "terminal", "cli", "directly"}  # any command line is decided
        allowed |= _ALWAYS_TRUE  # "when developing", "locally": every command the agent runs is run so
    elif check.kind in ("forbidden_path",):
        allowed |= EDIT_WORDS
    elif check.kind in ("staged_path", "commit_message"):
        allowed |= COMMIT_WORDS
    elif check.kind.startswith("reply_") or check.kind == "field_value":
        allowed |= REPLY_WORDS
    elif check.kind in ("required_event", "workspace_leftovers"):
        allowed |= DELIVERY_WORDS | EDIT_WORDS
        if check.kind == "required_event":
            allowed |= _CODING  # "run the tests when fixing bugs": a fix is a change the event log sees
        if check.kind == "required_event" and moment(condition) is not None:
            return True  # "after changing go.mod", "before each commit": the event log decides it
    if check.kind in ACTION_KINDS and (
        ASK_ONLY.match(condition.strip()) or waits_for_permission(condition) or _ASK_CONDITION.match(condition)
    ):
        return True
    if check.kind == "forbidden_command" and ONLY_WHEN_ASKED.match(condition.strip()):
        return True
    if check.kind == "forbidden_command" and environment_decided(condition, check):
        return True  # "against production": the check fires only where the command line names it
    if check.kind == "forbidden_command" and _bypasses(check) and _WHEN_IT_FAILS.match(condition.strip()):
        return True  # "don't use --no-verify when the hook fails": the failure is why the bypass would be used
    content = _content_words(condition)
    if check.kind == "forbidden_command" and content[:1] == ["before"]:
        content = content[1:]  # "before committing" on a ban of `git commit`: the block comes before the commit
    if not content and _THIS_PROJECT.match(condition.strip()):
        return True  # "in this repo": where every rule of the project holds already
    words = re.findall(r"[\w']+", condition.lower())
    if not content and words and all(w in _ABOUT_THE_WORK for w in words):
        return True  # "when working on the code", "in the codebase": the work every command is part of
    stems = {_stem(w) for w in allowed}
    return bool(content) and all(w in allowed or _stem(w) in stems or re.fullmatch(r"\*?\.\w+", w) for w in content)


# Words of a condition that names only the work itself, which every command the agent runs is part of.
_ABOUT_THE_WORK = frozenset(
    "when whenever while if in on for within across throughout inside at with you you're we we're i i'm are is am "
    "working work writing coding code codebase project projects repo repository the this our my your any".split()
)
# A condition that only names the project the rule is kept for says nothing a check must decide.
_THIS_PROJECT = lazy(
    r"^(?:in|for|on|within|across|throughout)\s+(?:this|the|our|my)\s+(?:project|repo|repository|codebase|code base|"
    r"workspace|monorepo)\W*$|^(?:in\s+)?here\W*$",
    re.I,
)


def _stem(word: str) -> str:
    """A word without its inflection, so that "installs" and "installing" are the activity "install"."""
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)] if suffix != "s" else word[:-1]
            if suffix in ("ing", "ed") and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                stem = stem[:-1]  # "formatting": format
            return stem.rstrip("e") if len(stem) > 3 else stem
    return word.rstrip("e") if len(word) > 3 else word


# "unless I ask for more detail", "unless told otherwise": on a length limit, the user's own request in the turn
# lifts the limit (enforce/override.py reads it), so the exception is decided where the check runs. "Unless I say
# so" names no request the override can read: it stays undecided.
_ASKED_FOR_MORE = lazy(
    r"^\W*unless\s+(?:(?:i|we|the user|you(?:'re| are)?|someone)\s+)?(?:explicitly\s+|specifically\s+)?"
    r"(?:asks?|asked|requests?|requested|told|tells? you|want|wants)\b"
    r"(?:\s+(?:to|for|me|you|it|otherwise|more|a|an|the|longer|long|full|in|detail|details|detailed|explanation|"
    r"answer|reply|version|deeper|depth|dive|elaborate|expand|explain|so))*\W*$",
    re.I,
)
LENGTH_KINDS = frozenset({"reply_word_limit", "reply_count_limit"})


def exception_decided(exception: str, check: CheckSpec) -> bool:
    """Only an exception the check already leaves out: "--force-with-lease is fine" for --force, or
    "grep is fine again" beside a rule against rg (another program being fine restricts nothing)."""
    if check.kind in ACTION_KINDS and (ASK_ONLY.match(exception.strip()) or waits_for_permission(exception)):
        return True
    if check.kind in LENGTH_KINDS and _ASKED_FOR_MORE.match(exception.strip()):
        return True
    if check.kind != "forbidden_command":
        return False
    if re.search(r"\blease\b|force-with-lease", exception, re.I):  # not "unless it is a release"
        return all("--force-with-lease" not in group for group in check.params.get("flags") or [])
    flag = re.match(r"^`?(-{1,2}[\w-]+)`? (?:is|are) (?:ok|okay|fine|allowed)\b", exception.strip(), re.I)
    if flag:  # "--no-gpg-sign is fine" beside a ban on --no-verify: a flag the check does not name
        return all(flag.group(1) not in group for group in check.params.get("flags") or [])
    fine = re.match(r"^`?([\w.-]+)`? is (?:ok|okay|fine|allowed)\b", exception.strip(), re.I)
    named = vocab.program_named(fine.group(1)) if fine else None
    return named is not None and named != check.params.get("program")


def qualifiers_decided(text: str, check: CheckSpec, condition: str | None, exceptions: Sequence[str]) -> bool:
    """Whether every condition and exception of the rule (in its text or given apart) is one the check decides."""
    _, conditions, found_exceptions = split_qualifiers(text.strip().rstrip(".!?;:, "))
    if re.match(r"^\W*only\b", text, re.I):  # "only use sudo when asked": the "only" belongs to the condition
        conditions = [f"only {c}" if re.match(r"(?:when|if)\b", c, re.I) else c for c in conditions]
    conditions += [condition] if condition else []
    return all(condition_decided(c, check) for c in conditions) and all(
        exception_decided(e, check) for e in [*found_exceptions, *exceptions]
    )
