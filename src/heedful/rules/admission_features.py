"""The lexicon's signals about one message, as numbers a learned admission model can weigh.

The hand-written lexicon stays the source of human-readable reasons; here its matches become
features beside the sentence embedding, so that the model decides how much each one counts
instead of the order of a chain of `if`s. Pure and cheap: regular expressions only.
"""

from __future__ import annotations

import itertools
import math
import re
import zlib
from collections.abc import Callable

from heedful.rules import admission_cues, detect
from heedful.rules import lexicon as lx
from heedful.rules.lazy_regex import lazy

_PROGRAMS = lazy(
    r"\b(?:pip3?|uv|poetry|pipenv|conda|npm|npx|pnpm|yarn|bun|deno|node|git|gh|docker|podman|kubectl|helm|"
    r"terraform|make|cargo|go|pytest|tox|ruff|black|mypy|eslint|prettier|tsc|jest|vitest|grep|rg|ripgrep|find|fd|"
    r"sed|awk|curl|wget|sudo|doas|rm|chmod|brew|apt(?:-get)?|dnf|yum|aws|gcloud|az|ssh|rsync|python3?|bash|zsh)\b",
    re.IGNORECASE,
)
_PATHISH = lazy(
    r"(?:`[^`]+`|\b[\w-]+/[\w./*-]*|\*\.\w+|\.\w{2,5}\b|\b[\w-]+\.(?:py|js|ts|md|json|ya?ml|toml|"
    r"lock|sh|env|txt|sql|cfg|ini)\b)"
)
_COMPLAINT = lazy(
    r"\b(?:you keep|again|every ?time|how many times|i (?:already )?told you|stop \w+ing|"
    r"you always|you never|why do you|why did you|ugh|seriously)\b",
    re.IGNORECASE,
)
_MODAL = lazy(r"\b(?:always|never|must|should|shall|need to|have to|make sure|ensure)\b", re.IGNORECASE)
_NOW = lazy(r"\b(?:now|here|this|these|that|it|the)\b", re.IGNORECASE)
_SPECIFIC_TASK = lazy(
    r"\b(?:fix|add|implement|create|write|update|refactor|rename|move|debug|investigate|"
    r"look at|check|review|run|build|deploy|merge|push|commit)\b (?:the|this|that|my|a|an)\b",
    re.IGNORECASE,
)
_GENERAL = lazy(
    r"\b(?:any|all|every|each|anything|everything|everywhere|whenever|ever|in general|default)\b", re.IGNORECASE
)
_FIRST_PERSON = lazy(r"\b(?:i|we|our|us|my)\b", re.IGNORECASE)
_SECOND_PERSON = lazy(r"\b(?:you|your|u|ur)\b", re.IGNORECASE)
_FACT_ABOUT_REPO = lazy(
    r"\b(?:this|the|our) (?:repo|repository|project|codebase|service|app|package|team)\b"
    r"(?:'s)? (?:is|are|uses|runs|targets|needs|has|follows|prefers|ships|lives)\b",
    re.IGNORECASE,
)
_DECISIONS = ("persist", "task_local", "underspecified", "none")


def _flag(pattern: re.Pattern[str]) -> Callable[[str], float]:
    return lambda plain: 1.0 if pattern.search(plain) else 0.0


SIGNALS: tuple[tuple[str, Callable[[str], float]], ...] = (
    ("lasting", _flag(lx.LASTING)),
    ("task_local", _flag(lx.TASK_LOCAL)),
    ("not_task_local", _flag(lx.NOT_TASK_LOCAL)),
    ("vague", _flag(lx.VAGUE)),
    ("retract", _flag(lx.RETRACT)),
    ("project", _flag(lx.PROJECT)),
    ("directive", _flag(lx.DIRECTIVE)),
    ("generic_correction", _flag(lx.GENERIC_CORRECTION)),
    ("artifact_specific", _flag(lx.ARTIFACT_SPECIFIC)),
    ("negation", _flag(lx.NEGATION)),
    ("ack", lambda plain: 1.0 if lx.ACK.match(plain) else 0.0),
    ("question", lambda plain: 1.0 if detect.is_question(plain) else 0.0),
    ("question_mark", lambda plain: 1.0 if "?" in plain else 0.0),
    ("program", _flag(_PROGRAMS)),
    ("pathish", _flag(_PATHISH)),
    ("complaint", _flag(_COMPLAINT)),
    ("modal", _flag(_MODAL)),
    ("specific_task", _flag(_SPECIFIC_TASK)),
    ("general", _flag(_GENERAL)),
    ("first_person", _flag(_FIRST_PERSON)),
    ("second_person", _flag(_SECOND_PERSON)),
    ("repo_fact", _flag(_FACT_ABOUT_REPO)),
    ("deictic", lambda plain: min(len(_NOW.findall(plain)), 4) / 4.0),
    ("exclamation", lambda plain: 1.0 if "!" in plain else 0.0),
    ("words", lambda plain: min(math.log1p(len(plain.split())) / 5.0, 1.5)),
    ("sentences", lambda plain: min(len(re.findall(r"[.!?;](?:\s|$)", plain)), 6) / 6.0),
    ("lowercase_start", lambda plain: 1.0 if plain[:1].islower() else 0.0),
)
NAMES: tuple[str, ...] = (*(name for name, _ in SIGNALS), "paste", "has_signal", *(f"lexicon_{d}" for d in _DECISIONS))


def signals(text: str) -> list[float]:
    """The feature values named by `NAMES`, in that order."""
    plain = detect.normalise(text)
    values = [fn(plain) for _, fn in SIGNALS]
    values.append(1.0 if detect.looks_like_paste(text) else 0.0)
    values.append(1.0 if detect.has_signal(text) else 0.0)
    lexicon_decision = detect.admit(text).decision
    values.extend(1.0 if lexicon_decision == d else 0.0 for d in _DECISIONS)
    return values


def fired(text: str) -> list[str]:
    """The names of the binary signals that fired (for reasons)."""
    return [name for name, value in zip(NAMES, signals(text), strict=True) if value == 1.0]


# -- structure: the sentence's form, read from its shape rather than from listed markers ------------
# A message's decision shows in its form more than in its words: a bare imperative or a prohibition
# is a directive, a time bound ("for this PR", "today") makes it a one-off, naming one concrete
# instance (a path, a line, "this test") binds it to the task, a class of actions ("any", plurals,
# "whenever you") makes it a habit, and a directive with no object names no behaviour at all.
_FILLER = frozenset(
    "please pls plz kindly ok okay so and also hey btw oh ugh hmm yeah yes well right alright "
    "just actually honestly seriously again also then now guys folks".split()
)
# Base forms of the verbs people address an agent with (an imperative starts with one).
_VERBS = frozenset(
    "add allow answer apply ask avoid back be bump build call change check clean clear comment commit configure "
    "confirm convert copy create debug define delete deploy describe document do double drop edit enable disable "
    "ensure explain export extract fetch fill find fix follow format generate get give go grep handle ignore "
    "implement import include indent inline install keep label leave let limit lint list load log look make mark "
    "merge mention migrate mock move name note open pin place prefer prefix print publish pull push put quote "
    "read rebase reduce refactor refer remember remove rename reorder replace reply report request reset respond "
    "restart restore return reuse review revert rewrite run save say search send separate set show simplify skip "
    "sort split squash stage start stash state stick stop store structure summarize summarise switch tag take "
    "tell test touch track translate treat trim try turn type undo update upgrade use validate verify wait warn "
    "wrap write bold cap cite close cut declare default delegate hide keep lower mind pick prune rely sign spell "
    "stay suffix upper version wipe".split()
)
_PROHIBITION = lazy(r"^(?:don'?t|dont|do not|never|stop|avoid|quit|refrain|no more|no need to|cease)\b")
_VERBLESS_NO = lazy(r"^no (?!problem|worries|thanks|idea|clue|way|wait|need|luck|rush|sir|doubt)[\w.-]+")
_OBLIGATION = lazy(
    r"\b(?:should(?:n'?t)?|must(?:n'?t)?|shall|ought to|needs? to|ha(?:ve|s) to|is required|"
    r"are required|required|mandatory|forbidden|not allowed|prohibited|banned|off.limits|"
    r"is fine|are fine|okay to|ok to|allowed)\b"
)
_REQUEST_QUESTION = lazy(r"^(?:can|could|would|will) (?:you|u)\b|^would you mind\b|^mind \w+ing\b")
_WHY_YOU = lazy(
    r"^(?:why|how come) (?:do|did|are|would|does|is|were|have) (?:you|u|it)\b|"
    r"\bwhy (?:do|did|are) (?:you|u)\b"
)
_WH_QUESTION = lazy(
    r"^(?:what|where|when|who|which|how|is|are|does|do|did|was|were|has|have|any idea|"
    r"is there|are there|whats|what's|hows|how's)\b"
)
_BOUNDED = lazy(
    r"\b(?:this (?:time|once|one|week|morning|afternoon|evening|sprint|round|run|pr|commit|"
    r"branch|ticket|task|change|release|session|fix|issue|migration|demo)|just once|once more|"
    r"for now|right now|today|tonight|tomorrow|yesterday|for the moment|temporarily|at the moment|"
    r"currently|until|yet|for the demo|for this|in this (?:pr|commit|branch|change|session)|"
    r"last (?:night|week|tuesday|monday|wednesday|thursday|friday|time)|earlier today|asap|"
    r"quickly|real quick|first|before (?:the|we|i) (?:merge|release|ship|deploy))\b"
)
_UNBOUNDED = lazy(
    r"\b(?:from now on|going forward|from here on|always|never|ever|anymore|any more|every ?time|"
    r"whenever|each time|by default|in general|in (?:the )?future|permanently|for good|no more|"
    r"all future|all (?:your|the) (?:replies|answers|commits|code|prs)|as a rule|generally|"
    r"usually|habitually|in every|everywhere|at all times|under no circumstances|ever again)\b"
)
_HABITUAL = lazy(
    r"(?:^|[,;.] ?)(?:when|whenever|if|before|after|once|each time|every time|any time|anytime)"
    r" (?:you|u|we|i|writing|adding|editing|committing|creating|touching|changing|working|"
    r"there|a|an|the|something|anything|someone|tests?|code|it's|its)\b"
)
_HABIT_COMPLAINT = lazy(
    r"\b(?:you keep|you (?:always|never|still)|again|stop (?:\w+ )?\w+ing|how many times|"
    r"i (?:already )?(?:told|asked|said)|i've (?:told|asked|said)|every single time|"
    r"for the (?:\w+) time|yet again|once again|still (?:doing|using|adding)|"
    r"why (?:do|does|did) (?:you|u|it) (?:always|keep))\b"
)
_PATH = lazy(
    r"(?:\b[\w.-]+/[\w./*-]+|\b[\w-]+\.(?:py|js|jsx|ts|tsx|md|json|ya?ml|toml|lock|sh|env|txt|sql|"
    r"cfg|ini|rs|go|java|rb|php|c|h|cpp|css|html|vue|proto|kt|swift|xml|csv|gradle|tf)\b|"
    r"(?:^|\s)\.[\w-]{2,}\b|\*\.\w+)"
)
_LINE_NUMBER = lazy(r"\b(?:line|ln|l)\s?\d+\b|:\d+(?::\d+)?\b")
_CALL = lazy(r"\b[\w.]+\(\)?")
_ISSUE = lazy(r"#\d+\b|\b(?:pr|issue|ticket|bug|jira)[ -]?#?\d+\b|\b[A-Z]{2,}-\d+\b")
_IDENTIFIER = lazy(r"\b(?:[a-z]+_[a-z0-9_]+|[a-z]+[A-Z]\w+|[A-Z][a-z]+[A-Z]\w+)\b")
_INSTANCE = lazy(
    r"\b(?:this|that|these|those|the|my) (?:[a-z-]+ )?(?:test|tests|function|file|method|"
    r"class|bug|error|line|endpoint|module|component|pr|commit|branch|page|query|script|table|field|column|button|"
    r"migration|config|job|build|crash|issue|ticket|feature|form|view|screen|diff|output|log|"
    r"loop|variable|param|parameter|value|import|dependency|package|one|thing|bit|part|"
    r"section|report|release|deploy|pipeline|workflow|service|image|container|cluster|server)s?\b"
)
_NUMBER = lazy(r"\d")
_QUOTED = lazy(r"`[^`]+`|\"[^\"]+\"|'[^' ]+(?: [^' ]+){0,4}'")
_QUANTIFIER = lazy(
    r"\b(?:any|all|every|each|anything|everything|nothing|none|no one|whatever|whichever|"
    r"everywhere|anywhere)\b"
)
_BARE_PLURAL_OBJECT = lazy(r"^(?:(?:don'?t|dont|do not|never|no|stop|avoid|always) (?:\w+ )?)\w{3,}s\b")
_VAGUE_OBJECT = lazy(
    r"\b(?:that|it|this|stuff|things?|properly|better|correctly|right|the usual|the way|"
    r"like we|as we|you know|as discussed|as agreed|as i said|mentioned|what i mean|"
    r"smarter|more careful|careful|sensible|appropriate|necessary|needed|proper|"
    r"the guidelines|the rules|the process|like before|last time)\b"
)
_UNSEEN_CONTEXT = lazy(
    r"\b(?:i mentioned|we (?:discussed|agreed|talked)|last time|the other day|you know|"
    r"like i said|as usual|the usual|like before|as before|that thing|what i showed|"
    r"what we|the way i|the way we|i told you about|the wiki|the doc i)\b"
)
_STOP = frozenset(
    "a an the to of in on at for with by from and or but if then so as is are was were be been it "
    "this that these those i me my we our you your u ur he she they them their its not no do does "
    "did don't dont can could would should will just please pls it's that's there here what which "
    "who when where how why all any some more most very really too also again always never ever "
    "thing things stuff way better properly right correctly careful like know mean".split()
)
_PAST_NARRATIVE = lazy(
    r"\b(?:i|we|he|she|they|my \w+) (?:was|were|went|did|had|got|saw|made|took|came|"
    r"found|felt|started|finished|tried|thought|just \w+ed|\w+ed)\b"
)
_THIRD_PERSON_OPENING = lazy(r"^[a-z]+(?:s|es)\b(?<!\bis)(?<!\bthis)(?<!\bits)(?<!\bthanks)(?<!\bus)")
_COPULA_FACT = lazy(
    r"^(?:the|this|that|our|my|it|its|it's|there)\b[^,.;!?]{0,60}\b(?:is|are|was|were|has|"
    r"have|does|doesn't|isn't|aren't|uses|runs)\b"
)
_THANKS = lazy(r"\b(?:thanks|thank you|thx|ty|cheers|great|awesome|nice|cool|perfect|lol|haha|wow)\b")
_REPO = lazy(
    r"\b(?:this|our|the) (?:repo|repository|project|codebase|code base|monorepo|app|service|team|"
    r"package|workspace|org|company|ci|pipeline)\b|\bhere\b|\bin here\b|\bwe (?:use|are|'re|run|"
    r"have|keep|deploy|target|ship|build|follow|prefer|moved|switched|only)\b|\bwe're\b|\bour\b"
)
_STACK_FACT = lazy(
    r"\b(?:is|are|runs?|targets?|pinned|stuck|still) (?:on|to|at) [\w.+-]+ ?\d|"
    r"\b(?:python|node|java|go|ruby|php|rust|postgres|mysql|react|django|rails) ?\d[\d.]*\b"
)
_SCRIPT = lazy(
    r"\b(?:make \w+|\./[\w./-]+|npm run \w+|pnpm \w+ \w+|yarn \w+|just \w+|scripts?/|bin/|"
    r"tox -e|nox -s|task \w+)"
)
_CONVERSATIONAL = lazy(
    r"\b(?:repl(?:y|ies)|answers?|responses?|respond|explain|explanations?|tone|emojis?|"
    r"concise|verbose|brief|short|bullets?|summary|summaries|words|sentences|paragraphs|"
    r"apologi[sz]e|sorry|chatty|markdown|headers?|ask me|tell me|confirm with me)\b"
)


def _sentences(plain: str) -> list[str]:
    parts = [p.strip(" -*>#\t") for p in re.split(r"(?<=[.!?;])\s+|\n+|\s+-\s+", plain)]
    return [p for p in parts if p]


def _clauses(sentences: list[str]) -> list[str]:
    """Sentences cut at commas, colons and "but/so/and then": a directive often follows a fact."""
    parts = [c for s in sentences for c in re.split(r"[,;:()]\s*|\s+(?:but|so|and then|then|because)\s+", s)]
    return [c for c in parts if _opening(c)] or sentences


def _opening(sentence: str) -> list[str]:
    """The sentence's words after fillers ("please", "ok so", "also") and list markers."""
    words = re.findall(r"[a-z0-9']+", sentence.lower())
    while words and (words[0] in _FILLER or words[0].isdigit()):
        words = words[1:]
    return words


def _imperative(sentence: str) -> bool:
    words = _opening(sentence)
    return bool(words) and words[0] in _VERBS and not (len(words) > 1 and words[1] in ("you", "i", "we", "it's"))


def _content_words(lower: str) -> int:
    return sum(1 for w in re.findall(r"[a-z][a-z0-9'_-]{2,}", lower) if w not in _STOP and w not in _FILLER)


def structure(text: str) -> list[float]:
    """The structural features named by `STRUCTURE_NAMES`, each in [0, 1.5]."""
    plain = detect.normalise(text)
    lower = plain.lower()
    sentences = _sentences(text.replace("\u2019", "'").lower()) or [lower]
    first = " ".join(_opening(sentences[0]))
    words = len(plain.split())
    content = _content_words(lower)
    clauses = _clauses(sentences)
    imperative = [_imperative(c) for c in clauses]
    prohibition = [bool(_PROHIBITION.match(" ".join(_opening(c)))) for c in clauses]
    anchors = sum(bool(p.search(plain)) for p in (_PATH, _LINE_NUMBER, _ISSUE, _IDENTIFIER, _QUOTED))
    flag = float
    return [
        flag(bool(imperative[0])),
        flag(any(imperative)),
        sum(imperative) / len(clauses),
        flag(bool(prohibition[0])),
        flag(any(prohibition)),
        flag(bool(_VERBLESS_NO.match(first)) and words <= 8),
        flag(bool(_OBLIGATION.search(lower))),
        flag(bool(_REQUEST_QUESTION.match(first))),
        flag(bool(_WHY_YOU.search(lower))),
        flag(bool(_WH_QUESTION.match(first)) and not _REQUEST_QUESTION.match(first)),
        flag(plain.endswith("?")),
        flag(bool(_BOUNDED.search(lower))),
        flag(bool(_UNBOUNDED.search(lower))),
        flag(bool(_HABITUAL.search(lower))),
        flag(bool(_HABIT_COMPLAINT.search(lower))),
        flag(bool(_PATH.search(plain))),
        flag(bool(_LINE_NUMBER.search(lower))),
        flag(bool(_CALL.search(plain) and "()" in plain)),
        flag(bool(_ISSUE.search(plain))),
        flag(bool(_IDENTIFIER.search(plain))),
        flag(bool(_INSTANCE.search(lower))),
        min(len(_INSTANCE.findall(lower)), 3) / 3.0,
        flag(bool(_NUMBER.search(plain))),
        flag(bool(_QUOTED.search(plain))),
        min(anchors, 3) / 3.0,
        flag(bool(_QUANTIFIER.search(lower))),
        flag(bool(_BARE_PLURAL_OBJECT.match(first))),
        min(len(_VAGUE_OBJECT.findall(lower)), 3) / 3.0,
        flag(bool(_UNSEEN_CONTEXT.search(lower))),
        min(content, 12) / 12.0,
        flag(content <= 2),
        flag(bool(_PAST_NARRATIVE.search(lower))),
        flag(bool(_THIRD_PERSON_OPENING.match(first)) and first.split()[0] not in _VERBS),
        flag(bool(_COPULA_FACT.match(first))),
        flag(bool(_THANKS.search(lower))),
        flag(bool(_REPO.search(lower))),
        flag(bool(_STACK_FACT.search(lower))),
        flag(bool(_SCRIPT.search(lower))),
        flag(bool(_CONVERSATIONAL.search(lower))),
        min(len(sentences), 8) / 8.0,
        min(math.log1p(len(plain)) / 7.0, 1.5),
        flag(words > 40),
        flag(words > 25 and len(sentences) >= 3),
        flag(words <= 6),
        flag("\n" in text.strip()),
        flag(plain[:1].isupper()),
        flag(plain.endswith(".")),
        *admission_cues.values(
            lower,
            {
                "imperative": any(imperative),
                "prohibition": any(prohibition) or bool(_VERBLESS_NO.match(first)),
                "short": words <= 8,
            },
        ),
    ]


STRUCTURE_NAMES: tuple[str, ...] = (
    "imperative_first",
    "imperative_any",
    "imperative_share",
    "prohibition_first",
    "prohibition_any",
    "verbless_no",
    "obligation",
    "request_question",
    "why_you",
    "wh_question",
    "ends_question",
    "bounded",
    "unbounded",
    "habitual",
    "habit_complaint",
    "path",
    "line_number",
    "call",
    "issue_number",
    "identifier",
    "instance",
    "instances",
    "number",
    "quoted",
    "anchors",
    "quantifier",
    "bare_plural_object",
    "vague_object",
    "unseen_context",
    "content_words",
    "few_content_words",
    "past_narrative",
    "third_person_opening",
    "copula_fact",
    "thanks",
    "repo",
    "stack_fact",
    "script",
    "conversational",
    "sentence_count",
    "length",
    "long",
    "long_multi_sentence",
    "short",
    "multi_line",
    "capitalised",
    "full_stop",
    *admission_cues.NAMES,
    *admission_cues.PAIR_NAMES,
)


NGRAM_BUCKETS = 2048
_TOKEN = lazy(r"[a-z0-9']+|[?!]")


def ngram_buckets(text: str, buckets: int = NGRAM_BUCKETS) -> list[int]:
    """Hashed word unigrams, bigrams and the first word: a learned vocabulary of markers
    ("just this once", "from now on", "no ... ever") that the weights, not a list, decide on."""
    words = _TOKEN.findall(detect.normalise(text).lower())
    if not words:
        return []
    grams = {*words, *(f"{a} {b}" for a, b in itertools.pairwise(words)), f"^{words[0]}"}
    return sorted({zlib.crc32(g.encode("utf-8", "replace")) % buckets for g in grams})
