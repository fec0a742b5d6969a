"""The command vocabulary: programs by family, the words people use for them, their risky flags.

Loaded once from `data/commands.toml` (compiler side only; the hook never imports this module).
`read_commands(text)` finds the programs a rule names and, for each, the subcommand, flags and
positional arguments its words name, the role the rule gives it (`forbid` or `prefer`) and the
words around it. The compiler (rules/compile/) turns that reading into check parameters.

Worked example: "no global yarn installs" -> yarn (role forbid) with the concept `global`, which
the vocabulary states for yarn as the subcommand words `global add`.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

# Prose words for flag concepts (the vocabulary says which flags each program uses for them).
CONCEPT_WORDS: dict[str, str] = {
    "force": "force",
    "forced": "force",
    "forcing": "force",
    "forcefully": "force",
    "forces": "force",
    "global": "global",
    "globally": "global",
    "globals": "global",
    "recursive": "recursive",
    "recursively": "recursive",
    "hard": "hard",
    "no-verify": "no_verify",
    "noverify": "no_verify",
    "amend": "amend",
    "amending": "amend",
    "amends": "amend",
    "insecure": "insecure",
    "in-place": "in_place",
    "auto-approve": "auto_approve",
    "interactive": "interactive",
    "interactively": "interactive",
    "tags": "tags",
    "delete": "delete",
    "deleting": "delete",
}
# Concepts that change what a rule forbids: a program without a spelling for them cannot state the rule.
STRICT_CONCEPTS = frozenset({"force", "global", "recursive", "hard", "no_verify"})
# English words that are also program names: a program only when the words around say so.
AMBIGUOUS = frozenset(
    "make find open watch env screen just tail head cat dd kill less more port go trash pod buf snap "
    "apt rye fly helm turbo tee code ls tf http nc su gem az watch".split()
)
COMMAND_CUES = frozenset(
    "run running ran use using used with via invoke invoking call calling execute type typing "
    "of than not over the `".split()
)
# Nouns after a program that add nothing a check needs ("npm packages", "git hooks").
FILLER = frozenset(
    "packages package deps dependencies things stuff hooks files file tools tool commands command "
    "scripts script binary binaries cli".split()
)
NOT_PROGRAMS = frozenset(
    "the a an any it this that tests test anything something commands scripts code stuff "
    "migrations servers server builds jobs things containers interactive it's them database databases queries "
    "statements sql production prod staging ci locally".split()
)
CONCEPT_PHRASES = (
    (
        re.compile(
            r"\b(?:skip(?:ping)?|bypass(?:ing)?|disabl(?:e|ing)|without(?: running)?)\s+(?:the\s+)?"
            r"(?:git\s+|pre-?commit\s+|commit\s+|pre-?push\s+)?(?:hooks?|verification|checks)\b",
            re.I,
        ),
        "no_verify",
    ),
    (re.compile(r"\bin[- ]place\b", re.I), "in_place"),
    (re.compile(r"\bbreak(?:ing)?[- ]system[- ]packages\b", re.I), "system"),
    (re.compile(r"\b(?:user|--user) (?:installs?|site)\b", re.I), "user"),
)
# A subcommand named without its program still names the program: "no force pushes" is git.
IMPLIED_PROGRAM: dict[str, tuple[str, str]] = {
    "push": ("git", "push"),
    "pushes": ("git", "push"),
    "pushing": ("git", "push"),
    "pushed": ("git", "push"),
    "force-push": ("git", "push"),
    "force-pushes": ("git", "push"),
    "force-pushing": ("git", "push"),
    "forcepush": ("git", "push"),
    "rebase": ("git", "rebase"),
    "rebasing": ("git", "rebase"),
    "rebases": ("git", "rebase"),
    "cherry-pick": ("git", "cherry-pick"),
    "commit": ("git", "commit"),
    "commits": ("git", "commit"),
    "committing": ("git", "commit"),
}
NEGATIONS = frozenset(
    "never no not don't dont do_not stop avoid quit without nothing forbid forbidden ban banned n't refrain "
    "nope disallow disallowed prohibited cannot can't mustn't shouldn't won't".split()
)
PREFER_VERBS = frozenset("use using prefer preferring favor favour stick switch go with only always run uses".split())
CONTRAST_BAD = ("instead of", "rather than", "in place of", "over", "not", "from", "than", "vs", "versus")
_TOKEN = re.compile(r"`[^`]+`|--(?=\s|$)|--?\w(?:[\w=|-]|\.(?=\w))*|[\w.*~/](?:[\w+/*@~'-]|[.:](?=[\w*]))*|[,;:.!?()]")
SINGLE_DASH_LONG = frozenset({"find", "terraform", "java", "go"})
STOP = frozenset(
    "in on at to for with without when whenever unless because and or but here there this that the a an anymore "
    "ever again please instead directly anywhere while if so since before after from into we you i it is are "
    "any anything all every everything ever over not instead rather than vs versus only inside outside within "
    "against through during via".split()
)


@dataclass(frozen=True)
class FlagRule:
    """How a program spells a flag concept: alias groups, maybe only under one subcommand."""

    subcommand: str | None = None
    flags: tuple[tuple[str, ...], ...] = ()
    subcommand_words: tuple[str, ...] = ()


@dataclass(frozen=True)
class Program:
    name: str
    family: str | None
    aliases: tuple[str, ...]
    subcommands: dict[str, str]  # prose form -> canonical subcommand
    flags: dict[str, FlagRule]


@dataclass(frozen=True)
class Family:
    name: str
    programs: tuple[str, ...]
    default: str | None
    activities: frozenset[str]


@dataclass(frozen=True)
class Vocabulary:
    programs: dict[str, Program]
    families: dict[str, Family]
    phrases: dict[tuple[str, ...], str]  # alias words -> program
    longest: int

    def family_of(self, program: str) -> Family | None:
        known = self.programs.get(program)
        return self.families.get(known.family) if known and known.family else None


@dataclass
class Mention:
    """One program named in a rule, with what the surrounding words say about it."""

    program: str
    start: int  # token index
    end: int
    role: str  # forbid | prefer | neutral
    subcommand: list[str] = field(default_factory=list)
    flags: list[list[str]] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    concepts: list[str] = field(default_factory=list)
    implied: bool = False
    unread: list[str] = field(default_factory=list)  # words after the program that say more than we can state


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    raw: dict[str, Any] = tomllib.loads(resources.files("heedful.rules").joinpath("data/commands.toml").read_text())
    families: dict[str, Family] = {}
    member: dict[str, str] = {}
    for name, spec in raw.get("families", {}).items():
        families[name] = Family(
            name, tuple(spec["programs"]), spec.get("default"), frozenset(spec.get("activities", []))
        )
        for program in spec["programs"]:
            member.setdefault(program, name)
    programs: dict[str, Program] = {}
    phrases: dict[tuple[str, ...], str] = {}
    for name, spec in raw.get("programs", {}).items():
        subcommands = {
            form.lower(): canonical
            for canonical, forms in spec.get("subcommands", {}).items()
            for form in [canonical, *forms]
        }
        flags = {
            concept: FlagRule(
                rule.get("subcommand"),
                tuple(tuple(g) for g in rule.get("flags", [])),
                tuple(rule.get("subcommand_words", [])),
            )
            for concept, rule in spec.get("flags", {}).items()
        }
        aliases = tuple(spec.get("aliases", [name]))
        programs[name] = Program(name, member.get(name), aliases, subcommands, flags)
        for alias in (name, *aliases):
            phrases.setdefault(tuple(alias.lower().split()), name)
    return Vocabulary(programs, families, phrases, max(len(p) for p in phrases))


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _plain(token: str) -> str:
    stripped = token.strip("`'\"")
    return stripped if stripped.startswith("-") else stripped.lower()


def plain_words(text: str) -> list[str]:
    """The rule's tokens as `read_commands` indexes them (a mention's start and end count these)."""
    return [_plain(t) for t in tokens(text)]


def program_named(word: str) -> str | None:
    """The program a single word names ("ripgrep" -> rg, "pip3" -> pip), or None."""
    return vocabulary().phrases.get((_plain(word),))


def flag_groups_for(program: str, flag: str) -> list[str]:
    """The alias group a literal flag belongs to for this program (`-f` for git push -> --force, -f)."""
    known = vocabulary().programs.get(program)
    if known:
        for rule in known.flags.values():
            for group in rule.flags:
                if flag in group:
                    return list(group)
    if flag == "--force-with-lease":
        return ["--force-with-lease"]
    return [flag]


def concept_flags(program: str, concept: str, subcommand: list[str]) -> FlagRule | None:
    known = vocabulary().programs.get(program)
    if known is None:
        return None
    rule = known.flags.get(concept)
    if rule is None and concept == "no_verify" and subcommand[:1] == ["push"]:
        rule = known.flags.get("no_verify_push")
    return rule


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
)
_CLAUSE_STARTS = frozenset(
    "we i you they it it's its this our here use prefer try just only instead always go switch stick".split()
)


def _role(words: list[str], start: int, end: int) -> str:
    """forbid | prefer | neutral, from the words before (and just after) the mention."""
    before: list[str] = []
    for word in reversed(words[max(0, start - 8) : start]):
        if word in (".", ";", "!", "?"):
            break
        if word == "," and before and before[0] in _CLAUSE_STARTS:
            break  # "never use pip, we use uv" / "don't use npm, use pnpm": a new clause after the comma
        before.insert(0, word)
    joined = " ".join(before)
    after = words[end : end + 4]
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
    if " ".join(after[:3]) in ("is not allowed", "is off limits", "isn't allowed", "is never allowed"):
        return "forbid"
    last_neg = max((i for i, w in enumerate(before) if w in NEGATIONS or w.endswith("n't")), default=-1)
    last_pref = max((i for i, w in enumerate(before) if w in PREFER_VERBS), default=-1)
    if last_neg >= 0 and (
        last_pref < last_neg
        or (last_pref > last_neg and before[last_neg] in ("never", "stop", "don't", "dont", "not", "avoid"))
    ):
        # "never use pip", "stop using sudo", "don't use doas": a verb after the negation stays negated,
        # unless a contrast turned it ("don't use X, use Y" is split by the comma before Y).
        return "forbid"
    if last_pref >= 0 or after[:1] == ["only"] or joined.endswith(("to", "with")):
        return "prefer"
    return "neutral"


def _read_after(
    program: Program, words: list[str], index: int, explicit: bool = False
) -> tuple[list[str], list[list[str]], list[str], list[str], int]:
    """Subcommand words, literal flags, positional args and unread words right after a program.

    `explicit`: the rule names a command line ("never run gcloud app deploy"), so plain words after
    the program are its positional words even when the vocabulary does not know them."""
    subcommand: list[str] = []
    flags: list[list[str]] = []
    args: list[str] = []
    unread: list[str] = []
    i = index
    while i < len(words):
        word = words[i]
        plain = _plain(word)
        if word in (",", ";", ":", ".", "!", "?", "(", ")") or plain in STOP:
            break
        if plain == "--":  # "git checkout -- .": what follows is a path the check cannot state
            unread.append(plain)
        elif "|" in plain and plain.startswith("-"):  # "-k/--insecure": aliases of one flag
            group = [a for a in plain.split("|") if a.startswith("-")]
            known = flag_groups_for(program.name, group[-1])
            flags.append(known if set(group) <= set(known) else group)
        elif re.fullmatch(r"--?[a-zA-Z][\w-]*(?:=\S+)?", plain):
            if re.fullmatch(r"-[a-zA-Z]{2,}", plain) and program.name not in SINGLE_DASH_LONG:
                for letter in plain[1:]:
                    group = flag_groups_for(program.name, f"-{letter}")
                    if group not in flags:
                        flags.append(group)
            else:
                group = flag_groups_for(program.name, plain.split("=", 1)[0])
                if group not in flags:
                    flags.append(group)
        elif plain in subcommand:
            pass
        elif program.name in ("chmod", "umask") and re.fullmatch(r"[0-7]{3,4}", plain) and len(args) < 2:
            args.append(plain)  # "never chmod 777": the mode
        elif not flags and not args and plain in program.subcommands and len(subcommand) < 2:
            canonical = program.subcommands[plain]
            subcommand += [w for w in canonical.split() if w not in subcommand]
        elif plain in CONCEPT_WORDS or plain in FILLER:
            unread.append(plain)
        elif explicit and not flags and not args and len(subcommand) < 2 and re.fullmatch(r"[a-z][\w.:-]*", plain):
            subcommand.append(plain)
        elif word.startswith("`") or (
            (subcommand or explicit) and re.fullmatch(r"[\w./*:-]+", plain) and len(args) < 2
        ):
            args.append(plain)
        else:
            unread.append(plain)
        i += 1
    return subcommand, flags, args, unread, i


# Words between a verb and its program: "install system packages with apt".
_BRIDGE = frozenset("with using via through system any new global".split())
_RUN_CUES = frozenset(
    {"run", "running", "execute", "executing", "type", "typing", "invoke", "call", "pass", "use", "using"}
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
            if before == "from" and "import" in flat[max(0, i - 4) : i]:
                return None  # "never import expect from vitest": a module, not a command
            if (
                program.name in AMBIGUOUS
                and size == 1
                and before not in COMMAND_CUES
                and not after.startswith("-")
                and after not in program.subcommands
            ):
                return None
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
        and flat[i + 1 : i + 2] not in (["statements"], ["queries"], ["commands"], ["migrations"], ["jobs"])
    ):
        return Program(word, None, (word,), {}, {}), 1
    return None


def _backticked_program(inner: list[str]) -> Program | None:
    """A backticked span names a program when it starts with a known one, or with a word that looks like a
    command (`prek`, `./bin/brew`, `rails db:drop`): backticks are the author saying "this is a command"."""
    if not inner:
        return None
    known = program_named(inner[0])
    if known:
        return vocabulary().programs[known]
    head = inner[0]
    if len(inner) > 1 and not re.fullmatch(r"--?[\w-]+|[\w.:@/-]+", inner[1]):
        return None
    if re.fullmatch(r"(?:\.{0,2}/)?[a-z][\w.+-]*(?:/[\w.+-]+)*", head) and head.lower() not in NOT_PROGRAMS:
        if "." in head and "/" not in head and not head.endswith((".sh", ".py", ".js")):
            return None  # `package.json`, `go.mod`: a file, not a command
        return Program(head, None, (head,), {}, {})
    return None


def read_commands(text: str) -> list[Mention]:
    """Every program the text names, in order, with its role and what the rule says about it."""
    vocab = vocabulary()
    text = re.sub(r"(?<![\w-])(-\w)/(--[\w-]+)", r"\1|\2", text)
    words = [_plain(t) if not t.startswith("`") else t for t in tokens(text)]
    flat = [_plain(w) for w in words]
    mentions: list[Mention] = []
    consumed: set[int] = set()
    i = 0
    while i < len(flat):
        word = flat[i]
        if word.startswith("`") or " " in words[i]:
            inner = tokens(words[i].strip("`"))
            program = _backticked_program(inner)
            if program is not None:
                sub, flags, args, unread, _ = _read_after(program, [_plain(t) for t in inner], 1, explicit=True)
                mentions.append(Mention(program.name, i, i + 1, _role(flat, i, i + 1), sub, flags, args, unread=unread))
                consumed.add(i)
            i += 1
            continue
        found = _known_or_named(flat, i)
        if found is None:
            parts = word.split("-")
            implied = None
            if len(parts) == 2 and parts[0] == "force" and parts[1] in IMPLIED_PROGRAM:
                implied = ("git", "push", ["force"])
            elif word in IMPLIED_PROGRAM or word.replace("-", "") in ("forcepush", "forcepushes", "forcepushing"):
                name, sub_word = IMPLIED_PROGRAM.get(word, ("git", "push"))
                force = word.startswith("force") or (i > 0 and CONCEPT_WORDS.get(flat[i - 1]) == "force")
                implied = (name, sub_word, ["force"] if force else [])
            if implied is not None:
                program = vocab.programs[implied[0]]
                _, flags, args, unread, stop = _read_after(program, flat, i + 1)
                consumed.update(range(i, stop))
                mentions.append(
                    Mention(
                        implied[0],
                        i,
                        i + 1,
                        _role(flat, i, i + 1),
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
        explicit = i > 0 and flat[i - 1] in ("run", "running", "execute", "executing")
        sub, flags, args, unread, stop = _read_after(program, flat, i + size, explicit)
        consumed.update(range(i, stop))
        mention = Mention(program.name, i, i + size, _role(flat, i, i + size), sub, flags, args, unread=unread)
        if not sub:  # "global yarn installs", "installs with pip": the subcommand may come first
            for j in range(max(0, i - 5), i):
                if j < i - 3 and not all(w in FILLER or w in _BRIDGE for w in flat[j + 1 : i]):
                    continue
                if flat[j] in program.subcommands and flat[j] not in ("i", "add", "run"):
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
        if index in consumed and CONCEPT_WORDS.get(word) not in ("force", "global", "recursive", "hard"):
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


def family_default(program: str) -> str | None:
    """What "we use X" forbids: the family's usual tool, when X is not that tool."""
    family = vocabulary().family_of(program)
    if family is None or not family.default or family.default == program:
        return None
    return family.default


def activity_words(program: str | None) -> frozenset[str]:
    """Words of a condition that this program decides by running ("when you search" for grep)."""
    if program is None:
        return frozenset()
    vocab = vocabulary()
    family = vocab.family_of(program)
    known = vocab.programs.get(program)
    words = set(family.activities) if family else set()
    if family:
        for member in family.programs:
            other = vocab.programs.get(member)
            words |= {w for alias in (other.aliases if other else (member,)) for w in alias.lower().split()}
    if known:
        words |= set(known.subcommands) | {w for alias in known.aliases for w in alias.lower().split()}
    return frozenset(words)


def aliases_of(program: str) -> tuple[str, ...]:
    known = vocabulary().programs.get(program)
    return (program, *(known.aliases if known else ()))
