"""A throw-away world for one end-to-end run: HOME, heedful home, a git project with a bare remote,
fake `pip`/`uv` that leave markers, and the real `claude` / `codex` CLIs pointed at a mock model.

The environment is built from scratch (nothing of the caller's agent or model variables leaks in).
Hooks run `<this python> -m heedful.hookmain`, with this checkout's sources first on PYTHONPATH.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import heedful
from pg_backend import give_home_a_database

CACHE = Path(os.environ.get("HEEDFUL_E2E_CACHE", Path.home() / ".cache" / "heedful-e2e"))
BIN = CACHE / "npm" / "node_modules" / ".bin"
SOURCES = Path(heedful.__file__).resolve().parents[1]
FAKES = ("pip", "pip3", "uv")
RUN_TIMEOUT = 120


def cli_path(name: str) -> Path | None:
    path = BIN / name
    return path if path.exists() and shutil.which("node") else None


@dataclass
class AgentRun:
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def json(self) -> dict[str, Any]:
        """The last JSON object printed (Claude Code's --output-format json result)."""
        for line in reversed(self.stdout.strip().splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        raise AssertionError(f"no JSON on stdout:\n{self.stdout}\n{self.stderr}")


@dataclass
class Sandbox:
    root: Path
    home: Path = field(init=False)
    heedful_home: Path = field(init=False)
    project: Path = field(init=False)
    remote: Path = field(init=False)
    fakes: Path = field(init=False)
    tools: Path = field(init=False)
    markers: Path = field(init=False)
    runs: list[AgentRun] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.root = self.root.resolve()
        self.home = self.root / "home"
        self.heedful_home = self.root / "heedful"
        give_home_a_database(self.heedful_home)  # the PostgreSQL test pass: a database of its own
        self.project = self.root / "proj"
        self.remote = self.root / "remote.git"
        self.fakes = self.root / "fakebin"
        self.tools = self.root / "tools"
        self.markers = self.root / "markers"
        for path in (self.home, self.project, self.fakes, self.tools, self.markers):
            path.mkdir(parents=True, exist_ok=True)  # the PostgreSQL test pass may have made tmp_path/home
        self._write_fakes()
        self._make_project()

    # -- setup -----------------------------------------------------------------------------------
    def _write_fakes(self) -> None:
        for name in FAKES:
            script = self.fakes / name
            script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{self.markers}/{name}.log"\necho "{name}: ok"\n')
            script.chmod(0o755)
        # heedful's own entry points, bound to this interpreter and this checkout.
        for name, module in (("heedful", "heedful"), ("heedful-hook", "heedful.hookmain")):
            script = self.tools / name
            script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m {module} "$@"\n')
            script.chmod(0o755)
        # Codex runs commands through `bash -lc`, whose /etc/profile resets PATH: put the fakes back first.
        (self.home / ".bash_profile").write_text(f'export PATH="{self.fakes}:$PATH"\n')

    def _make_project(self) -> None:
        git = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid"]
        subprocess.run(["git", "init", "-q", "--bare", str(self.remote)], check=True)
        subprocess.run(["git", "init", "-q", "-b", "main", str(self.project)], check=True)
        (self.project / "README.md").write_text("# proj\n")
        (self.project / "src").mkdir()
        (self.project / "src" / "app.py").write_text("print('hi')\n")
        subprocess.run([*git, "add", "-A"], cwd=self.project, check=True)
        subprocess.run([*git, "commit", "-q", "-m", "init"], cwd=self.project, check=True)
        subprocess.run(["git", "remote", "add", "origin", str(self.remote)], cwd=self.project, check=True)
        subprocess.run(["git", "push", "-q", "origin", "main"], cwd=self.project, check=True)

    def env(self, with_tools: bool = True, **extra: str) -> dict[str, str]:
        node_dir = str(Path(shutil.which("node") or "/usr/bin/node").parent)
        path = [str(self.fakes), *([str(self.tools)] if with_tools else []), str(BIN), node_dir, "/usr/bin", "/bin"]
        env = {
            "HOME": str(self.home),
            "PATH": os.pathsep.join(dict.fromkeys(path)),
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.root / "tmp"),
            "PYTHONPATH": os.pathsep.join([str(SOURCES), *filter(None, [os.environ.get("PYTHONPATH")])]),
            "HEEDFUL_HOME": str(self.heedful_home),
            "HEEDFUL_USER": "me",
            "HEEDFUL_EMBEDDER": "hashing",
            "HEEDFUL_WORKER_IDLE_EXIT": "3",
        }
        for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
            if name in os.environ:
                env[name] = os.environ[name]
        (self.root / "tmp").mkdir(exist_ok=True)
        env.update(extra)
        return env

    # -- heedful -----------------------------------------------------------------------------------
    def heedful(self, *args: str, cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "heedful", *args],
            cwd=cwd or self.project,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )
        if check:
            assert done.returncode == 0, f"heedful {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
        return done

    def learn(self, text: str, project: Path | None = None) -> None:
        done = self.heedful("rules", "learn", text, "--project", str(project or self.project), "--json")
        assert json.loads(done.stdout).get("actions"), f"nothing learned from {text!r}: {done.stdout}"

    def rules(self, project: Path | None = None) -> list[dict[str, Any]]:
        done = self.heedful("rules", "list", "--project", str(project or self.project), "--json")
        data = json.loads(done.stdout)
        return data["rules"] if isinstance(data, dict) else data

    def wait_for_rule(self, fragment: str, timeout: float = 90) -> dict[str, Any]:
        """Wait until the detached worker has learned a rule whose text holds `fragment`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for rule in self.rules():
                if fragment.lower() in rule["text"].lower():
                    return rule
            time.sleep(0.5)
        jobs = self.heedful("jobs", "list", "--json", check=False).stdout
        raise AssertionError(f"no rule with {fragment!r} learned within {timeout}s; jobs: {jobs}")

    def log_entries(self) -> list[dict[str, Any]]:
        sessions = json.loads(self.heedful("log", "--json").stdout)
        entries: list[dict[str, Any]] = []
        for session in sessions.get("sessions", []):
            detail = json.loads(self.heedful("log", "--json", "--session", session["session_id"]).stdout)
            entries.extend(detail.get("entries", []))
        return entries

    def ran(self, fake: str) -> list[str]:
        path = self.markers / f"{fake}.log"
        return path.read_text().splitlines() if path.exists() else []

    # -- the agents ------------------------------------------------------------------------------
    def run(self, argv: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> AgentRun:
        started = time.monotonic()
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            input=stdin if stdin is not None else "",
        )
        run = AgentRun(done.returncode, done.stdout, done.stderr, time.monotonic() - started)
        self.runs.append(run)
        return run

    def claude_env(self, base_url: str, with_tools: bool = True) -> dict[str, str]:
        return self.env(
            with_tools=with_tools,
            ANTHROPIC_BASE_URL=base_url,
            ANTHROPIC_API_KEY="sk-ant-e2e-dummy",
            IS_SANDBOX="1",  # lets --dangerously-skip-permissions run as root
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_TELEMETRY="1",
            DISABLE_ERROR_REPORTING="1",
        )

    def claude(
        self, prompt: str, base_url: str, cwd: Path | None = None, args: tuple[str, ...] = (), with_tools: bool = True
    ) -> AgentRun:
        argv = [str(BIN / "claude"), "-p", prompt, "--output-format", "json", "--dangerously-skip-permissions", *args]
        return self.run(argv, cwd or self.project, self.claude_env(base_url, with_tools))

    def configure_codex(self, base_url: str) -> None:
        codex_home = self.home / ".codex"
        codex_home.mkdir(exist_ok=True)
        (codex_home / "config.toml").write_text(
            textwrap.dedent(f"""\
            model = "mock-model"
            model_provider = "mock"

            [model_providers.mock]
            name = "mock"
            base_url = "{base_url}/v1"
            wire_api = "responses"
            env_key = "MOCK_MODEL_KEY"
            request_max_retries = 0
            stream_max_retries = 0

            # As after the user trusted the project: Codex reads project-local .codex/ only then.
            [projects."{self.project}"]
            trust_level = "trusted"
            """)
        )

    def codex(self, prompt: str, cwd: Path | None = None, resume: bool = False, trust_hooks: bool = True) -> AgentRun:
        argv = [str(BIN / "codex"), "exec"]
        if resume:
            argv += ["resume", "--last"]
        argv += ["--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check"]
        if trust_hooks:
            argv.append("--dangerously-bypass-hook-trust")
        argv.append(prompt)
        return self.run(argv, cwd or self.project, self.env(MOCK_MODEL_KEY="dummy"))

    def close(self) -> None:
        """Stop a detached worker the hooks started for this sandbox (only that pid)."""
        pid_file = self.heedful_home / "run" / "worker.pid"
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)
