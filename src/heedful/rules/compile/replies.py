"""Readers for rules about replies: length limits, forbidden text, JSON fields and field values."""

from __future__ import annotations

import re
from typing import Any

from heedful.rules.compile.words import EMOJI, NEGATED, NUM, number, quoted, spec
from heedful.rules.lazy_regex import lazy
from heedful.rules.models import CheckSpec

_REPLY = r"(?:replies|reply|answers?|responses?|messages to me|final messages?|explanations?|summaries|summary|output)"
_OP = (
    r"(?P<op>under|below|fewer than|less than|at most|no more than|max(?:imum)?(?: of)?|within|not exceed(?:ing)?|"
    r"limit(?:ed)? to|(?:hard |strict )?(?:limit|cap) of|cap(?:ped)?(?: \w+){0,3}? at|up to|no longer than|to|in)"
)
# "list at most three options": options, suggestions and the like are the items of a list in the reply
_UNIT = (
    r"(?P<unit>words?|lines?|bullet points?|bullets?|points|sentences?|paragraphs?|items|options|suggestions|"
    r"recommendations|choices|alternatives|ideas)"
)
_COUNTS = (
    lazy(rf"\b{_OP}\s+{NUM}\s+{_UNIT}\b", re.I),
    lazy(rf"\b{NUM}\s+{_UNIT}\s+(?:max(?:imum)?|or (?:fewer|less)|tops|at most|or shorter)\b", re.I),
    lazy(r"\b(?P<n>one|single)[- ](?P<unit>line|sentence|paragraph)\s+(?:replies|answers|responses|summaries)\b", re.I),
    # "never write more than three paragraphs": a negated "more than" is the limit itself
    lazy(rf"\b(?:never|don'?t|do not|no)\b[^.;]{{0,40}}?\bmore than\s+{NUM}\s+{_UNIT}", re.I),
)
_NOT_REPLY = lazy(
    r"\b(?:commit|functions?|methods?|files?|classes|modules?|docstrings?|comments?|tests?|"
    r"PR|pull requests?|titles?|names?|variables?|logs?|lines? of code|code|changelog|readme|"
    r"issues?|tickets?|subjects?|actions?|controllers?|components?|handlers?|endpoints?|routes?|views?|"
    r"scripts?|queries|query|migrations?|templates?|blocks?|snippets?|examples?)\b",
    re.I,
)
_UNITS = {
    "word": "words",
    "line": "lines",
    "bullet": "bullets",
    "point": "bullets",
    "sentence": "sentences",
    "paragraph": "paragraphs",
    "item": "bullets",
    **{listed: "bullets" for listed in ("option", "suggestion", "recommendation", "choice", "alternative", "idea")},
}
_SAY = lazy(
    r"\b(?:never|don'?t|do not|stop|no more|avoid|quit)\s+(?:ever\s+)?(?:say(?:ing)?|writ(?:e|ing)|"
    r"us(?:e|ing)|start(?:ing)?|begin(?:ning)?|open(?:ing)?|end(?:ing)?|clos(?:e|ing)|sign(?:ing)? off|"
    r"add(?:ing)?|includ(?:e|ing)|put(?:ting)?|respond(?:ing)?|repl(?:y|ying)|tell(?:ing)? me)\b",
    re.I,
)
APOLOGY_PHRASES = ("I apologize", "I apologise", "sorry for the confusion")
_APOLOGY = lazy(
    r"\b(?:don'?t|do not|never|stop|quit|no more|no|enough)\s+(?:with\s+)?(?:the\s+)?(?:apologi[sz](?:e|ing)|apologies|"
    r"saying sorry)\b",
    re.I,
)
# the word, or a dash quoted as the thing forbidden: a dash in the rule's own prose is punctuation
_EM_DASH = lazy(r"\bem[- ]?dash(?:es)?\b|[\"'`“‘]—[\"'`”’]", re.I)


# "no bullet points", "stop formatting answers as bulleted lists", "prose, not bullets": a limit of none. A word
# that narrows which bullets ("nested", "long", "too many") is a rule a count cannot state.
_BULLETS = r"(?:bullet(?:ed)?(?:[- ]?points?|[- ]lists?)?s?|bulleted|bullet-?point lists?)"
_NARROWING = r"(?:nested|long|too|many|excessive|more|deep(?:ly)?|multi\w*|unnecessary|extra|sub\w*|so|huge|endless)"
_NO_BULLETS = (
    lazy(
        rf"\b(?:no|never|don'?t|do not|stop|avoid|without|quit|ban|enough(?: with)?)\b"
        rf"(?:\s+(?!{_NARROWING}\b)[\w']+){{0,6}}?\s+{_BULLETS}(?![\w-])",
        re.I,
    ),
    lazy(
        rf"\b(?:prose|paragraphs|full sentences|plain text)\W+(?:not|instead of|rather than|over)\s+{_BULLETS}\b", re.I
    ),
    lazy(rf"\b{_BULLETS}\s+(?:are|is)\s+(?:banned|forbidden|not allowed|off[- ]limits)\b", re.I),
)


_REPLY_VERB = lazy(
    r"^(?:always\s+|please\s+)*(?:explain|answer|reply|respond|describe|summari[sz]e)\b(?!\s+(?:in|to)\s+(?:the\s+)?"
    r"(?:commit|pr|pull request|issue|ticket|code|comments?|docstrings?))",
    re.I,
)


def no_bullets(text: str) -> CheckSpec | None:
    """A rule that allows no bullet points in replies: a bullet limit of 0."""
    if not any(p.search(text) for p in _NO_BULLETS) or re.search(rf"\b{_NARROWING}\s+{_BULLETS}", text, re.I):
        return None
    if _NOT_REPLY.search(text) and not re.search(rf"\b{_REPLY}\b|\bchat\b", text, re.I):
        return None  # "no bullets in commit messages": another text than the reply
    return spec("reply_count_limit", {"unit": "bullets", "limit": 0})


def reply_count(text: str) -> CheckSpec | None:
    match = next((m for m in (p.search(text) for p in _COUNTS) if m), None)
    if not match:
        return no_bullets(text)
    if _NOT_REPLY.search(text) and not _REPLY_VERB.match(text):
        return None  # "explain code in two sentences" is about the reply, whatever it explains
    n, unit = number(match.group("n") or ""), match.group("unit")
    op = match.groupdict().get("op")
    if (
        op
        and op.lower() in ("to", "in")
        and not re.search(
            rf"\b(?:keep|limit|reply|respond|answer|explain|describe|summari[sz]e|{_REPLY})\b", text, re.I
        )
    ):
        return None
    if not n or n <= 0:
        return None
    unit_name = _UNITS.get(unit.lower().rstrip("s").replace(" point", ""), "words")
    if unit_name == "words":
        return spec("reply_word_limit", {"limit": n})
    if op and op.lower() in ("under", "below", "fewer than", "less than") and n > 1:
        n -= 1  # "under 20 lines": at most 19
    return spec("reply_count_limit", {"unit": unit_name, "limit": n})


# Markdown constructs named in prose, as the text that spells each one in a reply: a link is `](`, a table's rule row
# starts with a bar and dashes however it is aligned.
MARKDOWN_CONSTRUCTS = {
    r"(?:markdown\s+|inline\s+|md\s+)(?:hyper)?links?|(?:hyper)?links?\s+in\s+markdown|markdown[- ]style\s+links?": [
        "]("
    ],
    r"(?:markdown\s+)?tables?": ["|---", "| ---", "|:--", "| :--"],
}


def _forbidden_text(text: str) -> list[str]:
    """Patterns a negated rule forbids in text: any emoji, em dashes, apologies, markdown links or tables, quoted
    phrases."""
    if not NEGATED.search(text):
        return []
    if EMOJI.search(text):
        return ["emoji"]
    for construct, patterns in MARKDOWN_CONSTRUCTS.items():
        verb = r"no|use|using|include|including|add|adding|put|putting|with|avoid|avoiding"
        named = rf"\b(?:{verb})\s+(?:any\s+)?(?:{construct})\b"
        reply = rf"\b(?:{_REPLY}|chat)\b"
        if re.search(rf"{named}[^.;,]{{0,40}}?{reply}|{reply}[^.;]{{0,40}}?{named}", text, re.I):
            return list(patterns)  # "no markdown links in replies"; "in answers, avoid tables"
    if _EM_DASH.search(text):
        return ["—"]
    if _APOLOGY.search(text):
        # the phrases of an apology, not the word "sorry" anywhere ("sorry to say the test is flaky" is no apology);
        # "stop saying sorry" names the word itself
        return ["sorry"] if re.search(r"\bsorry\b", text, re.I) else list(APOLOGY_PHRASES)
    if _SAY.search(text) or re.search(
        r"\b(?:words?|phrases?|disclaimers?|sign-?offs?|openers?|openings?|closers?|closings?|greetings?|preambles?|"
        r"taglines?|catchphrases?|boilerplate|(?:responses?|replies|answers?|things|lines?)\s+like)\b",
        text,
        re.I,
    ):
        # a phrase quoted inside a code span (`logger.exception("Failed")`) is code, not something said
        return [q for q in quoted(re.sub(r"`[^`]*`", " ", text)) if q]
    return []


_OTHER_TEXT = lazy(
    r"\b(?:code|comments?|docstrings?|files?|variable|names?|logs?|docs?|documentation|readme|"
    r"PR|pull requests?|issues?|UI|strings?|tests?|markdown|headers?|commit|imports?|statements?)\b",
    re.I,
)


def reply_text(text: str) -> CheckSpec | None:
    patterns = _forbidden_text(text)
    if not patterns:
        return None
    if _OTHER_TEXT.search(text) and not re.search(rf"\b{_REPLY}\b|\bchat\b", text, re.I):
        return None
    return spec("reply_forbidden_text", {"patterns": patterns})


_JSON_REPLY = lazy(rf"\b(?:{_REPLY}|respond|reply|answer|output)\b.{{0,30}}\bjson\b", re.I)
_FIELDS = lazy(
    r"\b(?:fields?|keys?|properties)\s*:?\s+(?P<list>.+?)(?:$|\.(?:\s|$))|\b(?:with|including|include|includes|"
    r"containing|contain|has|have)\s+(?:an? |the )?(?P<list2>`[^`]+`(?:(?:,\s*|,?\s+and\s+)`[^`]+`)*|"
    r"[\w-]+(?:,\s*[\w-]+)*,?\s+and\s+[\w-]+)",
    re.I,
)
_FIELD_VALUE = lazy(
    r"`(?P<field>[\w.-]+)`\s+(?:field\s+)?(?:must|should|has to|needs to)\s+(?:always\s+)?(?P<neg>not\s+|never\s+)?"
    r"(?:be|equal|equals|be set to)\s+`?(?P<value>[^`\s]+)`?"
    r"|never set\s+`(?P<field2>[\w.-]+)`\s+to\s+`?(?P<value2>[^`\s]+)`?",
    re.I,
)


def json_checks(text: str) -> list[CheckSpec]:
    out: list[CheckSpec] = []
    if _JSON_REPLY.search(text):
        fields_match = _FIELDS.search(text)
        if fields_match:
            raw = fields_match.group("list") or fields_match.group("list2") or ""
            fields = re.findall(r"`([^`]+)`", raw) or [
                f.strip(" .'\"")
                for f in re.split(r",\s*(?:and\s+)?|\s+and\s+", raw)
                if re.fullmatch(r"[\w-]+", f.strip(" .'\""))
            ]
            if fields:
                out.append(spec("reply_json_fields", {"fields": fields}))
    value = _FIELD_VALUE.search(text)
    if value and re.search(r"\bjson\b|\breply\b|\bresponse\b|\boutput\b|\bpayload\b", text, re.I):
        field = value.group("field") or value.group("field2")
        literal = value.group("value") or value.group("value2")
        negated = bool(value.group("neg")) or bool(value.group("field2"))
        parsed: Any = literal.strip("'\"")
        if parsed in ("true", "false"):
            parsed = parsed == "true"
        elif re.fullmatch(r"-?\d+", parsed):
            parsed = int(parsed)
        target = "artifact" if re.search(r"\bfile\b|\bartifact\b|\.json\b", text, re.I) else "delivery"
        out.append(
            spec(
                "field_value",
                {
                    "target": target,
                    "path": field.split("."),
                    "op": "not_equals" if negated else "equals",
                    "value": parsed,
                },
            )
        )
    return out
