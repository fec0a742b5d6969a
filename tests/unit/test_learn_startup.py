"""`rules learn` starts the embedder's load before the learner's heavy modules import, in a thread of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from heedful.embed import minilm
from heedful.errors import EmbedderError

TEXTS = ["never push to main", "this repo uses uv, not pip"]


def test_the_learn_entry_imports_neither_numpy_nor_the_learner() -> None:
    """What `rules.learn` imports runs before the embedder starts loading: it must stay light."""
    probe = (
        "import sys; import heedful.rules.learn; "
        "print(sorted(m for m in ('numpy', 'onnxruntime', 'heedful.rules.learn_steps', 'heedful.rules.compile', "
        "'heedful.rules.steps', 'heedful.rules.admission_model') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def _hold_the_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Make the embedder's model load wait until the returned event is set."""
    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(tmp_path / "cache"))
    release = threading.Event()
    real_load = minilm._load

    def held_load(path: Path, threads: int | None) -> minilm._Loaded:
        release.wait(timeout=60)
        return real_load(path, threads)

    monkeypatch.setattr(minilm, "_load", held_load)
    return release


def test_the_embedder_loads_in_a_thread_that_the_first_embed_waits_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = _hold_the_load(tmp_path, monkeypatch)
    embedder = minilm.MiniLMEmbedder()  # returns while its load is held back
    assert embedder._loader.is_alive() and not embedder._loader.daemon  # the interpreter waits for it at exit
    release.set()
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert not embedder._loader.is_alive()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_process_forked_during_the_load_loads_for_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = _hold_the_load(tmp_path, monkeypatch)
    embedder = minilm.MiniLMEmbedder()
    child = os.fork()
    if child == 0:  # the loader thread is not in this process: the first embed loads here
        code = 1
        try:
            release.set()
            code = 0 if embedder.embed(TEXTS).shape == (2, 384) else 1
        finally:
            os._exit(code)
    release.set()
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert embedder.embed(TEXTS).shape == (2, 384)


def test_an_error_of_the_load_is_raised_by_every_embed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(tmp_path / "cache"))

    def failing_load(path: Path, threads: int | None) -> minilm._Loaded:
        raise EmbedderError("the embedding model at x does not match its checksum")

    monkeypatch.setattr(minilm, "_load", failing_load)
    embedder = minilm.MiniLMEmbedder()
    for _ in range(2):
        with pytest.raises(EmbedderError, match="checksum"):
            embedder.embed(TEXTS)
    assert embedder.embed([]).shape == (0, 384)  # nothing to embed needs no model


def test_a_changed_model_file_is_refused_when_the_graph_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The original is verified before it is optimised or run (the saved graph was built from a verified one)."""
    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(tmp_path / "cache"))
    changed = tmp_path / "model.onnx"
    changed.write_bytes(b"not the model")
    monkeypatch.setattr(minilm, "_model_path", lambda: changed)
    with pytest.raises(EmbedderError, match="checksum"):
        minilm.MiniLMEmbedder().embed(TEXTS)
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").glob("minilm-*.onnx"))
