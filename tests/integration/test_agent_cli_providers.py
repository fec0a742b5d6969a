"""The `claude-cli` / `codex-cli` providers' error paths and command lines, with small executables
standing in for `claude` and `codex` (real subprocesses; a faked model answer is `test_recorded_*`).
The real CLIs against a scripted model are in tests/e2e/test_agent_cli_model.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from heedful.errors import InputError
from heedful.llm.claude_cli import ClaudeCLIModel
from heedful.llm.codex_cli import CodexCLIModel
from heedful.llm.factory import PROVIDERS, build_model
from heedful.llm.protocol import ChatMessage
from heedful.llm.structured import ModelError
from pg_backend import add_settings


class Ping(BaseModel):
    ok: bool


ASK = [ChatMessage(role="system", content="Say whether it works."), ChatMessage(role="user", content="ping")]


def fake(folder: Path, name: str, body: str) -> Path:
    """An executable `name` in `folder`: this Python running `body` (with json, os, sys, time imported)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(f"#!{sys.executable}\nimport json, os, sys, time\n" + textwrap.dedent(body))
    script.chmod(0o755)
    return script


def claude_answering(folder: Path, text: str, record: Path | None = None) -> Path:
    """A `claude` that records its call and prints a `--output-format json` result holding `text`."""
    return fake(
        folder,
        "claude",
        f"""
        prompt = sys.stdin.read()
        if {str(record) if record else ""!r}:
            with open({str(record)!r}, "w") as handle:
                json.dump({{"argv": sys.argv[1:], "stdin": prompt, "cwd": os.getcwd(),
                           "child": os.environ.get("HEEDFUL_CHILD"), "files": os.listdir(".")}}, handle)
        print(json.dumps({{"type": "result", "is_error": False, "result": {text!r}, "stop_reason": "end_turn",
                          "usage": {{"input_tokens": 12, "output_tokens": 3}}}}))
        """,
    )


def heedful(home: Path, path: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": "hashing", "PATH": path}
    env.pop("HEEDFUL_MODEL", None)
    return subprocess.run(
        [sys.executable, "-m", "heedful", *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_recorded_claude_cli_sends_the_prompt_on_stdin_to_a_guarded_child(tmp_path: Path) -> None:
    record = tmp_path / "call.json"
    binary = claude_answering(tmp_path / "bin", '{"ok": true}', record)
    model = ClaudeCLIModel("sonnet", binary=binary)
    assert model.structured(ASK, Ping) == Ping(ok=True)
    call = json.loads(record.read_text())
    argv = call["argv"]
    assert argv[:3] == ["-p", "--output-format", "json"] and argv[argv.index("--model") + 1] == "sonnet"
    assert argv[argv.index("--tools") + 1] == ""  # no tools at all
    assert "--safe-mode" in argv and "--no-session-persistence" in argv  # no hooks, plugins, CLAUDE.md
    assert call["child"] == "1"  # heedful's hooks see HEEDFUL_CHILD and stay quiet
    assert call["files"] == [] and Path(call["cwd"]).name.startswith("heedful-model-")  # an empty scratch dir
    assert not Path(call["cwd"]).exists()  # removed afterwards
    assert "Say whether it works." in call["stdin"] and "ping" in call["stdin"]
    assert '"ok"' in call["stdin"] and "JSON schema" in call["stdin"]


def test_recorded_an_answer_that_is_not_json_is_asked_again_then_fails(tmp_path: Path) -> None:
    model = ClaudeCLIModel(binary=claude_answering(tmp_path, "Sure! It works."), retry_budget_seconds=0)
    with pytest.raises(ModelError, match=r"invalid answer twice .*not JSON"):
        model.structured(ASK, Ping)


def test_claude_not_logged_in_is_one_clear_error(tmp_path: Path) -> None:
    result = {"type": "result", "is_error": True, "result": "Not logged in · Please run /login"}
    binary = fake(tmp_path, "claude", f"sys.stdin.read()\nprint(json.dumps({result!r}))\nsys.exit(1)\n")
    with pytest.raises(ModelError, match=r"^claude-cli: Claude Code is not logged in: run `claude` and /login"):
        ClaudeCLIModel(binary=binary).structured(ASK, Ping)


def test_claude_printing_no_json_result_is_one_clear_error(tmp_path: Path) -> None:
    binary = fake(tmp_path, "claude", "sys.stdin.read()\nprint('Segmentation fault', file=sys.stderr)\nsys.exit(139)\n")
    with pytest.raises(ModelError, match=r"printed no JSON result \(exit 139\): Segmentation fault"):
        ClaudeCLIModel(binary=binary).structured(ASK, Ping)


def test_a_cli_that_hangs_is_stopped_at_the_timeout(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    # The CLI starts a grandchild (as node starts the native binary); the whole group must go.
    binary = fake(
        tmp_path,
        "claude",
        f"""
        import subprocess
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open({str(pid_file)!r}, "w").write(str(child.pid))
        time.sleep(60)
        """,
    )
    model = ClaudeCLIModel(binary=binary, timeout_seconds=1.0, retry_budget_seconds=0)
    started = time.monotonic()
    with pytest.raises(ModelError, match="no answer within 1 s"):
        model.structured(ASK, Ping)
    assert time.monotonic() - started < 20
    assert not running(int(pid_file.read_text()))


def running(pid: int) -> bool:
    """Alive and not a zombie waiting for a parent that no longer exists to reap it."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        if state == "Z":
            return False
        time.sleep(0.1)
    return True


def test_recorded_codex_cli_reads_the_last_message_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = tmp_path / "call.json"
    binary = fake(
        tmp_path / "bin",
        "codex",
        f"""
        prompt = sys.stdin.read()
        args = sys.argv[1:]
        seen = {{"argv": args, "stdin": prompt, "child": os.environ.get("HEEDFUL_CHILD")}}
        json.dump(seen, open({str(record)!r}, "w"))
        open(args[args.index("--output-last-message") + 1], "w").write('{{"ok": true}}')
        print(json.dumps({{"type": "turn.completed", "usage": {{"input_tokens": 20, "output_tokens": 4}}}}))
        """,
    )
    monkeypatch.setenv("PATH", f"{binary.parent}{os.pathsep}{os.environ['PATH']}")
    usage_log = tmp_path / "usage.jsonl"
    model = build_model("codex-cli:gpt-test", usage_path=usage_log)
    assert isinstance(model, CodexCLIModel) and model.binary == binary
    assert model.structured(ASK, Ping) == Ping(ok=True)
    call = json.loads(record.read_text())
    argv = call["argv"]
    assert argv[0] == "exec" and argv[-1] == "-" and argv[argv.index("--sandbox") + 1] == "read-only"
    assert argv[argv.index("--disable") + 1] == "hooks" and "--ephemeral" in argv
    assert argv[argv.index("--model") + 1] == "gpt-test" and call["child"] == "1"
    assert call["stdin"].startswith("You are a JSON function") and '"ok"' in call["stdin"]
    (entry,) = [json.loads(line) for line in usage_log.read_text().splitlines()]
    assert (entry["provider"], entry["model"], entry["prompt_tokens"], entry["outcome"]) == (
        "codex-cli",
        "gpt-test",
        20,
        "ok",
    )


def test_a_failed_codex_turn_says_why_and_that_codex_is_not_logged_in(tmp_path: Path) -> None:
    binary = fake(
        tmp_path,
        "codex",
        """
        if sys.argv[1:3] == ["login", "status"]:
            print("Not logged in")
            sys.exit(1)
        sys.stdin.read()
        print(json.dumps({"type": "turn.failed", "error": {"message": "unexpected status 401 Unauthorized"}}))
        sys.exit(1)
        """,
    )
    with pytest.raises(ModelError) as caught:
        CodexCLIModel(binary=binary).structured(ASK, Ping)
    message = str(caught.value)
    assert message.startswith("codex-cli failed (exit 1): unexpected status 401 Unauthorized")
    assert message.endswith("(Codex is not logged in: run `codex login`)") and "\n" not in message


def test_a_missing_cli_is_a_one_line_error_and_learns_nothing(tmp_path: Path) -> None:
    bare = os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    for provider, command in (("claude-cli", "claude"), ("codex-cli", "codex")):
        done = heedful(tmp_path / "home", bare, "--model", provider, "rules", "learn", "never use pip, we use uv")
        assert done.returncode == 2
        assert done.stderr.strip() == (
            f"error: {provider} needs the `{command}` command "
            f"({'Claude Code' if command == 'claude' else 'Codex'}) on PATH; install it or choose another --model"
        )
    listed = heedful(tmp_path / "home", bare, "rules", "list", "--json")
    assert json.loads(listed.stdout) == []


def test_a_failing_cli_leaves_the_library_unchanged(tmp_path: Path) -> None:
    result = {"type": "result", "is_error": True, "result": "Not logged in · Please run /login"}
    fake(tmp_path / "bin", "claude", f"sys.stdin.read()\nprint(json.dumps({result!r}))\nsys.exit(1)\n")
    path = os.pathsep.join([str(tmp_path / "bin"), str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    done = heedful(tmp_path / "home", path, "--model", "claude-cli", "rules", "learn", "never use pip, we use uv")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "not logged in" in done.stderr
    assert json.loads(heedful(tmp_path / "home", path, "rules", "list", "--json").stdout) == []


def test_every_provider_is_in_the_registry_and_an_unknown_one_lists_them() -> None:
    assert set(PROVIDERS) == {"offline", "local", "openai", "anthropic", "claude-cli", "codex-cli"}
    with pytest.raises(InputError) as caught:
        build_model("gemini-cli")
    assert str(caught.value) == (
        "unknown model 'gemini-cli'; use one of: offline, local[:GGUF], openai:MODEL, anthropic:MODEL, "
        "claude-cli[:MODEL], codex-cli[:MODEL]"
    )
    with pytest.raises(InputError, match="name the model: openai:MODEL"):
        build_model("openai")


def test_doctor_shows_each_agent_cli_without_calling_a_model(tmp_path: Path) -> None:
    calls = tmp_path / "calls.log"
    fake(
        tmp_path / "bin",
        "claude",
        f"""
        open({str(calls)!r}, "a").write(" ".join(sys.argv[1:]) + "\\n")
        if sys.argv[1:] == ["--version"]:
            print("9.9.9 (Claude Code)")
        elif sys.argv[1:] == ["auth", "status"]:
            print(json.dumps({{"loggedIn": True, "authMethod": "claude.ai"}}))
        else:
            sys.exit(3)
        """,
    )
    path = os.pathsep.join([str(tmp_path / "bin"), str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    done = heedful(tmp_path / "home", path, "doctor", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    checks = {c["part"]: c for c in json.loads(done.stdout)["checks"]}
    claude, codex = checks["claude-cli"], checks["codex-cli"]
    assert claude["ok"] and claude["version"] == "9.9.9 (Claude Code)" and claude["logged_in"] is True
    assert "logged in" in claude["detail"]
    assert not codex["ok"] and codex["optional"] and codex["detail"] == "`codex` is not on PATH (Codex)"
    assert sorted(calls.read_text().splitlines()) == ["--version", "auth status"]  # no `-p`: no model call


def test_doctor_fails_when_the_configured_agent_cli_is_missing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    add_settings(home, '[model]\nname = "codex-cli"\n')
    path = os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    done = heedful(home, path, "doctor", "--json", "--skip-model")
    assert done.returncode == 1
    checks = {c["part"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["codex-cli"]["optional"] is False and checks["codex-cli"]["ok"] is False
    assert checks["claude-cli"]["optional"] is True
