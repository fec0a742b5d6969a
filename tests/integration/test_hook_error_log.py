"""A hook that fails on heedful's own error fails open, and what it logs keeps no secret and is 0600."""

from __future__ import annotations

import stat
from pathlib import Path

from heedful.integrations import payloads

SECRET = "sk-proj-" + "Z9y8X7w6V5u4T3s2R1q0"


def test_a_failing_hook_fails_open_and_logs_no_secret(tmp_path: Path) -> None:
    home = tmp_path / "broken"  # not the test backend's home: this one never reaches a database
    home.mkdir()
    # A config value that is not a number: loading the settings fails inside the hook process, and
    # the error message quotes the value, which here is an API key pasted into the wrong place.
    (home / "config.toml").write_text(f'[store]\nbusy_timeout_ms = "{SECRET}"\n', encoding="utf-8")
    env = payloads.hook_env(home, user="me")
    code, out, _, _ = payloads.run_hook("claude-code", payloads.claude_bash("s1", str(tmp_path), "git status"), env)
    assert (code, out) == (0, "")  # allowed: nothing to deny, and the failure is heedful's
    log = home / "logs" / "hooks.log"
    text = log.read_text(encoding="utf-8")
    assert "failed open" in text and "store.busy_timeout_ms" in text
    assert SECRET not in text and "[REDACTED:api_key]" in text
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_a_failing_hook_with_an_unwritable_log_still_fails_open(tmp_path: Path) -> None:
    home = tmp_path / "broken"  # not the test backend's home: this one never reaches a database
    home.mkdir()
    (home / "config.toml").write_text('[store]\nbusy_timeout_ms = "soon"\n', encoding="utf-8")
    (home / "logs").write_text("a file where the log folder should be", encoding="utf-8")
    env = payloads.hook_env(home, user="me")
    code, out, err, _ = payloads.run_hook("claude-code", payloads.claude_bash("s1", str(tmp_path), "git status"), env)
    assert (code, out) == (0, "")
    assert "failed open" in err  # the one place left to say it


def test_the_worker_a_hook_starts_logs_to_an_owner_only_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = payloads.hook_env(home, user="me", worker=True, HEEDFUL_EMBEDDER="hashing", HEEDFUL_WORKER_IDLE_EXIT="1")
    prompt = {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "cwd": str(tmp_path)}
    prompt["prompt"] = "never use pip in this project, we use uv"  # a correction: the worker learns it
    code, _, err, _ = payloads.run_hook("claude-code", prompt, env)
    assert code == 0, err
    pid = int((home / "run" / "worker.pid").read_text().strip())
    try:
        log = home / "logs" / "worker.log"
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
        assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700
    finally:
        _stop(pid)


def _stop(pid: int) -> None:
    """End the worker this test started (it exits by itself after a second idle; this only makes sure)."""
    import os
    import signal
    import time

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGTERM)
