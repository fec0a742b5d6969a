"""Resolution against the library: noop, update, supersede, new; and finding a retraction's target.

Pure functions over rule cards ({id, text, condition, exceptions, check}); the service supplies
the related rules (same user, same project or global) and their embedding similarities.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from heedful.rules.models import Candidate
from heedful.rules.steps import ResolveInput, ResolveResponse

STOP = frozenset(
    "a an the to of in on for and or but with without by at as is are be been it its this that these those "
    "i me my we our you your please always never dont don't do does did not no stop use using make sure "
    "from now on going forward future any all every each when whenever if unless except here there "
    "instead rather than should must just also again ever more less so then only one ones thing things "
    "repo repository project codebase keep like prefer want need have has had can could would will".split()
)
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*")
_TOPICS = {
    "length": {
        "concise",
        "brief",
        "short",
        "shorter",
        "terse",
        "succinct",
        "detailed",
        "verbose",
        "thorough",
        "long",
        "longer",
        "elaborate",
        "lengthy",
    },
    "indent": {"tabs", "tab", "spaces", "space"},
    "quotes": {"single", "double"},
    "case": {"camelcase", "snake_case", "snakecase", "pascalcase", "kebab-case"},
    "python-packages": {"pip", "uv", "poetry", "pipenv", "conda"},
    "js-packages": {"npm", "yarn", "pnpm", "bun"},
    "search": {"grep", "rg", "ripgrep", "ag", "ack"},
    "py-tests": {"pytest", "unittest", "nose"},
    "js-tests": {"jest", "vitest", "mocha"},
    "formatter": {"black", "yapf", "autopep8", "prettier"},
}
_POLES = {
    "length": (
        {"concise", "brief", "short", "shorter", "terse", "succinct"},
        {"detailed", "verbose", "thorough", "long", "longer", "elaborate", "lengthy"},
    ),
}


def content_words(text: str) -> set[str]:
    return {w.strip(".-+") for w in _WORD.findall(text.lower().replace("'", "")) if w not in STOP and len(w) > 1}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def preferred_and_forbidden(text: str, check: dict[str, Any] | None = None) -> tuple[set[str], set[str]]:
    """Tools the rule asks for, and tools it forbids."""
    lowered = text.lower().replace("`", "")
    preferred: set[str] = set()
    forbidden: set[str] = set()
    for match in re.finditer(
        r"\b(?:use|using|switched to|moved to|migrated to|prefer|stick with|go with)\s+([\w-]+(?:\.[\w-]+)*)", lowered
    ):
        preferred.add(match.group(1))
    for match in re.finditer(
        r"\b(?:not|instead of|rather than|over|never use|don'?t use|do not use|avoid)\s+([\w-]+(?:\.[\w-]+)*)", lowered
    ):
        forbidden.add(match.group(1))
    if check and isinstance(check.get("params"), dict):
        params = check["params"]
        if isinstance(params.get("program"), str):
            forbidden.add(params["program"])
        preferred.update(a for a in params.get("alternatives") or [] if isinstance(a, str))
    return preferred - forbidden, forbidden


def _topic_conflict(a: str, b: str) -> str | None:
    words_a, words_b = content_words(a), content_words(b)
    for topic, vocab in _TOPICS.items():
        in_a, in_b = words_a & vocab, words_b & vocab
        if not in_a or not in_b:
            continue
        poles = _POLES.get(topic)
        if poles:
            side_a = 0 if in_a & poles[0] else 1
            side_b = 0 if in_b & poles[0] else 1
            if side_a != side_b:
                return topic
            continue
        pref_a, forb_a = preferred_and_forbidden(a)
        pref_b, forb_b = preferred_and_forbidden(b)
        if (pref_a & vocab and pref_b & vocab and not pref_a & pref_b & vocab) or (
            pref_a & forb_b & vocab or forb_a & pref_b & vocab
        ):
            return topic
        if in_a != in_b and not (forb_a or forb_b) and len(in_a) == 1 and len(in_b) == 1:
            return topic
    return None


def _normal(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def resolve_offline(context: ResolveInput) -> ResolveResponse:
    candidate = context.candidate
    words = content_words(candidate.text)
    best: tuple[float, dict[str, Any]] | None = None
    for index, rule in enumerate(context.related):
        text = str(rule.get("text", ""))
        similarity = context.similarities[index] if index < len(context.similarities) else 0.0
        overlap = jaccard(words, content_words(text))
        same_polarity = candidate.polarity == _polarity(text)
        adds = bool(set(candidate.exceptions) - set(rule.get("exceptions") or [])) or bool(
            candidate.condition and candidate.condition != rule.get("condition")
        )
        # A reversal first: "use npm, not pnpm" shares every word with "use pnpm, not npm".
        topic = _topic_conflict(candidate.text, text)
        if topic:
            return ResolveResponse(
                op="supersede", target_id=rule.get("id"), reason=f"changes the requirement on {topic}"
            )
        if not adds and (_normal(text) == _normal(candidate.text) or (overlap >= 0.8 and same_polarity)):
            return ResolveResponse(op="noop", target_id=rule.get("id"), reason="an existing rule already says this")
        if overlap >= 0.6 and not same_polarity:
            return ResolveResponse(op="supersede", target_id=rule.get("id"), reason="reverses an existing rule")
        score = max(overlap, similarity * 0.8)
        if same_polarity and (overlap >= 0.5 or (adds and overlap >= 0.3)) and (best is None or score > best[0]):
            best = (score, rule)
    if best is not None:
        return ResolveResponse(
            op="update",
            target_id=best[1].get("id"),
            reason="refines an existing rule (wording, condition or exceptions)",
        )
    return ResolveResponse(op="new", reason="no existing rule covers this")


def _polarity(text: str) -> str:
    return "dont" if re.match(r"^(?:never|don'?t|do not|avoid|stop|no|quit|refrain)\b", text.strip(), re.I) else "do"


def retraction_subject(text: str) -> set[str]:
    body = re.sub(
        r"\b(?:forget|disregard|drop|scrap|delete|remove|undo|cancel|ignore|what|said|about|rule|rules|instruction|"
        r"preference|earlier|previous|old|my|the|you|can|may|now|no longer|need|have|to|any ?more|it's fine|fine|"
        r"go back|again)\b",
        " ",
        text.lower(),
    )
    return content_words(body)


def retraction_target(text: str, rules: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    subject = retraction_subject(text)
    if not subject:
        return None
    scored = []
    for rule in rules:
        words = content_words(str(rule.get("text", ""))) | content_words(" ".join(rule.get("evidence") or []))
        pref, forb = preferred_and_forbidden(str(rule.get("text", "")), rule.get("check"))
        words |= pref | forb
        hits = len(subject & words)
        if hits:
            scored.append((hits / len(subject), rule))
    if not scored:
        return None
    scored.sort(key=lambda item: item[0], reverse=True)
    return scored[0][1]


def merge_update(existing: dict[str, Any], candidate: Candidate) -> Candidate:
    """The complete merged rule for an update: new wording, kept and new exceptions, all evidence."""
    exceptions = list(dict.fromkeys([*(existing.get("exceptions") or []), *candidate.exceptions]))
    evidence = list(dict.fromkeys([*(existing.get("evidence") or []), *candidate.evidence]))
    return candidate.model_copy(
        update={
            "exceptions": exceptions,
            "evidence": evidence,
            "condition": candidate.condition or existing.get("condition"),
        }
    )
