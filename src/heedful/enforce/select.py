"""Which rules to show the agent for a turn, without a model or an embedder (pure, stdlib only).

The hook-side selector uses the learned scorer of `heedful.rules.selection_model` without the
embedding cosine: a rule is set aside when a stated exception is met or when it names a language
the task and project do not use; a rule that governs every answer (length, language, format,
tone) is always shown and does not count against the topical budget; nor does a general coding
habit (naming, comments, types, small diffs) when the request changes code: those come in a compact
block of their own. Any other rule competes for the topical budget and is shown when the scorer,
reading the activities it governs and the request involves from per-word cues, and the words they
share, says it applies. A rule's reading is the one stored when it was learned (read with its
embedding, `heedful.rules.selection_readings`) when there is one, else it is read here from its
words. Checked rules stay armed at every stage whatever the selection: a check that does not apply
answers not_applicable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from heedful.rules.selection_model import SelectionModel, load_model, stem, tokens

if TYPE_CHECKING:
    from heedful.rules.selection_readings import StoredReading

MAX_RULES = 20  # topical rules shown per turn
MAX_EVERY = 12  # rules about every answer, shown besides
MAX_CODE = 40  # general coding habits for a task that changes code, shown besides in a compact block
MAX_CHARS = 8000
PRECEDENCE = (
    "The user's current instructions and any required output format take precedence over these rules; "
    "the rules are the user's standing preferences, not facts about this task."
)
_EXCEPTION_LEADS = (
    "unless ",
    "except for ",
    "except when ",
    "except in ",
    "except if ",
    "except ",
    "but not for ",
    "but not in ",
    "but not when ",
)


def stems(text: str) -> set[str]:
    return {stem(w) for w in tokens(text)}


def _exception_met(rule: dict[str, Any], request_words: set[str]) -> str | None:
    for exception in rule.get("exceptions") or []:
        text = str(exception)
        for lead in _EXCEPTION_LEADS:
            if text.lower().startswith(lead):
                text = text[len(lead) :]
                break
        words = stems(text)
        if words and words <= request_words:
            return text
    return None


def select(
    rules: list[dict[str, Any]],
    request: str,
    available: set[str] | None = None,
    scorer: SelectionModel | None = None,
    max_rules: int | None = MAX_RULES,
    readings: dict[str, StoredReading] | None = None,
) -> list[dict[str, Any]]:
    """The rules that apply to `request`, each with `why` and `reach`: every-answer rules first (at
    most MAX_EVERY), general coding habits (at most MAX_CODE), then at most `max_rules` topical rules
    by score, checked ones first. `max_rules=None` lifts every cap (the benchmark's uncapped hook).
    `readings` are the rules' stored readings by content key (`selection_readings.content_key`)."""
    from heedful.rules.selection_readings import content_key

    scorer = scorer or load_model()
    task = scorer.read_task(request, available)
    words = stems(request)
    every: list[dict[str, Any]] = []
    code: list[tuple[float, dict[str, Any]]] = []
    topical: list[tuple[float, dict[str, Any]]] = []
    for rule in rules:
        if _exception_met(rule, words) is not None:
            continue
        text, condition = str(rule.get("text", "")), rule.get("condition")
        kept = readings.get(content_key(text, condition)) if readings else None
        if kept is not None:
            weights = scorer.stored_weights if kept.sentence else scorer.hook_weights
            decision = scorer.decide(kept.reading(), task, weights=weights)
        else:
            decision = scorer.decide(scorer.read_rule(text, condition), task)
        if not decision.applies:
            continue
        chosen = {**rule, "why": decision.why, "reach": REACH.get(decision.kind, "topical")}
        rank = decision.score + (1.0 if rule.get("status") == "checked" else 0.0)
        if decision.kind == "every":
            every.append(chosen)
        else:
            (code if decision.kind == "code" else topical).append((rank, chosen))
    code.sort(key=lambda pair: -pair[0])
    topical.sort(key=lambda pair: -pair[0])
    if max_rules is None:
        return every + [rule for _, rule in code + topical]
    return every[:MAX_EVERY] + [rule for _, rule in code[:MAX_CODE]] + [rule for _, rule in topical[:max_rules]]


REACH = {"every": "every_answer", "code": "every_code_change"}


def stored_readings(get_meta: Callable[[str], str | None], user: str) -> dict[str, StoredReading]:
    """The user's rule readings stored at learning time, for the shipped model; {} when there are none."""
    from heedful.rules.selection_readings import stored

    return stored(get_meta, user, load_model())


def _line(rule: dict[str, Any]) -> str:
    parts = [f"- {rule.get('text', '').strip()}"]
    if rule.get("condition"):
        parts.append(f"(when: {rule['condition']})")
    if rule.get("exceptions"):
        parts.append(f"(except: {'; '.join(map(str, rule['exceptions']))})")
    scope = "this project" if rule.get("scope") == "project" else "all projects"
    check = rule.get("check") or {}
    checked = (
        f"checked {str(check.get('stage', '')).replace('_', '-')}" if rule.get("status") == "checked" else ("guidance")
    )
    parts.append(f"[{rule.get('id')}; {scope}; {checked}]")
    return " ".join(parts)


def turn_context(selected: list[dict[str, Any]], library_version: int, armed: int) -> str | None:
    """The text injected with the user's prompt (None when there is nothing to say)."""
    if not selected and not armed:
        return None
    lines = [f"Rules this user taught (heedful rule library v{library_version}). {PRECEDENCE}"]
    habits = [r for r in selected if r.get("reach") == "every_code_change"]
    for rule in [r for r in selected if r.get("reach") != "every_code_change"]:
        line = _line(rule)
        if sum(len(x) + 1 for x in lines) + len(line) > MAX_CHARS:
            break
        lines.append(line)
    if habits:
        # one compact line per habit: they hold for any code change, so their ids and scopes matter less
        lines.append("General coding habits for any code you write or change:")
        for rule in habits:
            line = f"- {str(rule.get('text', '')).strip()} [{rule.get('id')}]"
            if sum(len(x) + 1 for x in lines) + len(line) > MAX_CHARS:
                break
            lines.append(line)
    if armed:
        lines.append(
            f"{armed} checked rule(s) are enforced before tool calls, after file writes and before the "
            "final reply; a blocked step says which rule applies and what to do instead."
        )
    return "\n".join(lines)


def session_index(rules: list[dict[str, Any]], project: str | None) -> str | None:
    """A compact index of the rules that apply in this project (SessionStart)."""
    if not rules:
        return None
    where = f" in {project}" if project else ""
    lines = [f"heedful: {len(rules)} learned rule(s) apply{where}. {PRECEDENCE}"]
    for rule in rules:
        text = str(rule.get("text", "")).strip()
        line = f"- {text[:160]}" + (" [this project]" if rule.get("scope") == "project" else "")
        if sum(len(x) + 1 for x in lines) + len(line) > MAX_CHARS:
            lines.append(f"- … and {len(rules) - len(lines) + 1} more (run `heedful rules list`)")
            break
        lines.append(line)
    return "\n".join(lines)
