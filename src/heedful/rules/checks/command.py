"""forbidden_command: a shell command the user forbade, with the alternatives they allowed.

params: program (str | None: any program), subcommand ([str], leading positionals), flags
([[alias, ...], ...]: every group must be present, any alias of a group counts), args ([str]:
any of these positionals, refspecs read as their target), alternatives ([str], shown in reasons),
implicit_target (bool: a `git push` naming no target reads the current branch from the evidence),
piped_into ([str]: only when the command's output goes into one of these programs, through a pipe or
as the script of a shell: `curl URL | sh`, `bash <(wget -qO- URL)`), synonyms ([str]: programs that
do the same job, matched like program: wget beside curl for "never pipe curl into sh"), spelled
([str]: only the program typed by one of these names, for "use python3, not python": `python3` is allowed).
mentions ([str]: only when the command line names one of these environments, in an argument or an option
value: "never kubectl apply against production" is `--context prod`; another environment passes, and a
command naming none is unknown, since only its defaults know where it runs).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from heedful.rules.checks.environment import named
from heedful.rules.checks.evidence import clip, shell_action
from heedful.rules.checks.kind import CheckKind
from heedful.rules.checks.verdict import Result, Stage, Verdict

if TYPE_CHECKING:
    from heedful.rules.models import Case
from heedful.rules.shell import SimpleCommand, has_flag, positionals, simple_commands

KIND = "forbidden_command"
STAGE: Stage = "pre_action"
EVIDENCE = ["action.command"]


# Subcommands that programs accept under other names (`npm i` is `npm install`).
SUBCOMMAND_ALIASES: dict[tuple[str, str], frozenset[str]] = {
    ("npm", "install"): frozenset(
        {"install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add"}
    ),
    ("npm", "uninstall"): frozenset({"uninstall", "un", "unlink", "remove", "rm", "r"}),
    ("npm", "run"): frozenset({"run", "run-script", "rum", "urn"}),
    ("pnpm", "install"): frozenset({"install", "i"}),
    ("pnpm", "add"): frozenset({"add"}),
    ("yarn", "add"): frozenset({"add", "install"}),  # the vocabulary reads "yarn install" as its install: add
    ("bun", "add"): frozenset({"add", "a"}),
    ("bun", "install"): frozenset({"install", "i"}),
    ("git", "stage"): frozenset({"stage", "add"}),
    ("git", "add"): frozenset({"add", "stage"}),
    ("kubectl", "delete"): frozenset({"delete"}),
    ("brew", "uninstall"): frozenset({"uninstall", "remove", "rm"}),
}
PRIVILEGE = frozenset({"sudo", "doas", "pkexec"})


def _text_list(value: Any) -> list[str]:
    if isinstance(value, str):  # "push" or "system prune" written as one string
        return value.split()
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str) and item]


def _same_word(program: str, position: int, wanted: str, actual: str) -> bool:
    wanted, actual = wanted.lower(), actual.lower()
    if wanted == actual:
        return True
    return position == 0 and actual in SUBCOMMAND_ALIASES.get((program, wanted), frozenset())


def _flag_groups(value: Any) -> list[list[str]]:
    if not isinstance(value, list):
        return []
    groups = [_text_list(group) if isinstance(group, list) else _text_list([group]) for group in value]
    return [group for group in groups if group]


def _target(arg: str) -> str:
    target = arg.rsplit(":", 1)[-1].lstrip("+")
    return target.removeprefix("refs/heads/")


def _receivers(params: dict[str, Any]) -> list[str]:
    """The programs of `piped_into`, as the shell reader names them (`/bin/bash` is bash)."""
    return [name.lower().rsplit("/", 1)[-1] for name in _text_list(params.get("piped_into"))]


def _synonyms(params: dict[str, Any]) -> list[str]:
    return [name.lower().rsplit("/", 1)[-1] for name in _text_list(params.get("synonyms"))]


def _flag_label(group: list[str]) -> str:
    """A group's name in a message: its first alias, or its long flags when it holds a choice of several
    ("--user or --break-system-packages")."""
    longs = [flag for flag in group if flag.startswith("--")]
    return " or ".join(longs) if len(longs) > 1 else group[0]


def describe(params: dict[str, Any]) -> str:
    program = str(params.get("program") or "any program")
    synonyms = _synonyms(params)
    parts = [f"{program} (or {', '.join(synonyms)})" if synonyms else program, *_text_list(params.get("subcommand"))]
    parts += [_flag_label(group) for group in _flag_groups(params.get("flags"))]
    args = _text_list(params.get("args"))
    if args:
        privileged = str(params.get("program") or "").lower() in PRIVILEGE
        parts.append(" ".join(args) if privileged else "|".join(args))
    receivers = _receivers(params)
    if receivers:
        shells = {"sh", "bash", "zsh"} <= set(receivers)  # every shell: say so rather than list them
        parts.append("| a shell" if shells else f"| {' or '.join(receivers)}")
    mentions = _text_list(params.get("mentions"))
    if mentions:
        parts.append(f"in {'/'.join(mentions[:2])}")
    return " ".join(parts)


_SCRIPT = re.compile(r"[\w.-]+\.(?:py|js|mjs|cjs|ts|sh|rb|pl|php)$", re.I)
# Programs that run a script named after them: `python manage.py`, `bash scripts/check.sh`, `pwsh ./build.ps1`.
INTERPRETERS = frozenset(
    "python python3 node bash sh zsh ruby perl php deno bun tsx ts-node pwsh powershell nu".split()
)


def _script_run(command: SimpleCommand, program: Any) -> list[str] | None:
    """`python manage.py migrate` runs the script `manage.py`: its words after the script, else None."""
    if not isinstance(program, str) or command.program not in INTERPRETERS:
        return None
    name = program.lower().rsplit("/", 1)[-1]
    if not _SCRIPT.fullmatch(name) or command.program == name:
        return None
    rest = positionals(command)
    return rest[1:] if rest and rest[0].lower().rsplit("/", 1)[-1] == name else None


def _as_docker_compose(command: SimpleCommand, params: dict[str, Any]) -> tuple[SimpleCommand, dict[str, Any]]:
    """`docker-compose down` and `docker compose down` are one command (the old binary and the plugin), unless the
    rule tells them apart ("use docker compose, not docker-compose")."""
    alternatives = " ".join(_text_list(params.get("alternatives"))).lower()
    if "compose" in alternatives:
        return command, params
    if command.program == "docker-compose":
        command = command._replace(program="docker", args=("compose", *command.args))
    if str(params.get("program") or "").lower() == "docker-compose":
        params = {**params, "program": "docker", "subcommand": ["compose", *_text_list(params.get("subcommand"))]}
    return command, params


def _matches(command: SimpleCommand, params: dict[str, Any]) -> tuple[bool, bool]:
    """(matches, target_unknown)."""
    command, params = _as_docker_compose(command, params)
    receivers = _receivers(params)
    if receivers and not set(receivers) & set(command.pipes_into):
        return False, False  # "never pipe curl into sh": curl writing to a file, or into jq, is fine
    program = params.get("program")
    if isinstance(program, str) and program.lower() in PRIVILEGE:
        wrappers = command.wrappers if command.wrappers or not command.sudo else ("sudo",)
        # "never run anything as root": sudo or any other privilege tool named beside it
        names = [program.lower(), *_synonyms(params)]
        named = any(name in wrappers or command.program == name for name in names)
        named = named or (program.lower() == "sudo" and command.sudo and not command.wrappers)
        # "never sudo pip install": the words name the command run with privileges
        wrapped = [w.lower() for w in [*_text_list(params.get("subcommand")), *_text_list(params.get("args"))]]
        if not wrapped or not named:
            return named, False
        head = [command.program, *(p.lower() for p in positionals(command))]
        # "never sudo rm -rf": the flags are the privileged command's own
        flagged = all(any(has_flag(command, a) for a in group) for group in _flag_groups(params.get("flags")))
        return head[: len(wrapped)] == wrapped and flagged, False
    # a script named by its path (`scripts/reindex.sh`) is matched by its file name, as the shell reader names it
    spelled = [name.lower() for name in _text_list(params.get("spelled"))]
    # "python3, not python": `python -m pytest` is typed as the forbidden interpreter too
    launched_by = bool(spelled) and bool(command.launcher) and command.typed in spelled
    script_rest = _script_run(command, program)
    if (
        isinstance(program, str)
        and program
        and command.program != program.lower().rsplit("/", 1)[-1]
        and command.program not in _synonyms(params)
        and not launched_by
        and script_rest is None
    ):
        return False, False
    if params.get("bare") is True and command.launcher:  # "not bare pytest": `python -m pytest` is the way
        return False, False
    if spelled and command.typed and command.typed not in spelled:
        return False, False  # "python3, not python": the same program typed by the name the rule allows
    subcommand = _text_list(params.get("subcommand"))
    rest = positionals(command) if script_rest is None else script_rest
    if subcommand:
        head = rest[: len(subcommand)]
        if len(head) != len(subcommand) or not all(
            _same_word(command.program, i, w, a) for i, (w, a) in enumerate(zip(subcommand, head, strict=True))
        ):
            return False, False
        rest = rest[len(subcommand) :]
    for group in _flag_groups(params.get("flags")):
        if not any(has_flag(command, alias) for alias in group):
            return False, False
    args = [arg.lower() for arg in _text_list(params.get("args"))]
    if not args:
        return True, False
    if any(_target(arg).lower() in args for arg in rest):
        return True, False
    implicit = bool(params.get("implicit_target")) and len(rest) <= 1
    return False, implicit


def evaluate(params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    if not isinstance(params, dict):
        return Verdict(result="unknown", reason="the check has no parameters")
    if stage != STAGE:
        return Verdict(result="not_applicable", reason=f"checked before actions run, not at {stage}")
    action = shell_action(evidence)
    if isinstance(action, Verdict):
        return action
    line: str = action["command"]
    label = describe(params)
    alternatives = _text_list(params.get("alternatives"))
    hint = f"; use {' or '.join(alternatives)} instead" if alternatives else ""
    unknown: list[SimpleCommand] = []
    mentions = _text_list(params.get("mentions"))
    unnamed = ""
    for command in simple_commands(line):
        matched, target_unknown = _matches(command, params)
        where = named(command.raw, mentions) if matched and mentions else "named"
        if where != "named":
            unnamed = unnamed or (command.raw if where == "none" else "")
            continue  # another environment is allowed; none named is decided below
        if matched:
            quote = command.raw if command.raw in line else line
            return Verdict(
                result="violated", reason=f"runs the forbidden command `{label}`{hint}", quotes=[clip(quote)]
            )
        if target_unknown:
            unknown.append(command)
    for command in unknown:
        branch = action.get("branch")
        quote = command.raw if command.raw in line else line
        if isinstance(branch, str):
            if _target(branch).lower() in [arg.lower() for arg in _text_list(params.get("args"))]:
                return Verdict(
                    result="violated",
                    reason=f"pushes the current branch {branch!r}: forbidden `{label}`{hint}",
                    quotes=[clip(quote)],
                )
            continue
        return Verdict(
            result="unknown",
            reason="the command names no target and the current branch is not in the evidence",
            quotes=[clip(quote)],
        )
    if unnamed:
        return Verdict(
            result="unknown",
            reason=f"the command names no environment; the rule forbids it in {', '.join(mentions[:2])}",
            quotes=[clip(unnamed)],
        )
    return Verdict(result="pass", reason=f"no command matches `{label}`")


def _example(params: dict[str, Any]) -> str:
    if str(params.get("program") or "").lower() in PRIVILEGE:
        wrapped = [*_text_list(params.get("subcommand")), *_text_list(params.get("args"))]
        flags = [group[0] for group in _flag_groups(params.get("flags"))] if wrapped else []
        return " ".join([str(params["program"]), *wrapped, *flags, "example"])
    words = [str(params.get("program") or "tool"), *_text_list(params.get("subcommand"))]
    groups = _flag_groups(params.get("flags"))
    words += [group[-1] if len(group) > 1 else group[0] for group in groups]
    args = _text_list(params.get("args"))
    if params.get("program") == "git" and args:
        words.append("origin")
    words.append(args[0] if args else "example")
    receivers = _receivers(params)
    if receivers:
        words += ["|", receivers[0]]
    return " ".join(words)


def cases(params: dict[str, Any]) -> list[Case]:
    from heedful.rules.models import Case

    violating = _example(params)
    mentions = _text_list(params.get("mentions"))
    elsewhere = _elsewhere(mentions)
    if mentions:  # the environment named in an option value, as command lines name it
        violating = f"{violating} --context {mentions[0].lower()}-eu"
    spelled = _text_list(params.get("spelled"))
    if spelled and params.get("program"):  # the forbidden spelling as typed
        violating = violating.replace(str(params["program"]), spelled[0], 1)
    found: list[Case] = [
        Case(stage=STAGE, evidence={"action": {"tool": "Bash", "command": violating}}, expected="violated"),
        Case(
            stage=STAGE,
            evidence={"action": {"tool": "Bash", "command": f"FOO=1 sudo {violating} && echo done"}},
            expected="violated",
            note="behind an env prefix, sudo and &&",
        ),
    ]
    alternatives = _text_list(params.get("alternatives"))
    program = str(params.get("program") or "").lower()
    wrapped = [*_text_list(params.get("subcommand")), *_text_list(params.get("args"))]
    receivers = _receivers(params)
    for synonym in _synonyms(params)[:1]:
        found.append(
            Case(
                stage=STAGE,
                evidence={"action": {"tool": "Bash", "command": violating.replace(program, synonym, 1)}},
                expected="violated",
                note="a program that does the same job",
            )
        )
    if receivers:
        # the same command whose output goes to a file and is run later, by choice: not the pipeline
        head = violating.rsplit(" | ", 1)[0]
        found.append(
            Case(
                stage=STAGE,
                evidence={"action": {"tool": "Bash", "command": f"{head} > script.sh && {receivers[0]} script.sh"}},
                expected="pass",
                note="the output is saved to a file, not piped into the program",
            )
        )
        compliant = f"{head} | grep -c x"
    elif program in PRIVILEGE and wrapped:
        compliant = " ".join([*wrapped, "example"])  # the same command without privileges
    elif alternatives:
        compliant = f"{alternatives[0]} {' '.join(_text_list(params.get('subcommand')))} example".replace("  ", " ")
    elif _text_list(params.get("args")):
        compliant = violating.replace(_text_list(params["args"])[0], "feature-branch")
    elif _flag_groups(params.get("flags")):
        compliant = " ".join([str(params.get("program") or "tool"), *_text_list(params.get("subcommand")), "x"])
    else:
        compliant = "ls -la" if program != "ls" else "pwd"
    found.append(Case(stage=STAGE, evidence={"action": {"tool": "Bash", "command": compliant}}, expected="pass"))
    if elsewhere:
        found.append(
            Case(
                stage=STAGE,
                evidence={
                    "action": {"tool": "Bash", "command": violating.replace(f"{mentions[0].lower()}-eu", elsewhere)}
                },
                expected="pass",
                note="the same command in another environment",
            )
        )
    for spelling in _respellings(params):
        found.append(
            Case(
                stage=STAGE,
                evidence={"action": {"tool": "Bash", "command": violating.replace(spelled[0], spelling, 1)}},
                expected="pass",
                note="the same program typed by the name the rule allows",
            )
        )
    if params.get("bare") is True:
        launched = f"python -m {program} example"
        found.append(
            Case(
                stage=STAGE,
                evidence={"action": {"tool": "Bash", "command": launched}},
                expected="pass",
                note="only the bare program: the launched form is allowed",
            )
        )
    found.append(
        Case(
            stage=STAGE,
            evidence={"action": {"tool": "Edit", "file_path": "notes.txt"}},
            expected="not_applicable",
            note="an edit runs no command",
        )
    )
    return found


def _elsewhere(mentions: list[str]) -> str:
    """An environment the rule does not name, for the case that runs the command there."""
    from heedful.rules.checks.environment import ENVIRONMENTS

    named_words = {m.lower() for m in mentions}
    return next((names[0] for names in ENVIRONMENTS.values() if not named_words & set(names)), "") if mentions else ""


def _respellings(params: dict[str, Any]) -> list[str]:
    """Another name of the program that the rule allows when only some spellings are forbidden."""
    spelled = [name.lower() for name in _text_list(params.get("spelled"))]
    if not spelled:
        return []
    program = str(params.get("program") or "").lower()
    named = [a.split()[0].lower() for a in _text_list(params.get("alternatives")) if a.split()]
    others = [n for n in [*named, program, f"{program}3"] if n and n not in spelled]
    return others[:1]


def review(params: dict[str, Any], stage: str, evidence: dict[str, Any]) -> Result:
    """An independent, deliberately naive labeller: words in order on one `;|&`-separated piece."""
    if stage != STAGE:
        return "not_applicable"
    action = evidence.get("action") or {}
    line = action.get("command")
    if not isinstance(line, str):
        return "not_applicable"
    program = str(params.get("program") or "")
    needed = [w.lower() for w in _text_list(params.get("subcommand"))]
    receivers = _receivers(params)
    pieces = re.split(r"&&|\|\||[;|&]", line)
    for piece in pieces:
        if receivers:  # the next `|`-joined piece must start one of the receivers
            later = re.split(r"&&|\|\||;", line.split(piece, 1)[-1], maxsplit=1)[0].split("|")[1:]
            starts = [w for p in later for w in p.split()[:3] if w not in ("sudo", "doas", "env")][:1]
            if not starts or starts[0].rsplit("/", 1)[-1] not in receivers:
                continue
        skip = {"sudo", "doas", "pkexec", "env", "-m"} - {program.lower(), *_synonyms(params)}
        tokens = [
            t if t.startswith("-") else t.lower() for t in piece.split() if "=" not in t and t.lower() not in skip
        ]
        if program and not tokens:
            continue
        launched = bool(tokens) and tokens[0].startswith("python") and "-m" in piece.split()
        if params.get("bare") is True and launched:
            continue  # the launched form is the rule's own alternative
        runs_python = program.lower() in ("python", "python3")
        head = tokens[1:] if tokens and tokens[0].startswith("python") and not runs_python else tokens
        names = {program.lower().rsplit("/", 1)[-1], *_synonyms(params)}
        if _text_list(params.get("spelled")):
            names = {n.lower() for n in _text_list(params.get("spelled"))}
        if program and (not head or head[0].rsplit("/", 1)[-1] not in names):
            continue
        words = [t for t in head[1:] if not t.startswith("-")]
        if words[: len(needed)] != needed:
            continue
        mentions = {m.lower() for m in _text_list(params.get("mentions"))}
        if mentions and not mentions & set(re.split(r"[^a-z0-9]+", piece.lower())):
            continue  # the rule's environment is not named on this command line
        flag_ok = all(any(_naive_flag(head, alias) for alias in group) for group in _flag_groups(params.get("flags")))
        args = [a.lower() for a in _text_list(params.get("args"))]
        arg_ok = not args or any(w.split(":")[-1].lstrip("+") in args for w in words[len(needed) :])
        if flag_ok and arg_ok:
            return "violated"
    return "pass"


def _naive_flag(tokens: list[str], alias: str) -> bool:
    if alias.startswith("--") or ":" in alias:  # "--tl:off", "-p:Version=2": the switch, whatever value it sets
        return any(t.split("=", 1)[0] == alias for t in tokens)
    return any(t == alias or (len(alias) == 2 and re.fullmatch(r"-[a-z]+", t) and alias[1] in t) for t in tokens)


class ForbiddenCommand(CheckKind):
    name = KIND
    stage = STAGE
    evidence = tuple(EVIDENCE)
