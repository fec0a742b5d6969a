"""mem0 as a peer in the LoCoMo benchmark: the same turns, the same embedder, the same process.

    heedful bench locomo --peer mem0 [--peer-store disk|memory] [--peer-scale 10000]

mem0's `Memory` is built with Qdrant's local mode (in process, no server) and its embedding model
object is replaced by an adapter over heedful's own embedder, since mem0's configuration accepts
only its own embedder names. Turns go in through `Memory.add(..., infer=False)`: stored as they
are, with no LLM call (its LLM client holds a placeholder key and is never used).

Nothing here reaches the network. Telemetry is switched off through MEM0_TELEMETRY before mem0 is
first imported (it is read at import time), and mem0's state folder (MEM0_DIR) is a temporary
one unless the caller set it. mem0's keyword route loads fastembed's "Qdrant/bm25" model and its
entity boosts and lemmas load spaCy's en_core_web_sm, both fetched from a model hub when missing;
both are marked unavailable, so the peer's row is mem0's semantic search.

The grown-user comparison (`--peer-scale N`) fills one fresh user to N items in both systems
(every LoCoMo turn, then generated notes) and times searches over both, query by query.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.bench.report import percentile
from heedful.errors import InputError

if TYPE_CHECKING:
    from heedful.embed.protocol import Embedder

EXTRA = "peer-mem0"
TESTED = "mem0ai 2.2.1"
UNUSED_KEY = "unused-infer-false"  # mem0 builds an OpenAI client at start; infer=False never calls it
SCALE_USER = "grown-user"
SCALE_SESSION_TURNS = 20
SCALE_SAMPLES = 100  # searches per system at least: runs over the queries are repeated up to this
SCALE_LOCOMO_QUESTIONS = 3  # per conversation, beside the generated-note queries
COLLECTION = "heedful_peer"
# Where mem0 keeps its vectors and its history table. On disk, each memory costs two SQLite commits.
STORES = {
    "disk": "vectors and history in files, one commit each per memory",
    "memory": "vectors and history held in memory, nothing written",
}


@dataclass(frozen=True)
class PeerTurn:
    """One turn as both systems receive it."""

    text: str
    session: str
    speaker: str | None = None

    @property
    def content(self) -> str:
        # mem0 stores one string per memory: the speaker goes into it, as LoCoMo shows turns.
        return f"{self.speaker}: {self.text}" if self.speaker else self.text


@dataclass
class GrownUser:
    """Both systems' search latency for one user of `items` items."""

    items: int
    queries: int
    runs: int
    fill_seconds: dict[str, float] = field(default_factory=dict)
    latency_ms: dict[str, dict[str, float]] = field(default_factory=dict)


class HeedfulEmbedding:
    """mem0's embedding-model interface (`embed`, `embed_batch`) over a heedful embedder.

    A cache by text can be switched on for untimed fills; timed ingest and every search run with
    it off, so each call pays for its own embedding."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.cache: dict[str, list[float]] = {}
        self.caching = False

    def embed(self, text: str, memory_action: str | None = None) -> list[float]:
        cached = self.cache.get(text) if self.caching else None
        return cached if cached is not None else self.embedder.embed([text])[0].tolist()

    def embed_batch(self, texts: list[str], memory_action: str | None = "add") -> list[list[float]]:
        return [row.tolist() for row in self.embedder.embed(list(texts))] if texts else []

    def prefill(self, texts: list[str], batch: int = 256) -> None:
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        for start in range(0, len(missing), batch):
            part = missing[start : start + batch]
            self.cache.update(zip(part, self.embed_batch(part), strict=True))


def import_mem0() -> Any:
    """The mem0 package, imported with telemetry off; a one-line error when the extra is missing."""
    os.environ["MEM0_TELEMETRY"] = "False"  # read once, at import: must precede the first import
    if not os.environ.get("MEM0_DIR"):
        # mem0 writes a config file (an anonymous id) into this folder as it is imported.
        folder = tempfile.mkdtemp(prefix="heedful-mem0-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.environ["MEM0_DIR"] = folder
    try:
        import mem0
        import mem0.memory.main as mem0_main
        import mem0.utils.spacy_models as spacy_models
    except ModuleNotFoundError as exc:  # mem0 itself or one of its own dependencies
        raise InputError(f"--peer mem0 needs mem0ai: pip install 'heedful[{EXTRA}]' ({exc.name} is missing)") from exc
    if mem0_main.MEM0_TELEMETRY:
        raise InputError(
            "mem0 was imported with telemetry on before the peer could switch it off; set MEM0_TELEMETRY=False"
        )
    # Loading spaCy's model would download it when absent: treat it as unavailable, as mem0 does on failure.
    _set_known(spacy_models, "_load_failed_full", True, mem0)
    _set_known(spacy_models, "_load_failed_lemma", True, mem0)
    logging.getLogger("mem0").setLevel(logging.ERROR)  # its notices about the missing routes, once per store
    return mem0


def _set_known(owner: Any, name: str, value: object, mem0: Any) -> None:
    """Set one of mem0's internal switches; a mem0 without it is one this module cannot keep offline."""
    if not hasattr(owner, name):
        raise InputError(f"mem0 {mem0.__version__} has no {name}: the peer cannot keep it offline (tested: {TESTED})")
    setattr(owner, name, value)


class Mem0Peer:
    """A mem0 `Memory` in a folder of its own, embedding with heedful's embedder."""

    name = "mem0"

    def __init__(self, embedder: Embedder, folder: Path | str, store: str = "disk") -> None:
        if store not in STORES:
            raise InputError(f"unknown peer store {store!r}; choose one of: {', '.join(STORES)}")
        mem0 = import_mem0()
        self.version = str(mem0.__version__)
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.embedding = HeedfulEmbedding(embedder)
        self.memory = mem0.Memory.from_config(
            {
                "vector_store": {
                    "provider": "qdrant",
                    "config": {
                        "collection_name": COLLECTION,
                        "embedding_model_dims": embedder.dim,
                        "path": str(self.folder / "qdrant") if store == "disk" else ":memory:",
                    },
                },
                "llm": {"provider": "openai", "config": {"api_key": UNUSED_KEY}},
                "embedder": {"provider": "openai", "config": {"api_key": UNUSED_KEY, "embedding_dims": embedder.dim}},
                "history_db_path": str(self.folder / "history.db") if store == "disk" else ":memory:",
            }
        )
        self.memory.embedding_model = self.embedding
        # Its BM25 encoder would be fetched from a model hub on first use: mark it as failed to load.
        _set_known(self.memory.vector_store, "_bm25_encoder", False, mem0)
        self.notes = [
            f"mem0 {self.version}: Memory.add(..., infer=False), each turn stored as is; no LLM is called",
            f"mem0's embedding model replaced by an adapter over heedful's embedder ({embedder.name}, {embedder.dim}"
            " dims): its configuration accepts only its own embedder names",
            f"vector store: Qdrant's local mode (in process, no server; {STORES[store]}), an exact scan per search",
            "semantic search only: mem0's BM25 route (fastembed 'Qdrant/bm25') and entity boosts (spaCy"
            " en_core_web_sm) need models from a hub at run time and are off",
            "mem0 stores 'Speaker: text' per turn and embeds one turn per call (its infer=False path);"
            " heedful keeps the speaker as a field and embeds a conversation in batches",
            "search: top_k 50, threshold 0 (a full ranking for every query); telemetry off",
        ]

    def add(self, user: str, turns: list[PeerTurn]) -> list[str]:
        """Store the turns (one `add` per session, as a client would send them); their memory ids, in order."""
        ids: list[str] = []
        for session in dict.fromkeys(t.session for t in turns):
            messages = [
                {"role": "user", "content": t.content or ".", **({"name": t.speaker} if t.speaker else {})}
                for t in turns
                if t.session == session
            ]
            result = self.memory.add(messages, user_id=user, metadata={"session": session}, infer=False)
            ids.extend(str(item["id"]) for item in result["results"])
        if len(ids) != len(turns):
            raise RuntimeError(f"mem0 stored {len(ids)} of {len(turns)} turns")
        return ids

    def search(self, user: str, query: str, k: int) -> list[str]:
        found = self.memory.search(query, top_k=k, filters={"user_id": user}, threshold=0.0)
        return [str(item["id"]) for item in found["results"]]

    def close(self) -> None:
        self.memory.close()
        self.memory.vector_store.client.close()  # releases the local store's folder lock


def grown_user(
    items: int,
    turns: list[PeerTurn],
    questions: list[str],
    *,
    embedder_name: str,
    folder: Path,
    k: int,
    runs: int | None = None,
    config: str = "default",
    store: str = "disk",
) -> GrownUser:
    """One fresh user of `items` items in each system; search latency of both, interleaved query by query."""
    from heedful.api import Heedful
    from heedful.bench.scale import QUERIES, notes
    from heedful.memory.recall.engine import Recaller
    from heedful.memory.write import NewMessage

    pool = list(turns[:items])
    pool += [PeerTurn(text, session="") for text in notes(11, items - len(pool))]
    pool = [PeerTurn(t.text, session=f"s{n // SCALE_SESSION_TURNS}", speaker=t.speaker) for n, t in enumerate(pool)]
    queries = list(QUERIES) + questions
    runs = runs or -(-SCALE_SAMPLES // len(queries))
    report = GrownUser(items=items, queries=len(queries), runs=runs)
    start = datetime(2023, 1, 1, tzinfo=UTC)

    hf = Heedful.open(folder / "heedful", embedder=embedder_name)
    peer = Mem0Peer(hf.embedder, folder / "mem0", store)
    recaller = Recaller(hf.store, lambda: hf.embedder, config=config)
    try:
        began = time.perf_counter()
        for chunk in range(0, len(pool), 1000):
            part = pool[chunk : chunk + 1000]
            messages = [
                NewMessage(
                    t.text or ".", session_id=t.session, at=start + timedelta(minutes=chunk + n), speaker=t.speaker
                )
                for n, t in enumerate(part)
            ]
            hf.memory.add(SCALE_USER, messages, extract=False)
        report.fill_seconds["heedful"] = round(time.perf_counter() - began, 1)
        began = time.perf_counter()
        # The fill is not what is compared: mem0's one-text embedding calls are answered from a batch.
        peer.embedding.prefill([t.content or "." for t in pool])
        peer.embedding.caching = True
        peer.add(SCALE_USER, pool)
        peer.embedding.caching = False
        peer.embedding.cache.clear()
        report.fill_seconds["mem0"] = round(time.perf_counter() - began, 1)

        for query in queries[:2]:  # first calls build indexes and caches: not timed
            recaller.recall(SCALE_USER, query, limit=k, budget_tokens=10**9)
            peer.search(SCALE_USER, query, k)
        samples: dict[str, list[float]] = {"heedful": [], "mem0": []}
        for run in range(runs):
            for n, query in enumerate(queries):
                order = ("heedful", "mem0") if (run + n) % 2 == 0 else ("mem0", "heedful")
                for system in order:
                    began = time.perf_counter()
                    if system == "heedful":
                        recaller.recall(SCALE_USER, query, limit=k, budget_tokens=10**9)
                    else:
                        peer.search(SCALE_USER, query, k)
                    samples[system].append((time.perf_counter() - began) * 1000)
        report.latency_ms = {
            system: {"p50": round(percentile(v, 50), 2), "p95": round(percentile(v, 95), 2)}
            for system, v in samples.items()
        }
    finally:
        recaller.close()
        peer.close()
        hf.close()
    return report
