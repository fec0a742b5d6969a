"""Secrets written through every public entry point never reach a file in the home.

The same set of secrets goes through the CLI (memory add, correct, forget; rules learn), the
hooks (UserPromptSubmit, PreToolUse, PostToolUse, Stop as real subprocesses), the job queue and
the MCP tool functions; then the raw bytes of every file in the home (the database, its -wal and
-shm, logs) are searched for each secret, and the home and its files must be private.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from heedful.api import Heedful
from heedful.integrations.payloads import claude, claude_bash, hook_env, run_hook

# (the phrase as a user would write it, the secret that must never be stored)
SECRETS = [
    ("my OpenAI key is sk-proj-Zq8Wm2Rt6Yp4Lk0Nv3Bx7Cd1", "Zq8Wm2Rt6Yp4Lk0Nv3Bx7Cd1"),
    ("the GitHub token ghp_R4nd0mT0k3nV4lu3F0rT3st1ngAbCdEf1234", "R4nd0mT0k3nV4lu3F0rT3st1ngAbCdEf1234"),
    ("AWS id AKIAQWERTYUIOPASDFGH", "AKIAQWERTYUIOPASDFGH"),
    ("the root password is swordfish77", "swordfish77"),
    ("write to carol.secret@example.org", "carol.secret@example.org"),
    ("card 4012 8888 8888 1881", "4012 8888 8888 1881"),
    ("config has password=hunter2xyz", "hunter2xyz"),
    ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456", "abcdefghijklmnopqrstuvwxyz123456"),
    ("db at postgres://app:Pa55w0rdQ@db.internal/main", "Pa55w0rdQ"),
    ("my pin is 4821 for the door", "4821"),
]
ALL = "; ".join(phrase for phrase, _ in SECRETS)


def leaks(home: Path) -> dict[str, list[str]]:
    """secret -> the files (relative to home) whose raw bytes hold it, case-insensitively."""
    found: dict[str, list[str]] = {}
    for path in sorted(p for p in home.rglob("*") if p.is_file()):
        data = path.read_bytes().lower()
        for _, secret in SECRETS:
            forms = {secret.lower(), secret.replace(" ", "").lower()}
            if any(form.encode() in data for form in forms):
                found.setdefault(secret, []).append(str(path.relative_to(home)))
    return found


def test_no_entry_point_stores_a_secret(home: Path, cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    project = tmp_path / "app"
    project.mkdir()
    # memory add (CLI), then correct and forget with secrets in their text
    added = cli("memory", "add", f"I live in Porto. {ALL}", "--flush", "--json", "--user", "me")
    assert added.returncode == 0, added.stderr
    assert cli("memory", "add", "I love hiking in the hills", "--flush", "--user", "me").returncode == 0
    listed = json.loads(cli("memory", "list", "--json", "--user", "me").stdout)
    fact_id = next(row["id"] for row in listed if row["kind"] == "fact")
    corrected = cli("memory", "correct", fact_id, f"I live in Braga; {ALL}", "--user", "me")
    assert corrected.returncode == 0, corrected.stderr
    forgot = cli("memory", "forget", f"forget that {ALL}", "--user", "me")
    assert forgot.returncode == 0, forgot.stderr
    # rules learn (CLI): source_text and the rule text
    learned = cli("rules", "learn", f"never use pip in this repo, use uv; {ALL}", "--project", str(project), "--json")
    assert learned.returncode == 0, learned.stderr
    learned = cli("rules", "learn", f"always mention that {ALL} when you reply", "--json")
    assert learned.returncode == 0, learned.stderr
    # hooks, as the platform runs them
    env = hook_env(home, user="me", HEEDFUL_EMBEDDER="hashing")
    answers = []
    for payload in (
        claude("UserPromptSubmit", "s1", str(project), prompt=f"no, don't use pip here. {ALL}"),
        claude_bash(
            "s1",
            str(project),
            f"curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456' "
            f"https://app:Pa55w0rdQ@x.example && echo password=hunter2xyz {ALL}",
        ),
        claude_bash("s1", str(project), f"pip install requests # {ALL}"),
        claude_bash("s1", str(project), f"echo {ALL}", event="PostToolUse"),
        claude("Stop", "s1", str(project), last_assistant_message=f"Done. {ALL}"),
    ):
        code, out, err, _ = run_hook("claude-code", payload, env)
        assert code == 0, err
        answers.append(out)
    drained = cli("jobs", "drain", "--json")
    assert drained.returncode == 0, drained.stderr
    # the job queue, and the MCP tool functions
    with Heedful.open(home, embedder="hashing") as hf:
        hf.store.jobs.enqueue("me", "test.secret", {"text": ALL, "nested": [{"note": ALL}]})
        from heedful.integrations.mcp_server import Tools

        tools = Tools(hf)
        tools.remember(f"remember this: {ALL}")
        recalled = json.dumps(tools.recall("password pin key token card"))
        forgotten = json.dumps(tools.forget(f"forget that {ALL}"))
        rules_seen = json.dumps(hf.rules.list("me", include_all=True), default=str)
    shown_to_agent = "\n".join([*answers, recalled, forgotten, rules_seen]).lower()
    for _, secret in SECRETS:
        # as a token: the PIN's four digits turn up inside random hex ids and timestamps now and then
        assert not re.search(rf"(?<![0-9a-z]){re.escape(secret.lower())}(?![0-9a-z])", shown_to_agent), secret
    assert leaks(home) == {}


@pytest.mark.sqlite_only(reason="the SQLite file's permissions")
def test_the_home_and_its_files_are_private(home: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert cli("memory", "add", "I live in Porto", "--flush").returncode == 0
    env = hook_env(home, user="me", HEEDFUL_EMBEDDER="hashing")
    assert run_hook("claude-code", claude_bash("s1", str(home), "ls"), env)[0] == 0
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name == "heedful.db" for p in files)
    assert {
        str(p.relative_to(home)): oct(stat.S_IMODE(p.stat().st_mode))
        for p in files
        if stat.S_IMODE(p.stat().st_mode) != 0o600
    } == {}


@pytest.mark.sqlite_only(reason="the SQLite file's permissions")
def test_an_existing_loose_home_is_made_private(home: Path) -> None:
    home.mkdir(mode=0o755)
    home.chmod(0o755)
    (home / "logs").mkdir(mode=0o755)
    (home / "logs" / "hooks.log").write_text("old log\n")
    (home / "logs" / "hooks.log").chmod(0o644)
    with Heedful.open(home, embedder="hashing"):
        pass
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "logs").stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "logs" / "hooks.log").stat().st_mode) == 0o600
    assert stat.S_IMODE((home / "heedful.db").stat().st_mode) == 0o600


@pytest.mark.parametrize("user", [" alice", "alice ", "\talice", "al\nice", "", "   ", "x" * 201])
def test_user_ids_are_rejected_not_normalised(hf: Heedful, user: str) -> None:
    from heedful.errors import InputError

    hf.memory.add("alice", "I take the train to work", flush=True)
    before = hf.store.memory.count_facts("alice")
    with pytest.raises(InputError) as memory_error:
        hf.memory.add(user, "I moved to Rome", flush=True)
    with pytest.raises(InputError):
        hf.memory.forget(user, "the train")
    with pytest.raises(InputError):
        hf.rules.learn(user, "never use pip, use uv")
    with pytest.raises(InputError):
        hf.rules.list(user)
    assert "\n" not in str(memory_error.value)
    assert hf.store.memory.count_facts("alice") == before
    assert hf.memory.list("alice", kinds=["tombstone"]) == []


def test_the_cli_rejects_a_padded_user_id(home: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert cli("memory", "add", "I take the train", "--flush", "--user", "alice").returncode == 0
    done = cli("memory", "forget", "the train", "--user", " alice")
    assert done.returncode != 0 and "whitespace" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    listed = json.loads(cli("memory", "list", "--json", "--user", "alice", "--kind", "tombstone").stdout)
    assert listed == []
