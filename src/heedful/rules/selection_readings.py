"""Each rule's reading for selection, computed once when the rule is learned and kept in the store.

Reading a rule (the activities it governs, whether it governs every answer) is most of what the
UserPromptSubmit hook spent on selection, and the hook has no embedder, so it read rules from their
words alone. The reading is therefore computed where the rule is learned, edited or imported, with
the rule's stored MiniLM embedding when it has one (the service path's whole-text reader), and kept
in the store's metadata under one key per user. The hook reads that one key.

Readings are keyed by the rule's matching text (text and condition), not by its id: an edit gets a
reading of its own, an undo finds the earlier one again, and a retracted rule's reading is simply
never asked for. They are tagged with the fingerprint of the selection model that made them;
readings of another model are ignored and made again. A rule without a stored reading (learned
before readings were stored, or after a model update) is read from its words on the hook path, and
its reading is stored the next time the library is touched (`refresh`: every learn, edit, import).

Nothing here is needed for correctness: a reading that cannot be read or written leaves selection
reading words, as it did before.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # the selection model loads only where a reading is made or used: this module is imported
    # by the rule service, whose start-up stays light
    from heedful.rules.parts import RuleParts
    from heedful.rules.selection_model import Reading, SelectionModel

KEY_PREFIX = "selection_readings:"
# facets as integers 0-255 (the store redacts every written string, and a run of hex digits can read as a
# card number; numbers are left alone), word lists space-joined: the hook decodes hundreds per prompt
FORMAT = 3
MAX_KEPT = 4000  # readings kept per user; past this, those of texts no live rule has are dropped
EMBEDDER_META_KEY = "embedder"  # where the store records the embedder its vectors come from
MODEL_PATH = Path(__file__).resolve().parent / "data" / "selection_model.json"


def model_fingerprint(blob: bytes | None = None) -> str:
    """Which shipped selection model made a reading: a digest of its weights file."""
    return hashlib.sha256(MODEL_PATH.read_bytes() if blob is None else blob).hexdigest()[:16]


class MetaStore(Protocol):
    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...


@dataclass(frozen=True)
class StoredReading:
    """A rule's reading as kept: facet probabilities (the first is every-answer), and how it was read."""

    facets: tuple[float, ...]
    languages: frozenset[str]
    lexicon: frozenset[str]
    words: frozenset[str]
    sentence: bool  # read with the rule's embedding (whole text), not from its words alone

    def reading(self) -> Reading:
        from heedful.rules.selection_model import Reading

        return Reading(self.facets, self.languages, self.words, self.lexicon)


def matching_text(text: str, condition: str | None) -> str:
    """The text a rule is read from (as `SelectionModel.read_rule` joins it)."""
    return " ".join(p for p in (text, condition or "") if p)


def content_key(text: str, condition: str | None) -> str:
    return hashlib.sha1(matching_text(text, condition).encode("utf-8")).hexdigest()[:16]


def readings_key(user: str) -> str:
    return KEY_PREFIX + user


def done_key(user: str) -> str:
    """Where `refresh` notes the library version (and model) whose rules all have readings."""
    return KEY_PREFIX + "done:" + user


def read_rule(
    model: SelectionModel,
    text: str,
    condition: str | None,
    vector: Sequence[float] | None = None,
    embedder: str | None = None,
) -> StoredReading:
    """The reading to keep: with the rule's embedding when the model's whole-text reader reads it."""
    from heedful.rules.facets import facets, languages
    from heedful.rules.selection_model import stem, tokens

    readable = vector is not None and model.sentence is not None and model.sentence.reads(vector, embedder)
    matching = matching_text(text, condition)
    reading = model.read_rule(text, condition, vector if readable else None)
    return StoredReading(
        reading.facets,
        languages(matching),
        facets(matching),
        frozenset(stem(w) for w in tokens(matching)),
        readable,
    )


def encode(fingerprint: str, readings: dict[str, StoredReading]) -> str:
    body = {
        "format": FORMAT,
        "model": fingerprint,
        "readings": {
            key: [
                [min(255, max(0, round(p * 255))) for p in r.facets],
                " ".join(sorted(r.languages)),
                " ".join(sorted(r.lexicon)),
                " ".join(sorted(r.words)),
                int(r.sentence),
            ]
            for key, r in readings.items()
        },
    }
    return json.dumps(body, separators=(",", ":"))


def _body(raw: str | None, fingerprint: str) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        body = json.loads(raw)
    except ValueError:
        return None
    ok = isinstance(body, dict) and body.get("format") == FORMAT and body.get("model") == fingerprint
    return body if ok and isinstance(body.get("readings"), dict) else None


def stored_keys(raw: str | None, fingerprint: str) -> set[str]:
    """The content keys that have a reading by the model `fingerprint` (no reading is decoded)."""
    body = _body(raw, fingerprint)
    return set(body["readings"]) if body is not None else set()


def decode(raw: str | None, fingerprint: str, width: int) -> dict[str, StoredReading]:
    """The readings in `raw` made by the model `fingerprint` (facets of `width`); {} for anything else."""
    body = _body(raw, fingerprint)
    if body is None:
        return {}
    try:
        out = {}
        scale = [b / 255 for b in range(256)]
        for key, (probs, langs, lexicon, words, sentence) in body["readings"].items():
            if len(probs) != width:
                continue
            out[str(key)] = StoredReading(
                tuple(scale[b] for b in probs),
                frozenset(langs.split()),
                frozenset(lexicon.split()),
                frozenset(words.split()),
                bool(sentence),
            )
        return out
    except (ValueError, TypeError, KeyError, AttributeError, IndexError):
        return {}


def stored(get_meta: Callable[[str], str | None], user: str, model: SelectionModel) -> dict[str, StoredReading]:
    """The user's stored readings for `model`; {} when there are none or they cannot be read (fail open)."""
    try:
        raw = get_meta(readings_key(user))
    except Exception:
        return {}
    return decode(raw, model.fingerprint, len(model.facet_names))


@dataclass(frozen=True)
class RuleText:
    """What a reading is made from: a rule's text, condition and stored embedding (if any)."""

    text: str
    condition: str | None
    embedding: Sequence[float] | None = None


def remember(
    meta: MetaStore,
    user: str,
    rules: Iterable[RuleText],
    model: SelectionModel,
    embedder: str | None = None,
) -> int:
    """Store the readings of `rules` that are not stored yet; returns how many were added."""
    rules = list(rules)
    known = stored(meta.get_meta, user, model)
    added = 0
    for rule in rules:
        key = content_key(rule.text, rule.condition)
        if key in known:
            continue
        known[key] = read_rule(model, rule.text, rule.condition, rule.embedding, embedder)
        added += 1
    if added:
        if len(known) > MAX_KEPT:
            live = {content_key(r.text, r.condition) for r in rules}
            known = {k: v for k, v in known.items() if k in live}
        meta.set_meta(readings_key(user), encode(model.fingerprint, known))
    return added


def refresh(parts: RuleParts, user: str) -> int:
    """Store the readings of the user's live rules that have none yet (the lazy path for older libraries).

    Called after a learn, edit or import; best effort: a failure leaves the hook reading words."""
    meta: Any = getattr(parts, "meta", None)
    if meta is None:
        return 0
    try:
        from heedful.rules.models import LIVE_STATUSES

        repo = parts.repo
        version = repo.latest_version(user)
        done = f"{model_fingerprint()}:{version}"
        if meta.get_meta(done_key(user)) == done:
            return 0  # the usual case: a learn that changed nothing
        rows = repo.rules_at(user, version, statuses=LIVE_STATUSES, any_project=True)
        known = stored_keys(meta.get_meta(readings_key(user)), model_fingerprint())
        if all(content_key(r.text, r.condition) in known for r in rows):
            meta.set_meta(done_key(user), done)
            return 0  # nothing new to read, and the selection model is never loaded
        from heedful.rules.selection_model import load_reading_model

        model = load_reading_model()
        rows = repo.rules_at(user, version, statuses=LIVE_STATUSES, any_project=True, with_embeddings=True)
        texts = [RuleText(r.text, r.condition, r.embedding.tolist() if r.embedding is not None else None) for r in rows]
        added = remember(meta, user, texts, model, meta.get_meta(EMBEDDER_META_KEY))
        meta.set_meta(done_key(user), done)
        return added
    except Exception:
        return 0
