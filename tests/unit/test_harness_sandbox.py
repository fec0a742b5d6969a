"""Layout code in its sandbox: the same answers as heedful's own layout, hidden folders, checked answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from heedful.harness.sandbox import (
    BuiltinLayout,
    LayoutError,
    SandboxedLayout,
    builtin_source,
    checked,
    layout_for,
    sandbox_problem,
)

needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}")
ITEMS: list[dict[str, Any]] = [
    {"kind": "excerpt", "text": "I work as a nurse", "state": "current", "score": 0.9, "valid_from": "2024-05-01",
     "valid_to": None, "event_at": None, "routes": {"vector": 1}},
    {"kind": "fact", "text": "Lives in Berlin", "state": "superseded", "score": 0.5, "valid_from": "2023-01-01",
     "valid_to": "2024-02-01T00:00:00", "event_at": None, "routes": {"keyword": 2}},
    {"kind": "summary", "text": "Talked about work", "state": "current", "score": 0.4, "valid_from": "2024-05-02",
     "valid_to": None, "event_at": "2024-05-02", "routes": {}},
]  # fmt: skip
LIMITS = {"max_facts": None, "max_summaries": 3, "max_excerpts": 6}


def test_heedfuls_own_layout_runs_in_process() -> None:
    assert isinstance(layout_for(None), BuiltinLayout) and isinstance(layout_for(builtin_source()), BuiltinLayout)
    answer = BuiltinLayout().arrange(ITEMS, LIMITS)
    assert answer.chosen == {"facts": [1], "summaries": [2], "excerpts": [0]}
    assert answer.rendered["facts"] == ["- [NO LONGER TRUE since 2024-02-01] Lives in Berlin (said 2023-01-01)"]


@needs_sandbox
def test_the_same_code_in_the_sandbox_answers_the_same() -> None:
    sandboxed = SandboxedLayout(builtin_source() + "\n# a copy\n")
    try:
        assert sandboxed.arrange(ITEMS, LIMITS) == BuiltinLayout().arrange(ITEMS, LIMITS)
        assert sandboxed.render(ITEMS) == BuiltinLayout().render(ITEMS)
    finally:
        sandboxed.close()


@needs_sandbox
def test_hidden_folders_read_as_empty_and_there_is_no_network(tmp_path: Path) -> None:
    secret = tmp_path / "data" / "gold.json"
    secret.parent.mkdir()
    secret.write_text('{"answer": "nurse"}')
    probe = builtin_source().replace(
        "def choose(items: list[dict[str, Any]], limits: dict[str, Any]) -> dict[str, list[int]]:",
        "def choose(items: list[dict[str, Any]], limits: dict[str, Any]) -> dict[str, list[int]]:\n"
        "    import os, socket\n"
        f"    listing = os.listdir({str(secret.parent)!r})\n"
        "    try:\n"
        "        socket.create_connection(('127.0.0.1', 9), timeout=1)\n"
        "        online = 'connected'\n"
        "    except OSError as exc:\n"
        "        online = type(exc).__name__\n"
        "    raise RuntimeError(f'saw {listing} {online}')",
    )
    sandboxed = SandboxedLayout(probe, hidden=[secret])
    try:
        # The data folder reads as empty, and with no network not even loopback is reachable (an
        # unreachable network, not a refused connection on a port nobody listens on).
        with pytest.raises(LayoutError, match=r"saw \[\] OSError"):
            sandboxed.arrange(ITEMS, LIMITS)
    finally:
        sandboxed.close()


@needs_sandbox
def test_a_layout_that_never_answers_or_cannot_load_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = SandboxedLayout("def choose(:\n")
    try:
        with pytest.raises(LayoutError, match="loading the layout: SyntaxError"):
            broken.arrange(ITEMS, LIMITS)
    finally:
        broken.close()
    monkeypatch.setattr("heedful.harness.sandbox.ANSWER_SECONDS", 2.0)
    endless = "def choose(items, limits):\n    while True:\n        pass\n"
    stuck = SandboxedLayout(builtin_source().replace("def choose(", "def unused_choose(") + "\n" + endless)
    try:
        with pytest.raises(LayoutError, match="no answer within 2 s"):
            stuck.arrange(ITEMS, LIMITS)
    finally:
        stuck.close()


def test_an_answer_is_checked_against_the_items_it_was_given() -> None:
    good = {"chosen": {"facts": [1], "summaries": [], "excerpts": [0]},
            "rendered": {"facts": ["- b"], "summaries": [], "excerpts": ["- a"]},
            "policy": "p", "headings": {"facts": "F", "summaries": "S", "excerpts": "E"}}  # fmt: skip
    assert checked(good, 3).chosen["excerpts"] == [0]
    for change, message in (
        ({"chosen": {"facts": [7], "summaries": [], "excerpts": [0]}}, "not positions of the items"),
        ({"chosen": {"facts": [0], "summaries": [], "excerpts": [0]}}, "listed an item twice"),
        ({"chosen": {"facts": [1], "excerpts": [0]}}, "exactly facts, summaries, excerpts"),
        ({"rendered": {"facts": [], "summaries": [], "excerpts": ["- a"]}}, "no line per chosen item under facts"),
        ({"policy": None}, "must define POLICY"),
    ):
        with pytest.raises(LayoutError, match=message):
            checked(good | change, 3)
