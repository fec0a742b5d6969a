"""Extraction: new messages -> candidate facts, commitments and requests to forget.

The offline path reads the user's own sentences with patterns: preferences, attributes,
plans, relationships (a preference stated about another person is kept with that person as
the entity), commitments and requests to forget. With a model, the same `Step` asks it.

`ExtractionRules` are the offline path's knobs (which pattern groups run, how sentences are cut
and cleaned): a harness version carries them, so `heedful evolve` can score a change to them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from heedful.llm.prompts.extract_facts import (
    Candidate,
    Extraction,
    ExtractionContext,
    SourceMessage,
    build_messages,
)
from heedful.llm.protocol import ChatMessage

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_RELATIONS = (
    "sister|brother|wife|husband|partner|girlfriend|boyfriend|mom|mother|mum|dad|father|son|daughter"
    "|friend|best friend|colleague|coworker|boss|manager|roommate|neighbor|neighbour|cousin|aunt|uncle"
    "|grandma|grandmother|grandpa|grandfather|kid|child|teacher|doctor|therapist"
)
_LIKE = r"(?:really |absolutely |also |still )?(?:love|loves|like|likes|enjoy|enjoys|adore|adores|prefer|prefers)"
_DISLIKE = (
    r"(?:really )?(?:hate|hates|dislike|dislikes|can't stand|cannot stand|can’t stand"
    r"|don't like|doesn't like|do not like|does not like|don’t like|doesn’t like)"
)
_FORGET = re.compile(
    r"(?i)^(?:please\s+|can you\s+|could you\s+|i want you to\s+)?(?:forget|stop remembering|don't remember"
    r"|do not remember|erase|delete|remove)\s+(?:that\s+|about\s+|what i (?:said|told you) about\s+"
    r"|everything about\s+|the fact that\s+)?(.+)$"
)
_SINGLE_VALUED = {"name", "lives_in", "works_at", "occupation", "age", "diet", "relationship_status"}


_TRAILING_TIME = re.compile(
    r"(?i)\s+(?:(?:since|for|from|until) )?(?:now|anymore|any more|these days|actually|too|as well|recently|lately"
    r"|today|yesterday"
    r"|tomorrow|last (?:week|month|year|night)|next (?:week|month|year)|this (?:week|month|year)"
    r"|(?:a|one|two|three|a few|\d+) (?:days?|weeks?|months?|years?) ago|in \d{4})$"
)


def _clean(value: str, keep_time: bool = False) -> str:
    value = re.sub(r"\s+", " ", value).strip(" .,!?;:\"'")
    while not keep_time and (trimmed := _TRAILING_TIME.sub("", value)) != value:
        value = trimmed
    return value


class _Sentence:
    def __init__(self, text: str, message: SourceMessage, trim_time: bool = True) -> None:
        self.text = text
        self.message = message
        self.trim_time = trim_time

    def clean(self, value: str, keep_time: bool = False) -> str:
        return _clean(value, keep_time=keep_time or not self.trim_time)

    def candidate(self, kind: str, statement: str, entity: str = "user", **fields: object) -> Candidate:
        predicate = fields.get("predicate")
        return Candidate(
            kind=kind,  # type: ignore[arg-type]
            statement=statement,
            entity=entity,
            single_valued=predicate in _SINGLE_VALUED,
            source_message_ids=[self.message.id],
            perspective="assistant_said" if self.message.role == "assistant" else "user_belief",
            **fields,  # type: ignore[arg-type]
        )


# A pattern's group (what `ExtractionRules.groups` switches), its regex, and its builder (None where
# the candidate is built by `_favorite`, defined below).
Pattern = tuple[str, re.Pattern[str], Callable[[_Sentence, re.Match[str]], Candidate] | None]


def _about_user(predicate: str, template: str, *, negated: bool = False, place: bool = False) -> Callable:
    def build(sentence: _Sentence, match: re.Match[str]) -> Candidate:
        value = sentence.clean(match.group("x"))
        return sentence.candidate(
            "fact",
            template.format(x=value),
            predicate=predicate,
            object=value,
            negated=negated,
            place=value if place else None,
            replaces=sentence.clean(match.group("old")) if "old" in match.groupdict() and match.group("old") else None,
        )

    return build


def _about_other(sentence: _Sentence, match: re.Match[str]) -> Candidate:
    who = sentence.clean(match.group("who")).lower()
    name = match.group("name")
    entity = sentence.clean(name) if name else who
    verb = match.group("verb").lower()
    value = sentence.clean(match.group("x"))
    if re.match(_DISLIKE, verb):
        predicate = "dislikes"
    elif re.match(_LIKE, verb):
        predicate = "likes"
    elif verb.startswith("live"):
        predicate = "lives_in"
    elif verb.startswith("work"):
        predicate = "works_at"
    else:
        predicate = "is"
    label = f"The user's {who}" + (f" {name}" if name else "")
    return sentence.candidate(
        "fact",
        f"{label} {verb} {value}",
        entity=entity,
        predicate=predicate,
        object=value,
    )


def _commitment(sentence: _Sentence, match: re.Match[str]) -> Candidate:
    task = sentence.clean(match.group("x"), keep_time=True)  # when a reminder is due matters
    if sentence.message.role == "assistant":
        return sentence.candidate(
            "commitment", f"The assistant will remind the user to {task}", predicate="reminder", object=task
        )
    return sentence.candidate("commitment", f"Remind the user to {task}", predicate="reminder", object=task)


_PATTERNS: list[Pattern] = [
    ("name", re.compile(r"(?i)\bmy name is (?P<x>[\w' -]{1,40})"), _about_user("name", "The user's name is {x}")),
    (
        "name",
        re.compile(r"(?i)\b(?:call me|i go by) (?P<x>[\w'-]{1,30})"),
        _about_user("name", "The user's name is {x}"),
    ),
    (
        "age",
        re.compile(r"(?i)\bi(?:'m| am) (?P<x>\d{1,3}) (?:years old|yo)\b"),
        _about_user("age", "The user is {x} years old"),
    ),
    (
        "residence",
        re.compile(r"(?i)\bi (?:now )?(?:live|am living|'m living) in (?P<x>[^,.;!?]+)"),
        _about_user("lives_in", "The user lives in {x}", place=True),
    ),
    (
        "residence",
        re.compile(r"(?i)\bi (?:just |recently )?moved (?:from (?P<old>[^,.;!?]+?) )?to (?P<x>[^,.;!?]+)"),
        _about_user("lives_in", "The user lives in {x}", place=True),
    ),
    (
        "work",
        re.compile(r"(?i)\bi (?:now )?work (?:at|for) (?P<x>[^,.;!?]+)"),
        _about_user("works_at", "The user works at {x}"),
    ),
    (
        "work",
        re.compile(r"(?i)\bi(?:'m| am)? (?:now )?work(?:ing)? as (?:an? )?(?P<x>[^,.;!?]+)"),
        _about_user("occupation", "The user works as {x}"),
    ),
    (
        "diet",
        re.compile(r"(?i)\bi(?:'m| am) (?:now )?(?:a |an )?(?P<x>vegetarian|vegan|pescatarian|keto)\b"),
        _about_user("diet", "The user is {x}"),
    ),
    (
        "allergy",
        re.compile(r"(?i)\bi(?:'m| am) allergic to (?P<x>[^,.;!?]+)"),
        _about_user("allergic_to", "The user is allergic to {x}"),
    ),
    (
        "favorite",
        re.compile(r"(?i)\bmy fav(?:o|ou)rite (?P<what>[\w ]{1,30}?) is (?P<x>[^,.;!?]+)"),
        None,
    ),  # built below
    (
        "preference",
        re.compile(
            r"(?i)\bi (?:no longer|don't|do not|don’t) (?:really )?(?:like|love|enjoy) (?P<x>[^,.;!?]+?)"
            r"(?: anymore| any more)\b"
        ),
        _about_user("likes", "The user no longer likes {x}", negated=True),
    ),
    (
        "preference",
        re.compile(r"(?i)\bi (?:no longer|stopped) (?:like|liking|love|loving|enjoy|enjoying) (?P<x>[^,.;!?]+)"),
        _about_user("likes", "The user no longer likes {x}", negated=True),
    ),
    (
        "switch",
        re.compile(r"(?i)\bi (?:switched|moved|changed) from (?P<old>[^,.;!?]+?) to (?P<x>[^,.;!?]+)"),
        _about_user("uses", "The user uses {x}"),
    ),
    (
        "preference",
        re.compile(rf"(?i)\bi (?:now )?{_DISLIKE} (?P<x>[^,.;!?]+)"),
        _about_user("dislikes", "The user dislikes {x}"),
    ),
    (
        "preference",
        re.compile(
            rf"(?i)\bi (?:now )?{_LIKE} (?P<x>[^,.;!?]+?)"
            r"(?: (?:over|instead of|rather than|to) (?P<old>[^,.;!?]+))?[.!]*$"
        ),
        _about_user("likes", "The user likes {x}"),
    ),
    (
        "plans",
        re.compile(r"(?i)\bi(?:'m| am) (?:going|planning|about|hoping) to (?P<x>[^,.;!?]+)"),
        _about_user("plans", "The user plans to {x}"),
    ),
    (
        "plans",
        re.compile(r"(?i)\bi (?:plan|intend|want) to (?P<x>[^,.;!?]+)"),
        _about_user("plans", "The user plans to {x}"),
    ),
    (
        "medication",
        re.compile(r"(?i)\bi(?:'m| am)? (?:take|taking|am on|'m on) (?P<x>[^,.;!?]+)"),
        _about_user("takes", "The user takes {x}"),
    ),
    (
        "uses",
        re.compile(r"(?i)\bi (?:mostly |usually |always )?use (?P<x>[^,.;!?]+)"),
        _about_user("uses", "The user uses {x}"),
    ),
    (
        "possessions",
        re.compile(r"(?i)\bi (?:have|own|got) (?P<x>(?:a|an|two|three|\d+) [^,.;!?]+)"),
        _about_user("has", "The user has {x}"),
    ),
    (
        "relations",
        re.compile(
            rf"(?i)\bmy (?P<who>{_RELATIONS})(?: (?P<name>[A-Z][a-z]+))?"
            rf" (?P<verb>{_LIKE}|{_DISLIKE}|lives in|works at|is)"
            r" (?P<x>[^,.;!?]+)"
        ),
        _about_other,
    ),
    (
        "commitments",
        re.compile(r"(?i)\b(?:remind me to|i need to remember to|don't let me forget to) (?P<x>[^.;!?]+)"),
        _commitment,
    ),
    ("commitments", re.compile(r"(?i)\bi(?:'ll| will) remind you to (?P<x>[^.;!?]+)"), _commitment),
]


def _favorite(sentence: _Sentence, match: re.Match[str]) -> Candidate:
    what = sentence.clean(match.group("what")).lower()
    value = sentence.clean(match.group("x"))
    predicate = "favorite_" + re.sub(r"\W+", "_", what)
    candidate = sentence.candidate("fact", f"The user's favorite {what} is {value}", predicate=predicate, object=value)
    candidate.single_valued = True
    return candidate


def _forget(sentence: _Sentence) -> Candidate | None:
    match = _FORGET.match(sentence.text.strip())
    if match is None or sentence.message.role != "user":
        return None
    target = sentence.clean(match.group(1))
    target = re.sub(r"(?i)^(?:i told you |i said |that )", "", target)
    if not target:
        return None
    return sentence.candidate("forget", f"The user asked to forget: {target}", predicate="forget", object=target)


GROUPS = tuple(dict.fromkeys(group for group, _, _ in _PATTERNS))
FORGET_GROUP = "forget"  # requests to forget, which are read before any pattern


class ExtractionRules(BaseModel):
    """What the offline extraction reads from each message. The defaults are heedful's own extraction."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    groups: tuple[str, ...] = Field(
        default=(*GROUPS, FORGET_GROUP), description="The pattern groups that run (the others are off)."
    )
    assistant_commitments: bool = Field(
        default=True, description="Read the assistant's own promises to remind (its claims about the user never)."
    )
    split_clauses: bool = Field(default=True, description="Read 'X and I Y' as two clauses, one reading each.")
    trim_time_words: bool = Field(default=True, description="Cut trailing time words ('now', 'last week') off values.")
    min_sentence_chars: int = Field(default=4, ge=1, le=200, description="Shorter sentences are skipped.")
    max_object_chars: int = Field(default=200, ge=10, le=2000, description="Longer values are dropped.")

    @field_validator("groups")
    @classmethod
    def _known_groups(cls, groups: tuple[str, ...]) -> tuple[str, ...]:
        known = (*GROUPS, FORGET_GROUP)
        unknown = sorted(set(groups) - set(known))
        if unknown:
            raise ValueError(f"unknown extraction groups {unknown}; known: {', '.join(known)}")
        return tuple(g for g in known if g in groups)  # one order, so equal rules compare equal


def extract_offline(context: ExtractionContext, rules: ExtractionRules | None = None) -> Extraction:
    rules = rules or ExtractionRules()
    on = set(rules.groups)
    user_patterns = [p for p in _PATTERNS if p[0] in on]
    # Only commitments come from the assistant's words; its claims about the user do not.
    assistant_patterns = [p for p in user_patterns if p[2] is _commitment] if rules.assistant_commitments else []
    candidates: list[Candidate] = []
    for message in context.messages:
        for raw in _SENTENCE.split(message.text):
            text = raw.strip()
            if len(text) < rules.min_sentence_chars or text.endswith("?"):
                continue
            sentence = _Sentence(text, message, trim_time=rules.trim_time_words)
            forget = _forget(sentence) if FORGET_GROUP in on else None
            if forget is not None:
                candidates.append(forget)
                continue
            patterns = assistant_patterns if message.role == "assistant" else user_patterns
            clauses = re.split(r"(?i),?\s+(?:and|but)\s+(?=i\b|my\b)", text) if rules.split_clauses else [text]
            for clause in clauses:
                for _, pattern, build in patterns:
                    match = pattern.search(clause)
                    if match is None:
                        continue
                    made = _favorite(sentence, match) if build is None else build(sentence, match)
                    if made.object and len(made.object) <= rules.max_object_chars and not _duplicate(candidates, made):
                        made.event_at = message.at
                        candidates.append(made)
                    break  # patterns run from most to least specific: one reading per clause
    return Extraction(candidates=candidates)


def _duplicate(existing: list[Candidate], candidate: Candidate) -> bool:
    return any(
        c.entity == candidate.entity and c.predicate == candidate.predicate and c.object == candidate.object
        for c in existing
    )


class ExtractStep:
    name = "memory.extract"
    response_model = Extraction

    def __init__(self, rules: ExtractionRules | None = None) -> None:
        self.rules = rules or ExtractionRules()

    def messages(self, context: ExtractionContext) -> list[ChatMessage]:
        return build_messages(context)

    def offline(self, context: ExtractionContext) -> Extraction:
        return extract_offline(context, self.rules)
