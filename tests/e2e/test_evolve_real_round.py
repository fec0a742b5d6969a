"""One round of `heedful evolve --proposer claude --critic codex` with the real CLIs against scripted models.

The proposer is the real `claude -p` (file tools only, edits accepted in the workspace): the mock
model reads the brief it was sent, then reads and edits `harness/params.json` through Claude Code's
own Read and Edit tools. The critic is the real `codex exec` in its read-only sandbox: the mock
answers a JSON verdict. The fixed evaluator then scores the candidate on the two validation halves
of a synthetic LoCoMo-shaped benchmark. heedful's hooks are installed for Claude Code user-wide and
must not fire in the proposer's run.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

from agent_sandbox import RUN_TIMEOUT, Sandbox
from e2e_checks import require
from mock_models import AnthropicMock, ResponsesMock, Turn, call, say
from test_agent_cli_model import hook_traces

from evolve_fixture import fixture

OLD = '"query_expansions": {},'
NEW = '"query_expansions": {"job": "work", "move": "relocated"},'
VERDICT = {"decision": "accept", "reasons": ["bridges everyday vocabulary, keyed to nothing in the data"]}


class Workspace:
    """The folder Claude Code runs in, as the first request's system prompt or messages state it."""

    def __init__(self) -> None:
        self.path: str | None = None

    def of(self, body: dict[str, Any]) -> str:
        if self.path is None:
            found = re.search(r"[Ww]orking directory: ([^\s\\]+)", json.dumps(body))
            assert found, "the request names no working directory"
            self.path = found.group(1)
        return self.path

    def read_params(self, body: dict[str, Any]) -> Turn:
        return call("Read", file_path=f"{self.of(body)}/harness/params.json")

    def edit_params(self, body: dict[str, Any]) -> Turn:
        return call("Edit", file_path=f"{self.of(body)}/harness/params.json", old_string=OLD, new_string=NEW)


def test_a_round_with_claude_proposing_and_codex_reviewing(tmp_path: Any) -> None:
    require("claude")
    require("codex")
    box = Sandbox(tmp_path)
    workspace = Workspace()
    proposer = AnthropicMock(
        [workspace.read_params, workspace.edit_params, say("Hypothesis: questions say 'job' where turns say 'work'.")]
    )
    critic = ResponsesMock([say(json.dumps(VERDICT))])
    try:
        box.heedful("install", "claude-code")  # user-wide: they would fire in any folder, the workspace too
        box.configure_codex(critic.url)
        env = box.claude_env(proposer.url) | {"MOCK_MODEL_KEY": "dummy", "HEEDFUL_HOOK_WORKER": "0"}
        argv = [sys.executable, "-m", "heedful", "evolve", "--data", str(fixture(box.root)), "--proposer", "claude"]
        done = subprocess.run(
            [*argv, "--critic", "codex", "--timeout", str(RUN_TIMEOUT), "--json"],
            cwd=box.project,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT * 6,
        )
        assert done.returncode == 0, done.stderr
        [record] = json.loads(done.stdout)

        assert record["proposer"]["command"].startswith("claude -p --safe-mode")
        assert "Improve the memory harness" in proposer.sent_text()  # the brief reached the model on stdin
        assert f"+  {NEW}" in record["diff"] and record["proposer"]["changed_files"] == ["harness/params.json"]
        assert (
            record["critic"]["command"].startswith("codex exec") and record["critic"]["reasons"] == VERDICT["reasons"]
        )
        assert json.dumps("+  " + NEW)[1:-1] in critic.sent_text()  # the critic was shown the diff itself
        assert [half["split"] for half in record["validation"]] == ["validation_a", "validation_b"]
        assert record["decision"] == "accepted", record["reason"]
        assert record["version"] == "v2"
        assert hook_traces(box)["sessions"] == 0  # HEEDFUL_CHILD: heedful's hooks stayed out of both runs
    finally:
        box.close()
        proposer.close()
        critic.close()
