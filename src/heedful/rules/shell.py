"""A quote-aware reading of shell command lines, for command checks. Pure, never raises.

`simple_commands("FOO=1 sudo -E python -m pip install x && uv pip list | grep y")` gives one
`SimpleCommand` per simple command, with environment assignments and wrappers (`sudo`, `env`,
`nohup`, `time`, ...) removed and the program normalised (`python -m pip` is `pip`, `pip3` is
`pip`, `/usr/bin/git` is `git`). Commands inside `$(...)`, backticks and `bash -c '...'` are read
too. Heredoc bodies are data, not commands (unless a shell reads them): each command keeps the
bodies it was given. The files a command line writes are read in `shell_writes`, the parts of
`git commit` and `git add` in `shell_git`.
This is a reader for checks, not a shell: it errs toward finding commands.
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache
from typing import NamedTuple

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SHORT_CLUSTER = re.compile(r"^-[A-Za-z]+$")
_VERSIONED = re.compile(r"^(python|pip|pypy)[0-9.]*$")
_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "for"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish"})
_PRIVILEGE = frozenset({"sudo", "doas", "pkexec"})
# wrapper -> options of that wrapper which take a value
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "--user", "--group"}),
    "doas": frozenset({"-u", "-C"}),
    "pkexec": frozenset({"--user"}),
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "-o", "--format", "--output"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "xargs": frozenset({"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a"}),
}
# program -> global options (before the subcommand) that take a value
_GLOBAL_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "git": frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}),
    "docker": frozenset({"-H", "--host", "--context", "-c", "--config", "-l", "--log-level"}),
    "npm": frozenset({"--prefix", "-C", "--workspace", "-w"}),
    "yarn": frozenset({"--cwd"}),
    "pnpm": frozenset({"-C", "--dir", "--filter", "-F"}),
    "uv": frozenset({"--directory", "--project", "--python", "-p"}),
    "cargo": frozenset({"-C", "--config", "-Z"}),
    "kubectl": frozenset({"-n", "--namespace", "--context", "--kubeconfig"}),
}


class SimpleCommand(NamedTuple):
    program: str
    args: tuple[str, ...]
    raw: str
    sudo: bool = False
    env: tuple[str, ...] = ()
    wrappers: tuple[str, ...] = ()  # privilege wrappers that ran it: sudo, doas, pkexec
    writes: tuple[str, ...] = ()  # output redirection targets
    heredocs: tuple[str, ...] = ()  # bodies of the heredocs it reads
    launcher: str = ""  # "python -m" when the program was started as a module (`python -m pytest` is pytest)
    # programs that read this command's output: later commands of its pipeline (`curl x | tee log | sh`), or the
    # shell that runs its output as a script (`bash -c "$(curl x)"`, `bash <(curl x)`)
    pipes_into: tuple[str, ...] = ()
    typed: str = ""  # the program's name as typed, before normalising (`python3` for the program `python`)

    @property
    def text(self) -> str:
        return " ".join((self.program, *self.args))


class _Segment(NamedTuple):
    text: str
    heredocs: tuple[str, ...]
    piped_from: int | None = None  # index of the segment whose output this one reads through `|`
    inside: int | None = None  # index of the segment this one is substituted into (`$(...)`, `<(...)`)


def split_segments(line: str) -> list[str]:
    """Split on unquoted `;`, `&&`, `||`, `|`, `&`, newlines and parentheses; pull out `$(...)`."""
    return [segment.text for segment in _split(line)]


_HEREDOC = re.compile(r"<<(-?)\s*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([^\s;&|<>()'\"]+))")


def _heredoc_at(line: str, i: int) -> tuple[int, str, bool] | None:
    """(end of the `<<WORD` operator, delimiter, strip tabs) when a heredoc starts at i."""
    if not line.startswith("<<", i) or line.startswith("<<<", i):
        return None
    match = _HEREDOC.match(line, i)
    if not match:
        return None
    delimiter = next(g for g in match.groups()[1:] if g is not None)
    return match.end(), delimiter, match.group(1) == "-"


def _heredoc_body(line: str, newline: int, delimiter: str, strip_tabs: bool) -> tuple[str, int]:
    """(body, index after the closing delimiter line) for a heredoc whose body starts after `newline`."""
    body: list[str] = []
    i = newline + 1
    while i <= len(line):
        end = line.find("\n", i)
        end = len(line) if end < 0 else end
        text = line[i:end]
        if (text.lstrip("\t") if strip_tabs else text).rstrip() == delimiter:
            return "\n".join(body), end
        body.append(text)
        i = end + 1
    return "\n".join(body), len(line)


def _split(line: str) -> list[_Segment]:
    segments: list[tuple[str, list[str]]] = []
    nested: list[tuple[str, int]] = []  # (inner text, index of the segment it is substituted into)
    piped: dict[int, int] = {}  # segment index -> index of the segment it pipes into
    buf: list[str] = []
    pending: list[tuple[str, bool, int]] = []
    i, n = 0, len(line)
    quote: str | None = None
    pipe_open = False  # a `|` was read: the next segment reads the previous one's output

    def flush() -> None:
        nonlocal pipe_open
        text = "".join(buf).strip()
        if text:
            if pipe_open and segments:
                piped[len(segments) - 1] = len(segments)
            segments.append((text, []))
            pipe_open = False
        buf.clear()

    while i < n:
        ch = line[i]
        if ch == "\\" and quote != "'" and i + 1 < n:
            buf.append(line[i : i + 2])
            i += 2
            continue
        if quote == "'":
            buf.append(ch)
            quote = None if ch == "'" else quote
            i += 1
            continue
        substituted = (ch == "$" and not line.startswith("$((", i)) or (ch == "<" and quote is None)
        if substituted and line.startswith("(", i + 1):  # `$(...)`, and process substitution `<(...)`
            end = _matching_paren(line, i + 1)
            nested.append((line[i + 2 : end], len(segments)))
            buf.append(line[i : end + 1])
            i = end + 1
            continue
        if ch == "`":
            end = line.find("`", i + 1)
            end = n if end < 0 else end
            nested.append((line[i + 1 : end], len(segments)))
            buf.append(line[i : end + 1])
            i = end + 1
            continue
        if quote == '"':
            buf.append(ch)
            quote = None if ch == '"' else quote
            i += 1
            continue
        if ch in "'\"":
            quote = ch
            buf.append(ch)
            i += 1
            continue
        heredoc = _heredoc_at(line, i) if ch == "<" else None
        if heredoc is not None:
            end, delimiter, strip_tabs = heredoc
            buf.append(line[i:end])
            owner = len(segments) + (0 if "".join(buf).strip() else -1)
            pending.append((delimiter, strip_tabs, max(owner, 0)))
            i = end
            continue
        if ch == "#" and (not buf or buf[-1][-1:].isspace()):
            end = line.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch in ";&|()\n":
            if ch == "&" and i + 1 < n and line[i + 1] == ">":  # &> redirect
                buf.append("&>")
                i += 2
                continue
            if ch in "&|" and buf and buf[-1].endswith(">"):  # 2>&1, >| (clobber)
                buf.append(ch)
                i += 1
                continue
            if ch == "|" and line.startswith("||", i):  # `a || b`: b does not read a's output
                flush()
                i += 2
                continue
            flush()
            if ch == "|":
                pipe_open = True
                i += 2 if line.startswith("|&", i) else 1
                continue
            if ch == "\n" and pending:
                for delimiter, strip_tabs, owner in pending:
                    body, i = _heredoc_body(line, i, delimiter, strip_tabs)
                    if owner < len(segments):
                        segments[owner][1].append(body)
                pending.clear()
            i += 1
            continue
        buf.append(ch)
        i += 1
    flush()
    out = [_Segment(text, tuple(bodies)) for text, bodies in segments]
    for source, target in piped.items():
        out[target] = out[target]._replace(piped_from=source)
    for inner, owner in nested:
        offset = len(out)
        for segment in _split(inner):
            moved = segment._replace(
                piped_from=None if segment.piped_from is None else segment.piped_from + offset,
                inside=(owner if owner < offset else None) if segment.inside is None else segment.inside + offset,
            )
            out.append(moved)
    return out


def _matching_paren(line: str, open_index: int) -> int:
    depth = 0
    quote: str | None = None
    delimiters: list[tuple[str, bool]] = []
    j = open_index
    while j < len(line):
        ch = line[j]
        if quote:
            if ch == quote:
                quote = None
            j += 1
            continue
        heredoc = _heredoc_at(line, j) if ch == "<" else None
        if heredoc is not None:
            delimiters.append((heredoc[1], heredoc[2]))
            j = heredoc[0]
            continue
        if ch == "\n" and delimiters:
            for delimiter, strip_tabs in delimiters:
                _, j = _heredoc_body(line, j, delimiter, strip_tabs)
            delimiters.clear()
            j += 1
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return len(line)


def words(segment: str) -> list[str]:
    """shlex words of one segment; falls back to whitespace on unbalanced quotes or a huge segment
    (shlex is quadratic on one long word)."""
    if len(segment) > 16_384:
        return [w.strip("'\"") for w in segment.split()]
    try:
        return shlex.split(segment, comments=False, posix=True)
    except ValueError:
        return [w.strip("'\"") for w in segment.split()]


def _normalise_program(word: str) -> str:
    name = word.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name.endswith(".exe"):
        name = name[:-4]
    match = _VERSIONED.match(name)
    if match:
        return match.group(1)
    if name == "py":
        return "python"
    return _WRAPPER_SCRIPTS.get(name, name)


# A build tool's wrapper script runs that tool (`./gradlew test` is gradle test).
_WRAPPER_SCRIPTS = {"gradlew": "gradle", "mvnw": "mvn"}


def _strip_wrappers(argv: list[str]) -> tuple[list[str], tuple[str, ...], list[str]]:
    privileged: list[str] = []
    env: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        name = _normalise_program(word)
        if word in _KEYWORDS:
            i += 1
        elif _ASSIGNMENT.match(word):
            env.append(word)
            i += 1
        elif name in _WRAPPERS:
            if name in _PRIVILEGE:
                privileged.append(name)
            value_options = _WRAPPERS[name]
            i += 1
            if name == "timeout":  # timeout [options] DURATION cmd
                while i < len(argv) and argv[i].startswith("-"):
                    i += 2 if argv[i] in value_options else 1
                i += 1
                continue
            while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
                i += 2 if argv[i] in value_options else 1
        else:
            break
    return argv[i:], tuple(privileged), env


_REDIRECT = re.compile(r"^(\d*|&)(>>|>\||>&|>|<<<|<<-?|<>|<&|<)(.*)$")


def _redirections(argv: list[str]) -> tuple[list[str], list[str]]:
    """(words without redirections, files written by `>`/`>>`/`&>`)."""
    kept: list[str] = []
    writes: list[str] = []
    i = 0
    while i < len(argv):
        match = _REDIRECT.match(argv[i])
        if not match:
            kept.append(argv[i])
            i += 1
            continue
        target = match.group(3)
        if not target and i + 1 < len(argv):
            target = argv[i + 1]
            i += 1
        operator = match.group(2)
        if (
            operator in (">>", ">|", ">", "<>")
            and target
            and not target.startswith("&")
            and not target.startswith("/dev/")
        ):
            writes.append(target)
        i += 1
    return kept, writes


def _shell_script(args: list[str]) -> int | None:
    """Index of the script of `bash -c SCRIPT` / `bash -lc SCRIPT`."""
    for index, arg in enumerate(args):
        if re.fullmatch(r"-[a-z]*c[a-z]*", arg) and not arg.startswith("--"):
            return index + 1 if index + 1 < len(args) else None
        if not arg.startswith("-"):
            return None
    return None


def _read(segment: str, heredocs: tuple[str, ...], depth: int) -> list[SimpleCommand]:
    argv, privileged, env = _strip_wrappers(words(segment))
    argv, writes = _redirections(argv)
    if not argv:
        return []
    program = _normalise_program(argv[0])
    args = argv[1:]
    if program in _SHELLS and depth < 4:
        script = _shell_script(args)
        if script is not None:
            inner = _commands(args[script], depth + 1)
            if heredocs and inner:  # `bash -lc apply_patch <<'EOF'` joined from a list: the body is the script's
                inner[-1] = inner[-1]._replace(heredocs=inner[-1].heredocs + heredocs)
            return [c._replace(wrappers=privileged + c.wrappers, sudo=c.sudo or bool(privileged)) for c in inner]
        if heredocs and not [a for a in args if not a.startswith("-")]:
            return [c for body in heredocs for c in _commands(body, depth + 1)]
    if program == "eval" and args and depth < 4:
        return _commands(" ".join(args), depth + 1)
    launcher = ""
    if program == "python":
        k = 0
        while k < len(args) and args[k].startswith("-") and args[k] != "-m":
            k += 1
        if k + 1 < len(args) and args[k] == "-m":
            program = _normalise_program(args[k + 1])
            args = args[k + 2 :]
            launcher = "python -m"
    return [
        SimpleCommand(
            program=program,
            args=tuple(args),
            raw=segment,
            sudo=bool(privileged),
            env=tuple(env),
            wrappers=privileged,
            writes=tuple(writes),
            heredocs=heredocs,
            launcher=launcher,
            typed=argv[0].replace("\\", "/").rsplit("/", 1)[-1].lower().removesuffix(".exe"),
        )
    ]


# Programs that run what they read as a script: a command substituted into one feeds it (`bash <(curl x)`).
_RUNS_INPUT = _SHELLS | {"eval", "source", "."}


def _head_program(segment: str) -> str:
    """The program a segment starts, wrappers and assignments aside (`sudo -E bash -c ...` is bash)."""
    argv, _, _ = _strip_wrappers(words(segment))
    return _normalise_program(argv[0]) if argv else ""


def _commands(line: str, depth: int) -> list[SimpleCommand]:
    segments = _split(line)
    read = [_read(segment.text, segment.heredocs, depth) for segment in segments]
    feeds: list[tuple[str, ...]] = [() for _ in segments]
    for index in reversed(range(len(segments))):  # later pipeline stages first: a chain reads to its end
        segment = segments[index]
        if segment.piped_from is not None and read[index]:
            programs = tuple(c.program for c in read[index])
            feeds[segment.piped_from] = programs + feeds[index] + feeds[segment.piped_from]
    for index, segment in enumerate(segments):
        owner = _head_program(segments[segment.inside].text) if segment.inside is not None else ""
        if owner in _RUNS_INPUT:
            feeds[index] = (*feeds[index], owner)
    found: list[SimpleCommand] = []
    for commands, programs in zip(read, feeds, strict=True):
        for command in commands:
            found.append(command._replace(pipes_into=command.pipes_into + programs) if programs else command)
    return found


def simple_commands(line: str) -> list[SimpleCommand]:
    if not isinstance(line, str):
        return []
    return list(_parsed(line))


@lru_cache(maxsize=256)
def _parsed(line: str) -> tuple[SimpleCommand, ...]:
    # Every command check of one tool call reads the same line: parse it once (the result is immutable).
    return tuple(_commands(line, 0))


def positionals(command: SimpleCommand) -> list[str]:
    """Arguments that are not options, skipping the values of known global options."""
    value_options = _GLOBAL_VALUE_OPTIONS.get(command.program, frozenset())
    out: list[str] = []
    skip = False
    after_double_dash = False
    for arg in command.args:
        if skip:
            skip = False
            continue
        if after_double_dash:
            out.append(arg)
        elif arg == "--":
            after_double_dash = True
        elif arg.startswith("-") and arg != "-":
            if arg in value_options and not out:
                skip = True
        else:
            out.append(arg)
    return out


def has_flag(command: SimpleCommand, alias: str) -> bool:
    """Whether the option `alias` (`--force`, `-f`) is given, in long, `--x=v` or clustered short form."""
    for arg in command.args:
        if arg == "--":
            return alias == "--"  # `git checkout -- file`: the end of options is itself what a rule may name
        if alias.startswith("--"):
            if arg == alias or arg.startswith(alias + "="):
                return True
        elif len(alias) == 2 and alias.startswith("-"):
            if arg == alias or (_SHORT_CLUSTER.match(arg) and alias[1] in arg[1:]):
                return True
        elif arg == alias:
            return True
    return alias == "--force" and _forced_refspec(command)


def _forced_refspec(command: SimpleCommand) -> bool:
    """`git push origin +main`: a refspec with a leading `+` force-pushes that ref, as `--force` does."""
    words = positionals(command)
    return command.program == "git" and words[:1] == ["push"] and any(w.startswith("+") for w in words[1:])
