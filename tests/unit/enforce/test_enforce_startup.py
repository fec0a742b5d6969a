"""The hook start-up path imports nothing heavy, and judges exactly like the full process."""

from __future__ import annotations

import json
import subprocess
import sys

from heedful.rules.checks import KINDS, evaluate

PROBE = """
import json, sys
from heedful.rules.checks import evaluate
from heedful.store.sqlite.db import Database
from heedful.store.sqlite.enforce import SQLiteEnforceRepo
cases = json.loads(sys.stdin.read())
out = [[kind, stage, *evaluate(kind, params, stage, evidence).model_dump().values()]
       for kind, params, stage, evidence in cases]
heavy = sorted(m for m in ("numpy", "pydantic", "typer", "rich", "onnxruntime", "dataclasses") if m in sys.modules)
print(json.dumps({"results": out, "heavy": heavy}))
"""

PARAMS = {
    "forbidden_command": [
        {"program": "pip", "alternatives": ["uv"]},
        {"program": "git", "subcommand": ["push"], "args": ["main"], "implicit_target": True},
        {"program": "rm", "flags": [["-r", "-R"], ["-f", "--force"]]},
    ],
    "forbidden_path": [{"globs": [".env", "migrations/"]}, {"globs": [], "outside_project": True}],
    "required_event": [{"commands": [["pytest"]], "after": "edit"}],
    "workspace_leftovers": [{"globs": ["scratch*"]}],
    "staged_path": [{"globs": [".envrc"]}, {"globs": ["*.pem", "secrets/**"]}],
    "commit_message": [{"forbid": ["Co-Authored-By"]}, {"require": "^(feat|fix): ", "max_subject": 50}],
    "reply_count_limit": [{"unit": "bullets", "limit": 3}, {"unit": "sentences", "limit": 2}],
    "reply_forbidden_text": [{"patterns": ["emoji"]}, {"patterns": ["As an AI"]}],
    "reply_word_limit": [{"limit": 10}],
    "reply_json_fields": [{"fields": ["summary", "risk"]}],
    "field_value": [
        {"target": "artifact", "path": ["debug"], "op": "not_equals", "value": True},
        {"target": "action", "path": ["mode"], "op": "equals", "value": "safe"},
    ],
}


def test_the_hook_path_judges_the_same_without_heavy_imports() -> None:
    cases = [
        (kind, params, case.stage, case.evidence)
        for kind, module in sorted(KINDS.items())
        for params in PARAMS.get(kind, [])
        for case in module.cases(params)
    ]
    done = subprocess.run(
        [sys.executable, "-c", PROBE], input=json.dumps(cases), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["heavy"] == []
    expected = [
        [kind, stage, *evaluate(kind, params, stage, evidence).model_dump().values()]
        for kind, params, stage, evidence in cases
    ]
    assert set(PARAMS) == set(KINDS)
    assert data["results"] == expected and len(expected) > 30


def test_a_hook_event_imports_nothing_heavy(tmp_path) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import io, json, sys\n"
        "from heedful.hookmain import run\n"
        "payload = {'session_id': 's', 'cwd': sys.argv[1], 'hook_event_name': 'PreToolUse', 'tool_name': 'Bash',"
        " 'tool_input': {'command': 'ls'}}\n"
        "run('claude-code', json.dumps(payload).encode())\n"
        "payload.update(hook_event_name='UserPromptSubmit', prompt='never push to main')\n"
        "run('claude-code', json.dumps(payload).encode())\n"
        "print(json.dumps(sorted(m for m in ('numpy', 'pydantic', 'typer', 'rich', 'onnxruntime', 'tokenizers')"
        " if m in sys.modules)))\n"
    )
    env = {
        "HEEDFUL_HOME": str(tmp_path / "home"),
        "HEEDFUL_HOOK_WORKER": "0",
        "PATH": "/usr/bin:/bin",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
