"""The sampled dialogue sources `dialogues_d`, `dialogues_e` (SpecStory histories) and `dialogues_f` (SpecStory,
aider and committed prompt logs): traceable turns, their own repositories, the stated sampling."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "src" / "heedful" / "bench" / "corpus"
RULE_WORD = re.compile(
    r"\b(always|never|from now on|going forward|every time|whenever|remember|rules?|stop|again|next time|"
    r"in the future|make sure|keep|don't|dont|do not|instead)\b",
    re.IGNORECASE,
)
# `git@github.com:owner/repo.git` is a forge's SSH address, not a person's
EMAIL = re.compile(r"\b(?!git@)[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|dev|co|uk|de|edu|ai|app|me)\b")


@dataclass(frozen=True)
class Source:
    name: str
    id_prefix: str
    min_rows: int
    min_repositories: int
    others: tuple[str, ...]  # earlier dialogue sources it shares no repository with
    owners_apart: tuple[str, ...]  # and no repository owner with
    every_decision: bool  # holds every decision (a small batch may have no underspecified turn)
    paths: str = r"(.*/)?\.specstory/history/[^/]+\.md"  # the files its turns come from


SOURCES = [
    Source("dialogues_d", "dld", 700, 35, ("dialogues_a", "dialogues_b", "dialogues_c"), (), True),
    Source(
        "dialogues_e",
        "dle",
        50,
        5,
        ("dialogues_a", "dialogues_b", "dialogues_c", "dialogues_d"),
        ("dialogues_a", "dialogues_b", "dialogues_d"),
        False,
    ),
    Source(
        "dialogues_f",
        "dlf",
        300,
        20,
        ("dialogues_a", "dialogues_b", "dialogues_c", "dialogues_d", "dialogues_e"),
        ("dialogues_a", "dialogues_b", "dialogues_c", "dialogues_d", "dialogues_e"),
        False,
        # SpecStory histories, aider chat histories, prompt logs and one-prompt-a-file prompt records
        r"(.*/)?\.specstory/history/[^/]+\.md|(.*/)?\.aider\.chat\.history\.md|(.*/)?[^/]+\.(?:md|txt|json)",
    ),
]
parametrized = pytest.mark.parametrize("source", SOURCES, ids=[source.name for source in SOURCES])


def _rows(name: str) -> list[dict]:
    path = CORPUS / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _owners(repositories: set[str]) -> set[str]:
    return {repository.split("/")[0].lower() for repository in repositories}


@parametrized
def test_every_turn_names_its_specstory_history_and_commit(source: Source) -> None:
    rows = _rows(source.name)
    assert len(rows) >= source.min_rows
    assert [row["id"] for row in rows] == [f"{source.id_prefix}-{number:04d}" for number in range(1, len(rows) + 1)]
    histories: set[tuple[str, str, int]] = set()
    for row in rows:
        provenance = row["provenance"]
        assert row["source"] == source.name and row["derived"] is False, row["id"]
        assert re.fullmatch(r"[0-9a-f]{40}", provenance["commit"]), row["id"]
        assert re.fullmatch(source.paths, provenance["path"]), row["id"]
        assert provenance["url"] == (
            f"https://github.com/{provenance['repository']}/blob/{provenance['commit']}/{provenance['path']}"
        )
        assert provenance["sample"] in {"even", "rule_word"}, row["id"]
        assert 4 <= len(row["text"]) <= 500, row["id"]
        histories.add((provenance["repository"], provenance["path"], provenance["session"]))
    # The previous turn is the user's prior message in the same history; only a history's first turn has none.
    assert sum(row["previous"] is None for row in rows) <= len(histories)
    assert all(row["previous"] for row in rows if row.get("points_back"))
    decisions = {row["decision"] for row in rows}
    if source.every_decision:
        assert decisions == {"persist", "task_local", "underspecified", "none"}
    else:
        assert {"persist", "task_local", "none"} <= decisions


@parametrized
def test_no_repository_is_shared_with_the_other_dialogue_sources(source: Source) -> None:
    mine = {row["provenance"]["repository"] for row in _rows(source.name)}
    assert len(mine) >= source.min_repositories
    for other in source.others:
        if (CORPUS / f"{other}.jsonl").exists():
            theirs = {row["provenance"]["repository"] for row in _rows(other)}
            assert not mine & theirs, other
            if other in source.owners_apart:
                assert not _owners(mine) & _owners(theirs), other


@parametrized
def test_sampling_keeps_its_stated_limits_per_repository(source: Source) -> None:
    per_stratum: Counter[tuple[str, str]] = Counter()
    for row in _rows(source.name):
        per_stratum[(row["provenance"]["repository"], row["provenance"]["sample"])] += 1
        if row["provenance"]["sample"] == "rule_word":
            assert RULE_WORD.search(row["text"]), row["id"]
    assert max(count for (_, sample), count in per_stratum.items() if sample == "even") <= 20
    assert max(count for (_, sample), count in per_stratum.items() if sample == "rule_word") <= 25


@parametrized
def test_personal_email_addresses_are_masked(source: Source) -> None:
    for row in _rows(source.name):
        assert not EMAIL.search(row["text"]), row["id"]
        assert not EMAIL.search(row["previous"] or ""), row["id"]


@parametrized
def test_lasting_turns_carry_rules_and_the_validator_accepts_the_file(source: Source) -> None:
    rows = _rows(source.name)
    assert all(row["rules"] and row["scope"] for row in rows if row["decision"] == "persist")
    assert all(not row["rules"] for row in rows if row["decision"] != "persist")
    result = subprocess.run(
        [sys.executable, str(CORPUS / "validate_corpus.py")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-2000:]
    assert "0 problems" in result.stdout
    assert f"('{source.name}', 'persist')" in result.stdout
