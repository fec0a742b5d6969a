"""The third dialogue source: real user turns from committed chat histories, traceable and apart from the others."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "src" / "heedful" / "bench" / "corpus"
RULE_WORD = re.compile(
    r"\b(always|never|from now on|going forward|every time|whenever|remember|rules?|stop|again|next time|"
    r"in the future|make sure|keep|don['’]?t|instead)\b",
    re.IGNORECASE,
)


# Committed chat histories and prompt logs: aider's histories, Claude Code / Codex / Copilot CLI exports, prompt logs.
HISTORY_FILE = re.compile(
    r"(\.aider\.(chat|input)\.history(\.md)?|llm-logs/.+\.md|chatlog\.txt|prompt[_-]log\.md|PROMPT_LOG\.md)$"
)


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (CORPUS / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def test_validator_accepts_the_dialogues_c_file() -> None:
    result = subprocess.run(
        [sys.executable, str(CORPUS / "validate_corpus.py")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-2000:]
    assert "('dialogues_c', " in result.stdout


def test_every_turn_names_its_chat_history_commit_and_blob() -> None:
    rows = _rows("dialogues_c.jsonl")
    assert len(rows) >= 300
    assert len({row["provenance"]["repository"] for row in rows}) >= 35
    assert {"persist", "task_local", "none"} <= {row["decision"] for row in rows}
    assert [row["id"] for row in rows] == [f"dlc-{number:04d}" for number in range(1, len(rows) + 1)]
    for row in rows:
        provenance = row["provenance"]
        assert row["source"] == "dialogues_c" and row["derived"] is False, row["id"]
        assert re.fullmatch(r"[0-9a-f]{40}", provenance["commit"]), row["id"]
        assert provenance["url"] == (
            f"https://github.com/{provenance['repository']}/blob/{provenance['commit']}/{provenance['path']}"
        ), row["id"]
        assert isinstance(provenance["session"], int) and provenance["session"] >= 1, row["id"]
        assert provenance["sample"] in ("even", "rule_word"), row["id"]
        assert 4 <= len(row["text"]) <= 500, row["id"]
        assert HISTORY_FILE.search(provenance["path"]), row["id"]


def test_previous_is_a_short_prior_turn_and_pointing_back_needs_one() -> None:
    rows = _rows("dialogues_c.jsonl")
    histories = {(r["provenance"]["repository"], r["provenance"]["path"], r["provenance"]["session"]) for r in rows}
    assert sum(row["previous"] is None for row in rows) <= len(histories)
    for row in rows:
        assert row["previous"] is None or (isinstance(row["previous"], str) and len(row["previous"]) <= 303)
        assert row["previous"] != row["text"] or row["previous"] is None, row["id"]
    assert all(row["previous"] for row in rows if row.get("points_back"))


def test_sampling_caps_hold_per_repository() -> None:
    rows = _rows("dialogues_c.jsonl")
    per_stratum = Counter((row["provenance"]["repository"], row["provenance"]["sample"]) for row in rows)
    assert all(count <= 20 for (_, sample), count in per_stratum.items() if sample == "even")
    assert all(count <= 25 for (_, sample), count in per_stratum.items() if sample == "rule_word")
    assert all(RULE_WORD.search(row["text"]) for row in rows if row["provenance"]["sample"] == "rule_word")
    texts = Counter((row["provenance"]["repository"], row["text"].strip().lower()) for row in rows)
    assert max(texts.values()) == 1


def test_no_secrets_or_personal_addresses_are_kept() -> None:
    for row in _rows("dialogues_c.jsonl"):
        for text in (row["text"], row["previous"] or ""):
            assert not re.search(r"[\w.+-]+@[\w-]+\.[a-z]{2,}", text, re.IGNORECASE), row["id"]
            assert not re.search(r"sk-[A-Za-z0-9]{16,}|ghp_[A-Za-z0-9]{16,}|AKIA[0-9A-Z]{12,}", text), row["id"]


def test_dialogues_c_shares_no_repository_with_the_other_dialogue_sources() -> None:
    third = {row["provenance"]["repository"] for row in _rows("dialogues_c.jsonl")}
    others = set()
    for name in ("dialogues_a.jsonl", "dialogues_b.jsonl"):
        others |= {row["provenance"]["repository"] for row in _rows(name)}
    assert third and not third & others
    assert not any(".specstory" in row["provenance"]["path"] for row in _rows("dialogues_c.jsonl"))
