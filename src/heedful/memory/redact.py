"""Masking secrets before text is stored or sent anywhere. Pure functions.

What is masked: API keys and tokens with well-known prefixes, JSON Web Tokens, private-key
blocks, bearer tokens, card numbers that pass the Luhn check, US social security numbers,
UK national insurance numbers, and passwords/secrets written as `key=value` or `key: value`.
Each becomes a placeholder such as `[REDACTED:api_key]`, so the sentence still reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.DOTALL)
_JWT = re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")
_API_KEYS = re.compile(
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
_BEARER = re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/-]{20,}=*")
_SECRET_ASSIGNMENT = re.compile(
    r"(?i)\b((?:[a-z_]*_)?(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|access[_-]?key"
    r"|private[_-]?key|client[_-]?secret))(\s*[=:]\s*)(\"[^\"]*\"|'[^']*'|[^\s,;]+)"
)
_PASSWORD_PHRASE = re.compile(r"(?i)\b(my (?:password|passcode|pin) is)\s+(\S+)")
_CARD = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
_SSN = re.compile(r"(?<!\d)(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?!\d)")
_UK_NINO = re.compile(r"\b(?![DFIQUV])[A-Z](?![DFIQUVO])[A-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b")


@dataclass(frozen=True, slots=True)
class Redaction:
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


def redact(text: str) -> Redaction:
    counts: dict[str, int] = {}

    def mark(kind: str) -> str:
        counts[kind] = counts.get(kind, 0) + 1
        return f"[REDACTED:{kind}]"

    text = _PRIVATE_KEY.sub(lambda _m: mark("private_key"), text)
    text = _JWT.sub(lambda _m: mark("jwt"), text)
    text = _API_KEYS.sub(lambda _m: mark("api_key"), text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {mark('token')}", text)
    text = _SECRET_ASSIGNMENT.sub(
        lambda m: (
            m.group(0)
            if m.group(3).startswith("[REDACTED")
            else f"{m.group(1)}{m.group(2)}{mark('password' if 'pass' in m.group(1).lower() else 'secret')}"
        ),
        text,
    )
    text = _PASSWORD_PHRASE.sub(lambda m: f"{m.group(1)} {mark('password')}", text)

    def card(match: re.Match[str]) -> str:
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and luhn_valid(digits):
            return mark("card_number")
        return match.group(0)

    text = _CARD.sub(card, text)
    text = _SSN.sub(lambda _m: mark("national_id"), text)
    text = _UK_NINO.sub(lambda _m: mark("national_id"), text)
    return Redaction(text=text, counts=counts)
