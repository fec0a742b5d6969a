"""The offline demo: a correction learned once and enforced later, and a memory that
supersedes and forgets. Every step states what it expects, and the demo fails if it is not so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from heedful.api import Heedful
    from heedful.rules.models import CheckReport

USER = "demo-user"
LONG_REPLY = " ".join(["The refactor moves the parser into its own module and adds tests."] * 12)
SHORT_REPLY = "Done: the parser lives in parser.py now, with tests for quotes and pipes."


@dataclass
class DemoStep:
    title: str
    detail: str
    expected: str
    observed: str
    ok: bool
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "detail": self.detail,
            "expected": self.expected,
            "observed": self.observed,
            "ok": self.ok,
            "data": self.data,
        }


def _judgment(report: CheckReport) -> str:
    results = [j.result for j in report.judgments]
    if "violated" in results:
        return "violated"
    if "pass" in results:
        return "pass"
    return "not_applicable" if results else "no check fired"


def _rules_steps(hf: Heedful, user: str, project: Path, other_project: Path) -> list[DemoStep]:
    steps: list[DemoStep] = []
    learned = hf.rules.learn(user, "From now on, never use pip in this repo, we use uv.", project=project)
    actions = [a.model_dump() for a in learned.actions]
    status = actions[0]["rule"]["status"] if actions and actions[0].get("rule") else None
    steps.append(
        DemoStep(
            "Session 1: the user corrects the agent once",
            '"From now on, never use pip in this repo, we use uv."',
            "a lasting project rule, compiled to a validated check",
            f"decision={learned.decision}, scope={learned.scope}, status={status}",
            learned.decision == "persist" and learned.scope == "project" and status == "checked",
            {"learn": learned.model_dump()},
        )
    )
    calls = [
        ("pip install requests", project, "violated"),
        ("uv pip install requests", project, "pass"),
        ("pip install requests", other_project, "no check fired"),
    ]
    for command, where, expected in calls:
        evidence = {"action": {"tool": "Bash", "command": command}}
        report = hf.rules.check(user, "pre_action", evidence, project=where)
        observed = _judgment(report)
        place = "the same repo" if where == project else "another repo"
        reasons = [j.reason for j in report.judgments if j.result == "violated"]
        steps.append(
            DemoStep(
                f"Session 2: the agent proposes `{command}` in {place}",
                reasons[0] if reasons else "",
                expected,
                observed,
                observed == expected,
                {"check": report.model_dump(mode="json")},
            )
        )
    learned = hf.rules.learn(user, "Keep final summaries under 100 words.")
    steps.append(
        DemoStep(
            "The user sets a global reply rule",
            '"Keep final summaries under 100 words."',
            "a lasting global rule",
            f"decision={learned.decision}, scope={learned.scope}",
            learned.decision == "persist" and learned.scope == "global",
            {"learn": learned.model_dump()},
        )
    )
    for reply, expected in ((LONG_REPLY, "violated"), (SHORT_REPLY, "pass")):
        report = hf.rules.check(user, "delivery", {"delivery": reply}, project=project)
        observed = _judgment(report)
        steps.append(
            DemoStep(
                f"Before delivery: a {len(reply.split())}-word final reply",
                "",
                expected,
                observed,
                observed == expected,
                {"check": report.model_dump(mode="json")},
            )
        )
    return steps


def _memory_steps(hf: Heedful, user: str) -> list[DemoStep]:
    memory = hf.memory
    steps: list[DemoStep] = []
    memory.add(user, "I live in Berlin and I take sertraline every morning.", flush=True)
    moved = memory.add(user, "I moved to Lisbon last month.", flush=True).events
    ops = [e.op for e in moved]
    steps.append(
        DemoStep(
            "Memory: a change of mind",
            '"I live in Berlin…" then "I moved to Lisbon last month."',
            "supersede (the Berlin fact is closed and kept)",
            ", ".join(ops) or "nothing",
            ops == ["supersede"],
            {"events": [e.to_json() for e in moved]},
        )
    )
    recalled = memory.recall(user, "Where does the user live?")
    states = {item.text: item.state for item in recalled.items if item.kind == "fact"}
    steps.append(
        DemoStep(
            "Recall: where does the user live?",
            "; ".join(f"{text} [{state}]" for text, state in states.items()),
            "Lisbon current, Berlin superseded",
            f"Lisbon {states.get('The user lives in Lisbon')}, Berlin {states.get('The user lives in Berlin')}",
            states.get("The user lives in Lisbon") == "current"
            and states.get("The user lives in Berlin") == "superseded",
            {"recall": recalled.to_json()},
        )
    )
    forgotten = memory.forget(user, "forget that I take sertraline")
    after = memory.recall(user, "sertraline medication")
    leaked = [item.text for item in after.items if "sertraline" in item.text.lower()]
    steps.append(
        DemoStep(
            "Memory: a request to forget",
            '"forget that I take sertraline"',
            "a tombstone, and recall no longer returns it",
            f"{forgotten[0].text}; recall mentions it {len(leaked)} time(s)",
            forgotten[0].kind == "tombstone" and not leaked,
            {"events": [e.to_json() for e in forgotten], "recall": after.to_json()},
        )
    )
    return steps


def run_demo(hf: Heedful, workdir: Path, user: str = USER) -> dict[str, Any]:
    """The demo's steps for `user` (on a shared database, a user of its own: nobody else's data is read)."""
    project = workdir / "shop"
    other = workdir / "blog"
    project.mkdir(parents=True, exist_ok=True)
    other.mkdir(parents=True, exist_ok=True)
    steps = _rules_steps(hf, user, project, other) + _memory_steps(hf, user)
    return {
        "ok": all(s.ok for s in steps),
        "home": str(hf.settings.home),
        "database": hf.settings.database,
        "user": user,
        "steps": [s.to_json() for s in steps],
    }
