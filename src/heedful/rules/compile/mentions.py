"""Reading the commands a rule names: which programs, with which role, subcommand, flags and arguments.

`read_commands(text)` finds the programs a rule names against the command vocabulary
(rules/vocabulary.py) and, for each, the subcommand, flags and positional arguments its words name,
the role the rule gives it (`forbid`, `prefer` or `neutral`) and the words around it that a check
cannot state. The command reader (compile/commands.py) turns that reading into check parameters.
"""

from __future__ import annotations

import re

from heedful.rules.compile.english import banned_alone, beside_sibling
from heedful.rules.compile.roles import role
from heedful.rules.compile.words import unquoted_negations
from heedful.rules.lazy_regex import lazy
from heedful.rules.program_names import is_program_name
from heedful.rules.vocabulary import (
    AMBIGUOUS,
    COMMAND_CUES,
    CONCEPT_PHRASES,
    CONCEPT_WORDS,
    FILLER,
    IMPLIED_PROGRAM,
    NEGATIONS,
    NOT_GIT_OBJECTS,
    NOT_PROGRAMS,
    NOUN_HEADS,
    PHRASAL_AFTER,
    PREFER_VERBS,
    PRIVILEGE_TOOLS,
    RUNNER_SUBCOMMANDS,
    RUNNERS,
    SINGLE_DASH_LONG,
    STOP,
    SUBCOMMAND_LEADS,
    Mention,
    Program,
    flag_groups_for,
    plain_token,
    program_named,
    tokens,
    vocabulary,
)


def _read_after(
    program: Program, words: list[str], index: int, explicit: bool = False, span: bool = False
) -> tuple[list[str], list[list[str]], list[str], list[str], int]:
    """Subcommand words, literal flags, positional args and unread words right after a program.

    `explicit`: the rule names a command line ("never run gcloud app deploy"), so plain words after
    the program are its positional words even when the vocabulary does not know them. `span`: the words
    are one backticked command, so a final `.` is its argument rather than a full stop."""
    subcommand: list[str] = []
    flags: list[list[str]] = []
    args: list[str] = []
    unread: list[str] = []
    i = index
    while i < len(words):
        word = words[i]
        plain = plain_token(word)
        if plain == "with" and i + 1 < len(words) and plain_token(words[i + 1]).startswith("-"):
            i += 1  # "never run find with -exec rm": the flags the command is run with
            continue
        if plain == "/" and explicit and not args and i + 1 == len(words):
            args.append("/")  # "never run `rm -rf /`": the root is the target, not a separator
            i += 1
            continue
        # "git add ." names the tree right after the subcommand; "git add -A." ends a sentence
        whole_tree = (
            program.name == "git"
            and subcommand[-1:] in (["add"], ["stage"], ["checkout"], ["restore"])
            and (words[i - 1] in subcommand or words[i - 1] == "--")
        )
        if (
            plain == "."
            and (span or whole_tree)
            and not args
            and (i + 1 == len(words) or plain_token(words[i + 1]) in STOP or words[i + 1] in (";", ",", ")", "—"))
        ):
            args.append(".")  # "never git add .": the whole tree, not a full stop
            i += 1
            continue
        if word in (",", ";", ":", ".", "!", "?", "(", ")", "/", "—", "–", "-", "|") or plain in STOP:
            break
        if plain == "--" and program.name == "git" and subcommand[:1] in (["checkout"], ["restore"]):
            flags.append(["--"])  # "never git checkout -- <file>": discarding a file's changes
        elif plain == "--":  # "npm test -- --watch": what follows is for another program
            unread.append(plain)
        elif "|" in plain and plain.startswith("-"):  # "-k/--insecure": aliases of one flag
            group = [a for a in plain.split("|") if a.startswith("-")]
            known = flag_groups_for(program.name, group[-1])
            flags.append(known if set(group) <= set(known) else group)
        # "-9" of kill is a flag too; "--tl:off", "-p:Version=1" keep their value (a colon joins it to the switch)
        elif re.fullmatch(r"--?[a-zA-Z][\w-]*(?::[\w.-]+)?(?:=\S+)?|-\d{1,2}", plain):
            if re.fullmatch(r"-[a-zA-Z]{2,}", plain) and program.name not in SINGLE_DASH_LONG:
                for letter in plain[1:]:
                    group = flag_groups_for(program.name, f"-{letter}")
                    if group not in flags:
                        flags.append(group)
            else:
                group = flag_groups_for(program.name, plain.split("=", 1)[0])
                if group not in flags:
                    flags.append(group)
        elif plain in subcommand or re.sub(r"(?:s|es|ing|ed)$", "", plain) in subcommand:
            pass  # "uv tool installs": the subcommand again, inflected
        elif program.name in ("chmod", "umask") and re.fullmatch(r"[0-7]{3,4}", plain) and len(args) < 2:
            args.append(plain)  # "never chmod 777": the mode
        elif (
            not args
            and (
                (program.name in RUNNERS and not subcommand)
                or (program.name, subcommand[0] if subcommand else "") in RUNNER_SUBCOMMANDS
            )
            and re.fullmatch(r"[a-z@][\w.@/:-]*", plain)
            and plain not in NOT_PROGRAMS
        ):
            args.append(plain)  # "npx tsc", "pnpm exec jest": the tool the runner starts
        elif not args and plain in program.subcommands and len(subcommand) < 2 and (not flags or not subcommand):
            # "pnpm -r run": a global option may come before the subcommand
            canonical = program.subcommands[plain].split()
            if subcommand and plain in canonical and canonical[0] != plain:
                canonical = [plain]  # "docker image prune": the word as typed after a subcommand, not `system prune`
            subcommand += [w for w in canonical if w not in subcommand]
        elif explicit and CONCEPT_WORDS.get(plain) == "delete":
            following = plain_token(words[i + 1]) if i + 1 < len(words) else ""
            if following in ("commands", "command", "operations", "calls"):
                unread.append(f"{plain} {following}")  # "gcloud delete commands": a class no command line spells
            elif not flags and not args and len(subcommand) < 2:
                subcommand.append(plain)  # "az group delete": the command line as written
            else:
                args.append(plain)  # "gh repo delete"
        elif plain in CONCEPT_WORDS or plain in FILLER:
            unread.append(plain)
        elif _untabled_subcommand(program, words, i, index, subcommand, flags, args):
            subcommand.append(plain)  # "--tl:off with dotnet format": a program the vocabulary lists no verbs for
        elif explicit and not flags and not args and len(subcommand) < 2 and re.fullmatch(r"[a-z][\w.:-]*", plain):
            subcommand.append(plain)
        elif word.startswith("`") or (
            (subcommand or explicit)
            and re.fullmatch(r"[\w./*:-]+", plain)
            and len(args) < (4 if program.name in RUNNERS else 2)  # `npx prisma db push`: the tool's own words
        ):
            args.append(plain)
        else:
            unread.append(plain)
        i += 1
    if ["--"] in flags and "." in args:
        flags.remove(["--"])  # "git checkout -- .": the whole tree, with or without the separator
    return subcommand, flags, args, unread, i


# Programs named like the files they read: "python files", "terraform files" are files of that kind.
_LANGUAGES = frozenset("python node ruby php perl java go deno terraform docker helm bash sh zsh tsc".split())


# Nouns after a language's name that make it the language, not its program ("python packages").
_OF_A_LANGUAGE = frozenset(
    "file files package packages module modules library libraries libs dependencies deps code project projects "
    "version versions".split()
)
# Words between a verb and its program: "install system packages with apt".
_BRIDGE = frozenset("with using via through system any new global globally of your our own".split())
_RUN_CUES = frozenset(
    {"run", "running", "execute", "executing", "type", "typing", "invoke", "call", "pass", "use", "using"}
)


# Words after an English verb that is also a program which make it the verb ("make changes", "make sure").
_VERB_OBJECTS = frozenset(
    "a an the any some sure it them this that these those your my our changes change edits edit commits "
    "modifications updates assumptions up".split()
)


# Words right before a program that make the words after it a command line: "run mvn package", "with dotnet format".
_SUBCOMMAND_CUES = frozenset("run running runs ran use using with via to execute executing invoke call".split())


def _untabled_subcommand(
    program: Program,
    words: list[str],
    i: int,
    start: int,
    subcommand: list[str],
    flags: list[list[str]],
    args: list[str],
) -> bool:
    """The word right after a program whose subcommands the vocabulary does not list ("dotnet format", "mvn
    package"), when the clause ends or a flag follows: the subcommand as typed. Before another word it may be a
    noun the program word modifies ("dotnet framework features"), so it stays unread."""
    if program.subcommands or subcommand or args or i != start + len(flags):
        return False
    cue = plain_token(words[start - 2]) if start >= 2 else ""
    if cue not in _SUBCOMMAND_CUES:
        return False  # "the prod aws profile", "assume clippy warnings": the program word modifies a noun
    plain = plain_token(words[i])
    following = plain_token(words[i + 1]) if i + 1 < len(words) else ""
    closes = not following or not following[:1].isalnum() or following in STOP
    return (
        bool(re.fullmatch(r"[a-z][\w:-]*", plain))
        and not plain.endswith("s")  # "sed pipelines", "npm scripts": a plural noun, not a verb of the program
        and plain not in STOP
        and plain not in ("it", "them", "anything", "something", "code", "stuff", "one")
        and plain not in NOUN_HEADS
        and (closes or following.startswith("-"))
    )


def _known_or_named(flat: list[str], i: int) -> tuple[Program, int] | None:
    """The program named at token i (an alias phrase, or any command-like word right after "run")."""
    vocab = vocabulary()
    for size in range(min(vocab.longest, len(flat) - i), 0, -1):
        key = tuple(flat[i : i + size])
        if key in vocab.phrases:
            program = vocab.programs[vocab.phrases[key]]
            before = flat[i - 1] if i > 0 else ""
            after = flat[i + size] if i + size < len(flat) else ""
            auxiliary = flat[i - 2] if i > 1 else ""
            if (
                program.name in AMBIGUOUS
                and size == 1
                and before == "not"
                and auxiliary in ("did", "do", "does", "will", "would", "could", "should", "can", "must")
                and after in ("", ".", ",", ";", "!")
            ):
                return None  # "changes you did not make.": a verb, not the program
            if (
                after in _OF_A_LANGUAGE
                and program.name in _LANGUAGES
                and before not in ("run", "running", "execute", "use", "using", "with")
            ):
                # "never commit python files", "install python packages with pip": things of the language
                return None
            if program.name == "pre-commit" and after in ("hook", "hooks"):
                return None  # "never skip pre-commit hooks": the git hooks, which `git commit --no-verify` skips
            if before == "from" and "import" in flat[max(0, i - 4) : i]:
                return None  # "never import expect from vitest": a module, not a command
            if (
                program.name in AMBIGUOUS
                and size == 1
                and not banned_alone(flat, i)
                and not beside_sibling(flat, i, program.name)
                and before not in COMMAND_CUES
                and not after.startswith("-")
                and after not in program.subcommands
                and before not in program.subcommands  # "installing go tools", "install gems": its own subcommand
            ):
                return None
            if program.name in AMBIGUOUS and size == 1 and after in ("than", "of", "like"):
                return None  # "never run more than one npm install": a word of the sentence
            if program.name in AMBIGUOUS and size == 1 and after in _VERB_OBJECTS and before != "run":
                return None  # "do not make changes to vendor/", "make sure": the verb with its object
            return program, size
    word = flat[i]
    if (
        i > 0
        and flat[i - 1] in ("run", "running", "execute", "executing")
        and re.fullmatch(r"(?:\.{0,2}/)?[\w.-]+(?:/[\w.-]+)+|\./[\w.-]+", word)
    ):
        return Program(word, None, (word,), {}, {}), 1  # "never run scripts/reindex.sh": a script by its path
    if (
        i > 0
        and flat[i - 1] in ("run", "running", "execute", "executing")
        and re.fullmatch(r"[a-z][\w.-]*", word)
        and word not in NOT_PROGRAMS
        and word not in CONCEPT_WORDS
        and word not in IMPLIED_PROGRAM
        and word not in STOP
        and not word.endswith("s")
        and not set(flat[i + 1 : i + 3]) & NOUN_HEADS
    ):
        return Program(word, None, (word,), {}, {}), 1
    if _listed_program(flat, i):
        return Program(word, None, (word,), {}, {}), 1
    return None


# Words before a listed program name that make it the program: "use mkdocs", "avoid lerna", "no doas".
_LISTED_CUES = frozenset("use using used with via prefer preferring run running execute invoke call".split())


def _listed_program(flat: list[str], i: int) -> bool:
    """A program of `program_names` (beyond the vocabulary): named after a command cue, or all a short ban names.
    Not before a noun it modifies ("use sequelize models") nor as a part of a path or a file name."""
    word = flat[i]
    if not is_program_name(word) or word in NOT_PROGRAMS or word in STOP:
        return False
    after = flat[i + 1] if i + 1 < len(flat) else ""
    if after and (after[:1].isalnum() and after not in _LISTED_FOLLOWERS) and not after.startswith("-"):
        return False  # "use lerna workspaces", "avoid mkdocs material": more than the program
    before = flat[i - 1] if i > 0 else ""
    return before in _LISTED_CUES or banned_alone(flat, i)


# Words that may follow a listed program without narrowing it: the sentence goes on, or says how it is used.
_LISTED_FOLLOWERS = frozenset(
    "for to in on at when whenever unless instead rather or and but directly anymore again ever here please "
    "because since as if while".split()
)


# Code, not a command line: a comment (`# pragma: no cover`), an assignment or a literal (`t := []string{}`), a
# call, a member (`Date.now`) or a class (`new Date`).
_CODE_SPAN = lazy(r"^\s*#|:=|[=\"'{}()\[\]<>;]|^\s*[A-Z]\w*\.\w|\s[A-Z][a-z]+[A-Z]?\w*\s*$")


def _backticked_program(inner: list[str], span: str = "") -> Program | None:
    """A backticked span names a program when it starts with a known one, or with a word that looks like a
    command (`prek`, `./bin/brew`, `rails db:drop`): backticks are the author saying "this is a command"."""
    if not inner:
        return None
    known = program_named(inner[0])
    if known:
        return vocabulary().programs[known]
    head = inner[0]
    if re.search(r"[=\"'{}()\[\]<>]", " ".join(inner)) or _CODE_SPAN.search(span) or len(head) < 2:
        return None  # `workspace = true`, `path = "../x"`, a comment, `new Date`: code or configuration
    if len(inner) > 1 and not re.fullmatch(r"--?[\w-]+|[\w.:@/-]+", inner[1]):
        return None
    if re.fullmatch(r"(?:\.{0,2}/)?[a-z][\w.+-]*(?:/[\w.+-]+)*", head) and head.lower() not in NOT_PROGRAMS:
        if "." in head and "/" not in head and not head.endswith((".sh", ".py", ".js")):
            return None  # `package.json`, `go.mod`: a file, not a command
        return Program(head, None, (head,), {}, {})
    return None


def _where_not_what(flat: list[str], index: int) -> bool:
    """Whether a noun like "commits" is a place something is forbidden in ("in ... commits", "add X to commits")."""
    window = flat[max(0, index - 8) : index]
    for word in reversed(window):
        if word in (".", ";", "!", "?"):
            return False
        if word in ("in", "into", "inside", "within") or (word == "to" and {"add", "put", "include"} & set(window)):
            return True
    return False


def _launched(mention: Mention) -> Mention:
    """`python -m pytest` runs pytest (as the shell reader reads it): the module is the program the rule names."""
    if mention.program != "python" or ["-m"] not in mention.flags:
        return mention
    words = [*mention.subcommand, *mention.args, *mention.unread]
    if not words or not re.fullmatch(r"[a-z_][\w.]*", words[0]):
        return mention
    module = words[0]
    known = program_named(module)
    mention.program = known or module
    mention.flags = [f for f in mention.flags if f != ["-m"]]
    mention.subcommand = [w for w in mention.subcommand if w != module]
    mention.args = [w for w in mention.args if w != module]
    mention.unread = [w for w in mention.unread if w != module]
    if known:  # `python -m pip install x`: what follows the module is the program's own subcommand
        program = vocabulary().programs[known]
        rest = [w for w in mention.unread + mention.args if w in program.subcommands]
        mention.subcommand = [*mention.subcommand, *(program.subcommands[w] for w in rest[:1])]
        mention.unread = [w for w in mention.unread if w not in rest[:1]]
        mention.args = [w for w in mention.args if w not in rest[:1]]
    return mention


def read_commands(text: str) -> list[Mention]:
    """Every program the text names, in order, with its role and what the rule says about it."""
    vocab = vocabulary()
    text = re.sub(r"(?<![\w-])(-\w)/(--[\w-]+)", r"\1|\2", text)
    text = unquoted_negations(text)  # '"Module not found" in Pyright' forbids nothing
    words = [plain_token(t) if not t.startswith("`") else t for t in tokens(text)]
    flat = [plain_token(w) for w in words]
    raw = [t.strip("`'\"") for t in tokens(text)]
    mentions: list[Mention] = []
    consumed: set[int] = set()
    i = 0
    while i < len(flat):
        word = flat[i]
        if word.startswith("`") or " " in words[i]:
            inner = tokens(words[i].strip("`"))
            program = _backticked_program(inner, words[i].strip("`"))
            if program is not None:
                inner_words = [plain_token(t) for t in inner]
                sub, flags, args, unread, _ = _read_after(program, inner_words, 1, explicit=True, span=True)
                # "`yarn global add`": a concept word inside the command is the command's own
                concepts = list(dict.fromkeys(CONCEPT_WORDS[w] for w in unread if w in CONCEPT_WORDS))
                unread = [w for w in unread if w not in CONCEPT_WORDS]
                mention = Mention(
                    program.name, i, i + 1, role(flat, i, i + 1), sub, flags, args, concepts=concepts, unread=unread
                )
                mention.spelled = " ".join(t.strip("`") for t in inner)
                mentions.append(_launched(mention))
                consumed.add(i)
            i += 1
            continue
        found = _known_or_named(flat, i)
        if found is not None and i > 1 and flat[i - 1] == "from" and words[i - 2].startswith("`"):
            found = None  # "never use `expect` from Vitest": a name imported from a module, not a command
        if found is not None and found[0].name not in vocab.programs and raw[i].isupper() and len(raw[i]) > 1:
            found = None  # "run DROP statements": an SQL keyword, not a program
        if found is None:
            parts = word.split("-")
            implied = None
            if len(parts) == 2 and parts[0] == "force" and parts[1] in IMPLIED_PROGRAM:
                implied = ("git", "push", ["force"])
            elif word in IMPLIED_PROGRAM or word.replace("-", "") in ("forcepush", "forcepushes", "forcepushing"):
                name, sub_word = IMPLIED_PROGRAM.get(word, ("git", "push"))
                force = word.startswith("force") or (i > 0 and CONCEPT_WORDS.get(flat[i - 1]) == "force")
                implied = (name, sub_word, ["force"] if force else [])
            if implied is not None and _where_not_what(flat, i):
                implied = None  # "no emojis in source, comments, commits": where, not what is forbidden
            after = flat[i + 1] if i + 1 < len(flat) else ""
            if implied is not None and after in PHRASAL_AFTER.get(implied[1], ()):
                implied = None  # "don't pull in new dependencies", "pull request", "push back": another verb
            if (
                implied is not None
                and after in ("it", "them")
                and (any(m.program != implied[0] for m in mentions) or NOT_GIT_OBJECTS & set(flat[:i]))
            ):
                implied = None  # "build the docker image but never push it": the other program's push
            if implied is not None:
                program = vocab.programs[implied[0]]
                _, flags, args, unread, stop = _read_after(program, flat, i + 1)
                before = flat[i - 1] if i > 0 else ""
                if re.fullmatch(r"[a-z]+", before) and not (
                    before in NEGATIONS
                    or before in STOP
                    or before in CONCEPT_WORDS
                    or before in SUBCOMMAND_LEADS
                    or before in PREFER_VERBS
                    or before.endswith(("n't", "ing"))
                ):
                    unread = [before, *unread]  # "no unsigned commits", "no merge commits": which ones
                consumed.update(range(i, stop))
                mentions.append(
                    Mention(
                        implied[0],
                        i,
                        i + 1,
                        role(flat, i, i + 1),
                        [implied[1]],
                        flags,
                        args,
                        concepts=list(implied[2]),
                        implied=True,
                        unread=unread,
                    )
                )
            i += 1
            continue
        program, size = found
        # after a privilege tool the words are the command it runs ("no sudo rm", "never doas pip install")
        explicit = (i > 0 and flat[i - 1] in ("run", "running", "execute", "executing")) or (
            program.name in PRIVILEGE_TOOLS and program.name != "su"
        )
        sub, flags, args, unread, stop = _read_after(program, flat, i + size, explicit)
        consumed.update(range(i, stop))
        mention = Mention(program.name, i, i + size, role(flat, i, i + size), sub, flags, args, unread=unread)
        mention.spelled = " ".join(raw[i:stop])
        mention = _launched(mention)
        if not sub:  # "global yarn installs", "installs with pip": the subcommand may come first
            for j in range(max(0, i - 5), i):
                if j < i - 3 and not all(w in FILLER or w in _BRIDGE for w in flat[j + 1 : i]):
                    continue
                if flat[j] in program.subcommands and flat[j] not in ("i", "add", "run", "running", "runs"):
                    if flat[j] == "stop" and flat[j + 1 : j + 2] in (["using"], ["running"], ["calling"]):
                        break  # "stop using systemctl": the verb of the rule, not the subcommand
                    mention.subcommand = program.subcommands[flat[j]].split()
                    consumed.add(j)
                    break
        mentions.append(mention)
        i = max(i + size, stop)  # the words read as this command's own are not programs of their own
    _attach_concepts(text, flat, mentions, consumed)
    return [m for m in mentions if not (m.implied and any(o.program == m.program and not o.implied for o in mentions))]


def _attach_concepts(text: str, flat: list[str], mentions: list[Mention], consumed: set[int]) -> None:
    """Concept words of the clause ("global", "force", "skip hooks") go to the program they qualify."""
    concepts: list[str] = []
    for index, word in enumerate(flat):
        if index in consumed and CONCEPT_WORDS.get(word) not in (
            "force",
            "global",
            "recursive",
            "hard",
            "no_gpg_sign",
            "privileged",
        ):
            continue
        concept = CONCEPT_WORDS.get(word) or CONCEPT_WORDS.get(word.split("-", 1)[0] if "-" in word else "")
        if concept and not any(m.start <= index < m.end and m.implied and concept in m.concepts for m in mentions):
            concepts.append(concept)
    for pattern, concept in CONCEPT_PHRASES:
        if pattern.search(text):
            concepts.append(concept)
    for mention in mentions:
        for concept in concepts:
            if concept not in mention.concepts:
                mention.concepts.append(concept)
        mention.unread = [w for w in mention.unread if w not in CONCEPT_WORDS]
