"""Where a harness layout runs: heedful's own in process, a candidate's (or a code version's) in a sandbox.

A layout written by a proposer is code nobody reviewed line by line, so it never runs in heedful's
process (where it could reach the evaluator, the store or the model keys). It runs in a child
process started through `unshare`: a new user, mount and network namespace, so it has no network,
with tmpfs mounted over the folders it must not read (the benchmark data, the heedful home), a
fresh folder holding only its file, `python -I -S` (standard library only, no environment), and
limits on memory and CPU time. The process answers over a pipe and lives as long as the version.
Its answers are checked: positions must name items it was given, each at most once. Without a
usable `unshare`, code is refused, never run unsandboxed.
"""

from __future__ import annotations

import json
import os
import resource
import select
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from heedful.errors import InputError
from heedful.harness import layout as builtin

HOST = Path(__file__).with_name("layout_host.py")
HEADING_KEYS = ("facts", "summaries", "excerpts")
MEMORY_BYTES = 1 << 30
CPU_SECONDS = 3600
ANSWER_SECONDS = 20.0
MAX_LINE = 20_000  # characters of one rendered item or of the policy


class LayoutError(InputError):
    """A layout's code failed or answered something that is not a layout."""


@dataclass(frozen=True, slots=True)
class LayoutAnswer:
    chosen: dict[str, list[int]]  # heading key -> positions in the items, in the order shown
    rendered: dict[str, list[str]]
    policy: str
    headings: dict[str, str]


class Layout(Protocol):
    def arrange(self, items: list[dict[str, Any]], limits: dict[str, Any]) -> LayoutAnswer: ...
    def render(self, items: list[dict[str, Any]]) -> list[str]: ...
    def close(self) -> None: ...


def builtin_source() -> str:
    return Path(builtin.__file__).read_text(encoding="utf-8")


class BuiltinLayout:
    """heedful's own layout module, in process."""

    def arrange(self, items: list[dict[str, Any]], limits: dict[str, Any]) -> LayoutAnswer:
        chosen = builtin.choose(items, limits)
        rendered = {key: [builtin.render(items[i]) for i in chosen[key]] for key in HEADING_KEYS}
        return LayoutAnswer(chosen, rendered, builtin.POLICY, dict(builtin.HEADINGS))

    def render(self, items: list[dict[str, Any]]) -> list[str]:
        return [builtin.render(item) for item in items]

    def close(self) -> None:
        pass


@lru_cache(maxsize=1)
def sandbox_problem() -> str | None:
    """Why code cannot be sandboxed here (None: it can)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return "`unshare` (util-linux) is not installed"
    try:
        done = subprocess.run(
            [unshare, "-rmn", "--propagation", "private", "true"], capture_output=True, text=True, timeout=20
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`unshare` cannot run: {exc}"
    if done.returncode != 0:
        return f"user namespaces are not available ({done.stderr.strip()[:200] or 'unshare failed'})"
    return None


def _limits() -> None:  # runs in the child before exec
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


class SandboxedLayout:
    """A layout file's code in a sandboxed child process; `hidden` folders read as empty there."""

    def __init__(self, source: str, hidden: Sequence[Path] = ()) -> None:
        problem = sandbox_problem()
        if problem:
            raise LayoutError(f"layout code runs only in a sandbox, and this machine has none: {problem}")
        self._folder = Path(tempfile.mkdtemp(prefix="heedful-layout-"))
        (self._folder / "layout.py").write_text(source, encoding="utf-8")
        shutil.copy2(HOST, self._folder / "host.py")
        mounts = " ".join(f'mount -t tmpfs none "${i + 1}" &&' for i in range(len(hidden)))
        script = f'{mounts} exec "$0" -I -S host.py layout.py'
        folders = [str(folder) for folder in home_folders(*hidden)]
        # A folder holding the interpreter or the layout's own folder cannot be hidden (nothing could run).
        needed = (str(self._folder), str(Path(sys.executable).resolve()), sys.prefix)
        folders = [f for f in dict.fromkeys(folders) if not any(n.startswith(f.rstrip("/") + "/") for n in needed)]
        argv = [str(shutil.which("unshare")), "-rmn", "--propagation", "private", "sh", "-c", script]
        self._process = subprocess.Popen(
            [*argv, sys.executable, *folders],
            cwd=self._folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            preexec_fn=_limits,
        )

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
        except OSError as exc:
            raise LayoutError(f"the layout process stopped ({exc})") from exc
        ready, _, _ = select.select([process.stdout], [], [], ANSWER_SECONDS)
        if not ready:
            self.close()
            raise LayoutError(f"the layout gave no answer within {ANSWER_SECONDS:g} s")
        line = process.stdout.readline()
        try:
            reply = json.loads(line)
        except ValueError as exc:
            raise LayoutError(f"the layout process answered no JSON (exit status {process.poll()})") from exc
        if not isinstance(reply, dict):
            raise LayoutError("the layout answered something that is not a JSON object")
        if "error" in reply:
            raise LayoutError(f"the layout failed: {str(reply['error'])[:300]}")
        return reply

    def arrange(self, items: list[dict[str, Any]], limits: dict[str, Any]) -> LayoutAnswer:
        reply = self._ask({"items": items, "limits": limits})
        return checked(reply, len(items))

    def render(self, items: list[dict[str, Any]]) -> list[str]:
        lines = self._ask({"render": items}).get("lines")
        if not isinstance(lines, list) or len(lines) != len(items) or not all(isinstance(x, str) for x in lines):
            raise LayoutError("the layout's render answered no line per item")
        return [line[:MAX_LINE] for line in lines]

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait(timeout=10)
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                stream.close()
        shutil.rmtree(self._folder, ignore_errors=True)


def checked(reply: dict[str, Any], count: int) -> LayoutAnswer:
    """The sandbox's answer, if it is a layout of the `count` items it was given."""
    chosen, rendered = reply.get("chosen"), reply.get("rendered")
    policy, headings = reply.get("policy"), reply.get("headings")
    if not isinstance(chosen, dict) or not isinstance(rendered, dict) or set(chosen) != set(HEADING_KEYS):
        raise LayoutError(f"the layout must choose items under exactly {', '.join(HEADING_KEYS)}")
    seen: set[int] = set()
    for key in HEADING_KEYS:
        positions, lines = chosen[key], rendered.get(key)
        if not isinstance(positions, list) or not all(isinstance(p, int) and 0 <= p < count for p in positions):
            raise LayoutError(f"the layout chose {key} that are not positions of the items it was given")
        if seen & set(positions) or len(set(positions)) != len(positions):
            raise LayoutError("the layout listed an item twice")
        seen.update(positions)
        if not isinstance(lines, list) or len(lines) != len(positions) or not all(isinstance(x, str) for x in lines):
            raise LayoutError(f"the layout rendered no line per chosen item under {key}")
    if not isinstance(policy, str) or not isinstance(headings, dict) or set(headings) != set(HEADING_KEYS):
        raise LayoutError("the layout must define POLICY and a heading for facts, summaries and excerpts")
    return LayoutAnswer(
        {k: list(chosen[k]) for k in HEADING_KEYS},
        {k: [line[:MAX_LINE] for line in rendered[k]] for k in HEADING_KEYS},
        policy[:MAX_LINE],
        {k: str(headings[k])[:200] for k in HEADING_KEYS},
    )


def layout_for(source: str | None, hidden: Sequence[Path] = ()) -> Layout:
    """The built-in layout for no source or heedful's own text; a sandboxed one for any other code."""
    if source is None or source == builtin_source():
        return BuiltinLayout()
    return SandboxedLayout(source, hidden)


def home_folders(*paths: Path | str | None) -> list[Path]:
    """The existing folders among `paths` (files count as their folder), for `hidden`."""
    found = []
    for path in paths:
        if path is not None and os.path.exists(path):
            resolved = Path(path).resolve()
            found.append(resolved if resolved.is_dir() else resolved.parent)
    return found
