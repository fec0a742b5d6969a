"""API keys: `hfk.<key id>.<secret>`, shown once; the store keeps the id and a hash of the secret.

The secret is 256 random bits, so one SHA-256 is enough (a slow password hash guards guessable
secrets, and these are not guessable); comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from heedful.errors import InputError, NotFoundError
from heedful.ids import new_id, validate_user_id
from heedful.store.protocols import KeyStore
from heedful.store.records import ApiKeyRecord

PREFIX = "hfk"
MAX_LABEL = 200


@dataclass(frozen=True, slots=True)
class IssuedKey:
    key: str  # the only time the full key exists outside the caller's hands
    record: ApiKeyRecord

    def to_json(self) -> dict[str, object]:
        return {"key": self.key, **self.record.to_json()}


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_key(repo: KeyStore, user_id: str, admin: bool = False, label: str | None = None) -> IssuedKey:
    user = validate_user_id(user_id)
    if label is not None and (len(label) > MAX_LABEL or not label.strip()):
        raise InputError(f"the label must be 1 to {MAX_LABEL} characters")
    key_id = new_id("k")
    secret = secrets.token_urlsafe(32)
    record = repo.add(key_id, user, _hash(secret), admin, label)
    return IssuedKey(key=f"{PREFIX}.{key_id}.{secret}", record=record)


def verify_key(repo: KeyStore, token: str) -> ApiKeyRecord | None:
    """The active key `token` is, or None (malformed, unknown, wrong secret or revoked alike)."""
    parts = token.split(".")
    if len(parts) != 3 or parts[0] != PREFIX or not parts[1] or not parts[2]:
        return None
    record = repo.get(parts[1])
    if record is None or not record.active:
        return None
    return record if hmac.compare_digest(record.secret_hash, _hash(parts[2])) else None


def revoke_key(repo: KeyStore, key_id: str, reason: str | None = None) -> ApiKeyRecord:
    if repo.get(key_id) is None:
        raise NotFoundError(f"no API key {key_id!r} (`heedful keys list` shows them)")
    if not repo.revoke(key_id, reason):
        raise InputError(f"the API key {key_id} is already revoked")
    record = repo.get(key_id)
    assert record is not None
    return record
