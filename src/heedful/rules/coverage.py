"""Compilation coverage on labelled rules: how many checkable rules compile to the right check.

Takes rows in the corpus shape (persist rows carry `rules`, each with a `check` label: a kind with
parameters, or "guidance"), compiles every rule with the offline model through `compile_candidate`
and compares the validated check with the label on its key parameters: program, subcommand and
flags for commands (subcommand and positional words read as one sequence), globs for paths,
unit and limit for counts, forbid/require/max_subject for commit messages, commands for required
events, patterns for forbidden text, fields for JSON replies.

    report = coverage(rows)
    print(render(report))
"""

from __future__ import annotations

import json
import posixpath
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Verdict = Literal["right", "wrong_params", "wrong_kind", "guidance", "not_guidance", "kept_guidance"]


@dataclass
class KindCoverage:
    kind: str
    labelled: int = 0
    right: int = 0
    wrong_kind: int = 0
    wrong_params: int = 0
    missed: int = 0  # stayed guidance (or inactive)

    @property
    def rate(self) -> float:
        return self.right / self.labelled if self.labelled else 0.0


@dataclass
class RuleOutcome:
    row_id: str
    text: str
    condition: str | None
    expected: str  # a kind or "guidance"
    expected_params: dict[str, Any]
    got: str | None  # a kind, or None when the rule stayed guidance
    got_params: dict[str, Any]
    verdict: Verdict


@dataclass
class CoverageReport:
    kinds: dict[str, KindCoverage] = field(default_factory=dict)
    guidance_labelled: int = 0
    guidance_checked: int = 0  # labelled guidance that wrongly got a check
    outcomes: list[RuleOutcome] = field(default_factory=list)

    @property
    def checkable(self) -> int:
        return sum(k.labelled for k in self.kinds.values())

    @property
    def right(self) -> int:
        return sum(k.right for k in self.kinds.values())

    @property
    def rate(self) -> float:
        return self.right / self.checkable if self.checkable else 0.0


def _words(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.lower().split()
    if isinstance(value, list):
        return [w.lower() for item in value if isinstance(item, str) for w in item.split()]
    return []


def _flag_sets(value: Any) -> list[frozenset[str]]:
    if not isinstance(value, list):
        return []
    groups = [frozenset(g if isinstance(g, list) else [g]) for g in value]
    return [frozenset(str(a) for a in g) for g in groups if g]


def _glob(pattern: str) -> str:
    from heedful.rules.checks.path import project_glob, system_path

    clean = pattern.strip().replace("\\", "/")
    clean = clean if system_path(clean) else project_glob(clean)[0]  # "./dist/" and "/dist" are dist/
    clean = re.sub(r"(?:/\*\*)+/?$|/$", "", clean)
    return posixpath.normpath(clean) if clean else clean


def _glob_set(value: Any) -> set[str]:
    """Globs as the path check reads them: a pattern without a slash matches at any depth (gitignore), so
    `**/.DS_Store` is `.DS_Store`, and a literal path that such a pattern already matches adds nothing
    (`.github/CODEOWNERS` beside `CODEOWNERS`)."""
    from heedful.rules.checks.path import glob_regex

    raw = [g.strip() for g in value or [] if isinstance(g, str)]
    globs = {_glob(g[3:] if g.startswith("**/") and "/" not in g[3:] else g) for g in raw}
    anywhere = [g for g in globs if "/" not in g and not g.startswith("!")]
    return {
        g
        for g in globs
        if not (not re.search(r"[*?\[]", g) and any(h != g and glob_regex(h).match(g) for h in anywhere))
    }


def _commands(value: Any) -> set[str]:
    from heedful.rules.compile.runs import peel

    if not isinstance(value, list):
        return set()
    out = set()
    for item in value:
        words = item.split() if isinstance(item, str) else [str(w) for w in item] if isinstance(item, list) else []
        words = peel(words)  # `npx hereby build`, `uv run ruff format`: the check sees through the runner too
        if words:  # a program named by its path (`./bin/brew`) is the program `brew`, `./gradlew` is gradle
            words = [
                _as_shell_reads(str(words[0]).rsplit("/", 1)[-1]),
                *(w for w in words[1:] if not w.startswith("-") and "/" not in w),
            ]
        if words:
            out.add(" ".join(words).lower())
    return out


def _as_shell_reads(program: str) -> str:
    from heedful.rules.shell import simple_commands

    found = simple_commands(program) if program.strip() else []
    return found[0].program if found else program


def _program(value: Any) -> str:
    name = str(value or "").lower()
    return {"pip3": "pip", "python3": "python"}.get(name, name)


def _as_run(params: dict[str, Any]) -> dict[str, Any]:
    """A command as the check runs it: `python -m venv` is the program `venv` (rules/shell.py), `python manage.py`
    the script `manage.py`."""
    flags = params.get("flags") or []
    args = _words(params.get("subcommand")) + _words(params.get("args"))
    if _program(params.get("program")) == "python" and args and args[0].endswith(".py"):
        # `python manage.py migrate` runs the script manage.py (checks/command.py matches either spelling)
        script = {k: v for k, v in params.items() if k not in ("subcommand", "args")}
        return {**script, "program": args[0].rsplit("/", 1)[-1], **({"args": args[1:]} if args[1:] else {})}
    if _program(params.get("program")) != "python" or not args or not any("-m" in g for g in _flag_sets(flags)):
        return params
    rest = {k: v for k, v in params.items() if k not in ("subcommand", "args")}
    rest["program"] = args[0]
    rest["flags"] = [g for g in flags if "-m" not in (g if isinstance(g, list) else [g])]
    if args[1:]:
        rest["args"] = args[1:]
    return rest


def same_params(kind: str, label: dict[str, Any], got: dict[str, Any]) -> bool:
    """Whether a compiled check states the labelled one on its key parameters."""
    if kind == "forbidden_command":
        label, got = _as_run(label), _as_run(got)
        if _program(label.get("program")) != _program(got.get("program")):
            return False
        # "--" ends the options: the shell reader never counts it as a positional word
        want = [w for w in _words(label.get("subcommand")) + _words(label.get("args")) if w != "--"]
        have = [w for w in _words(got.get("subcommand")) + _words(got.get("args")) if w != "--"]
        if want != have and not (want and have and (want[: len(have)] == have or have[: len(want)] == want)):
            return False
        want_flags, have_flags = _flag_sets(label.get("flags")), _flag_sets(got.get("flags"))
        return len(want_flags) == len(have_flags) and all(any(w & h for h in have_flags) for w in want_flags)
    if kind in ("forbidden_path", "staged_path", "workspace_leftovers"):
        if bool(label.get("outside_project")) != bool(got.get("outside_project")):
            return False
        return _glob_set(label.get("globs")) == _glob_set(got.get("globs"))
    if kind == "reply_word_limit":  # "under 100 words": authors read it as 100 or as 99
        return (
            isinstance(label.get("limit"), int)
            and isinstance(got.get("limit"), int)
            and abs(label["limit"] - got["limit"]) <= 1
        )
    if kind == "reply_count_limit":
        return label.get("limit") == got.get("limit") and label.get("unit") == got.get("unit")
    if kind == "commit_message":
        # "Co-Authored-By:" and "Co-Authored-By" keep the same messages out (the text is searched for)
        forbid = {str(f).lower().rstrip(":") for f in label.get("forbid") or []}
        return (
            forbid == {str(f).lower().rstrip(":") for f in got.get("forbid") or []}
            and bool(label.get("require")) == bool(got.get("require"))
            and label.get("max_subject") == got.get("max_subject")
        )
    if kind == "reply_forbidden_text":
        return {str(p).lower() for p in label.get("patterns") or []} == {
            str(p).lower() for p in got.get("patterns") or []
        }
    if kind == "required_event":
        wanted, produced = _commands(label.get("commands")), _commands(got.get("commands"))
        return bool(wanted) and wanted <= produced
    if kind == "reply_json_fields":
        return {str(f) for f in label.get("fields") or []} == {str(f) for f in got.get("fields") or []}
    if kind == "field_value":
        return all(label.get(k) == got.get(k) for k in ("path", "op", "value"))
    return label == got


def coverage(rows: Iterable[dict[str, Any]]) -> CoverageReport:
    from heedful.llm import OfflineModel
    from heedful.rules.library import compile_candidate
    from heedful.rules.models import Candidate

    model = OfflineModel()
    report = CoverageReport()
    for row in rows:
        if row.get("decision") != "persist" or row.get("retraction"):
            continue
        for rule in row.get("rules") or []:
            text = str(rule.get("text") or "").strip()
            if not text:
                continue
            label = rule.get("check")
            condition = rule.get("condition") or None
            outcome = compile_candidate(model, Candidate(text=text, condition=condition, evidence=[text]))
            check = outcome.check if outcome.status == "checked" else None
            got_kind = check.kind if check is not None else None
            got_params = dict(check.params) if check is not None else {}
            if not isinstance(label, dict):
                report.guidance_labelled += 1
                verdict: Verdict = "kept_guidance" if got_kind is None else "not_guidance"
                report.guidance_checked += got_kind is not None
                expected, expected_params = "guidance", {}
            else:
                expected, expected_params = str(label.get("kind")), dict(label.get("params") or {})
                stats = report.kinds.setdefault(expected, KindCoverage(expected))
                stats.labelled += 1
                if got_kind is None:
                    verdict, stats.missed = "guidance", stats.missed + 1
                elif got_kind != expected:
                    verdict, stats.wrong_kind = "wrong_kind", stats.wrong_kind + 1
                elif not same_params(expected, expected_params, got_params):
                    verdict, stats.wrong_params = "wrong_params", stats.wrong_params + 1
                else:
                    verdict, stats.right = "right", stats.right + 1
            report.outcomes.append(
                RuleOutcome(
                    str(row.get("id", "")), text, condition, expected, expected_params, got_kind, got_params, verdict
                )
            )
    return report


def render(report: CoverageReport) -> str:
    """A plain table: per expected kind, right / wrong kind / wrong params / stayed guidance."""
    head = (
        f"{'expected check':<22} {'rules':>6} {'right':>6} {'rate':>7} {'wrong kind':>11} {'wrong params':>13} "
        f"{'guidance':>9}"
    )
    lines = [head, "-" * len(head)]
    for kind in sorted(report.kinds, key=lambda k: -report.kinds[k].labelled):
        k = report.kinds[kind]
        lines.append(
            f"{kind:<22} {k.labelled:>6} {k.right:>6} {k.rate:>6.1%} {k.wrong_kind:>11} {k.wrong_params:>13} "
            f"{k.missed:>9}"
        )
    lines.append("-" * len(head))
    wrong_kind = sum(k.wrong_kind for k in report.kinds.values())
    wrong_params = sum(k.wrong_params for k in report.kinds.values())
    missed = sum(k.missed for k in report.kinds.values())
    lines.append(
        f"{'all checkable':<22} {report.checkable:>6} {report.right:>6} {report.rate:>6.1%} {wrong_kind:>11} "
        f"{wrong_params:>13} {missed:>9}"
    )
    lines.append(f"labelled guidance: {report.guidance_labelled}, wrongly given a check: {report.guidance_checked}")
    return "\n".join(lines)


def load_rows(paths: Iterable[Path]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in paths:
        with Path(path).open(encoding="utf-8") as handle:
            rows += [json.loads(line) for line in handle if line.strip()]
    return rows


def main(argv: list[str]) -> int:
    """`python -m heedful.rules.coverage FILE.jsonl ... [--misses]`: the table, and optionally each miss."""
    files = [Path(a) for a in argv if not a.startswith("--")]
    if not files:
        print("usage: python -m heedful.rules.coverage FILE.jsonl ... [--misses]", file=sys.stderr)
        return 2
    report = coverage(load_rows(files))
    print(render(report))
    if "--misses" in argv:
        for o in report.outcomes:
            if o.verdict not in ("right", "kept_guidance"):
                print(
                    f"{o.verdict:<13} {o.expected:<20} {o.text!r} cond={o.condition!r}\n"
                    f"    want {o.expected_params}\n    got  {o.got} {o.got_params}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
