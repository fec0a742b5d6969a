"""Finding forbidden text: any emoji, or a phrase matched case-insensitively (whole words where the
phrase starts or ends with a letter or digit). Shared by the reply and commit message checks."""

from __future__ import annotations

import re
from functools import lru_cache

# Pictographs, dingbats, symbols and flags; the variation selector and keycaps that make emoji of
# plain characters. Not ©/®/™ or arrows, which are ordinary typography.
EMOJI = re.compile(
    "[\U0001f000-\U0001faff\U00002600-\U000027bf\U00002b00-\U00002bff\U0001f1e6-\U0001f1ff\ufe0f\u20e3]"
    "|:[a-z0-9_+-]{2,30}:(?=\\s|$)"
)


@lru_cache(maxsize=256)
def phrase_regex(phrase: str) -> re.Pattern[str]:
    body = re.escape(phrase.strip())
    start = r"(?<!\w)" if phrase[:1].isalnum() else ""
    end = r"(?!\w)" if phrase[-1:].isalnum() else ""
    return re.compile(start + body + end, re.IGNORECASE)


def find(pattern: str, text: str) -> str | None:
    """The first match of a pattern in text ("emoji" means any emoji), or None."""
    if not pattern.strip():
        return None
    if pattern.strip().lower() in ("emoji", "emojis"):
        match = EMOJI.search(text)
    else:
        match = phrase_regex(pattern).search(text)
    return match.group(0) if match else None


def naive_find(pattern: str, text: str) -> bool:
    """An independent, simpler reading for the offline reviewer: lower-case substring or emoji code points."""
    if pattern.strip().lower() in ("emoji", "emojis"):
        return any(ord(ch) >= 0x1F000 or 0x2600 <= ord(ch) <= 0x27BF or ord(ch) == 0xFE0F for ch in text) or bool(
            re.search(r":[a-z0-9_+-]{2,30}:(?:\s|$)", text)
        )
    return pattern.strip().lower() in text.lower()
