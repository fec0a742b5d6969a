"""The web UI's login: a signed cookie that names a key, and CSRF tokens bound to that cookie.

Nothing is kept on the server, so any worker process can check a cookie; the key it names is
looked up on every request, so a revoked key logs its sessions out at once.

    cookie = sign_session(secret, "k-1a2b", now=1000.0)
    read_session(secret, cookie, now=1001.0)   # -> "k-1a2b"
    csrf_token(secret, cookie)                 # the token every form of this session carries
"""

from __future__ import annotations

import base64
import hashlib
import hmac

SESSION_COOKIE = "heedful_session"
SESSION_SECONDS = 12 * 3600


def _mac(secret: bytes, purpose: str, text: str) -> str:
    digest = hmac.new(secret, f"{purpose}\n{text}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def sign_session(secret: bytes, key_id: str, now: float) -> str:
    body = f"{key_id}|{int(now) + SESSION_SECONDS}"
    return f"{body}|{_mac(secret, 'session', body)}"


def read_session(secret: bytes, cookie: str | None, now: float) -> str | None:
    """The key id a valid, unexpired cookie names, else None."""
    if not cookie or cookie.count("|") != 2:
        return None
    key_id, expires, mac = cookie.split("|")
    if not hmac.compare_digest(mac, _mac(secret, "session", f"{key_id}|{expires}")):
        return None
    if not expires.isdigit() or int(expires) < now:
        return None
    return key_id


def csrf_token(secret: bytes, cookie: str) -> str:
    return _mac(secret, "csrf", cookie)


def csrf_ok(secret: bytes, cookie: str | None, token: str | None) -> bool:
    return bool(cookie and token) and hmac.compare_digest(csrf_token(secret, cookie or ""), token or "")
