"""What `rules learn` skips or does early must change no result: lazy patterns, recent vectors, early reading."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from heedful.embed import minilm
from heedful.llm import OfflineModel
from heedful.rules import learn_steps, selection_model
from heedful.rules.lazy_regex import given_flags, is_compiled, lazy

PATTERN = r"\b(?P<verb>push|merge)(?:es|ed|ing)?\b\s+(?:to\s+)?(?P<branch>main|master)\b"
TEXTS = [
    "Never push to main.",
    "Do not MERGE master into a branch, and never pushing main either",
    "nothing here",
    "",
]


def test_a_lazy_pattern_answers_as_the_compiled_one() -> None:
    compiled = re.compile(PATTERN, re.I)
    stand_in = lazy(PATTERN, re.I)
    assert not is_compiled(stand_in) and stand_in.pattern == PATTERN and given_flags(stand_in) == re.I
    for text in TEXTS:
        assert [m.groupdict() for m in stand_in.finditer(text)] == [m.groupdict() for m in compiled.finditer(text)]
        assert bool(stand_in.search(text)) == bool(compiled.search(text))
        assert bool(stand_in.match(text)) == bool(compiled.match(text))
        assert bool(stand_in.fullmatch(text)) == bool(compiled.fullmatch(text))
        assert stand_in.findall(text) == compiled.findall(text)
        assert stand_in.sub(r"\g<branch>", text) == compiled.sub(r"\g<branch>", text)
        assert stand_in.subn("x", text) == compiled.subn("x", text)
        assert stand_in.split(text) == compiled.split(text)
    assert is_compiled(stand_in)
    assert (stand_in.flags, stand_in.groups, dict(stand_in.groupindex)) == (
        compiled.flags,
        compiled.groups,
        dict(compiled.groupindex),
    )
    with pytest.raises(AttributeError):
        _ = stand_in.no_such_attribute  # type: ignore[attr-defined]


def test_a_bad_lazy_pattern_fails_where_it_is_used() -> None:
    broken = lazy(r"(unclosed")
    with pytest.raises(re.error):
        broken.search("text")


def test_importing_the_learner_compiles_none_of_its_patterns() -> None:
    """Each pattern of the interpreter, the compiler and the facet reader compiles when a text first needs it."""
    probe = (
        "import re, sys\n"
        "import heedful.rules.compile, heedful.rules.interpret, heedful.rules.facets, heedful.rules.vocabulary\n"
        "import heedful.rules.quoting\n"
        "from heedful.rules.lazy_regex import _LazyPattern, is_compiled\n"
        "mods = [m for n, m in sys.modules.items() if n.startswith(('heedful.rules.compile', 'heedful.rules.facets',"
        " 'heedful.rules.interpret', 'heedful.rules.vocabulary', 'heedful.rules.quoting'))]\n"
        "found = [v for m in mods for v in vars(m).values() if isinstance(v, _LazyPattern)]\n"
        "found += [p for m in mods for d in vars(m).values() if isinstance(d, dict) for p in d.values()"
        " if isinstance(p, _LazyPattern)]\n"
        "eager = [n for m in mods for n, v in vars(m).items() if isinstance(v, re.Pattern)]\n"
        "print(len(found), sum(is_compiled(p) for p in found), eager)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    lazies, compiled, eager = done.stdout.split(" ", 2)
    assert int(lazies) > 150 and int(compiled) == 0 and eager.strip() == "[]"


def test_the_reading_model_reads_as_the_service_model() -> None:
    """The refresh's model skips indexing every cue word; its readings are the service model's."""
    selection_model.load_reading_model.cache_clear()
    service = selection_model.load_service_model()
    selection_model.load_service_model.cache_clear()  # as in a process that has not loaded it
    reading = selection_model.load_reading_model()
    assert reading is not service and reading.cues._index is None
    vector = np.random.default_rng(1).normal(size=384).astype(np.float32)
    vector /= np.linalg.norm(vector)
    for text in ("Never commit directly to main.", "Keep answers under 100 words.", "use pnpm, not npm"):
        assert reading.read_rule(text, None, vector.tolist()) == service.read_rule(text, None, vector.tolist())
        assert reading.read_rule(text) == service.read_rule(text)
    selection_model.load_reading_model.cache_clear()


def test_recent_vectors_are_the_vectors_the_model_gives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(tmp_path / "cache"))
    texts = ["never push to main", "this repo uses uv, not pip", "  "]
    fresh = minilm.MiniLMEmbedder().embed(texts)
    embedder = minilm.MiniLMEmbedder()
    calls: list[list[str]] = []
    real = embedder._embed

    def counted(batch: list[str]) -> np.ndarray:
        calls.append(batch)
        return real(batch)

    monkeypatch.setattr(embedder, "_embed", counted)
    assert np.array_equal(embedder.embed(texts[:1]), fresh[:1])
    # the rule's text as the learner joins it (an empty condition leaves a space): not embedded again
    again = embedder.embed([texts[0] + " ", *texts[1:]])
    assert np.array_equal(again, fresh)
    assert calls == [["never push to main"], ["this repo uses uv, not pip", "."]]
    embedder.embed([f"text {n}" for n in range(minilm.RECENT + 5)])
    assert len(embedder._recent) == minilm.RECENT and "never push to main" not in embedder._recent


class _HeldLoad:
    """An embedder whose model is still loading until released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.loading = True


def test_the_words_are_read_early_only_offline_and_while_the_embedder_loads() -> None:
    words = "Never commit directly to main; open a pull request instead."
    held = _HeldLoad()
    early = learn_steps._read_early(OfflineModel(), held, words)  # type: ignore[arg-type]
    assert early is not None
    candidates, compiled = early
    assert candidates and set(compiled) == {learn_steps._compile_key(c) for c in candidates}
    held.loading = False
    assert learn_steps._read_early(OfflineModel(), held, words) is None  # type: ignore[arg-type]

    class Answering(OfflineModel):
        offline = False

    held.loading = True
    assert learn_steps._read_early(Answering(), held, words) is None  # type: ignore[arg-type]


def test_a_learn_while_the_embedder_loads_stores_what_a_learn_after_it_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from heedful.api import Heedful

    monkeypatch.setenv("HEEDFUL_CACHE_DIR", str(tmp_path / "cache"))
    text = "Never commit directly to main; open a pull request instead. Use pnpm, not npm."
    real_load, real_read_early = minilm._load, learn_steps._read_early
    release = threading.Event()
    seen: list[bool] = []

    def held_load(path: Path, threads: int | None) -> minilm._Loaded:
        release.wait(timeout=60)
        return real_load(path, threads)

    def spy(*args: object) -> object:
        made = real_read_early(*args)  # type: ignore[arg-type]
        seen.append(made is not None)
        release.set()
        return made

    monkeypatch.setattr(minilm, "_load", held_load)
    monkeypatch.setattr(learn_steps, "_read_early", spy)
    stored = []
    for held in (True, False):
        release.clear()
        with Heedful.open(tmp_path / f"home-{held}", model="offline") as hf:
            if not held:
                release.set()
                hf.rules.parts.embedder.embed(["warm"])  # the load is over before the learn
            result = hf.rules.learn("me", text)
        rules = [(a.op, a.rule) for a in result.actions if a.rule is not None]
        stored.append([(op, rule["text"], rule["status"], rule.get("check")) for op, rule in rules])
    assert seen == [True, False]
    assert stored[0] == stored[1] and len(stored[0]) >= 2
