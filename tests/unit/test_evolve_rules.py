"""The fixed parts of the outer loop: the frozen evaluator's hash, splits and rule, the critic's shortcut
check, what a proposal may touch, and the scripted proposer's three rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heedful.errors import InputError
from heedful.evolve import evaluator as ev
from heedful.evolve import freeze
from heedful.evolve.critic import DatasetVocabulary, parse_verdict, shortcut_findings
from heedful.evolve.evaluator import Question, QuestionScore, SplitScore, Unit
from heedful.evolve.proposer import refusal
from heedful.evolve.scripted_proposer import propose


def test_the_recorded_hash_is_the_evaluators_own() -> None:
    # Editing the evaluator without recording its new hash in the same change fails here.
    assert freeze.check_frozen() == freeze.EVALUATOR_SHA256


def test_a_changed_evaluator_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(freeze, "EVALUATOR_SHA256", "0" * 64)
    with pytest.raises(InputError, match="refusing to evaluate"):
        freeze.check_frozen()


def test_the_declared_splits_are_user_disjoint() -> None:
    for splits in ev.SPLITS.values():
        parts = [set(splits.part(name)) for name in ev.SPLIT_NAMES]
        assert all(parts) and sum(len(p) for p in parts) == len(set().union(*parts))
    assert ev.splits_for("locomo").part("validation_a", 1) == (5,)
    with pytest.raises(InputError, match="no splits are declared"):
        ev.splits_for("nope")


def scores(split: ev.SplitName, values: list[float]) -> SplitScore:
    question = Question(0, "u", "q", "a", 1, ("D1:1",))
    return SplitScore(split, "h", [QuestionScore(question, v, (), {}) for v in values])


def test_acceptance_needs_a_gain_on_both_halves_and_reports_a_fixed_seed_interval() -> None:
    a = ev.compare(scores("validation_a", [0, 0, 1, 1]), scores("validation_a", [1, 0, 1, 1]))
    b = ev.compare(scores("validation_b", [0, 1]), scores("validation_b", [0, 1]))
    assert (a.gain, b.gain) == (25.0, 0.0)
    assert a.ci_low <= a.gain <= a.ci_high and a == ev.compare(
        scores("validation_a", [0, 0, 1, 1]), scores("validation_a", [1, 0, 1, 1])
    )
    accepted, reason = ev.acceptance([a, b])
    assert not accepted and "validation_b +0.00" in reason
    b2 = ev.compare(scores("validation_b", [0, 1]), scores("validation_b", [1, 1]))
    assert ev.acceptance([a, b2])[0]
    with pytest.raises(InputError):
        ev.acceptance([a])
    with pytest.raises(InputError, match="same questions"):
        ev.bootstrap_gain(scores("validation_a", [1]), scores("validation_a", [1, 0]))


VOCABULARY = DatasetVocabulary.of(
    [
        Unit(
            0,
            "locomo-0",
            ["Caroline", "Melanie"],
            [Question(0, "locomo-0", "When did Caroline go to the LGBTQ support group?", "7 May 2023", 2, ("D1:3",))],
            {},
        )
    ],
    ["multi-hop", "temporal"],
)


@pytest.mark.parametrize(
    ("added", "finding"),
    [
        ('"go": "caroline support"', "keyed to a speaker's name: 'caroline'"),
        ('"when": "D1:3"', "keyed to a turn id: 'D1:3'"),
        ('"conv": "conv-26"', "keyed to a conversation id: 'conv-26'"),
        ('"x": "go to the lgbtq support"', "keyed to a question's wording: 'go to the lgbtq'"),
        ('"date": "7 May 2023"', "keyed to a gold answer: '7 may 2023'"),
        ('"kind": "multi-hop"', "keyed to a category label: 'multi-hop'"),
    ],
)
def test_the_shortcut_check_finds_what_is_keyed_to_the_dataset(added: str, finding: str) -> None:
    diff = f"--- a/harness/params.json\n+++ b/harness/params.json\n- {added}\n+  {added}\n"
    assert finding in shortcut_findings(diff, VOCABULARY)
    assert shortcut_findings(diff.replace("\n+", "\n "), VOCABULARY) == []  # only added lines count


def test_generic_changes_pass_the_shortcut_check() -> None:
    diff = '+  "max_excerpts": 10,\n+  "query_expansions": {"job": "work", "move": "relocated"}\n'
    assert shortcut_findings(diff, VOCABULARY) == []


def test_a_critic_answer_is_read_only_when_it_is_a_json_verdict() -> None:
    assert parse_verdict('thinking...\n{"decision": "reject", "reasons": ["keyed"]}\n') == ("reject", ["keyed"])
    assert parse_verdict('{"decision": "accept", "reasons": "fine"}') == ("accept", ["fine"])
    assert parse_verdict("looks good to me") is None
    assert parse_verdict('{"decision": "maybe"}') is None


def test_a_proposal_may_change_only_the_parameters_and_the_layout() -> None:
    assert refusal(["harness/params.json"]) is None and refusal(["harness/layout.py", "harness/params.json"]) is None
    assert str(refusal(["harness/params.json", "evaluator/evaluator.py"])).startswith("touches the frozen evaluator")
    assert str(refusal(["traces/development.jsonl"])).startswith("touches the failure traces")
    assert str(refusal(["harness/source/context.py"])).startswith("changes the harness source, which is there to read")
    assert str(refusal(["notes.txt"])).startswith("changes a file other than harness/params.json and harness/layout.py")


def workspace(tmp_path: Path, gold: object, max_excerpts: int = 6, extract_facts: bool = False) -> Path:
    (tmp_path / "traces").mkdir()
    (tmp_path / "harness").mkdir()
    (tmp_path / "traces" / "summary.json").write_text(json.dumps({"metric": "evidence recall@10"}))
    (tmp_path / "traces" / "development.jsonl").write_text(json.dumps({"gold_evidence": gold}) + "\n")
    params = {"max_excerpts": max_excerpts, "recall_weights": {}, "extract_facts": extract_facts}
    (tmp_path / "harness" / "params.json").write_text(json.dumps(params))
    (tmp_path / "harness" / "recall_defaults.json").write_text(json.dumps({"weights": {"keyword": 1.0, "vector": 0.4}}))
    return tmp_path


def test_the_scripted_proposer_keeps_more_excerpts_when_recall_had_the_evidence(tmp_path: Path) -> None:
    gold = [{"context_rank": None, "recall_rank": 8, "routes": {"keyword": {"rank": 8}}}]
    hypothesis = propose(workspace(tmp_path, gold))
    assert "keep 10" in hypothesis
    assert json.loads((tmp_path / "harness" / "params.json").read_text())["max_excerpts"] == 10


def test_the_scripted_proposer_weighs_the_route_that_ranked_the_missed_evidence_best(tmp_path: Path) -> None:
    gold = [{"context_rank": None, "recall_rank": 14, "routes": {"keyword": {"rank": 30}, "vector": {"rank": 3}}}]
    propose(workspace(tmp_path, gold, max_excerpts=10))
    assert json.loads((tmp_path / "harness" / "params.json").read_text())["recall_weights"] == {"vector": 0.6}


def test_the_scripted_proposer_extracts_facts_when_the_missed_evidence_was_never_recalled(tmp_path: Path) -> None:
    never: dict[str, object] = {"context_rank": None, "recall_rank": None, "routes": {}}
    below = {"context_rank": None, "recall_rank": 14, "routes": {"vector": {"rank": 3}}}
    assert "2 of 3 missed gold turns were never recalled" in propose(workspace(tmp_path, [never, never, below]))
    params = json.loads((tmp_path / "harness" / "params.json").read_text())
    assert params["extract_facts"] is True and params["recall_weights"] == {}


def test_the_scripted_proposer_changes_nothing_without_a_hypothesis(tmp_path: Path) -> None:
    gold: list[dict[str, object]] = [{"context_rank": None, "recall_rank": None, "routes": {}}]
    assert propose(workspace(tmp_path, gold, max_excerpts=10, extract_facts=True)).startswith("no hypothesis")
    assert json.loads((tmp_path / "harness" / "params.json").read_text())["recall_weights"] == {}


def test_answers_are_scored_by_token_f1_as_locomo_normalises_them() -> None:
    assert ev.answer_f1("The nurse.", "nurse") == 1.0
    assert ev.answer_f1("a night nurse", "nurse") == pytest.approx(2 / 3)
    assert ev.answer_f1("not mentioned", "Porto") == 0.0
    assert ev.answer_f1("", "") == 1.0 and ev.answer_f1("", "Porto") == 0.0


def test_the_second_reader_may_lose_at_most_a_point_over_both_halves() -> None:
    def answered(split: ev.SplitName, values: list[float]) -> SplitScore:
        question = Question(0, "u", "q", "a", 1, ("D1:1",))
        answers = [{"reader": ("x", v), "second": ("x", 1 - v)} for v in values]
        return SplitScore(
            split, "h", [QuestionScore(question, v, (), {}, a) for v, a in zip(values, answers, strict=True)]
        )

    halves: tuple[ev.SplitName, ev.SplitName] = ("validation_a", "validation_b")
    first = [ev.compare(answered(h, [0, 0, 1, 1]), answered(h, [1, 1, 1, 1]), "reader") for h in halves]
    second = [ev.compare(answered(h, [0, 0, 1, 1]), answered(h, [1, 1, 1, 1]), "second") for h in halves]
    accepted, reason = ev.acceptance(first, second)
    assert not accepted and "the second reader (second) loses 50.00 points" in reason
    flat = [ev.compare(answered(h, [1, 1]), answered(h, [1, 1]), "evidence") for h in halves]
    accepted, reason = ev.acceptance(first, flat)
    assert accepted and "reader F1" in reason and "changes by +0.00 points" in reason
