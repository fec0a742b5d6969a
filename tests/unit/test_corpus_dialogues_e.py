"""The SpecStory dialogue source `dialogues_e`: traceable turns, its own repositories, the stated sampling."""

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
    r"in the future|make sure|keep|don't|dont|do not|instead)\b",
    re.IGNORECASE,
)
EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|dev|co|uk|de|edu|ai|app|me)\b")


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (CORPUS / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_turn_names_its_specstory_history_and_commit() -> None:
    rows = _rows("dialogues_e.jsonl")
    assert len(rows) >= 50
    assert [row["id"] for row in rows] == [f"dle-{number:04d}" for number in range(1, len(rows) + 1)]
    histories: set[tuple[str, str, int]] = set()
    for row in rows:
        provenance = row["provenance"]
        assert row["source"] == "dialogues_e" and row["derived"] is False, row["id"]
        assert re.fullmatch(r"[0-9a-f]{40}", provenance["commit"]), row["id"]
        assert re.fullmatch(r"(.*/)?\.specstory/history/[^/]+\.md", provenance["path"]), row["id"]
        assert provenance["url"] == (
            f"https://github.com/{provenance['repository']}/blob/{provenance['commit']}/{provenance['path']}"
        )
        assert provenance["sample"] in {"even", "rule_word"}, row["id"]
        assert 4 <= len(row["text"]) <= 500, row["id"]
        histories.add((provenance["repository"], provenance["path"], provenance["session"]))
    # The previous turn is the user's prior message in the same history; only a history's first turn has none.
    assert sum(row["previous"] is None for row in rows) <= len(histories)
    assert all(row["previous"] for row in rows if row.get("points_back"))
    assert {"persist", "task_local", "none"} <= {row["decision"] for row in rows}


def test_no_repository_or_owner_is_shared_with_the_other_dialogue_sources() -> None:
    mine = {row["provenance"]["repository"] for row in _rows("dialogues_e.jsonl")}
    assert len(mine) >= 5
    for other in ("dialogues_a.jsonl", "dialogues_b.jsonl", "dialogues_c.jsonl", "dialogues_d.jsonl"):
        if (CORPUS / other).exists():
            theirs = {row["provenance"]["repository"] for row in _rows(other)}
            assert not mine & theirs, other
            if other != "dialogues_c.jsonl":
                owners = {repository.split("/")[0].lower() for repository in theirs}
                assert not {repository.split("/")[0].lower() for repository in mine} & owners, other


def test_sampling_keeps_its_stated_limits_per_repository() -> None:
    per_stratum: Counter[tuple[str, str]] = Counter()
    for row in _rows("dialogues_e.jsonl"):
        per_stratum[(row["provenance"]["repository"], row["provenance"]["sample"])] += 1
        if row["provenance"]["sample"] == "rule_word":
            assert RULE_WORD.search(row["text"]), row["id"]
    assert max(count for (_, sample), count in per_stratum.items() if sample == "even") <= 20
    assert max(count for (_, sample), count in per_stratum.items() if sample == "rule_word") <= 25


def test_personal_email_addresses_are_masked() -> None:
    for row in _rows("dialogues_e.jsonl"):
        assert not EMAIL.search(row["text"]), row["id"]
        assert not EMAIL.search(row["previous"] or ""), row["id"]


def test_lasting_turns_carry_rules_and_the_validator_accepts_the_file() -> None:
    rows = _rows("dialogues_e.jsonl")
    assert all(row["rules"] and row["scope"] for row in rows if row["decision"] == "persist")
    assert all(not row["rules"] for row in rows if row["decision"] != "persist")
    result = subprocess.run(
        [sys.executable, str(CORPUS / "validate_corpus.py")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-2000:]
    assert "0 problems" in result.stdout
    assert "('dialogues_e', 'persist')" in result.stdout
