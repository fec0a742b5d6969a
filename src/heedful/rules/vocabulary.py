"""The command vocabulary: programs by family, the words people use for them, their risky flags.

Loaded once from `data/commands.toml` (compiler side only; the hook never imports this module).
`read_commands(text)` finds the programs a rule names and, for each, the subcommand, flags and
positional arguments its words name, the role the rule gives it (`forbid` or `prefer`) and the
words around it. The compiler (rules/compile/) turns that reading into check parameters.

Worked example: "no global yarn installs" -> yarn (role forbid) with the concept `global`, which
the vocabulary states for yarn as the subcommand words `global add`.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from heedful.rules.lazy_regex import lazy

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
    "privileged": "privileged",
    "unsigned": "no_gpg_sign",
}
# Concepts that change what a rule forbids: a program without a spelling for them cannot state the rule.
STRICT_CONCEPTS = frozenset({"force", "global", "recursive", "hard", "no_verify", "insecure"})
# English words that are also program names: a program only when the words around say so.
AMBIGUOUS = frozenset(
    "make find open watch env screen just tail head cat dd kill less more port go trash pod buf snap "
    "apt rye fly helm turbo tee code ls tf http nc su gem az watch locate truncate "
    # family members that are also English words or names
    "kind tree cut file patch sort diff stat touch sam lima hatch flit pkg emerge conan dune micro helix bb tea oc "
    "df more less sd tr sg xo ty mix pest karma behave ava vault packer parcel ninja rollup swift lein".split()
)
COMMAND_CUES = frozenset(
    "run running ran use using used with via invoke invoking call calling execute type typing "
    "of than not over the prefer preferring favor favour `".split()
)
# Nouns after a program that add nothing a check needs ("npm packages", "git hooks").
FILLER = frozenset(
    "packages package deps dependencies things stuff hooks files file tools tool commands command "
    "scripts script binary binaries cli one-liners one-liner oneliners oneliner invocations invocation processes "
    # "never run X pls": courtesy, not a word of the command
    "process changes change work pls plz thx thanks crates crate libraries library libs modules module operations "
    # "don't commit changes yourself": who does it, not which command
    "yourself".split()
)
NOT_PROGRAMS = frozenset(
    "the a an any it this that tests test anything something commands scripts code stuff "
    "migrations servers server builds jobs things containers interactive it's them database databases queries "
    "statements sql production prod staging ci locally bare plain naked raw more than one multiple several two "
    "each every all".split()
)
# Nouns a word before them modifies: "run individual lint commands", "run model evals", "the relevant unit
# tests". An unknown word followed by one of these within two words is an adjective, never a program.
NOUN_HEADS = frozenset(
    "statements queries commands command migrations jobs tests checks evals evaluations results scripts steps "
    "suites files benchmarks linters tasks".split()
)
CONCEPT_PHRASES = (
    (
        lazy(
            r"\b(?:skip(?:ping)?|bypass(?:ing)?|disabl(?:e|ing)|without(?: running)?)\s+(?:the\s+)?"
            r"(?:git\s+|pre-?commit\s+|commit\s+|pre-?push\s+)?(?:hooks?|verification|checks)\b",
            re.I,
        ),
        "no_verify",
    ),
    (lazy(r"\bin[- ]place\b", re.I), "in_place"),
    # "never disable ssl verification with curl": the client's insecure switch (curl -k), not the client
    (
        lazy(
            r"\b(?:disabl\w+|skip\w*|bypass\w*|turn\w* off|without|ignor\w+)\s+(?:the\s+)?(?:ssl|tls|https|cert|"
            r"certificate)s?(?:\s+certificates?)?\s*(?:verification|validation|checks?|checking|errors?)?\b",
            re.I,
        ),
        "insecure",
    ),
    # "never send DELETE requests with curl": the request method, an option of HTTP clients
    (lazy(r"\b(?:DELETE|POST|PUT|PATCH)\s+(?:requests?|calls?)\b"), "method"),
    # "never use sed to edit files": sed that writes the files it reads, not sed reading them
    (
        lazy(r"\bto (?:edit|modify|change|rewrite|update|patch) (?:the |your |any |source )?(?:files?|code)\b", re.I),
        "in_place",
    ),
    (lazy(r"\bbreak(?:ing)?[- ]system[- ]packages\b", re.I), "system"),
    (lazy(r"\b(?:user|--user) (?:installs?|site)\b", re.I), "user"),
    (lazy(r"\bunsigned commits?\b|\bwithout (?:gpg[- ])?sign(?:ing|atures?)\b", re.I), "no_gpg_sign"),
)
# Words before a subcommand named alone that leave it whole ("no force pushes", "never make new commits"); any
# other word narrows which ones the rule means ("no empty commits", "no merge commits"): more than a check states.
SUBCOMMAND_LEADS = frozenset(
    "make making made create creating do doing any more new extra additional your own git random those these "
    "such ever please just also again".split()
)
# Programs that run another command with other privileges ("sudo pip", "doas rm", "su -c 'make install'").
PRIVILEGE_TOOLS = frozenset({"sudo", "doas", "pkexec", "su", "run0"})
# Programs that run another tool named as their first word ("npx tsc", "pnpm exec jest", "pipx run ruff").
RUNNERS = frozenset({"npx", "bunx", "uvx", "pnpx"})
RUNNER_SUBCOMMANDS = frozenset(
    {
        ("pnpm", "exec"),
        ("pnpm", "dlx"),
        ("yarn", "dlx"),
        ("yarn", "exec"),
        ("pipx", "run"),
        ("npm", "exec"),
        ("bun", "x"),
    }
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
    "pull": ("git", "pull"),
    "pulling": ("git", "pull"),
    "stash": ("git", "stash"),
    "stashing": ("git", "stash"),
    "stashes": ("git", "stash"),
    "commit": ("git", "commit"),
    "commits": ("git", "commit"),
    "committing": ("git", "commit"),
    "stage": ("git", "add"),  # "never stage files": not "staging", the environment
}
# Words after "pull" or "push" that make it another verb or a noun, not git's: "pull in", "pull request",
# "push back on a bad decision", "push for a fix", "push ahead".
PHRASAL_AFTER = {
    "pull": frozenset("in up out apart together down back off request requests through".split()),
    "push": frozenset("back for forward ahead through in down away aside harder".split()),
    "add": frozenset("environment environments server servers deployment deployments of one two three 1 2 3".split()),
}
# What is pushed or pulled that is no git history: "build the image but never push it" is not `git push`.
NOT_GIT_OBJECTS = frozenset(
    "image images container containers package packages gem gems crate crates chart charts wheel wheels artifact "
    "artifacts".split()
)
NEGATIONS = frozenset(
    "never no not don't dont do_not stop avoid quit cease without nothing forbid forbidden ban banned n't refrain "
    "nope disallow disallowed prohibited cannot can't mustn't shouldn't won't".split()
)
PREFER_VERBS = frozenset("use using prefer preferring favor favour stick switch go with only always run uses".split())
CONTRAST_BAD = ("instead of", "rather than", "in place of", "over", "not", "from", "than", "vs", "versus")
# a dash between spaces separates clauses ("never use `find` - use `fd`"): a token, so a command's words end there
_TOKEN = lazy(
    r"`[^`]+`|--(?=\s|$)|--?\w(?:[\w=|-]|[.:](?=\w))*|[\w.*~/](?:[\w+/*@~'-]|[.:](?=[\w*]))*|[,;:.!?()]|"
    r"(?<=\s)[-–—](?=\s)"
)
SINGLE_DASH_LONG = frozenset({"find", "terraform", "java", "go"})
STOP = frozenset(
    "in on at to for with without when whenever unless because and or but here there this that the a an anymore "
    "ever again please instead directly straight anywhere while if so since before after from into onto upon we you i "
    "it is are any anything all every everything ever over not instead rather than vs versus only inside outside "
    "within against through during via as my your our should shouldn't must mustn't shall".split()
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
    replaces: str | None = None  # the usual tool it stands in for ("use rg" forbids grep)


@dataclass(frozen=True)
class Family:
    name: str
    programs: tuple[str, ...]
    default: str | None
    activities: frozenset[str]
    rivals: tuple[str, ...] = ()


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
    spelled: str = ""  # the command as the rule writes it ("python -m pytest"), when it says more than the program


@lru_cache(maxsize=1)
def command_table() -> dict[str, Any]:
    """`data/commands.toml` as parsed, once per process: the vocabulary and the action phrases both read it.

    Parsing it is some ten milliseconds of pure Python in every command that compiles a rule, so the parsed table
    is kept in the cache folder under the file's checksum and read back by later processes (in a fraction of a
    millisecond); a missing, damaged or unwritable copy only means parsing the file."""
    data = resources.files("heedful.rules").joinpath("data/commands.toml").read_bytes()
    return _parsed(data)


def _parsed(data: bytes) -> dict[str, Any]:
    from heedful.embed.cache import cache_dir

    key = hashlib.sha256(data + f" {sys.hexversion:x}".encode()).hexdigest()[:20]  # marshal's format is Python's
    kept = cache_dir() / f"commands-{key}.marshal"
    try:
        table = marshal.loads(kept.read_bytes())
        if isinstance(table, dict):
            return table
    except Exception:  # not kept yet, or damaged: parse the file
        pass
    import tomllib  # only to parse: a process that reads the table back does without it

    table = tomllib.loads(data.decode("utf-8"))
    try:
        kept.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        partial = kept.with_name(f".{kept.name}.{os.getpid()}.tmp")
        partial.write_bytes(marshal.dumps(table))
        partial.replace(kept)  # atomic: a concurrent reader sees the whole file or none
    except (OSError, ValueError):  # a read-only or full disk
        pass
    return table


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    raw = command_table()
    families: dict[str, Family] = {}
    member: dict[str, str] = {}
    for name, spec in raw.get("families", {}).items():
        families[name] = Family(
            name,
            tuple(spec["programs"]),
            spec.get("default"),
            frozenset(spec.get("activities", [])),
            tuple(spec.get("rivals", [])),
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
        programs[name] = Program(name, member.get(name), aliases, subcommands, flags, spec.get("replaces"))
        # another executable of the same tool (`nvim` beside `vim`, `mamba` beside `conda`): the shell reader sees
        # the name typed, so a rule that names it forbids that executable, with the tool's subcommands and flags
        for executable in spec.get("executables", []):
            programs.setdefault(
                executable,
                Program(executable, member.get(name), (executable,), subcommands, flags, spec.get("replaces")),
            )
    for name, family in member.items():  # a family member with no entry of its own is still a program
        programs.setdefault(name, Program(name, family, (name,), {}, {}))
    for name, known in programs.items():
        for alias in (name, *known.aliases):
            phrases.setdefault(tuple(alias.lower().split()), name)
    return Vocabulary(programs, families, phrases, max(len(p) for p in phrases))


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def plain_token(token: str) -> str:
    """A token as the reader compares it: quotes off, lower case (flags keep their case)."""
    stripped = token.strip("`'\"")
    return stripped if stripped.startswith("-") else stripped.lower()


def plain_words(text: str) -> list[str]:
    """The rule's tokens as `read_commands` indexes them (a mention's start and end count these)."""
    return [plain_token(t) for t in tokens(text)]


def program_named(word: str) -> str | None:
    """The program a single word names ("ripgrep" -> rg, "pip3" -> pip), or None."""
    return vocabulary().phrases.get((plain_token(word),))


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


def read_commands(text: str) -> list[Mention]:
    """Every program the text names, in order, with its role (see compile/mentions.py)."""
    from heedful.rules.compile.mentions import read_commands as read

    return read(text)


def family_default(program: str) -> str | None:
    """What "we use X" forbids: the family's usual tool, when X is not that tool."""
    known = vocabulary().programs.get(program)
    if known is not None and known.replaces:
        return known.replaces
    family = vocabulary().family_of(program)
    if family is None or not family.default or family.default == program:
        return None
    return family.default


def rivals_of(program: str) -> list[str]:
    """The tools a project uses instead when it uses this one ("this repo uses pnpm": npm, yarn, bun), default first."""
    family = vocabulary().family_of(program)
    if family is None or program not in family.rivals:
        return []
    ordered = [family.default, *family.rivals] if family.default else list(family.rivals)
    return [r for r in dict.fromkeys(ordered) if r and r != program]


@lru_cache(maxsize=1)
def _rival_names() -> re.Pattern[str]:
    vocab = vocabulary()
    names = {a.lower() for f in vocab.families.values() for r in f.rivals for a in aliases_of(r)}
    return re.compile(
        r"(?<![\w-])(?:" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")(?![\w-])", re.I
    )


def names_a_rival(text: str) -> bool:
    """Whether the text names one of the tools a project uses one of (pnpm, yarn, uv, poetry ...)."""
    return _rival_names().search(text) is not None


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
