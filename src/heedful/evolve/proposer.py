"""The proposal step: a command edits a copy of the harness in an isolated git workspace; its diff is collected.

The workspace holds the failure traces, the base version's parameters (extraction and retraction
rules among them) and its evidence layout
(the two files a candidate may change: `harness/params.json` and the code of
`harness/layout.py`), the harness source and the recall defaults to read, the frozen evaluator
(to read, never to change) and a brief. Any command that leaves a diff works: a coding agent CLI,
or a script. A diff that touches any other file is refused, the evaluator first. Layout code
never runs in heedful's process: it is scored in a sandbox (`heedful.harness.sandbox`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from heedful.errors import InputError
from heedful.evolve.agents import child_environment
from heedful.evolve.evaluator import K
from heedful.evolve.files import write_private
from heedful.harness.params import HarnessParams

PARAMS_FILE = "harness/params.json"
LAYOUT_FILE = "harness/layout.py"
CANDIDATE_FILES = (PARAMS_FILE, LAYOUT_FILE)
OUTPUT_LIMIT = 20_000  # characters of a command's output kept in the log
# Our own identity, and none of the user's commit hooks or signing: the workspace is scratch.
GIT_IDENTITY = [
    *("-c", "user.name=heedful evolve", "-c", "user.email=evolve@localhost"),
    *("-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"),
]
PROTECTED = {
    "evaluator/": "touches the frozen evaluator (its splits and acceptance rule are not the proposer's to change)",
    "traces/": "touches the failure traces (the data is not the proposer's to change)",
    "BRIEF.md": "touches the brief",
    "harness/source/": "changes the harness source, which is there to read; edit harness/layout.py or params.json",
    "harness/recall_defaults.json": "changes the recall defaults, which are read-only; override them in params.json",
}

BRIEF = """\
# Improve the memory harness

You are improving the harness that turns a user's stored memory into the context an answering
model reads. The current version is `{base}`.

`traces/development.jsonl` holds one failure trace per development question the current harness
missed: the question, the context it built, where each gold evidence turn stood (its rank in the
context, its rank in the full recall, the routes that found it), and the gold answer.
`traces/summary.json` counts where the missed evidence stood. The offline reader scores evidence
recall@{k}: the share of a question's gold turns among the first {k} items the context lists.

## What you may change
Two files, nothing else:
- `harness/params.json`, the parameters of a new harness version (see
  `harness/source/params.py` for every field and its limits, `harness/source/memory_extract.py`
  and `memory_adjudicate.py` for the rules they switch): whether facts are extracted from
  each message as it is stored, which extraction pattern groups run and how sentences are read
  (`extraction`), which newer facts retire older ones (`retraction`), recall route weights, the
  recall limit and token budget, how many facts, summaries and excerpts the context keeps,
  per-option evidence, and query expansions that bridge vocabulary. Memory is written anew for a
  candidate whose extraction or retraction differs, so those changes are scored too;
- `harness/layout.py`, the evidence layout's code: which recalled items the context keeps under
  each heading and in what order (`choose`), how each item is written (`render`), the headings and
  the memory-use policy that opens the context (`POLICY`). Standard library only; keep the
  function signatures. It runs in a sandbox with no network and no access to the benchmark data.

## What you may not change
The evaluator (`evaluator/`), its splits, the traces and any data. Changes there are refused.
Never key a change to this dataset: no speaker names, question wordings or templates, turn or
conversation ids, category labels or answers. A critic rejects such changes, and the evaluator
accepts a candidate only if it helps users you never saw.

Write a short hypothesis for your change to stdout. Edit the file in place; do not commit.
"""


@dataclass(slots=True)
class Proposal:
    command: str
    workspace: Path
    exit_code: int | None = None
    output: str = ""
    seconds: float = 0.0
    diff: str = ""
    changed: list[str] = field(default_factory=list)
    params: HarnessParams | None = None
    layout: str = ""  # the layout's source after the proposer ran
    refused: str | None = None  # why the candidate cannot be evaluated at all

    def to_json(self) -> dict[str, object]:
        return {
            "command": self.command,
            "exit_code": self.exit_code,
            "seconds": round(self.seconds, 2),
            "output": self.output,
            "changed_files": self.changed,
        }


def git(workspace: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *GIT_IDENTITY, *args], cwd=workspace, capture_output=True, text=True, check=False, timeout=120
    )
    if done.returncode != 0:
        raise InputError(f"git {args[0]} failed in {workspace}: {done.stderr.strip().splitlines()[-1:]}")
    return done.stdout


def params_text(params: HarnessParams) -> str:
    return json.dumps(params.model_dump(), indent=2, sort_keys=True) + "\n"


def prepare_workspace(workspace: Path, traces: Path, base: str, params: HarnessParams, layout: str) -> str:
    """Lay out the workspace and commit it; returns the base commit the diff is taken against."""
    import heedful.evolve.evaluator as evaluator
    import heedful.harness as harness_package
    from heedful.memory import adjudicate, extract
    from heedful.memory.recall.budget import DEFAULT_BUDGET_TOKENS, DEFAULT_MAX_ITEMS
    from heedful.memory.recall.engine import DEFAULT_WEIGHTS

    workspace.mkdir(parents=True, exist_ok=True, mode=0o700)
    shutil.copytree(traces, workspace / "traces")
    source = Path(harness_package.__file__).parent
    shutil.copytree(source, workspace / "harness" / "source", ignore=shutil.ignore_patterns("__pycache__"))
    for module in (extract, adjudicate):  # what the extraction and retraction parameters switch, to read
        shutil.copy2(
            str(module.__file__), workspace / "harness" / "source" / f"memory_{Path(str(module.__file__)).name}"
        )
    write_private(workspace / PARAMS_FILE, params_text(params))
    write_private(workspace / LAYOUT_FILE, layout)
    defaults = {"weights": DEFAULT_WEIGHTS, "budget_tokens": DEFAULT_BUDGET_TOKENS, "max_items": DEFAULT_MAX_ITEMS}
    write_private(workspace / "harness" / "recall_defaults.json", json.dumps(defaults, indent=2) + "\n")
    (workspace / "evaluator").mkdir(mode=0o700)
    shutil.copy2(evaluator.__file__, workspace / "evaluator" / "evaluator.py")
    write_private(workspace / "BRIEF.md", BRIEF.format(base=base, k=K))
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", f"base: harness {base}")
    return git(workspace, "rev-parse", "HEAD").strip()


def refusal(changed: list[str]) -> str | None:
    """Why a diff touching these files cannot be a candidate (None: it changes only the parameters)."""
    for path in changed:
        if path in CANDIDATE_FILES:
            continue
        for prefix, reason in PROTECTED.items():
            if path == prefix or path.startswith(prefix):
                return f"{reason}: {path}"
        return f"changes a file other than {' and '.join(CANDIDATE_FILES)}: {path}"
    return None


def run_proposer(
    command: str, workspace: Path, traces: Path, base: str, params: HarnessParams, layout: str, timeout: float
) -> Proposal:
    """Run `command` (a shell command line) in a fresh workspace and collect what it changed."""
    base_commit = prepare_workspace(workspace, traces, base, params, layout)
    proposal = Proposal(command=command, workspace=workspace)
    started = time.perf_counter()
    try:
        done = subprocess.run(
            ["/bin/sh", "-c", command],
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
            env=child_environment(),
        )
        proposal.exit_code = done.returncode
        proposal.output = (done.stdout + ("\n" + done.stderr if done.stderr.strip() else ""))[-OUTPUT_LIMIT:]
    except subprocess.TimeoutExpired as exc:
        proposal.output = str(exc.stdout or "")[-OUTPUT_LIMIT:]
        proposal.refused = f"the proposer did not finish within {timeout:g} s"
    proposal.seconds = time.perf_counter() - started
    if proposal.refused is None and proposal.exit_code != 0:
        proposal.refused = f"the proposer exited with status {proposal.exit_code}"
    if not (workspace / ".git").is_dir():
        proposal.refused = proposal.refused or "the proposer removed the workspace's git repository"
        return proposal
    # Staged against the base commit, so new files count and a commit by the proposer hides nothing.
    git(workspace, "add", "-A")
    proposal.diff = git(workspace, "diff", "--cached", "--no-color", "--no-ext-diff", base_commit)[-200_000:]
    proposal.changed = git(workspace, "diff", "--cached", "--name-only", base_commit).split()
    if proposal.refused:
        return proposal
    if not proposal.changed:
        proposal.refused = "the proposer changed nothing"
        return proposal
    proposal.refused = refusal(proposal.changed)
    if proposal.refused:
        return proposal
    try:
        proposal.params = HarnessParams.model_validate_json((workspace / PARAMS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValidationError) as exc:
        first = str(exc).splitlines()
        proposal.refused = f"{PARAMS_FILE} is not a valid parameter file: {' '.join(first[:3])}"
        return proposal
    try:
        proposal.layout = (workspace / LAYOUT_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        proposal.refused = f"{LAYOUT_FILE} cannot be read: {exc}"
        return proposal
    if proposal.params == params and proposal.layout == layout:
        proposal.refused = "the proposer changed neither the parameters nor the layout"
    return proposal
