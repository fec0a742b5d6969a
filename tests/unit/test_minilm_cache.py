"""The optimised MiniLM graph is saved once and gives the very same embeddings as the original."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from heedful.embed import minilm

TEXTS = ["never push to main", "this repo uses uv, not pip", "keep final summaries under 100 words"]


def test_the_saved_graph_embeds_exactly_like_the_original(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(tmp_path / "cache"))
    first = minilm.MiniLMEmbedder()
    first_vectors = first.embed(TEXTS)  # the load runs in a thread: this waits for it (and the saved graph)
    [saved] = list((tmp_path / "cache").glob("minilm-*.onnx"))
    stamp = saved.stat().st_mtime_ns
    second = minilm.MiniLMEmbedder()  # loads the saved graph, optimisations off
    second_vectors = second.embed(TEXTS)
    assert saved.stat().st_mtime_ns == stamp and list((tmp_path / "cache").iterdir()) == [saved]

    monkeypatch.setattr(minilm, "_optimised_model", lambda *args: None)
    original = minilm.MiniLMEmbedder()
    assert np.array_equal(first_vectors, original.embed(TEXTS))
    assert np.array_equal(second_vectors, original.embed(TEXTS))


def test_a_damaged_saved_graph_is_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(tmp_path / "cache"))
    reference = minilm.MiniLMEmbedder().embed(TEXTS)
    [saved] = list((tmp_path / "cache").glob("minilm-*.onnx"))
    saved.write_bytes(b"not a model")
    assert np.array_equal(minilm.MiniLMEmbedder().embed(TEXTS), reference)
    assert not saved.exists()  # dropped; the next load saves it again


def test_an_unwritable_cache_falls_back_to_the_original(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(blocker / "cache"))
    assert minilm.MiniLMEmbedder().embed(TEXTS).shape == (3, 384)
