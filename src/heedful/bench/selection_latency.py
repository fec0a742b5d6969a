"""`heedful bench selection --latency`: UserPromptSubmit through the real hook, with and without stored readings.

Two homes hold the same library of guidance rules from the selection corpus (committed as one
library version, the hashing embedder): in one each rule's selection reading is stored, as
learning does (`heedful.rules.selection_readings`), in the other it is not, so the hook reads every
rule from its words, as it did before readings were stored. The real hook command runs on Claude
Code UserPromptSubmit payloads (everyday tasks of the corpus, a new session each time, then a
second prompt in that session, timed apart: it leaves out what the first showed) interleaved
with `python -c pass`, so machine load affects all three alike; the report gives p50/p95 of each,
and the tokens of the context the hook added (p50/p95, estimated as the hook budgets them). With
`against` (the `src` folder of another checkout) the same hook runs from that code as well, on the
home with stored readings, interleaved: the before/after of a change on one machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from heedful.integrations import payloads


def seed(home: Path, user: str, count: int, stored: bool) -> int:
    """A home with `count` guidance rules of the selection corpus, their readings stored when `stored`;
    returns how many readings the hook will find."""
    from heedful.api import Heedful
    from heedful.ids import new_id
    from heedful.rules.parts import RuleParts
    from heedful.rules.selection_corpus import load_corpus
    from heedful.rules.selection_model import load_model
    from heedful.rules.selection_readings import refresh
    from heedful.rules.selection_readings import stored as stored_readings
    from heedful.store.records import RuleRow

    corpus = load_corpus()
    with Heedful.open(home, embedder="hashing") as hf:
        rows = [
            RuleRow(
                id=new_id("r"),
                user_id=user,
                scope="global",
                project=None,
                version=1,
                text=rule.text,
                condition=rule.condition,
                exceptions=[],
                evidence=[rule.text],
                status="guidance",
                check_spec=None,
                op="new",
                reason="benchmark library",
                source_text=rule.text,
                supersedes=None,
                superseded_by=None,
                library_version=0,
                created_at="",
                rule_created_at="",
            )
            for rule in corpus.rules[:count]
        ]
        hf.store.rules.commit(user, "learn", f"benchmark library of {len(rows)} rules", rows)
        if stored:
            refresh(RuleParts.of(hf), user)
        return len(stored_readings(hf.store.get_meta, user, load_model()))


def prompts() -> list[str]:
    from heedful.rules.selection_corpus import load_corpus

    return [t.text for t in load_corpus().tasks if t.source == "everyday"][:20] or ["rename the parser module"]


def _time(args: list[str], data: bytes | None, env: dict[str, str], added: list[int] | None = None) -> float:
    """Milliseconds of one run; the tokens of the context the hook added go to `added`."""
    from heedful.enforce.select import tokens_of

    started = time.perf_counter()
    done = subprocess.run(args, input=data, capture_output=True, env=env, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if added is not None:
        try:
            answer = json.loads(done.stdout or b"{}")
        except ValueError:
            answer = {}
        added.append(tokens_of(str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))))
    return elapsed


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(ordered[len(ordered) // 2], 1),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
        "min": round(ordered[0], 1),
    }


def run(rules: int = 500, runs: int = 30, warmup: int = 2, against: Path | None = None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="heedful-bench-prompt-") as temp:
        root = Path(temp)
        project = (root / "project").resolve()
        project.mkdir()
        homes = {"stored": root / "stored", "words": root / "words"}
        found = {name: seed(home, "bench", rules, stored=name == "stored") for name, home in homes.items()}
        envs = {}
        for name, home in homes.items():
            env = payloads.hook_env(home, user="bench")
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
            envs[name] = env
        if against is not None:
            env = dict(envs["stored"])
            env["PYTHONPATH"] = str(against.resolve())
            env["PYTHONPYCACHEPREFIX"] = str(root / "pycache-against")
            envs["against"] = env
        texts = prompts()
        command = payloads.hook_command("claude-code")
        bare = [sys.executable, "-c", "pass"]

        def payload(i: int, name: str, turn: int = 0) -> bytes:
            # a new session for every run and home; its first turn shows the most, its second what is new
            text = texts[(i + 7 * turn) % len(texts)]
            event = payloads.claude("UserPromptSubmit", f"bench-{name}-{i}", str(project), prompt=text)
            return json.dumps(event).encode()

        for i in range(warmup):
            for name, env in envs.items():
                _time(command, payload(i, name), env)
        timings: dict[str, list[float]] = {"python_c_pass": [], **{name: [] for name in envs}}
        added: dict[str, list[int]] = {name: [] for name in envs}
        later: dict[str, list[float]] = {name: [] for name in envs}
        later_added: dict[str, list[int]] = {name: [] for name in envs}
        for i in range(runs):
            timings["python_c_pass"].append(_time(bare, None, envs["words"]))
            for name, env in envs.items():
                timings[name].append(_time(command, payload(warmup + i, name), env, added[name]))
            for name, env in envs.items():
                later[name].append(_time(command, payload(warmup + i, name, turn=1), env, later_added[name]))
    stats = {name: _stats(values) for name, values in timings.items()}
    floor = stats["python_c_pass"]["p50"]
    labels = {"stored": "stored_readings", "words": "words_only", "against": "against"}
    return {
        "rules": rules,
        "readings_found": found,
        "runs": runs,
        "user_prompt_submit_ms": {labels[name]: stats[name] for name in envs},
        "python_c_pass_ms": stats["python_c_pass"],
        "overhead_p50_ms": {labels[name]: round(stats[name]["p50"] - floor, 1) for name in envs},
        "tokens_added": {labels[name]: _stats([float(v) for v in added[name]]) for name in envs},
        "second_turn_ms": {labels[name]: _stats(later[name]) for name in envs},
        "second_turn_tokens_added": {labels[name]: _stats([float(v) for v in later_added[name]]) for name in envs},
        "against": str(against) if against is not None else None,
        "python": sys.version.split()[0],
    }
