"""Sentence vectors of the admission corpus, cached per embedder (the corpus is embedded once, not per run).

The cache is one file per embedder keyed by each text's hash; it is replaced whole (written beside and
renamed over), so parallel runs that share it never read half a file, and a damaged one is rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from heedful.embed import Embedder
from heedful.embed.cache import cache_dir as cache_dir  # the one cache folder ($HEEDFUL_CACHE_DIR honoured)


def embed_texts(texts: Sequence[str], embedder: Embedder, cache: Path | None = None) -> np.ndarray:
    """Vectors for `texts`, reusing a per-embedder cache file keyed by each text's hash."""
    keys = [hashlib.sha1(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
    store: dict[str, np.ndarray] = {}
    path = None if cache is None else cache / f"embeddings-{embedder.name}.npz"
    if path is not None and path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                store = {k: data[k] for k in data.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile):
            store = {}  # a damaged cache is rebuilt, never trusted
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in store}.items())
    if missing:
        fresh = embedder.embed([t for _, t in missing])
        for (k, _), vector in zip(missing, fresh, strict=True):
            store[k] = vector.astype(np.float32)
        if path is not None:
            # Written beside and renamed over: another process reading the cache meanwhile sees the old
            # file or the new one, never half of one.
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            with partial.open("wb") as handle:
                np.savez(handle, **store)  # type: ignore[arg-type]  # numpy's stub types **arrays badly
            os.replace(partial, path)
    return np.stack([store[k] for k in keys]) if keys else np.zeros((0, embedder.dim), dtype=np.float32)
