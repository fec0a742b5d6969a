"""required_event: before delivery, a command (e.g. the tests) ran after the last code edit.

params: commands ([[word, ...], ...]: a command matches when its program and leading positionals
equal one of these, `python -m pytest` counting as `pytest`; a path-named program such as
`./bin/brew` matches by its file name; a one-word command also matches as a project script or target,
`pnpm lint`, `npm run lint` or `make lint` for `lint`), every (bool, optional: each command must run, not any one of
them: "run make format and make lint"), after (edit | always: with `edit`,
a task that edited nothing is not applicable), edit_globs ([str], optional: only edits of these
paths count), before (commit | push | pr, optional: "run ruff format before every commit" is judged
before the action, on a `git commit` / `git push` command, instead of at delivery; "run the linter
before opening a PR" on the command that opens it: `gh pr create`, `glab mr create`, `hub pull-request`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from heedful.rules.checks.command import INTERPRETERS
from heedful.rules.checks.evidence import action_of, clip, events_of
from heedful.rules.checks.kind import CheckKind
from heedful.rules.checks.path import glob_regex
from heedful.rules.checks.verdict import Result, Stage, Verdict

if TYPE_CHECKING:
    from heedful.rules.models import Case
from heedful.rules.shell import positionals, simple_commands

KIND = "required_event"
STAGE: Stage = "delivery"
GATED_STAGE: Stage = "pre_action"  # with `before`: judged on the commit, push or pull request itself
EVIDENCE = ["events"]
GATED_EVIDENCE = ["action.command", "events"]
GATES = ("commit", "push", "pr")
# The commands that open a pull (merge) request: program and leading positionals.
PR_OPENERS = (("gh", "pr", "create"), ("glab", "mr", "create"), ("hub", "pull-request"))


def gate_of(params: Any) -> str | None:
    """The action the command is due before (`before`), or None: due before delivery."""
    value = params.get("before") if isinstance(params, dict) else None
    return value if value in GATES else None


def _gate_name(gate: str) -> str:
    return "pull request" if gate == "pr" else f"git {gate}"


def _opens(gate: str, program: str, words: list[str]) -> bool:
    if gate == "pr":
        return any((program, *words[: len(o) - 1]) == o for o in PR_OPENERS)
    return program == "git" and words[:1] == [gate]


def _gated_action(line: str, gate: str) -> bool:
    """Whether the shell line runs the gated action (`git <gate>`, or a command opening a pull request)."""
    return any(_opens(gate, c.program, [p.lower() for p in positionals(c)]) for c in simple_commands(line))


EDIT_KINDS = frozenset({"edit", "write", "create", "patch"})


def _commands(params: Any) -> list[list[str]]:
    value = params.get("commands") if isinstance(params, dict) else None
    if not isinstance(value, list):
        return []
    out = []
    for item in value:
        words = item.split() if isinstance(item, str) else item
        if isinstance(words, list) and words and all(isinstance(w, str) and w for w in words):
            out.append([w.lower() for w in words])
    return out


def _what(params: dict[str, Any]) -> str:
    names = (" and " if params.get("every") is True else " or ").join(" ".join(c) for c in _commands(params))
    return f"run {names} after the last edit" if params.get("after", "edit") == "edit" else f"run {names}"


def describe(params: dict[str, Any]) -> str:
    gate = gate_of(params)
    return f"{_what(params)}, before every {_gate_name(gate)}" if gate else _what(params)


# Runners that start another command: `uv run pytest` runs pytest.
RUNNERS = (
    ["uv", "run"],
    ["poetry", "run"],
    ["pipenv", "run"],
    ["pdm", "run"],
    ["hatch", "run"],
    ["rye", "run"],
    ["uvx"],
    ["pipx", "run"],
    ["npx"],
    ["pnpm", "exec"],
    ["yarn", "exec"],
    ["bunx"],
    ["mise", "exec"],
    ["mise", "x"],
    ["bundle", "exec"],
)


def _same(want: list[str], have: list[str]) -> bool:
    script = want[0].rsplit("/", 1)[-1] if len(want) == 1 and "." in want[0] else None
    if script and len(have) > 1 and have[0] in INTERPRETERS and have[1].rsplit("/", 1)[-1] == script:
        return True  # `Prebuild.ps1` run as `pwsh ./scripts/Prebuild.ps1`
    # `bash scripts/check.sh` is also `./scripts/check.sh` run directly, or `sh scripts/check.sh`
    if (
        len(want) == 2
        and want[0] in INTERPRETERS
        and have
        and (have[0] == want[1].rsplit("/", 1)[-1] or (have[0] in INTERPRETERS and have[1:2] == want[1:2]))
    ):
        return True
    if len(have) < len(want) or not want:
        return False
    program = want[0].rsplit("/", 1)[-1] if "/" in want[0] else want[0]
    return have[0] == program and have[1 : len(want)] == want[1:]


# Runners of a project's own scripts and targets: "run lint before committing" names the project's `lint`,
# which `pnpm lint`, `npm run lint` or `make lint` runs (a rule's one bare word is never only a program on PATH).
SCRIPT_RUNNERS = (
    ["npm", "run"],
    ["npm", "run-script"],
    ["pnpm", "run"],
    ["pnpm"],
    ["yarn", "run"],
    ["yarn"],
    ["bun", "run"],
    ["deno", "task"],
    ["make"],
    ["just"],
    ["task"],
    ["mise", "run"],
    ["composer", "run"],
    ["composer"],
)


def _runs(line: str, wanted: list[list[str]]) -> bool:
    for command in simple_commands(line):
        head = [command.program, *[p.lower() for p in positionals(command)]]
        if any(_same(w, head) for w in wanted):
            return True
        scripts = {w[0] for w in wanted if len(w) == 1}
        if any(head[: len(r)] == r and head[len(r) : len(r) + 1] and head[len(r)] in scripts for r in SCRIPT_RUNNERS):
            return True
        for runner in RUNNERS:
            if head[: len(runner)] == runner and len(head) > len(runner):
                # the wrapped command may follow a flag's value (`uv run --group dev pytest`)
                rest = head[len(runner) :]
                if any(_same(w, rest[k:]) for k in range(min(2, len(rest))) for w in wanted):
                    return True
    return False


def _is_edit(event: dict[str, Any], globs: list[str]) -> bool:
    if str(event.get("kind", "")).lower() not in EDIT_KINDS:
        return False
    path = event.get("path")
    if not globs:
        return True
    return isinstance(path, str) and any(glob_regex(g).match(path.replace("\\", "/")) for g in globs)


def evaluate(params: dict[str, Any], stage: str, evidence: Any) -> Verdict:
    wanted = _commands(params)
    if not wanted:
        return Verdict(result="unknown", reason="the check names no command")
    gate = gate_of(params)
    if stage != (GATED_STAGE if gate else STAGE):
        moment = f"before a {_gate_name(gate)}" if gate else "at delivery"
        return Verdict(result="not_applicable", reason=f"checked {moment}, not at {stage}")
    if gate:
        action = action_of(evidence)
        line = action.get("command") if action else None
        if not isinstance(line, str):
            return Verdict(result="not_applicable", reason="the action runs no command")
        if not _gated_action(line, gate):
            return Verdict(result="not_applicable", reason=f"the command opens no {_gate_name(gate)}")
    events = events_of(evidence)
    if events is None:
        return Verdict(result="unknown", reason="the evidence holds no event log")
    raw_globs = params.get("edit_globs")
    globs = [g for g in raw_globs if isinstance(g, str)] if isinstance(raw_globs, list) else []
    last_edit = -1
    for index, event in enumerate(events):
        if _is_edit(event, globs):
            last_edit = index
    if params.get("after", "edit") == "edit" and last_edit < 0:
        return Verdict(result="not_applicable", reason="nothing was edited in this task")
    ran: list[str] = []
    missing = list(wanted)
    for event in events[last_edit + 1 :]:
        line = event.get("command")
        if str(event.get("kind", "")).lower() != "command" or not isinstance(line, str):
            continue
        if params.get("every") is True:
            matched = [w for w in missing if _runs(line, [w])]
            if matched:
                ran.append(clip(line))
                missing = [w for w in missing if w not in matched]
            if not missing:
                return Verdict(result="pass", reason="ran every required command after the last edit", quotes=ran)
        elif _runs(line, wanted):
            return Verdict(result="pass", reason=f"ran {clip(line, 80)!r} after the last edit", quotes=[clip(line)])
    edited = events[last_edit].get("path") if last_edit >= 0 else None
    quotes = [edited] if isinstance(edited, str) else []
    moment = f"before this {_gate_name(gate)}" if gate else "before delivery"
    return Verdict(result="violated", reason=f"no {_what(params)} {moment}", quotes=quotes)


def cases(params: dict[str, Any]) -> list[Case]:
    from heedful.rules.models import Case

    wanted = _commands(params) or [["test"]]
    every = params.get("every") is True if isinstance(params, dict) else False
    run = " && ".join(" ".join(w) for w in (wanted if every else wanted[:1])) + " -q"
    raw_globs = params.get("edit_globs") if isinstance(params, dict) else None
    globs = [g for g in raw_globs if isinstance(g, str) and g] if isinstance(raw_globs, list) else []
    example = (
        globs[0].replace("**/", "").replace("**", "deep/file").replace("*", "module") if globs else "src/module.py"
    )
    edit = {"kind": "edit", "path": example}
    gate = gate_of(params)
    if gate:
        return _gated_cases(gate, edit, run, params.get("after", "edit") == "edit")
    out = [
        Case(stage=STAGE, evidence={"events": [edit, {"kind": "command", "command": run}]}, expected="pass"),
        Case(
            stage=STAGE,
            evidence={"events": [{"kind": "command", "command": run}, edit]},
            expected="violated",
            note="ran before the last edit",
        ),
        Case(
            stage=STAGE, evidence={"events": [edit, {"kind": "command", "command": "git status"}]}, expected="violated"
        ),
        Case(
            stage=STAGE,
            evidence={"events": [{"kind": "command", "command": "ls"}]},
            expected="not_applicable" if params.get("after", "edit") == "edit" else "violated",
        ),
    ]
    if every and len(wanted) > 1:
        only_first = " ".join(wanted[0]) + " -q"
        out.append(
            Case(
                stage=STAGE,
                evidence={"events": [edit, {"kind": "command", "command": only_first}]},
                expected="violated",
                note="ran only one of the required commands",
            )
        )
    return out


def _gated_cases(gate: str, edit: dict[str, Any], run: str, after_edit: bool) -> list[Case]:
    from heedful.rules.models import Case

    def at(command: str, events: list[dict[str, Any]]) -> dict[str, Any]:
        return {"action": {"tool": "Bash", "command": command}, "events": events}

    act = {"commit": "git commit -m 'change'", "push": "git push origin feature", "pr": "gh pr create --fill"}[gate]
    ran = {"kind": "command", "command": run}
    return [
        Case(stage=GATED_STAGE, evidence=at(act, [edit, ran]), expected="pass"),
        Case(stage=GATED_STAGE, evidence=at(act, [ran, edit]), expected="violated", note="ran before the last edit"),
        Case(stage=GATED_STAGE, evidence=at(f"git add -A && {act}", [edit]), expected="violated"),
        Case(stage=GATED_STAGE, evidence=at("git status", [edit]), expected="not_applicable", note="not a " + gate),
        Case(
            stage=GATED_STAGE,
            evidence=at(act, []),
            expected="not_applicable" if after_edit else "violated",
            note="nothing was edited in this turn",
        ),
        Case(stage=GATED_STAGE, evidence=at(act, [ran]), expected="pass", note="ran, nothing edited since"),
    ]


def review(params: dict[str, Any], stage: str, evidence: dict[str, Any]) -> Result:
    gate = gate_of(params)
    if stage != (GATED_STAGE if gate else STAGE):
        return "not_applicable"
    if gate:
        action = evidence.get("action") or {}
        words = str(action.get("command") or "").replace("&&", " ; ").replace(";", " ; ").split()
        opens = [("git", gate)] if gate != "pr" else PR_OPENERS
        if not any(tuple(words[i : i + len(o)]) == o for o in opens for i in range(len(words))):
            return "not_applicable"
    events = evidence.get("events") or []
    wanted = [" ".join(c) for c in _commands(params)]
    edits = [i for i, e in enumerate(events) if e.get("kind") in EDIT_KINDS]
    if not edits and params.get("after", "edit") == "edit":
        return "not_applicable"
    start = edits[-1] + 1 if edits else 0
    lines = [str(e.get("command", "")) for e in events[start:]]
    found = [any(_spelled(w, line) for line in lines) for w in wanted]
    ran = all(found) if params.get("every") is True else any(found)
    return "pass" if ran else "violated"


def _spelled(command: str, line: str) -> bool:
    """The reviewer's own reading: the command's words appear in the line (a path program by its name)."""
    tokens = [t.rsplit("/", 1)[-1] for t in line.split()]
    return all(w.rsplit("/", 1)[-1] in tokens for w in command.split())


class RequiredEvent(CheckKind):
    name = KIND
    stage = STAGE
    evidence = tuple(EVIDENCE)

    def stage_for(self, params: dict[str, Any]) -> Stage:
        return GATED_STAGE if gate_of(params) else STAGE

    def evidence_for(self, params: dict[str, Any]) -> list[str]:
        return list(GATED_EVIDENCE if gate_of(params) else EVIDENCE)
