"""Run `heedful serve` as a real child process on a free loopback port (benchmarks and tests use it).

with served(home, embedder="hashing") as url:
    httpx.get(f"{url}/healthz")
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def heedful_command(
    *args: str, home: Path, embedder: str = "hashing", timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`python -m heedful ARGS` against `home` in a clean environment (no HEEDFUL_* of this process)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEEDFUL_")}
    env.update({"HEEDFUL_HOME": str(home), "HEEDFUL_EMBEDDER": embedder})
    return subprocess.run(
        [sys.executable, "-m", "heedful", *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def served(
    home: Path,
    *,
    workers: int = 1,
    rate: float = 20.0,
    burst: int = 40,
    embedder: str | None = None,
    clean_env: bool = True,
    start_timeout: float = 90.0,
) -> Iterator[str]:
    """Start the server for `home`, wait until it answers, yield its base URL, stop it afterwards.

    `clean_env` drops this process's HEEDFUL_* settings (tests); a benchmark keeps them (a store URL).
    """
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not (clean_env and k.startswith("HEEDFUL_"))}
    env["HEEDFUL_HOME"] = str(home)
    if embedder:
        env["HEEDFUL_EMBEDDER"] = embedder
    command = [sys.executable, "-m", "heedful", "serve", "--port", str(port), "--workers", str(workers)]
    command += ["--rate", str(rate), "--burst", str(burst)]
    log_path = Path(home) / "serve-test.log"
    Path(home).mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(server, port, start_timeout, log_path)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def _wait_until_up(server: subprocess.Popen[bytes], port: int, timeout: float, log_path: Path) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"heedful serve exited early: {log_path.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"heedful serve did not answer within {timeout:.0f} s")
