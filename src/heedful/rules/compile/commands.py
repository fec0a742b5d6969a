"""The reader for rules about commands: which program, subcommand, flags and target a rule forbids.

Commands are read against the command vocabulary (rules/vocabulary.py): which program or family,
subcommand, flags and alternative the words name, and with which polarity.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from heedful.rules import vocabulary as vocab
from heedful.rules.compile import not_a_ban
from heedful.rules.compile.branches import NOT_BRANCH, PUSHED_BRANCH, branches
from heedful.rules.compile.english import related
from heedful.rules.compile.flag_choice import either_flags
from heedful.rules.compile.pipelines import pipeline_checks
from heedful.rules.compile.reach import narrowed
from heedful.rules.compile.runners import through_runner
from heedful.rules.compile.words import NEGATED, spec
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

FLAG_SUBCOMMAND = {"--no-gpg-sign": "commit", "--amend": "commit"}
FLAG_OWNERS = {
    "--no-verify": "git",
    "--force-with-lease": "git",
    "--amend": "git",
    "--no-gpg-sign": "git",
    "--break-system-packages": "pip",
    "--legacy-peer-deps": "npm",
    "--privileged": "docker",
}
_BRANCH = lazy(r"\b(?:to|into|on|onto)\s+(?:the\s+)?`?(?P<b>[\w./*-]+)`?(?:\s+branch)?", re.I)
_ON_BRANCH = lazy(r"\b(?:on|to|into)\s+(?:the\s+)?`?(?:main|master|trunk|develop|release\S*)`?\b", re.I)
_SHOWN_WITH = lazy(
    r"\b(?:print|read|open|view|show|dump|display|output|echo)\s+(?:out\s+)?(?:the\s+)?"
    r"(?:(?:[\w-]+\s+){1,2}(?:from|in|of)\s+(?:the\s+)?)?"  # "print secrets from .env with cat"
    r"(?P<path>[\w~/-]*\.[\w.*-]+|[\w.-]+/[\w./*-]*)\s+(?:with|using|via|through)$",
    re.I,
)
_WHOLE_TREE = lazy(
    r"\b(?:on|across|over|against|to)\s+(?:the\s+)?(?:whole|entire|full|complete)\s+(?:repo|repository|codebase|"
    r"code base|project|tree|monorepo)\b",
    re.I,
)


_UV_INSTALLS = (["pip"], ["add"], ["sync"], ["install"], ["remove"], ["lock"])
# Verbs right before a program that name one of its actions, not running it as such ("never upgrade pip packages").
_ACTION_VERBS = frozenset(
    "upgrade upgrading update updating bump bumping downgrade downgrading configure configuring reconfigure "
    "reinstall reinstalling install installing uninstall uninstalling restart restarting remove removing".split()
)


def _deletes(mention: vocab.Mention) -> bool:
    """Whether deleting is what the program itself does (rm, shred, trash): "never delete files with rm"."""
    family = vocab.vocabulary().family_of(mention.program)
    return family is not None and family.name in ("destructive", "recoverable_delete")


_HTTP_METHOD = lazy(r"\b(?P<m>DELETE|POST|PUT|PATCH)\s+(?:requests?|calls?|methods?)\b")
_METHOD_FLAG = frozenset({"curl", "gh"})  # HTTP clients whose request method is an option (commands.toml)


# A flag written in the rule; "--tl:off", "-p:Version" keep the value a colon joins to the switch.
_LITERAL_FLAG = lazy(r"(?<![\w-])--[a-zA-Z][\w-]*(?::[\w.-]+)?|(?<![\w-])-[a-zA-Z](?::[\w.-]+)?(?![\w-])")


def _from_mention(mention: vocab.Mention, text: str, single: bool = True) -> dict[str, Any] | None:
    params: dict[str, Any] = {"program": mention.program}
    words = vocab.plain_words(text)
    subcommand = list(mention.subcommand)
    flags = [list(g) for g in mention.flags]
    if [w for w in mention.unread if w not in vocab.FILLER and w not in vocab.CONCEPT_WORDS]:
        return None  # the rule says more about the command than a check can state
    if not_a_ban.version_of(words[mention.end : mention.end + 6]):
        return None  # "don't change the Volta or Yarn versions": the tools' versions, not running them
    before = words[max(0, mention.start - 2) : mention.start]
    if not subcommand and set(before) & _ACTION_VERBS:
        return None  # "don't upgrade pip packages": an action of the program the vocabulary cannot spell
    method = _HTTP_METHOD.search(text) if mention.program in _METHOD_FLAG else None
    for concept in mention.concepts:
        if concept == "delete" and method:
            continue  # "DELETE requests": the HTTP method, read below
        if mention.program == "git" and concept == "global" and not re.search(r"\bconfig", text, re.I):
            return None  # "global git hooks or templates": only `git config` has a global flag
        rule = vocab.concept_flags(mention.program, concept, subcommand)
        if rule is not None and not rule.flags and not rule.subcommand_words and concept in vocab.STRICT_CONCEPTS:
            rule = None  # the program has no spelling for it ("pip install globally"): the rule says more
        if rule is None:
            if concept in vocab.STRICT_CONCEPTS or (concept == "delete" and (subcommand or not _deletes(mention))):
                # "never delete docker volumes", "never run gcloud delete commands": which action deletes the
                # vocabulary cannot spell, and banning the whole program would forbid every other use
                return None
            continue
        if rule.subcommand_words:
            subcommand = list(rule.subcommand_words)
        elif rule.subcommand and not subcommand:
            subcommand = rule.subcommand.split()
        elif rule.subcommand == "add" and subcommand == ["install"]:
            subcommand = ["add"]  # "no global pnpm installs": `pnpm add -g` is how it installs globally
        elif rule.subcommand and subcommand[: len(rule.subcommand.split())] != rule.subcommand.split():
            return None
        for group in rule.flags:
            if not any(set(group) & set(existing) for existing in flags):
                flags.append(list(group))
    read_flags = {alias for group in flags for alias in group}
    flagged = text.split(" instead", 1)[0] if mention.role == "forbid" else text
    if mention.role == "forbid":  # "never `git push --force`; use `--force-with-lease`": the next clause's flags
        flagged = re.split(r";\s*|\.\s+|,\s*(?=(?:use|prefer|try|pass|add)\b)", flagged)[0]
    flagged = re.sub(r"\bpython[\d.]*\s+-m\b", " ", flagged)  # the launcher's switch, not a flag of the program
    for short, long in re.findall(r"(?<![\w-])(-[a-zA-Z])/(--[a-zA-Z][\w-]*)", flagged):
        if short not in read_flags and long not in read_flags and single:  # "with -v/--volumes": one flag, two names
            flags.append([short, long])
            read_flags.update((short, long))
    for literal in _LITERAL_FLAG.findall(flagged):
        owner = FLAG_OWNERS.get(literal)
        if literal not in read_flags and (owner == mention.program or (owner is None and single)):
            flags.append(vocab.flag_groups_for(mention.program, literal))
            read_flags.add(literal)
    if mention.program == "git" and subcommand[:1] == ["commit"] and _ON_BRANCH.search(text):
        return None  # "never commit directly on main": the branch is not in the command line
    # "no global uv tool installs": a word that repeats the subcommand, inflected, is not an argument
    args = [a for a in mention.args if a not in subcommand and re.sub(r"(?:s|es|ing|ed)$", "", a) not in subcommand]
    # "no uv tool installs": an inflected verb is the subcommand word as typed (a command line never says "installs")
    args = [_SUBCOMMAND_VERBS.get(a, a) for a in args]
    mode = re.search(r"\b[0-7]{3,4}\b", text) if mention.program in ("chmod", "umask") else None
    if mode and mode.group(0) not in args:
        args.append(mode.group(0))  # "never chmod files to 777": the mode is the forbidden argument
    shown = _SHOWN_WITH.search(" ".join(words[max(0, mention.start - 6) : mention.start]))
    if shown and not args:
        args.append(shown.group("path"))  # "never print .env with cat": the file is the forbidden argument
    if not args and mention.program != "git" and _WHOLE_TREE.search(text[text.lower().find(mention.program) :]):
        args.append(".")  # "never run prettier --write on the whole repo": the repository root as the target
    if mention.program == "git" and subcommand[:1] == ["push"] and not args:
        pushed = text[text.lower().find("push") :] if "push" in text.lower() else ""
        branch = _BRANCH.search(pushed) or PUSHED_BRANCH.match(pushed)
        if branch and branch.group("b").lower() not in NOT_BRANCH:
            args = branches(branch.group("b"), pushed[branch.end() :])
            params["implicit_target"] = True
    if method and not args and flags:  # "never send DELETE requests via gh api": the method is the argument
        args.append(method.group("m").upper())
    if mention.program in ("sudo", "doas", "pkexec") and subcommand:
        args, subcommand = [*subcommand, *args], []  # the command it runs with privileges
        # its flags are the wrapped program's own ("never sudo rm -rf": rm's -r is also --recursive)
        flags = [vocab.flag_groups_for(vocab.program_named(args[0]) or args[0], g[0]) for g in flags]
    if mention.program in vocab.RUNNERS and not subcommand and len(args) > 1:
        args, subcommand = [], args  # `npx prisma db push`: the tool it starts and its words, in order
    if subcommand:
        params["subcommand"] = subcommand
    unique: list[list[str]] = []
    for alias_group in flags:  # one alias group per flag, however many times the rule names it
        if not any(set(alias_group) <= set(other) for other in unique):
            unique = [other for other in unique if not set(other) < set(alias_group)] + [alias_group]
    if unique:
        params["flags"] = either_flags(text, unique)
    if args:
        params["args"] = args
    return params


_FLAG_CONTRAST = lazy(
    r"\b(?:instead of|rather than|not|never|over)\s+(?:using\s+)?`?(?P<flag>--?[a-zA-Z][\w-]*)`?", re.I
)


_FLAG_INSTEAD = lazy(r"[;,.]\s*(?:just\s+|but\s+)?(?:use|prefer|pass|try)\s+`?(?P<flag>--[a-z][\w-]*)`?", re.I)


def _contrasted_flag(text: str, prefer: list[vocab.Mention]) -> dict[str, Any] | None:
    """ "use git push --force-with-lease instead of --force": the same command with the contrasted flag."""
    found = _FLAG_CONTRAST.search(text)
    command = next((m for m in prefer if m.subcommand and m.flags), None)
    if found is None or command is None:
        return None
    flag = found.group("flag")
    if any(flag in group for group in command.flags):
        return None
    params: dict[str, Any] = {
        "program": command.program,
        "subcommand": list(command.subcommand),
        "flags": [vocab.flag_groups_for(command.program, flag)],
        "alternatives": [" ".join([command.program, *command.subcommand, *(g[0] for g in command.flags)])],
    }
    return params


# "pipe curl into sh", "piping wget output to bash": a pipeline between two commands, which no
# command check states (banning the first program alone would block every download).
_PIPELINE = lazy(r"\bpip(?:e|es|ed|ing)\b(?:\W+\w+){0,9}?\W+(?:into|to|through)\b", re.I)
_PRIVILEGE = ("sudo", "doas", "pkexec")


_WITH_PROGRAM = lazy(
    r"^\W*(?:with|under|via|through|using|for|on|in front of|before|to run)\s+`?(?P<word>[\w.-]+)`?(?:\W|$)", re.I
)


def _privileged(text: str, forbid: list[vocab.Mention]) -> list[CheckSpec] | None:
    """`sudo with pip` / `npm with sudo`: the privilege tool running that program, not either alone."""
    words = text.split()
    if len(forbid) == 1 and forbid[0].program in _PRIVILEGE and not forbid[0].subcommand and not forbid[0].args:
        # "don't use sudo for gem": a program the reader leaves alone as a word ("gem", "make") named right after
        after = " ".join(vocab.plain_words(text)[forbid[0].end :])
        named = _WITH_PROGRAM.match(after)
        program = vocab.program_named(named.group("word")) if named else None
        if program is not None and program not in _PRIVILEGE:
            return [spec("forbidden_command", {"program": forbid[0].program, "args": [program]})]
    for first, second in itertools.pairwise(forbid):
        between = " ".join(words[first.start + 1 : second.start]).lower()
        if not re.fullmatch(r"(?:with|under|via|through|using|for|on|in front of|before|to run)", between):
            continue
        tool, wrapped = (first, second) if first.program in _PRIVILEGE else (second, first)
        if tool.program in _PRIVILEGE and wrapped.program not in _PRIVILEGE:
            return [spec("forbidden_command", {"program": tool.program, "args": [wrapped.program]})]
    return None


def _alternative(mention: vocab.Mention) -> str:
    """How the rule says to run it instead: as written when flags or arguments say how ("python -m pytest")."""
    plain = " ".join([mention.program, *mention.subcommand])
    if (mention.flags or mention.args or _LAUNCHED.match(mention.spelled)) and len(mention.spelled.split()) <= 6:
        return mention.spelled
    return plain


# A program started through an interpreter's module switch is read as that program (`python -m pytest` is pytest):
# a rule against the bare program that offers the launched form must leave the launched form alone.
_LAUNCHED = lazy(r"^(?:python[\d.]*|py)\s+-m\s+(?P<program>[\w.-]+)$")


def _run_as(spelled: str) -> str:
    """The program the shell reader sees for a spelling (`python3` and `python` are both `python`)."""
    from heedful.rules.shell import simple_commands

    found = simple_commands(spelled.strip("`")) if spelled.strip() else []
    return found[0].program if found else spelled


def _bare_only(found: dict[str, Any], alternatives: list[str]) -> bool:
    """ "use `python -m pytest`, not bare pytest": the alternative launches the very program the rule forbids."""
    for alternative in alternatives:
        launched = _LAUNCHED.match(alternative)
        if launched and (vocab.program_named(launched.group("program")) or launched.group("program")) == found.get(
            "program"
        ):
            return True
    return False


# "never run more than one npm install at a time": how many run together, which one command line cannot show
_CONCURRENCY = lazy(
    r"\b(?:more than (?:one|once|\d+|two|a few)|at (?:a|the same) time|in parallel|concurrently|simultaneously|"
    r"at once|side by side)\b",
    re.I,
)


_SUBCOMMAND_VERBS = {
    f"{verb}{ending}": verb
    for verb in ("install", "add", "publish", "deploy", "delete", "remove", "upgrade", "update", "push", "build")
    for ending in ("s", "es", "ing", "ed")
    if not (verb.endswith("e") and ending in ("es", "ing", "ed"))
} | {"deleting": "delete", "removing": "remove", "updating": "update", "updated": "update", "deleted": "delete"}
_WITH = frozenset({"with", "using", "via", "through"})
_RUN_VERBS = frozenset(
    "use using run running call calling invoke invoking execute executing try trying do doing".split()
)


def _done_with(words: list[str], mention: vocab.Mention) -> bool:
    """Whether the rule names something done *with* the program that is not what the program is for: "stop the
    postgres container with docker" (guidance) against "never search with grep" (the program's own activity)."""
    if mention.start < 2 or words[mention.start - 1] not in _WITH:
        return False
    clause = words[: mention.start - 1]
    negations = [i for i, w in enumerate(clause) if w in vocab.NEGATIONS or w.endswith("n't")]
    verb = next((w for w in clause[negations[-1] + 1 :] if w not in ("ever", "please", "to")), "") if negations else ""
    if not verb or verb in _RUN_VERBS or not re.fullmatch(r"[a-z]+", verb):
        return False
    activities = vocab.activity_words(mention.program)
    stems = {w.rstrip("e") for w in activities} | {re.sub(r"(?:ing|es|s|ed)$", "", w) for w in activities}
    return verb not in activities and re.sub(r"(?:ing|es|s|ed)$", "", verb).rstrip("e") not in stems


# "do not use git", "never run git commands": git itself is what the rule forbids (blocking makes the agent ask)
_GIT_ITSELF = lazy(
    r"\b(?:use|using|run|running|execute|executing|invoke|invoking|touch|call|calling)\s+(?:any\s+)?`?git`?"
    r"(?:\s+(?:commands?|operations?|cli|at all|itself))?\s*"
    r"(?:$|[.,;:!?(]|\b(?:unless|without|except|until|before|ever)\b)",
    re.I,
)
_POINTERS = (["-"], ["–"], ["—"], ["->"], ["=>"], ["→"])
_DETERMINERS = frozenset("the a an any those these this that my our".split())
# Objects of "commit"/"push" that leave the command whole: "never push your changes", "don't commit anything".
_WHOLE_OBJECTS = frozenset(
    "changes change work anything everything stuff it them code commits commit branch branches edits fix fixes patch "
    "patches diff result results updates implementation".split()
)


def _names_what(after: list[str]) -> bool:
    """Whether the words after a git verb named alone say which things it acts on ("commit the api keys")."""
    if not after or after[0] not in _DETERMINERS:
        return False
    nouns = [w for w in after[1:] if re.fullmatch(r"[a-z][\w./-]*", w)]
    if after[2:3] == ["branch"]:
        return False  # "push the main branch": the branch is the push's target (read as its argument)
    return bool(nouns) and nouns[0] not in _WHOLE_OBJECTS and nouns[0] not in vocab.STOP


# "do not ask for approval to run just fmt", "no need to ask before running tests": a permission, not a ban
_NO_NEED_TO_ASK = lazy(
    r"\b(?:don'?t|do not|never|no need to|needn'?t)\s+(?:ask|wait)\s+(?:me\s+|the user\s+)?(?:for\s+)?"
    r"(?:(?:an?|the|any|my)\s+)?(?:approval|permission|confirmation|ok|go-ahead)?\s*(?:to|before)\b",
    re.I,
)


# What the project's code runs, not the agent: "do not shell out via `os/exec` for git operations".
_CODE_RUNS = lazy(
    r"\bshell(?:s|ing|ed)?[- ]out\b|\bos/exec\b|\bsubprocess\b|\bchild_process\b|"
    r"\b(?:functions?|methods?|code|helpers?) (?:that|which) (?:runs?|calls?|executes?|invokes?)\b",
    re.I,
)


# "don't push on fridays", "no deploys over the weekend": a time no check's evidence holds, so the rule narrows the
# command to a moment the check cannot tell (and "friday" is no branch)
_AT_A_TIME = lazy(
    r"\b(?:on|during|at|over|after|before)\s+(?:a\s+|the\s+|any\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
    r"weekends?|weekdays?|nights?|holidays?|(?:\d{1,2}\s*(?:am|pm)))\b|\b(?:fridays|weekends)\b",
    re.I,
)


def command_checks(text: str) -> list[CheckSpec]:
    if _CONCURRENCY.search(text) or _NO_NEED_TO_ASK.search(text) or _CODE_RUNS.search(text) or _AT_A_TIME.search(text):
        return []
    through = through_runner(text)
    if through is not None:
        return [through]
    piped = pipeline_checks(text)
    if piped is not None:
        return piped
    if _PIPELINE.search(text):
        return []
    mentions = vocab.read_commands(text)
    forbid = [m for m in mentions if m.role == "forbid"]
    privileged = _privileged(text, forbid)
    if privileged is not None:
        return privileged
    forbidden = {(f.program, tuple(f.subcommand)) for f in forbid}
    # "use prisma migrate dev instead of prisma db push": the same program under another subcommand is an alternative
    # a launched form (`python -m pytest`) is another way to run the same program, so it can replace the bare one
    prefer = [
        m
        for m in mentions
        if m.role == "prefer"
        and (
            (
                (m.program, tuple(m.subcommand)) not in forbidden
                and (m.subcommand or m.program not in {f.program for f in forbid})
            )
            or _LAUNCHED.match(m.spelled)
        )
    ]
    if not prefer and forbid and mentions[0].role == "neutral" and mentions[0].start < forbid[0].start:
        # "`bun install` (never `npm install`)", "`bun run compile` — NOT `bun run build`": the command named first
        # is the one to use
        prefer = [mentions[0]]
    if not prefer and forbid:
        # "not npm - pnpm", "no pip -> uv": the command named after a dash or an arrow is the one to use;
        # "stop using npm. it's pnpm here", "not find? fd is faster": a tool of the same job named after it
        words = vocab.plain_words(text)
        prefer = [
            m
            for m in mentions
            if m.role == "neutral"
            and m.start > forbid[0].start
            and (m.program, tuple(m.subcommand)) not in forbidden  # "leave committing to the user": the same one
            and (
                words[m.start - 1 : m.start] in _POINTERS
                or (len(forbid) == 1 and related(forbid[0].program, m.program))
            )
        ][:1]
    alternatives = list(dict.fromkeys(_alternative(m) for m in prefer))
    if not forbid:
        contrasted = _contrasted_flag(text, prefer)
        if contrasted is not None:
            return [spec("forbidden_command", contrasted)]
        literal = next((f for f in re.findall(r"(?<![\w-])--[a-z][\w-]*", text) if f in FLAG_OWNERS), None)
        if literal and NEGATED.search(text):
            group = [literal]  # without a subcommand a short alias may mean something else (`git push -n`)
            params: dict[str, Any] = {"program": FLAG_OWNERS[literal], "flags": [group]}
            if literal in FLAG_SUBCOMMAND:
                params["subcommand"] = [FLAG_SUBCOMMAND[literal]]
            return [spec("forbidden_command", params)]
        defaults = [
            (vocab.family_default(m.program), m)
            for m in prefer
            if not m.subcommand or (m.program == "uv" and m.subcommand[:1] in _UV_INSTALLS)
        ]  # `uv run` runs a program and `uv build` builds one: only its installs replace a package manager
        # "we're a yarn shop but the docs site uses npm": a tool the rule says is used is never the banned default
        used = {p.program for p in prefer}
        defaults = [(d, m) for d, m in defaults if d and not not_a_ban.how_to_run(text, m) and d not in used]
        if re.search(r"\b(?:instead of|rather than|in place of)\b", text, re.I):
            defaults = []  # "use rg instead of the glob tool": what it replaces is named, and is no program
        if defaults and not NEGATED.search(text.split(defaults[0][1].program)[0]):
            # "use `pnpm --filter web test`" names the tool by an example of its use: the alternative is the tool
            tools = list(dict.fromkeys(" ".join([m.program, *m.subcommand]) for m in prefer))
            return [spec("forbidden_command", {"program": defaults[0][0], "alternatives": tools})]
        return []
    # "use python3, not python": two spellings of one program, which the shell reader reads as the same command
    respelled = {
        (_run_as(m.spelled), m.spelled.lower())
        for m in mentions
        if m.role == "prefer" and not m.subcommand and not m.args and not _LAUNCHED.match(m.spelled)
    }
    out: list[CheckSpec] = []
    for mention in forbid:
        if (
            mention.program == "git"
            and not mention.subcommand
            and not mention.flags
            and not mention.concepts
            and not _GIT_ITSELF.search(text)
        ):
            continue  # "never commit model weights to git": git itself is not what the rule forbids
        if mention.implied and _names_what(vocab.plain_words(text)[mention.end : mention.end + 3]):
            continue  # "never commit the api keys": which commits, a thing no command line shows
        plain = not (mention.subcommand or mention.flags or mention.args)
        # the preferred spelling is the same program to the shell reader: only the forbidden spelling is checked
        respelling = [
            spelled
            for run, spelled in respelled
            if plain and run == _run_as(mention.spelled) and spelled != mention.spelled.lower()
        ]
        # a flag written beside the preferred command ("tox -e py311, not pytest") is not the forbidden one's
        found = _from_mention(mention, text, single=len(forbid) == 1 and not prefer)
        if found is None:
            continue
        flag_instead = _FLAG_INSTEAD.search(text)
        if not alternatives and flag_instead and found.get("flags"):
            # "never git push --force; use --force-with-lease": the same command with the flag the rule prefers
            forbidden = {alias for group in found["flags"] for alias in group}
            if flag_instead.group("flag") not in forbidden:
                words = [found["program"], *found.get("subcommand", []), flag_instead.group("flag")]
                found["alternatives"] = [" ".join(words)]
        if respelling:
            found["spelled"] = [mention.spelled.lower().strip("`").split()[0]]
            alternatives = respelling
        if alternatives:
            found["alternatives"] = alternatives
            if _bare_only(found, alternatives):
                # only the program started by its own name; a command check that cannot tell `pytest` from
                # `python -m pytest` fails the generated cases, so validation keeps such a rule guidance
                found["bare"] = True
        if narrowed(text, mention.start, mention.end, spec("forbidden_command", found)) is not None:
            continue  # "curl against the GitHub API": the rule allows every other use of the program
        bare = not (found.get("subcommand") or found.get("flags") or found.get("args"))
        if bare and mention.program not in vocab.PRIVILEGE_TOOLS and _done_with(vocab.plain_words(text), mention):
            continue  # "never mock the database with docker": one use of the program, not every use
        if not any(existing.params == found for existing in out):
            out.append(spec("forbidden_command", found))
    return _together(out)


def _together(found: list[CheckSpec]) -> list[CheckSpec]:
    """ "not npm or yarn", "no pip, poetry or pipenv": programs banned whole in one rule are one check, the others
    matched like the first (a rule is one check; the first program alone would let the others through)."""
    plain = [f for f in found if set(f.params) <= {"program", "alternatives"} and isinstance(f.params["program"], str)]
    if (
        len(plain) < 2
        or len(plain) != len(found)
        or vocab.vocabulary().programs.get(str(plain[0].params["program"])) is None
    ):
        return found
    first = dict(plain[0].params)
    first["synonyms"] = [
        str(f.params["program"]) for f in plain[1:] if f.params.get("alternatives") == first.get("alternatives")
    ]
    return [spec("forbidden_command", first)] if first["synonyms"] else found


def command_words(phrase: str, keep_adverbs: bool = False) -> list[str]:
    """The leading words of a command named in prose, up to the first word that is not part of it."""
    words: list[str] = []
    for word in phrase.split():
        lowered = word.lower()
        if lowered in vocab.STOP or (not keep_adverbs and lowered.endswith("ly") and word[0] != "-"):
            break
        words.append(word)
    return words
