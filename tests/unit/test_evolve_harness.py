"""Harness versions as parameter files: validation, naming, the default, and a build that uses them."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from heedful.api import Heedful
from heedful.errors import InputError
from heedful.harness import HarnessParams, get_harness
from heedful.harness.context import ParamHarness
from heedful.harness.versions import adopt, default_version, save_version, stored_versions, versions_dir


def test_parameters_refuse_unknown_fields_routes_and_phrases_as_keys() -> None:
    with pytest.raises(ValidationError):
        HarnessParams.model_validate({"max_exerpts": 10})
    with pytest.raises(ValidationError, match="unknown recall routes"):
        HarnessParams(recall_weights={"bm25": 1.0})
    with pytest.raises(ValidationError, match="one word"):
        HarnessParams(query_expansions={"two words": "x"})
    with pytest.raises(ValidationError):
        HarnessParams(max_excerpts=-1)


def test_a_query_expansion_adds_its_words_once_and_only_when_its_word_is_asked() -> None:
    params = HarnessParams(query_expansions={"Job": "work employed", "move": "relocated work"})
    assert params.expand_query("What is her job and where did she move?") == (
        "What is her job and where did she move? work employed relocated"
    )
    assert params.expand_query("Where does she live?") == "Where does she live?"


def test_versions_sit_beside_v1_and_the_default_moves_only_on_adopt(tmp_path: Path) -> None:
    assert default_version(tmp_path) == "v1" and list(stored_versions(tmp_path)) == ["v1"]
    first = save_version(HarnessParams(max_excerpts=10), "v1", "test", tmp_path)
    second = save_version(HarnessParams(max_excerpts=12), "v2", "test", tmp_path)
    assert (first.name, second.name) == ("v2", "v3")
    assert oct((versions_dir(tmp_path) / "v2.json").stat().st_mode & 0o777) == "0o600"
    assert get_harness("v3", tmp_path).params.max_excerpts == 12
    assert get_harness(None, tmp_path).name == "v1"
    assert adopt("v3", tmp_path) == "v1" and get_harness(None, tmp_path).name == "v3"
    with pytest.raises(InputError, match="unknown harness 'v9'"):
        adopt("v9", tmp_path)
    assert default_version(tmp_path) == "v3"


def test_a_damaged_version_file_is_one_clear_error(tmp_path: Path) -> None:
    versions_dir(tmp_path).mkdir(parents=True)
    (versions_dir(tmp_path) / "v2.json").write_text('{"name": "v2", "params": {"max_excerpts": "many"}}')
    with pytest.raises(InputError, match="cannot be read"):
        get_harness("v2", tmp_path)


def test_a_version_builds_its_context_with_its_own_budgets_weights_and_expansions(hf: Heedful) -> None:
    for n in range(8):
        hf.memory.add("me", f"Note {n}: the garden needs water on day {n}.", extract=False)
    hf.memory.add("me", "I work as a nurse at the clinic.", extract=False)
    v1 = get_harness("v1")
    built = v1.build(hf, "me", "garden water")
    assert len(built.excerpts) == 6 and len(built.sources) == 6 and built.recalled is not None
    wider = ParamHarness(
        "v9", HarnessParams(max_excerpts=2, recall_weights={"keyword": 2.0}, query_expansions={"job": "work"})
    )
    try:
        asked = wider.build(hf, "me", "What is my job?")
        assert len(asked.excerpts) <= 2 and "nurse" in asked.excerpts[0]
        assert asked.recalled is not None and "work" in asked.recalled.query
        assert hf.memory.recaller.weights["keyword"] == 1.0  # the home's recaller is untouched
    finally:
        wider.close()


def test_a_version_with_layout_code_builds_through_its_sandbox(hf: Heedful, tmp_path: Path) -> None:
    from heedful.harness.sandbox import SandboxedLayout, builtin_source, sandbox_problem
    from heedful.harness.versions import save_version

    if sandbox_problem():
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    for n in range(3):
        hf.memory.add("me", f"Note {n}: the garden needs water on day {n}.", extract=False)
    reversed_excerpts = (
        builtin_source()
        .replace(
            '"excerpts": excerpts[: limits["max_excerpts"]],', '"excerpts": excerpts[: limits["max_excerpts"]][::-1],'
        )
        .replace('"Raw excerpts from past conversations:"', '"Excerpts, oldest ranked last first:"')
    )
    version = save_version(HarnessParams(), "v1", "test", tmp_path, layout=reversed_excerpts)
    plain, coded = get_harness("v1", tmp_path), get_harness(version.name, tmp_path)
    try:
        assert isinstance(coded.layout, SandboxedLayout)
        before, after = plain.build(hf, "me", "garden water"), coded.build(hf, "me", "garden water")
        assert after.excerpts == before.excerpts[::-1] and after.sources == before.sources[::-1]
        assert "Excerpts, oldest ranked last first:" in after.text and "Raw excerpts" not in after.text
    finally:
        plain.close()
        coded.close()


def test_a_version_names_its_recall_configuration(hf: Heedful) -> None:
    hf.memory.add("me", "I work as a nurse at the clinic.", extract=False)
    with pytest.raises(ValueError, match="unknown recall configuration"):
        HarnessParams(recall_config="telepathy")
    single = ParamHarness("v9", HarnessParams(recall_config="single-stage"))
    try:
        assert single.recaller(hf).config.name == "single-stage"
        assert single.recall(hf, "me", "where do I work?", None, None).config == "single-stage"
        assert hf.memory.recaller.config.name == "default"  # the home's recaller is untouched
    finally:
        single.close()
    assert ParamHarness("v1").recaller(hf) is hf.memory.recaller
