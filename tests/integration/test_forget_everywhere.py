"""After a request to forget, nothing a model reads carries the forgotten words.

Recall (with explain), the context (text and JSON), session summaries, the profile (rebuilt at
forget time, not at the next Dream), the CLI and the MCP tool functions are all checked.
"""

from __future__ import annotations

import json
from pathlib import Path

from heedful.api import Heedful
from heedful.harness import get_harness
from heedful.integrations.mcp_server import Tools
from heedful.memory.areas import AREAS, FALLBACK_AREA
from heedful.memory.write import NewMessage

WORD = "sertraline"


def seeded(hf: Heedful) -> None:
    hf.memory.add(
        "me",
        [
            NewMessage("I live in Berlin and I love hiking in the Harz mountains.", session_id="s1"),
            NewMessage(f"I take {WORD} every morning for my anxiety.", session_id="s1"),
            NewMessage("My sister Anna loves cilantro.", session_id="s1"),
        ],
        flush=True,
    )
    hf.memory.dream("me")
    profile = hf.memory.profile("me")
    assert profile is not None and WORD in profile.statement  # what there is to forget


def test_forget_removes_the_content_from_everything_the_model_reads(hf: Heedful) -> None:
    seeded(hf)
    events = hf.memory.forget("me", f"forget that I take {WORD}")
    assert WORD not in json.dumps([e.to_json() for e in events])
    # the profile is rebuilt at once, without the forgotten fact, and keeps the rest
    profile = hf.memory.profile("me")
    assert profile is not None and WORD not in profile.statement and "Berlin" in profile.statement
    # recall, with explain, for the word itself and for a paraphrase
    for query in (WORD, "what medication does the user take every morning?", "anxiety"):
        assert WORD not in json.dumps(hf.memory.recall("me", query).to_json(explain=True)["items"])
    # current summaries
    assert all(WORD not in s.statement for s in hf.memory.list("me", kinds=["summary"]))
    # the context: it may say that something was forgotten, and in which area, never what
    built = get_harness().build(hf, "me", f"Does the user take {WORD}?")
    rendered = json.dumps(built.to_json()).replace(f"take {WORD}?", "")  # the question itself is the caller's
    assert WORD not in rendered
    assert "asked to forget 1 thing" in built.text
    assert len(built.forgotten) == 1 and built.forgotten[0] in {*AREAS, FALLBACK_AREA}
    assert "Berlin" in built.text
    # a Dream afterwards keeps it out too
    hf.memory.dream("me")
    assert WORD not in (hf.memory.profile("me") or profile).statement
    assert all(WORD not in s.statement for s in hf.memory.list("me", kinds=["summary"]))


def test_mcp_tools_never_return_the_forgotten_words(hf: Heedful, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HEEDFUL_USER", "me")
    seeded(hf)
    tools = Tools(hf)
    answer = tools.forget(f"please forget that I take {WORD}")
    assert WORD not in json.dumps(answer)
    assert WORD not in json.dumps(tools.recall(WORD, explain=True)["items"])
    assert WORD not in json.dumps(tools.recall("what does the user take in the morning?", explain=True))


def test_the_cli_context_names_only_the_area(home: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert cli("memory", "add", f"I take {WORD} every morning", "--flush").returncode == 0
    assert cli("memory", "add", "My salary is 90k a year", "--flush").returncode == 0
    assert cli("memory", "forget", f"I take {WORD}").returncode == 0
    assert cli("memory", "forget", "my salary").returncode == 0
    done = cli("memory", "context", "--json", "what", "should", "I", "know?")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert WORD not in done.stdout and "90k" not in done.stdout
    assert "money" in data["forgotten"] and "asked to forget 2 things" in data["text"]
