"""The hook's added context on UserPromptSubmit: within its token budget, answer-wide rules always shown,
the same context for the same library and prompt (real hook subprocess)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.hook_fixtures import taught_project

from heedful.bench.selection_latency import seed
from heedful.enforce.select import TOKEN_BUDGET, tokens_of
from heedful.integrations.payloads import claude, hook_env, run_hook
from heedful.rules.selection_corpus import load_corpus

NO_ANSWERS = "rename the parser module to tokenizer and update its imports"


def prompt_context(home: Path, cwd: Path, prompt: str, session: str, user: str = "me") -> str:
    env = hook_env(home, user=user, HEEDFUL_EMBEDDER="hashing")
    code, out, err, _ = run_hook("claude-code", claude("UserPromptSubmit", session, str(cwd), prompt=prompt), env)
    assert code == 0, err
    answer: dict[str, Any] = json.loads(out) if out.strip() else {}
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_an_answer_wide_rule_is_shown_for_a_task_that_never_mentions_answers(home: Path, tmp_path: Path) -> None:
    project = taught_project(home, tmp_path)
    context = prompt_context(home, project, NO_ANSWERS, "s1")
    block = context.split("For every answer:")[1]
    assert "keep final replies under 20 words" in block.split("For ")[0].lower()


def test_a_500_rule_library_stays_within_the_budget_and_is_deterministic(home: Path, tmp_path: Path) -> None:
    project = (tmp_path / "svc").resolve()
    (project / ".git").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'svc'\n", encoding="utf-8")
    assert seed(home, "me", 500, stored=True) == 500
    answer_rules = {r.text for r in load_corpus().rules[:500] if r.governs == ["every"] and not r.languages}
    contexts = []
    for i, prompt in enumerate((NO_ANSWERS, "commit the changes and push them", NO_ANSWERS)):
        context = prompt_context(home, project, prompt, f"s{i}")
        assert 0 < tokens_of(context) <= TOKEN_BUDGET
        lines = context.splitlines()
        assert lines[1] == "For every answer:"
        shown = {line[2:] for line in lines[2 : lines.index("For this task:")]}
        assert len(shown & answer_rules) >= 5  # answer-wide rules for a task that never mentions answers
        contexts.append(context)
    assert contexts[0] == contexts[2]  # same library, same prompt, a new session: the same context
    assert contexts[0] != contexts[1]


def test_the_latency_bench_times_another_checkout_interleaved_and_counts_tokens() -> None:
    import heedful
    from heedful.bench.selection_latency import run

    src = Path(heedful.__file__).resolve().parents[1]
    report = run(rules=30, runs=1, warmup=0, against=src)
    assert set(report["user_prompt_submit_ms"]) == {"stored_readings", "words_only", "against"}
    added = report["tokens_added"]
    assert 0 < added["stored_readings"]["p50"] <= TOKEN_BUDGET and added["against"] == added["stored_readings"]
