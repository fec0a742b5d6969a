"""Interpretation: atomic directives, their condition and exceptions, with exact quotes as evidence.

`interpret(text)` splits a (possibly bundled) correction into atomic candidates; a prohibition
stays together with its replacement ("use uv, not pip"). Every candidate's evidence is an exact
substring of the user's message, checked by `verify_evidence`. `resolve_referent` lets an earlier
*user* message of the same session say what "that" means; nothing else in the context can.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from heedful.rules import lexicon as lx
from heedful.rules.command_lists import split_command_list
from heedful.rules.compile.words import mask_quoted
from heedful.rules.coordination import split_forbidden_actions
from heedful.rules.detect import has_signal, is_question
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import Candidate, ContextMessage
from heedful.rules.path_referents import with_path_referent
from heedful.rules.quoting import own_words

# a dot on its own before a lower-case word is a path ("git checkout . without asking"), not a full stop
_SENTENCE = lazy(r"(?:[^.!?\n;]|[.!?](?=[^\s.!?])|(?<=\s)\.(?=\s+[a-z]))+(?:[.!?]+(?=\s|$)|$)|[^\n;]+", re.MULTILINE)
_JOINER = lazy(
    r",? (?:and also|also|plus|and) (?=(?:always|never|don'?t|do not|please|use|avoid|stop|keep|make sure|"
    r"put|add|write|run|prefer|reply|respond|answer|leave|clean|delete|remove)\b)"
    r"|, (?=(?:always|never|don'?t|do not|avoid|stop|make sure|no)\b(?! [\w.`-]+[.!]*$))",
    re.IGNORECASE,
)
_LEAD = lazy(
    r"^(?:(?:ok(?:ay)?|so|also|and|oh and|btw|by the way|hey|look|listen|please|pls|one more thing|note|fyi|"
    r"important|again|actually|hmm|ugh|nope|wait|guys|folks)\b[,:!]?\s+|no[,:!]\s+|"
    r"(?:from now on|going forward|in (?:the )?"
    r"future|from here on(?: out)?|in general|as a rule|by default|for future reference|for all future \w+|"
    r"in this (?:repo|repository|project|codebase|code base|monorepo)|for this (?:repo|repository|project|codebase)|"
    r"in our (?:repo|project|codebase)|here|next time|for the record|generally|as a general rule|"
    r"for every (?:task|project)|in all (?:your )?(?:replies|responses|answers))\b[,:]?\s+|remember(?: to| that|:)\s+"
    r"|keep in mind(?: that)?[,:]?\s+|(?:i|we) want you to\s+|(?:can|could|would) you(?: please)?\s+|"
    r"make it a habit to\s+|the rule is(?: that)?[,:]?\s+|i'?d like you to\s+)",
    re.IGNORECASE,
)
_TRAIL = lazy(
    r"(?:,?\s+(?:from now on|going forward|in (?:the )?future|in this (?:repo|repository|project|codebase|code base)|"
    r"here|for this (?:repo|project|codebase)|please|thanks|thank you|ok|okay|anymore|any more|ever again|again|"
    r"for good|permanently|in our (?:repo|project|codebase)))+[.!?]*$",
    re.IGNORECASE,
)
_CONDITION_LEAD = lazy(
    r"^((?:when(?:ever)?|if|each time|every time|any ?time|for|in|on) [^,]{3,80}),\s*(.+)$", re.IGNORECASE
)
_CONDITION_TRAIL = lazy(r"^(.{6,}?)\s+((?:when(?:ever)?|if) .{3,})$", re.IGNORECASE)
_TIMING = lazy(
    r"^(?:when(?:ever)? |if )(?:you(?:'re| are)? )?(?:done|finished|finish|finishing|wrap(?:ping)? up|complete)\b",
    re.IGNORECASE,
)
_EXCEPTION = lazy(
    r"^(.{4,}?),?\s+((?:unless|except(?: for| when| in| if| on)?|but not (?:for|in|when|on)|other than|apart from)"
    r"\s+.+)$",
    re.IGNORECASE,
)
_WHY_KEEP = lazy(r"^why (?:do|did|are|would) you (?:always |keep |keep on )+(\w+ing)\b(.*?)\??$", re.IGNORECASE)
_REFERENT = lazy(
    r"^(?:please\s+)?(?:(?:keep|continue|remember|note|apply)\s+(?:doing\s+)?(?:that|this|it)|"
    r"(?:do|make)\s+(?:that|this|it)\s+(?:a rule|the default|always|every time|from now on|going forward)|"
    r"(?:that|this)\s+(?:should|must)\s+be\s+(?:a rule|the default|permanent|how you always work)|"
    r"(?:always|from now on,?)\s+(?:do|keep doing)\s+(?:that|this|it))\b",
    re.IGNORECASE,
)
_SUBORDINATE = lazy(
    r"^(?:when(?:ever)?|if|each time|every time|any ?time|once|before|after|while|for|in|on)\b", re.IGNORECASE
)
_BASE = {
    "adding": "add",
    "using": "use",
    "putting": "put",
    "writing": "write",
    "making": "make",
    "running": "run",
    "leaving": "leave",
    "creating": "create",
    "taking": "take",
    "changing": "change",
    "naming": "name",
    "removing": "remove",
    "deleting": "delete",
    "committing": "commit",
    "pushing": "push",
    "asking": "ask",
    "forgetting": "forget",
    "skipping": "skip",
    "getting": "get",
    "setting": "set",
    "including": "include",
    "importing": "import",
    "ignoring": "ignore",
    "mixing": "mix",
    "wrapping": "wrap",
    "sorting": "sort",
}


def _base_form(word: str) -> str:
    lower = word.lower()
    if lower in _BASE:
        return _BASE[lower]
    return lower[:-3] if lower.endswith("ing") else lower


_PROHIBITION = lazy(r"^\s*(?:please\s+)?(?:never|don'?t|do not|no|stop|avoid)\b", re.I)
_REPLACEMENT = lazy(
    r"^\s*(?:(?:just|instead|rather)[,]?\s+)?(?:use|prefer|go with|stick (?:to|with)|switch to)\b", re.I
)


# "infra/ belongs to the platform team, don't touch it": an order about "it" belongs to the clause it points to.
_POINTS_BACK = lazy(
    r"^\s*(?:and\s+|so\s+)?(?:please\s+)?(?:(?:don'?t|do not|never)\s+(?:ever\s+)?(?!do\b)\w+|leave|keep)\s+"
    r"(?:it|them|those|that one|these)(?:\s+(?:alone|untouched|as is|be))?\W*$",
    re.I,
)


def _replacement_follows(previous: str, gap: str, clause: str) -> bool:
    """ "Never run bare python; use uv run python", "don't delete files; move them to the trash instead": a
    prohibition stays with the replacement right after it."""
    replacement = bool(_REPLACEMENT.match(clause)) or bool(re.search(r"\binstead\b", clause, re.I))
    return (
        ";" in gap
        and bool(_PROHIBITION.match(previous))
        and replacement
        and len(clause.split()) <= 8
        and len(previous.split()) <= 14
    )


def split_clauses(text: str) -> list[tuple[int, int]]:
    """Spans of atomic clauses: sentences, then independent directives joined by 'and'/'also'."""
    spans: list[tuple[int, int]] = []
    for sentence in _SENTENCE.finditer(text):
        start, end = sentence.span()
        cursor = start
        for joiner in _JOINER.finditer(text, start, end):
            if re.match(r"no\b", text[joiner.end() :], re.I) and not re.match(r"\s*no\b", text[start:end], re.I):
                continue  # "no force pushes, no rebases": a list of bans; "concise replies, no essays": one rule
            spans.append((cursor, joiner.start()))
            cursor = joiner.end()
        spans.append((cursor, end))
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if (
            (
                merged
                and _WHY_KEEP.match(text[merged[-1][0] : merged[-1][1]].strip())
                and re.match(r"\s*(?:use|prefer|try|do)\b", text[start:end], re.IGNORECASE)
            )
            or (
                merged
                and _SUBORDINATE.match(text[merged[-1][0] : merged[-1][1]].strip())
                and "," not in text[merged[-1][0] : merged[-1][1]]
            )
            or (
                merged
                and _replacement_follows(
                    text[merged[-1][0] : merged[-1][1]], text[merged[-1][1] : start], text[start:end]
                )
            )
            or (
                merged
                and _POINTS_BACK.match(text[start:end]) is not None
                and not lx.DIRECTIVE.match(text[merged[-1][0] : merged[-1][1]].strip())
            )
        ):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    out = []
    for start, end in merged:
        chunk = text[start:end]
        stripped = chunk.strip().rstrip(".!;")
        if _DOT_ARGUMENT.search(chunk.strip()):
            stripped = re.sub(r"(\s\.)[.!;]*$", r"\1", chunk.strip())  # "never git add .": the path stays
        if len(stripped) >= 3:
            offset = start + chunk.index(stripped)
            out.append((offset, offset + len(stripped)))
    return out


def _strip(clause: str) -> str:
    body = clause.strip()
    for _ in range(4):
        before = body
        body = _LEAD.sub("", body).strip()
        body = _TRAIL.sub("", body).strip().rstrip(",;:")
        if body == before:
            break
    return body


# "never git add .", "don't run git checkout .": the dot is the path the command takes, not a full stop
_DOT_ARGUMENT = lazy(
    r"(\b(?:git\s+(?:add|checkout|restore|stash|rm|clean|stage)|prettier|black|ruff|eslint|gofmt|rm|chmod|chown)"
    r"(?:\s+-{1,2}[\w-]+)*\s+)\.\s*[.!?]*$",
    re.IGNORECASE,
)


def _sentence_case(text: str) -> str:
    text = _DOT_ARGUMENT.sub(r"\1`.`", text.strip())
    text = text.strip().rstrip(".!,;: ")
    if not text:
        return text
    if re.match(r"[^\s]*[/*`]|[._]?[a-z][\w-]*[._][\w.-]", text):
        return text + "."  # "vendor/ is vendored", "package.json is generated": a path keeps its case
    return text[0].upper() + text[1:] + "."


def is_dangerous(clause: str) -> tuple[bool, str | None]:
    """A lasting rule that would weaken safety: negated safeguards, or unsafe actions not negated."""
    safeguard = lx.SAFEGUARD_NEGATED.search(clause)
    if safeguard:
        return True, f"drops a safeguard ({safeguard.group(0)!r})"
    for match in lx.DANGEROUS_WHEN_DONE.finditer(clause):
        before = clause[: match.start()]
        if not lx.NEGATION.search(before):
            return True, f"asks for an unsafe action ({match.group(0)!r})"
    return False, None


_NARRATIVE = lazy(
    r"^(?:you|it|this|that|i|we)\s+(?:(?:just|already|again|still)\s+)?(?:said|left|forgot|ran|made|wrote|put|broke|"
    r"did|kept|keep|edited|added|used|changed|deleted|removed|pushed|force pushed|committed|skipped|modified|"
    r"ignored|hate|told|asked|was|were|is|are|has|have|had|didn'?t|\w+ed)\b",
    re.IGNORECASE,
)


# "stop." / "don't do that": an order with no object is no rule (its object is elsewhere or nowhere).
_BARE_STOP = lazy(
    r"^(?:please\s+)?(?:stop|don'?t|do not|never|quit)"
    r"(?:\s+(?:it|that|this|now|please|ever|again|doing (?:it|that|this)))*[.!]*$",
    re.I,
)
# Rules stated as a fact or a limit, with no directive word: who owns a path ("infra/ is not ours to change",
# "vendor/ belongs to another team", "hands off gen/"), which tool the project runs ("this repo uses pnpm", "we're a
# yarn shop", "poetry manages deps here") and a count ("final summary: 5 bullets max").
_STATED_RULE = lazy(
    r"\b(?:(?:is|are)\s+(?:not|n'?t)\s+(?:ours|yours|mine)|(?:isn'?t|aren'?t)\s+(?:ours|yours|mine)|"
    r"nothing\s+(?:under|in|inside)\b.{1,80}\b(?:is|are)\s+(?:ours|yours|mine)|"
    r"belongs?\s+to\s+(?:another|a different|other|some other|the\s+[\w-]+)\s+(?:[\w-]+\s+)?(?:team|group|org)|"
    r"(?:is|are)\s+(?:owned|maintained|managed|vendored|read-?only|off[- ]limits)|hands[- ]off|"
    r"(?:this|the|our)\s+(?:repo|repository|project|codebase|monorepo|workspace)\s+(?:uses|is on|runs on|is an?)|"
    r"\bwe(?:'re| are)\s+an?\s+[\w.-]+\s+(?:shop|house|team|project|repo|monorepo|workspace)|"
    r"\bwe(?:'re| are)\s+(?:on|using)\s+[\w.-]+|\b(?:moved|switched|migrated)\s+(?:over\s+)?to\s+[\w.-]+|"
    r"\b(?:managed|handled)\s+(?:with|by)\s+[\w.-]+|"
    r"\b[\w.-]+\s+(?:manages|handles|owns)\s+(?:the\s+)?(?:deps|dependencies|packages|installs|environments?)|"
    r"\bis\s+an?\s+[\w.-]+\s+(?:workspace|monorepo|project)|"
    r"\b(?:\d{1,4}|one|two|three|four|five|six|seven|eight|nine|ten|twenty)\s+(?:words?|lines?|bullets?|"
    r"bullet points|sentences?|paragraphs?)\s+(?:max(?:imum)?|tops|at most|or (?:fewer|less))\b|"
    r"\b(?:max(?:imum)?|at most|no more than|up to|(?:limit|cap) of|cap\b.{0,30}\bat)\s+(?:\d{1,4}|one|two|three|four|"
    r"five|six|seven|eight|nine|ten|twenty)\s+(?:words?|lines?|bullets?|bullet points|sentences?|paragraphs?|items|"
    r"characters|chars)\b)",
    re.I,
)
# "No force pushes", "no global yarn installs", "zero emojis": a prohibition without a verb.
_NOUN_PROHIBITION = lazy(r"^(?:no|zero|nothing)\s+(?!(?:need|problem|worries|idea|way|thanks)\b)[\w`.\"'“‘-]", re.I)


# A request put as a question that states how to work: "could you please use X rather than Y?"
_POLITE_REQUEST = lazy(
    r"^(?:(?:ok(?:ay)?|so|also|and)[,]?\s+)?(?:could|can|would|will) you(?: please)?\s+(?:always\s+)?"
    r"(?:use|run|stop|avoid|prefer|keep|stick|switch|never)\b.*\b(?:rather than|instead of|not|from now on|"
    r"going forward|always|in future|anymore)\b",
    re.I,
)
# "when you're searching the code use rg, not grep": the condition ends where the directive's verb starts.
_DIRECTIVE_START = lazy(r"\s(?=(?:use|run|prefer|always|never|don'?t|do not|avoid|stop|try|keep|put)\b)", re.I)


def _candidate(text: str, start: int, end: int) -> Candidate | None:
    clause = text[start:end]
    why = _WHY_KEEP.match(clause.strip())
    if why:
        head, _, tail = why.group(2).partition("?")
        body = f"do not {_base_form(why.group(1))}{head}".strip()
        if tail.strip():
            body += ", " + tail.strip()
    else:
        body = _strip(clause)
        polite = _POLITE_REQUEST.match(clause.strip()) is not None  # "could you please run X rather than Y?"
        if (
            is_question(body)
            and not polite
            and not re.match(r"^(?:always|never|don'?t|do not|please|use|stop)\b", body, re.I)
        ):
            return None
        body = body.rstrip("?").strip() if polite else body
    if not body or (
        not lx.DIRECTIVE.search(body)
        and not lx.LASTING.search(clause)
        and not _NOUN_PROHIBITION.match(body)
        and not _STATED_RULE.search(body)
    ):
        return None
    condition = None
    exceptions: list[str] = []
    exception = _EXCEPTION.match(mask_quoted(body))
    if exception:  # read on the text with quoted phrases blanked: "'let me know if you need more'" is data
        cut = exception.start(2)
        body, exceptions = body[: exception.end(1)].strip(), [body[cut:].strip().rstrip(".!")]
    lead = _CONDITION_LEAD.match(mask_quoted(body))
    if lead and re.match(r"^(?:when|if|each|every|any)", lead.group(1), re.I):
        condition, body = body[: lead.end(1)].strip(), body[lead.start(2) :].strip()
        verb = _DIRECTIVE_START.search(condition, 8)
        if verb and len(condition[: verb.start()].split()) >= 3:
            condition, body = condition[: verb.start()].strip(), f"{condition[verb.end() :]}, {body}"
    else:
        trail = _CONDITION_TRAIL.match(mask_quoted(body))
        if trail and not _TIMING.match(trail.group(2)):
            body, condition = body[: trail.end(1)].strip().rstrip(","), body[trail.start(2) :].strip().rstrip(".!")
    body = _strip(body)
    if len(body) < 3 or not _LEAD.sub("", body + " ").strip() or _BARE_STOP.match(body):
        return None
    dangerous, why_dangerous = is_dangerous(clause)
    negative = bool(re.match(r"^(?:never|don'?t|do not|avoid|stop|no|quit|refrain)\b", body, re.IGNORECASE))
    return Candidate(
        text=_sentence_case(body),
        polarity="dont" if negative else "do",
        condition=condition,
        exceptions=exceptions,
        evidence=[clause.strip()],
        dangerous=dangerous,
        danger_reason=why_dangerous,
        vague=bool(lx.VAGUE.search(clause)) or bool(_REFERENT.match(_strip(clause))),
    )


def is_narrative(clause: str) -> bool:
    """'You left scratch files everywhere.': what happened, said alongside the actual directive."""
    plain = clause.strip()
    return bool(_NARRATIVE.match(plain)) and not re.search(
        r"\b(?:(?:always|never)\s+(?!ran\b|did\b|was\b|were\b|\w+ed\b)\w+|from now on|going forward|"
        r"we (?:switched|moved|migrated))\b",
        plain,
        re.IGNORECASE,
    )


def split_project_tool(candidate: Candidate) -> list[Candidate]:
    """ "This repo uses pnpm": the project uses one of rival tools, so each other one is its own rule.

    The stated fact itself compiles to a ban on the family's usual tool (npm); the others (yarn, bun) are added
    as "Use pnpm, not yarn." with the same evidence. "Use pnpm" alone is a preference and is not split."""
    from heedful.rules import vocabulary as vocab
    from heedful.rules.compile.roles import project_tool

    if not vocab.names_a_rival(candidate.text):
        return [candidate]  # a cheap test first: reading every clause's commands costs about a millisecond

    found = project_tool(candidate.text)
    if found is None:
        return [candidate]
    tool, rivals = found
    return [candidate] + [
        candidate.model_copy(update={"text": f"Use {tool}, not {rival}.", "polarity": "dont"}) for rival in rivals[1:]
    ]


def interpret(text: str) -> list[Candidate]:
    """Atomic candidates from one user message (no context)."""
    found: list[tuple[bool, Candidate]] = []
    for start, end in split_clauses(text):
        candidate = _candidate(text, start, end)
        if candidate is not None:
            candidate = with_path_referent(text, start, candidate)
            narrative = is_narrative(text[start:end])
            atomic = [
                c
                for action in split_forbidden_actions(candidate)
                for listed in split_command_list(action)
                for c in split_project_tool(listed)
            ]
            found += [(narrative, a) for a in atomic]
    if any(not narrative for narrative, _ in found):
        return [candidate for narrative, candidate in found if not narrative]
    return [candidate for _, candidate in found]


_ACK_LEAD = lazy(
    r"^(?:(?:yes|yeah|yep|yup|ok(?:ay)?|sure|great|good|nice|perfect|exactly|right|correct|cool|thanks|thank you|"
    r"that'?s (?:it|right|good|great|perfect)|much better|love it|good job|well done)\b[\s,.!:;-]*)+",
    re.IGNORECASE,
)
_SAME = lazy(
    r"^(?:(?:please\s+)?(?:do\s+)?(?:the\s+)?same(?: thing)?(?: goes)?"
    r"(?:\s+(?:here|there|for|in|on|with|everywhere)\b.*)?|"
    r"(?:do|apply)\s+(?:that|this|it)\s+(?:here|there|everywhere|too|as well|in|for|on)\b.*)$",
    re.IGNORECASE,
)
_PROJECT_WORDS = lazy(r"\b(?:repo|repos|repository|project|codebase|code base|here|there)\b", re.IGNORECASE)


_REFERENT_TAIL = lazy(
    r"(?:[\s,.!]*(?:from now on|going forward|always|every ?time|please|in (?:the )?future|too|as well|here|there|"
    r"everywhere|(?:in|for|on) (?:this|that|the other|other|every|all|each|my|our) (?:\w+ )?(?:repos?|repository|"
    r"repositories|projects?|codebases?|sessions?|tasks?)|for good|permanently|then|thanks|thank you))*[\s,.!]*$",
    re.IGNORECASE,
)


def _referent_clause(clause: str) -> bool:
    plain = _ACK_LEAD.sub("", clause.strip()).strip()
    body = _strip(plain)
    for text in (plain, body):
        referent = _REFERENT.match(text)
        if referent and _REFERENT_TAIL.fullmatch(text, referent.end()):
            return True
    return bool(
        _SAME.match(body)
        or re.fullmatch(
            r"(?:keep doing|remember|continue|always do) (?:that|this|it)(?: (?:from now on|going forward|always|"
            r"every time|please|in future))*",
            body,
            re.I,
        )
    )


def is_referent_only(text: str) -> bool:
    """ "Keep doing that", "make that a rule", "same in the other repo": the meaning lives earlier.

    True when every clause that says anything points back (acknowledgements like "yes," aside).
    """
    clauses = [text[s:e] for s, e in split_clauses(text)]
    meaningful = [c for c in clauses if _ACK_LEAD.sub("", c.strip()).strip(" .!,")]
    return bool(meaningful) and all(_referent_clause(c) for c in meaningful)


def referent_scope(text: str) -> str | None:
    """ "Same in the other repo" binds the rule to a project; "keep doing that" says nothing of scope."""
    return "project" if _PROJECT_WORDS.search(text) else None


def resolve_referent(
    context: Sequence[ContextMessage], accept: Callable[[str], bool] = has_signal
) -> tuple[list[Candidate], str | None]:
    """Candidates from the previous *user* message (its own words); other roles never count.

    Only the latest user message is read (earlier pointers back to it skipped), and only when
    `accept` finds a rule in it: "keep doing that" after a task request ("fix the login bug")
    means the assistant's behaviour, which no user words state, so nothing is learned.
    """
    for message in reversed(list(context)):
        if message.role != "user":
            continue
        words = own_words(message.text).text
        if is_referent_only(words):
            continue
        if not has_signal(words) or not accept(words):
            return [], None
        candidates = [c for c in interpret(words) if not c.vague]
        return (candidates, words) if candidates else ([], None)
    return [], None


def verify_evidence(candidate: Candidate, sources: Sequence[str]) -> bool:
    """Every quote must be a real, non-empty substring of one of the user's own messages."""
    return bool(candidate.evidence) and all(
        quote.strip() and any(quote in source for source in sources) for quote in candidate.evidence
    )
