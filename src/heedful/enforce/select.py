"""Which rules to show the agent for a turn, without a model or an embedder (pure, stdlib only).

The hook-side selector uses the learned scorer of `heedful.rules.selection_model` without the
embedding cosine: a rule is set aside when a stated exception is met or when it names a language
the task and project do not use; a rule that governs every answer (length, language, format,
tone) is always selected, and so is a general coding habit (naming, comments, types, small diffs)
when the request changes code. Any other rule is selected when the scorer, reading the activities
it governs and the request involves from per-word cues, and the words they share, says it applies.
A rule's reading is the one stored when it was learned (read with its embedding,
`heedful.rules.selection_readings`) when there is one, else it is read here from its words.

What is shown is bounded by a token budget for the whole added context (TOKEN_BUDGET), not by
counts: each rule is one compact line, answer-wide rules come first, and coding habits and topical
rules are ranked together into the rest by score per token. Checked rules stay armed at every stage
whatever the selection: a check that does not apply answers not_applicable.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from heedful.rules.selection_model import SelectionModel, load_model, stem, tokens

if TYPE_CHECKING:
    from heedful.rules.selection_model import Reading
    from heedful.rules.selection_readings import StoredReading

# The context the hook adds to a turn is bounded by tokens, not by counts: the rules a task needs vary
# from a handful to over a hundred, and a count cap (formerly 12 answer rules + 40 habits + 20 topical)
# bounded recall more than the scoring did. The lines stay in the conversation and a later turn of the
# session repeats none of them (`heedful.enforce.shown`), so the first turn may spend more than the 2,000
# tokens it had while every turn repeated them, up to what Claude Code takes inline: it writes a hook's
# additionalContext longer than 10,000 characters to a file and passes only a path and a preview.
# At CHARS_PER_TOKEN that is 2,500 tokens; 2,400 keeps a margin. Later turns keep the same bound for lines
# not shown yet: over 10-turn sessions a lower one (1,000) only moved lines to later turns (5,577 tokens a
# session against 5,679) and cost 1.8 points of recall (`heedful bench selection --session`).
TOKEN_BUDGET = 2400
LATER_TOKEN_BUDGET = 2400  # once the session has been shown rules: the bound on lines not shown yet
MAX_CHARS = 8000  # the session index (SessionStart)
# the hook has no tokenizer; on the selection corpus's contexts this over-counts MiniLM's WordPiece by about 5%
CHARS_PER_TOKEN = 4
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
    budget: int | None = TOKEN_BUDGET,
    readings: dict[str, StoredReading] | None = None,
    shown: Collection[str] = (),
    task: Reading | None = None,
) -> list[dict[str, Any]]:
    """The rules that apply to `request` and fit in `budget` tokens of added context (`turn_context`),
    each with `why` and `reach`: every-answer rules first, then general coding habits, then topical
    rules, each block by score with checked rules first (packed into `budget` by `fit`). `budget=None` shows
    every rule that applies (the benchmark's uncapped hook). `readings` are the rules' stored readings by content key
    (`selection_readings.content_key`). `shown` are ids whose lines the agent already has in this
    session's context: they are selected at no cost and not repeated (`shown_before`). `task` replaces the
    request's reading from its words (the benchmark's bound with labelled task readings)."""
    from heedful.rules.selection_readings import content_key

    scorer = scorer or load_model()
    task = task or scorer.read_task(request, available)
    words = stems(request)
    blocks: dict[str, list[tuple[float, dict[str, Any]]]] = {reach: [] for reach in BLOCKS}
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
        reach = REACH.get(decision.kind, "topical")
        rank = decision.score + (1.0 if rule.get("status") == "checked" else 0.0)
        # the id breaks ties, so the same library and request always give the same context
        blocks[reach].append((rank, {**rule, "why": decision.why, "reach": reach, "score": round(rank, 4)}))
    for ranked in blocks.values():
        ranked.sort(key=lambda pair: (-pair[0], str(pair[1].get("id", ""))))
    ordered = {reach: [rule for _, rule in ranked] for reach, ranked in blocks.items()}
    if budget is None:
        return [rule for reach in BLOCKS for rule in ordered[reach]]
    return fit(ordered, budget, shown)


REACH = {"every": "every_answer", "code": "every_code_change"}
BLOCKS = ("every_answer", "every_code_change", "topical")  # the order in which they claim the budget
TITLES = {
    "every_answer": "For every answer:",
    "topical": "For this task:",
    "every_code_change": "For any code you write or change:",
}


def tokens_of(text: str) -> int:
    """Estimated tokens of `text` (no tokenizer on the hook path: characters / CHARS_PER_TOKEN, rounded up)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def _frame_tokens() -> int:
    """What the context costs besides the rule lines: the header, the armed note and every block title
    (counted at their longest, so the budget holds whatever the version and the number armed)."""
    frame = [_header(10**9), _armed(10**6), _earlier(10**6), *TITLES.values()]
    return sum(tokens_of(text) + 1 for text in frame)


def fit(blocks: dict[str, list[dict[str, Any]]], budget: int, earlier: Collection[str] = ()) -> list[dict[str, Any]]:
    """The rules that fit in `budget` tokens: answer-wide rules first (each governs every answer), then coding
    habits and topical rules together, by score per token of their line. A line twice as long must be twice
    as likely to apply to take the same room, so the budget holds the most rules that apply (at 500 rules of
    the selection corpus, 0.5-4 points of recall more than habits and topical rules in blocks of their own).
    Rules whose ids are in `earlier` (already in the agent's context) cost nothing and are marked
    `shown_before`; ties break by rule id."""
    room = budget - _frame_tokens()
    chosen: list[dict[str, Any]] = []
    rest: list[tuple[float, str, int, dict[str, Any]]] = []
    for reach in BLOCKS:
        for rule in blocks.get(reach, []):
            if rule.get("id") in earlier:
                chosen.append({**rule, "shown_before": True})
                continue
            cost = tokens_of(line(rule)) + 1  # the newline
            if reach == "every_answer":
                if cost <= room:
                    chosen.append(rule)
                    room -= cost
                continue
            rest.append((-float(rule.get("score") or 0.0) / cost, str(rule.get("id", "")), cost, rule))
    rest.sort(key=lambda item: item[:2])
    for _, _, cost, rule in rest:
        if cost <= room:
            chosen.append(rule)
            room -= cost
    return sorted(chosen, key=lambda rule: BLOCKS.index(rule.get("reach", "topical")))


def stored_readings(get_meta: Callable[[str], str | None], user: str) -> dict[str, StoredReading]:
    """The user's rule readings stored at learning time, for the shipped model; {} when there are none."""
    from heedful.rules.selection_readings import stored

    return stored(get_meta, user, load_model())


def line(rule: dict[str, Any]) -> str:
    """One compact line per rule: its text, condition and exceptions; the id and stage only for a checked
    rule (a blocked step names it), the scope only when it is this project's."""
    parts = [f"- {str(rule.get('text', '')).strip()}"]
    if rule.get("condition"):
        parts.append(f"(when: {rule['condition']})")
    if rule.get("exceptions"):
        parts.append(f"(except: {'; '.join(map(str, rule['exceptions']))})")
    if rule.get("scope") == "project":
        parts.append("[this project]")
    if rule.get("status") == "checked":
        stage = str((rule.get("check") or {}).get("stage", "")).replace("_", "-")
        parts.append(f"[{rule.get('id')}; checked {stage}]".replace(" ]", "]"))
    return " ".join(parts)


def _header(library_version: int) -> str:
    return f"Rules this user taught (heedful rule library v{library_version}). {PRECEDENCE}"


def _armed(armed: int) -> str:
    return (
        f"{armed} checked rule(s) are enforced before tool calls, after file writes and before the "
        "final reply; a blocked step says which rule applies and what to do instead."
    )


def _earlier(count: int) -> str:
    return f"{count} more of these rules, shown earlier in this session, apply to this task as well."


def turn_context(selected: list[dict[str, Any]], library_version: int, armed: int) -> str | None:
    """The text injected with the user's prompt (None when there is nothing to say): the header, then
    one block per reach (every answer, this task, any code change), a count of the rules already shown
    earlier in the session, then the note on checked rules. Within TOKEN_BUDGET when `selected` comes
    from `select` with its default budget."""
    if not selected and not armed:
        return None
    fresh = [rule for rule in selected if not rule.get("shown_before")]
    if not fresh and not armed:
        return None  # everything that applies is already in the agent's context
    lines = [_header(library_version)]
    for reach in ("every_answer", "topical", "every_code_change"):
        block = [line(rule) for rule in fresh if rule.get("reach", "topical") == reach]
        if block:
            lines += [TITLES[reach], *block]
    if len(fresh) < len(selected):
        lines.append(_earlier(len(selected) - len(fresh)))
    if armed:
        lines.append(_armed(armed))
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
