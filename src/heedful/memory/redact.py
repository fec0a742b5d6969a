"""Masking secrets before text is stored or sent anywhere. Pure functions.

What is masked: API keys and tokens with well-known prefixes, JSON Web Tokens, private-key
blocks, bearer tokens, card numbers that pass the Luhn check, US social security numbers,
UK national insurance numbers, e-mail addresses, passwords in URLs, passwords/secrets written
as `key=value` or `key: value`, and said in words ("the root password is swordfish77", "my pin
is 4821", "the API token for staging is ab12cd"). Each becomes a placeholder such as
`[REDACTED:api_key]`, so the sentence still reads. Redacting twice changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from types import SimpleNamespace
from typing import NamedTuple

# Words that follow "password is" in ordinary sentences; the value is not a secret then.
_NOT_A_VALUE = frozenset(
    "a an the that this these those not no now still in on at by for to of from with without stored saved"
    " kept set changed reset expired invalid wrong correct incorrect required missing empty same different"
    " secret hidden long short weak strong too very being there here my your our their his her its what"
    " which where how why when also just only easy hard safe unsafe new old used needed optional private"
    " public shown printed visible rotated revoked leaked exposed encrypted hashed managed generated".split()
)
# Every pattern below needs one of these; text without any (most ids, paths, plain sentences)
# skips the full pass. Kept small, so that importing this module (the hook path does) stays cheap.
_MAYBE_SECRET = re.compile(
    r"(?i)\d|@|[=:]|-----BEGIN|pass|secret|token|key|bearer|pin|eyJ|sk-|gh[pousr]_|github_pat_|glpat-|xox"
    r"|AKIA|ASIA|AIza|hf_|[rps]k_|npm_"
)


_DIGIT = re.compile(r"\d")


@cache
def _patterns() -> SimpleNamespace:
    """The full patterns, compiled on the first text that may hold a secret."""
    private_key = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.DOTALL)
    jwt = re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
    api_keys = re.compile(
        r"(?<![A-Za-z0-9])(?:"
        r"sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}"  # OpenAI, Anthropic, Stripe-style
        r"|(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}"  # GitHub
        r"|glpat-[A-Za-z0-9_-]{20,}"  # GitLab
        r"|xox[abprs]-[A-Za-z0-9-]{10,}"  # Slack
        r"|AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16}"  # AWS access key ids
        r"|AIza[0-9A-Za-z_-]{35}"  # Google
        r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
        r"|(?:rk|pk|sk)_(?:live|test)_[A-Za-z0-9]{16,}"  # Stripe
        r"|npm_[A-Za-z0-9]{36}"  # npm
        r")"
    )
    bearer = re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/-]{20,}=*")
    secret_assignment = re.compile(
        r"(?i)\b((?:[a-z_]*_)?(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|access[_-]?key"
        r"|private[_-]?key|client[_-]?secret))(\s*[=:]\s*)(\"[^\"]*\"|'[^']*'|[^\s,;]+)"
    )
    password_phrase = re.compile(r"(?i)\b(my (?:password|passcode|pin) is)\s+(\S+)")
    # "the root password is swordfish77", "passphrase for the vault was 'x y'", "token = abc", "PIN: 4821"
    secret_phrase = re.compile(
        r"(?i)\b((?:password|passwd|passphrase|passcode|pin|secret|token|api[ _-]?key|access[ _-]?key)s?"
        r"(?:\s+(?:for|of|to|on)\s+(?:the\s+|my\s+|our\s+)?[\w.@/-]+)?"
        r"\s*(?:\bis\b|\bwas\b|\bare\b|=|:)\s*(?:now\s+|still\s+|set\s+to\s+|just\s+)?)"
        r"(\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s\"'`]+)"
    )
    email = re.compile(
        r"(?<![\w.+-])(?!git@)[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"
    )
    url_password = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]+:)([^/\s@]+)(@)")
    card = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
    ssn = re.compile(r"(?<!\d)(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?!\d)")
    uk_nino = re.compile(r"\b(?![DFIQUV])[A-Z](?![DFIQUVO])[A-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b")
    return SimpleNamespace(
        private_key=private_key,
        jwt=jwt,
        api_keys=api_keys,
        bearer=bearer,
        secret_assignment=secret_assignment,
        password_phrase=password_phrase,
        secret_phrase=secret_phrase,
        email=email,
        url_password=url_password,
        card=card,
        ssn=ssn,
        uk_nino=uk_nino,
    )


class Redaction(NamedTuple):  # not a dataclass: the hook path, which redacts, never imports dataclasses
    text: str
    counts: dict[str, int]


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _phrase(match: re.Match[str], mark: Callable[[str], str]) -> str:
    """The value after "password is" is masked unless it is an ordinary word ("the token is expired")."""
    keyword, value = match.group(1), match.group(2)
    bare = value.strip("\"'`").rstrip(".,;:!?)")
    if not bare or bare.startswith("[REDACTED") or bare.lower() in _NOT_A_VALUE:
        return match.group(0)
    word = keyword.split(None, 1)[0].lower()
    if word.startswith("pin") and not any(char.isdigit() for char in bare):
        return match.group(0)  # "the pin is loose"
    if not word.startswith("pass") and not word.startswith("pin") and not _looks_random(bare):
        return match.group(0)  # "the secret is patience"
    trailer = value[len(value.rstrip(".,;:!?)")) :] if value[:1] not in "\"'`" else ""
    kind = "password" if word.startswith(("pass", "pin")) else "secret"
    return f"{keyword}{mark(kind)}{trailer}"


def _looks_random(value: str) -> bool:
    """A token, not a word: it has a digit or a symbol, mixes case inside, or is long."""
    return (
        any(char.isdigit() for char in value)
        or any(not char.isalnum() for char in value)
        or any(char.isupper() for char in value[1:])
        or len(value) >= 16
    )


def redact(text: str) -> Redaction:
    if not _MAYBE_SECRET.search(text):
        return Redaction(text=text, counts={})
    return redact_all(text)


def redact_all(text: str, guarded: bool = True) -> Redaction:
    """Every pattern, without the quick pre-check (`redact` gives the same result, faster).

    Each pattern runs only if the text holds something it cannot match without (an '@' for an
    e-mail address, a digit for a card number); `guarded=False` runs them all, for tests.
    """
    patterns = _patterns()
    counts: dict[str, int] = {}

    def mark(kind: str) -> str:
        counts[kind] = counts.get(kind, 0) + 1
        return f"[REDACTED:{kind}]"

    def may(*needles: str, lower: bool = False) -> bool:
        haystack = text.lower() if lower else text
        return not guarded or any(needle in haystack for needle in needles)

    def card(match: re.Match[str]) -> str:
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and luhn_valid(digits):
            return mark("card_number")
        return match.group(0)

    if may("-----BEGIN"):
        text = patterns.private_key.sub(lambda _m: mark("private_key"), text)
    if may("eyJ"):
        text = patterns.jwt.sub(lambda _m: mark("jwt"), text)
    if may("sk-", "gh", "glpat-", "xox", "AKIA", "ASIA", "AIza", "hf_", "k_", "npm_"):
        text = patterns.api_keys.sub(lambda _m: mark("api_key"), text)
    if may("bearer", lower=True):
        text = patterns.bearer.sub(lambda m: f"{m.group(1)} {mark('token')}", text)
    if may("=", ":"):
        text = patterns.secret_assignment.sub(
            lambda m: (
                m.group(0)
                if m.group(3).startswith("[REDACTED")
                else f"{m.group(1)}{m.group(2)}{mark('password' if 'pass' in m.group(1).lower() else 'secret')}"
            ),
            text,
        )
    if may("my ", lower=True):
        text = patterns.password_phrase.sub(
            lambda m: m.group(0) if m.group(2).startswith("[REDACTED") else f"{m.group(1)} {mark('password')}", text
        )
    if may("@"):
        text = patterns.url_password.sub(lambda m: f"{m.group(1)}{mark('password')}{m.group(3)}", text)
    if may("pass", "pin", "secret", "token", "key", lower=True):
        text = patterns.secret_phrase.sub(lambda m: _phrase(m, mark), text)
    if may("@"):
        text = patterns.email.sub(lambda _m: mark("email"), text)
    if not guarded or _DIGIT.search(text):
        text = patterns.card.sub(card, text)
        text = patterns.ssn.sub(lambda _m: mark("national_id"), text)
        text = patterns.uk_nino.sub(lambda _m: mark("national_id"), text)
    return Redaction(text=text, counts=counts)
