"""The memory service runs on the parts it is given (a store, loaders for the embedder and the model, the
settings it reads), without the `Heedful` facade; the recall configuration comes from the settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.api import Heedful
from heedful.config import load_settings
from heedful.embed import Embedder, load_embedder
from heedful.errors import InputError, NotFoundError
from heedful.llm import Model
from heedful.llm.factory import load_model
from heedful.memory.parts import MemoryParts
from heedful.memory.service import MemoryService
from heedful.store.open import open_store


def test_the_service_works_from_its_parts_and_loads_the_embedder_and_model_only_when_used(home: Path) -> None:
    settings = load_settings(home, {"embedder.name": "hashing"})
    store = open_store(settings)
    loaded: list[str] = []

    def embedder() -> Embedder:
        loaded.append("embedder")
        return load_embedder("hashing", 32)

    def model() -> Model:
        loaded.append("model")
        return load_model(settings.model, settings.log_dir)

    try:
        memory = MemoryService(MemoryParts(store, embedder, model, home=home))
        with pytest.raises(NotFoundError):
            memory.list("alice")
        assert loaded == []  # reading nothing loads nothing
        added = memory.add("alice", "I moved to Lisbon last month and I work as a nurse", flush=True)
        assert added.events and {"embedder", "model"} <= set(loaded)
        recalled = memory.recall("alice", "where does alice live?")
        assert recalled.config == "default"
        assert any("Lisbon" in item.text for item in recalled.items)
        fact = next(f for f in memory.list("alice") if f.kind == "fact" and "Lisbon" in f.statement)
        corrected = memory.correct("alice", fact.id, "I moved to Porto last month")
        assert [f.id for f in memory.history("alice", corrected.fact_id).chain] == [fact.id, corrected.fact_id]
        events = memory.forget("alice", "forget that I work as a nurse")
        assert events[0].kind == "tombstone" and "nurse" not in events[0].text
        assert memory.forgotten_areas("alice") == ["work"]
        dreamt = memory.dream("alice")  # the dream pass runs on the parts too
        assert dreamt.user_id == "alice" and dreamt.profile_rebuilt is True
        with pytest.raises(NotFoundError):
            memory.dream("bob")  # the user is checked before the pass runs
    finally:
        store.close()


def test_a_forget_through_the_parts_rebuilds_the_profile_without_the_forgotten_words(home: Path) -> None:
    with Heedful.open(home, embedder="hashing") as hf:
        hf.memory.add("alice", "I work as a nurse at the city hospital", flush=True)
        hf.memory.add("alice", "I live in Porto with my two cats", flush=True)
        hf.memory.dream("alice")
        before = hf.memory.profile("alice")
        assert before is not None and "nurse" in before.statement
    settings = load_settings(home, {"embedder.name": "hashing"})
    store = open_store(settings)
    try:
        parts = MemoryParts(
            store, lambda: load_embedder("hashing", 32), lambda: load_model(settings.model, settings.log_dir), home=home
        )
        memory = MemoryService(parts)
        memory.forget("alice", "forget that I work as a nurse")
        after = memory.profile("alice")
        assert after is not None and after.id != before.id
        assert "nurse" not in after.statement and "Porto" in after.statement
    finally:
        store.close()


def _add_recall_setting(home: Path, name: str) -> None:
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    config = home / "config.toml"
    before = config.read_text(encoding="utf-8") if config.exists() else ""  # the test backend's [store], if any
    config.write_text(f'{before}[recall]\nconfig = "{name}"\n', encoding="utf-8")


def test_the_recall_configuration_is_a_setting(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _add_recall_setting(home, "single-stage")
    with Heedful.open(home, embedder="hashing") as hf:
        hf.memory.add("alice", "I keep bees on the roof", flush=True)
        assert hf.memory.recall("alice", "what does alice keep?").config == "single-stage"
    monkeypatch.setenv("HEEDFUL_RECALL_CONFIG", "newest-first")  # the environment over the file
    with Heedful.open(home, embedder="hashing") as hf:
        assert hf.memory.recall("alice", "what does alice keep?").config == "newest-first"


def test_an_unknown_recall_configuration_is_one_line_naming_the_known_ones(home: Path) -> None:
    _add_recall_setting(home, "bogus")
    with Heedful.open(home, embedder="hashing") as hf:
        hf.memory.add("alice", "I keep bees on the roof")
        with pytest.raises(InputError, match=r"unknown recall configuration 'bogus'; known: default, single-stage"):
            hf.memory.recall("alice", "bees")


def test_an_empty_recall_configuration_is_refused_when_the_settings_load(tmp_path: Path) -> None:
    home = tmp_path / "elsewhere"
    _add_recall_setting(home, " ")
    with pytest.raises(InputError, match=r"setting 'recall.config': must name a recall configuration"):
        load_settings(home)


def test_the_memory_modules_take_their_parts_not_the_facade() -> None:
    """The service, the writer, forgetting, the dream pass and the user's corrections never import the facade."""
    import ast
    import inspect

    import heedful
    from heedful.memory.history import MemoryHistory
    from heedful.memory.write import MemoryWriter

    source = Path(heedful.__file__).parent / "memory"
    for name in ("service.py", "write.py", "forget.py", "history.py", "dream.py", "parts.py"):
        tree = ast.parse((source / name).read_text(encoding="utf-8"))
        imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert "heedful.api" not in imported or name == "parts.py", name  # parts.py: only `MemoryParts.of`
        assert ".hf." not in (source / name).read_text(encoding="utf-8"), name
    assert list(inspect.signature(MemoryService.__init__).parameters) == ["self", "parts"]
    assert list(inspect.signature(MemoryWriter.__init__).parameters)[1] == "deps"
    assert list(inspect.signature(MemoryHistory.__init__).parameters)[1:] == ["store", "load_embedder"]
