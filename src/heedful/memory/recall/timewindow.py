"""The time window a question names, relative to a reference time. Pure.

    >>> parse_window("what did I do last week?", datetime(2024, 5, 8, tzinfo=UTC))
    TimeWindow(start=2024-04-29, end=2024-05-06, ...)

Understood: dates ("8 May 2023", "May 8, 2023", "2023-05-08", "on May 8"), months ("May 2023",
"in May"), years ("in 2022"), seasons ("summer 2023", "last summer"), relative days ("yesterday",
"today", "tomorrow", "last night", "two days ago", "a few weeks ago"), calendar units ("last week",
"this month", "next year", "past 3 days", "last weekend", "last Monday"), and open ranges ("since
March", "after June 2023", "before 2020", "earlier this year"). Windows are half-open `[start,
end)` in the reference time's zone; a question that names several times gets the span of them
all. A question naming no time gives None, and recall then skips the time route.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "couple": 2,
    "a couple of": 2,
    "few": 3,
    "a few": 3,
    "several": 3,
}
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
FLOOR = datetime(1900, 1, 1, tzinfo=UTC)

_M = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_MONTH = rf"({_M})"
_FULL_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_YEAR = r"((?:19|20)\d{2})"
_Y = r"(?P<y>(?:19|20)\d{2})"
_D = r"(?P<d>\d{1,2})(?:st|nd|rd|th)?"
_NUM = (
    r"(\d+|a couple of|couple|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine"
    r"|ten|eleven|twelve)"
)
_UNIT = r"(day|week|month|year)s?"
_SEASON = r"(spring|summer|autumn|fall|winter)"
_WEEKDAY = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NAMED_DAY = r"(yesterday|last\s+night|today|tonight|this\s+morning|this\s+afternoon|this\s+evening|tomorrow)"
_MONTH_LEAD = r"(?:in|since|during|of|from|until|before|after|last|this|early|late|mid)\s+(?:early\s+|late\s+|mid-?)?"
_YEAR_LEAD = r"(?:in|during|of|since|from|until|before|after|by|year)\s+"


@dataclass(frozen=True, slots=True)
class TimeWindow:
    start: datetime
    end: datetime
    phrase: str

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


def _day(year: int, month: int, day: int, tz: object) -> datetime:
    return datetime(year, month, day, tzinfo=tz)  # type: ignore[arg-type]


def _month_start(year: int, month: int, tz: object) -> datetime:
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    return datetime(year, month, 1, tzinfo=tz)  # type: ignore[arg-type]


def _month_window(year: int, month: int, tz: object, months: int = 1) -> tuple[datetime, datetime]:
    return _month_start(year, month, tz), _month_start(year, month + months, tz)


def _valid_day(year: int, month: int, day: int) -> bool:
    return 1 <= day <= calendar.monthrange(year, month)[1]


def _number(text: str) -> int:
    text = text.lower()
    return int(text) if text.isdigit() else NUMBERS.get(text, 1)


def _unit_window(unit: str, anchor: datetime, count: int = 1) -> tuple[datetime, datetime]:
    """The calendar unit (day, week from Monday, month, year) holding `anchor`, `count` units long."""
    day = anchor.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "day":
        return day, day + timedelta(days=count)
    if unit == "week":
        start = day - timedelta(days=day.weekday())
        return start, start + timedelta(weeks=count)
    if unit == "month":
        return _month_window(day.year, day.month, day.tzinfo, count)
    start = day.replace(month=1, day=1)
    return start, start.replace(year=start.year + count)


def _shift(anchor: datetime, unit: str, amount: int) -> datetime:
    if unit == "day":
        return anchor + timedelta(days=amount)
    if unit == "week":
        return anchor + timedelta(weeks=amount)
    if unit == "month":
        start = _month_start(anchor.year, anchor.month + amount, anchor.tzinfo)
        return start.replace(day=min(anchor.day, calendar.monthrange(start.year, start.month)[1]))
    day = 28 if (anchor.month, anchor.day) == (2, 29) else anchor.day
    return anchor.replace(year=anchor.year + amount, day=day)


def _latest_month(month: int, ref: datetime) -> int:
    """The year of the most recent `month` not after the reference month."""
    return ref.year if month <= ref.month else ref.year - 1


def _season(season: str, year: int, tz: object) -> tuple[datetime, datetime]:
    first = SEASONS[season]
    return _month_window(year, first, tz, 3)


class _Parser:
    def __init__(self, ref: datetime) -> None:
        self.ref = ref
        self.tz = ref.tzinfo

    # Each handler gets the match and returns (start, end) or None.
    def full_date(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        g = m.groupdict()
        year, month, day = int(g["y"]), _month_number(g["m"]), int(g["d"])
        if not _valid_day(year, month, day):
            return None
        start = _day(year, month, day, self.tz)
        return start, start + timedelta(days=1)

    def iso_date(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        year, month, day = (int(x) for x in m.groups())
        if not 1 <= month <= 12 or not _valid_day(year, month, day):
            return None
        start = _day(year, month, day, self.tz)
        return start, start + timedelta(days=1)

    def day_month(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        g = m.groupdict()
        month, day = _month_number(g["m"]), int(g["d"])
        year = _latest_month(month, self.ref)
        if (month, day) > (self.ref.month, self.ref.day) and year == self.ref.year:
            year -= 1
        if not _valid_day(year, month, day):
            return None
        start = _day(year, month, day, self.tz)
        return start, start + timedelta(days=1)

    def month_year(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        return _month_window(int(m.group(2)), _month_number(m.group(1)), self.tz)

    def season_year(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        return _season(m.group(1).lower(), int(m.group(2)), self.tz)

    def relative_season(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        which, season = m.group(1).lower(), m.group(2).lower()
        year = self.ref.year
        if which == "this":
            return _season(season, year, self.tz)
        if which == "next":
            if _season(season, year, self.tz)[0] <= self.ref:
                year += 1
            return _season(season, year, self.tz)
        # last / past / previous: the most recent one that has ended.
        if _season(season, year, self.tz)[1] > self.ref:
            year -= 1
        return _season(season, year, self.tz)

    def bare_month(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        month = _month_number(m.group(1))
        return _month_window(_latest_month(month, self.ref), month, self.tz)

    def year(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        year = int(m.group(1))
        return datetime(year, 1, 1, tzinfo=self.tz), datetime(year + 1, 1, 1, tzinfo=self.tz)

    def named_day(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        word = m.group(0).lower()
        offset = {
            "yesterday": -1,
            "last night": -1,
            "today": 0,
            "tonight": 0,
            "this morning": 0,
            "this afternoon": 0,
            "this evening": 0,
            "tomorrow": 1,
        }[" ".join(word.split())]
        return _unit_window("day", self.ref + timedelta(days=offset))

    def ago(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        count, unit = _number(m.group(1)), m.group(2).lower()
        return _unit_window(unit, _shift(self.ref, unit, -count))

    def relative_unit(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        which, unit = m.group(1).lower(), m.group(2).lower()
        amount = {"last": -1, "past": -1, "previous": -1, "this": 0, "current": 0, "next": 1, "coming": 1}
        step = amount[which]
        if which == "past":
            # "the past week": the seven days up to now rather than the previous calendar week.
            return _shift(self.ref, unit, -1), self.ref + timedelta(seconds=1)
        return _unit_window(unit, _shift(self.ref, unit, step))

    def past_n(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        count, unit = _number(m.group(1)), m.group(2).lower()
        return _shift(self.ref, unit, -count), self.ref + timedelta(seconds=1)

    def weekend(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        which = m.group(1).lower()
        day = self.ref.replace(hour=0, minute=0, second=0, microsecond=0)
        saturday = day - timedelta(days=(day.weekday() - 5) % 7)
        if which in ("last", "past", "previous") and saturday + timedelta(days=2) > self.ref:
            saturday -= timedelta(weeks=1)
        if which == "next":
            saturday = day + timedelta(days=(5 - day.weekday()) % 7 or 7)
        return saturday, saturday + timedelta(days=2)

    def weekday(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        which, name = m.group(1).lower(), m.group(2).lower()
        target = WEEKDAYS[name]
        day = self.ref.replace(hour=0, minute=0, second=0, microsecond=0)
        if which == "next":
            delta = (target - day.weekday()) % 7 or 7
            start = day + timedelta(days=delta)
        else:
            delta = (day.weekday() - target) % 7 or 7
            start = day - timedelta(days=delta)
        return start, start + timedelta(days=1)

    def earlier_this(self, m: re.Match[str]) -> tuple[datetime, datetime] | None:
        start, _ = _unit_window(m.group(1).lower(), self.ref)
        return start, self.ref + timedelta(seconds=1)


def _month_number(text: str) -> int:
    text = text.lower()
    return MONTHS.get(text) or MONTHS[text[:3]]


def _patterns(p: _Parser) -> list[tuple[re.Pattern[str], object]]:
    table: list[tuple[str, object]] = [
        (r"\b(\d{4})-(\d{2})-(\d{2})\b", p.iso_date),
        (rf"\b{_D}(?:\s+of)?\s+(?P<m>{_M})\.?,?\s+{_Y}\b", p.full_date),
        (rf"\b(?P<m>{_M})\.?\s+{_D},?\s+{_Y}\b", p.full_date),
        (rf"\b{_MONTH}\.?,?\s+(?:of\s+)?{_YEAR}\b", p.month_year),
        (rf"\b{_SEASON}\s+(?:of\s+)?{_YEAR}\b", p.season_year),
        (rf"\b(last|this|past|previous|next)\s+{_SEASON}\b", p.relative_season),
        (rf"\b{_D}\s+(?:of\s+)?(?P<m>{_M})\b", p.day_month),
        (rf"\b(?P<m>{_M})\.?\s+{_D}\b(?!:)", p.day_month),
        (rf"\b{_MONTH_LEAD}({_FULL_MONTHS})\b", p.bare_month),
        (r"\b(january|february|august|september|october|november|december)\b", p.bare_month),
        (rf"\b{_YEAR_LEAD}((?:19|20)\d{{2}})\b", p.year),
        (rf"\b{_NAMED_DAY}\b", p.named_day),
        (rf"\b{_NUM}\s+{_UNIT}\s+ago\b", p.ago),
        (
            rf"\b(?:the\s+)?(?:past|last|previous)\s+(\d+|two|three|four|five|six|seven|eight|nine|ten|few"
            rf"|couple of)\s+{_UNIT}\b",
            p.past_n,
        ),
        (r"\b(last|this|past|previous|next)\s+weekend\b", p.weekend),
        (rf"\b(last|this|past|previous|current|next|coming)\s+{_UNIT}\b", p.relative_unit),
        (rf"\b(last|on|this|next)\s+{_WEEKDAY}\b", p.weekday),
        (r"\bearlier\s+this\s+(week|month|year)\b", p.earlier_this),
        (r"(?<![\w-])((?:19|20)\d{2})(?![\w-])", p.year),
    ]
    return [(re.compile(pattern, re.IGNORECASE), handler) for pattern, handler in table]


_OPEN_BEFORE = re.compile(r"\b(since|after|from|before|until|till|prior\s+to|by)\s+$", re.IGNORECASE)


def parse_window(question: str, reference: datetime) -> TimeWindow | None:
    """The window `question` names, relative to `reference` (an aware datetime), or None."""
    if reference.tzinfo is None:
        reference = reference.replace(tzinfo=UTC)
    parser = _Parser(reference)
    text = question
    spans: list[tuple[datetime, datetime, str]] = []
    for pattern, handler in _patterns(parser):
        for match in list(pattern.finditer(text)):
            try:
                window = handler(match)  # type: ignore[operator]
            except (ValueError, KeyError, OverflowError):
                window = None
            if window is None:
                continue
            start, end = window
            opener = _OPEN_BEFORE.search(text[: match.start()])
            word = (opener.group(1).lower() if opener else "") or ""
            if match.group(0).lower().split()[0] in ("since", "after", "before", "until", "from"):
                word = match.group(0).lower().split()[0]
            if word in ("since", "from"):
                end = max(end, reference + timedelta(seconds=1))
            elif word == "after":
                start, end = end, max(end, reference + timedelta(seconds=1))
            elif word in ("before", "until", "till", "by") or word.startswith("prior"):
                start, end = FLOOR.astimezone(reference.tzinfo), start if word != "until" else end
            spans.append((start, end, match.group(0).strip()))
            # Blank the match so that a less specific pattern cannot read it again.
            text = text[: match.start()] + " " * (match.end() - match.start()) + text[match.end() :]
    if not spans:
        return None
    start = min(s for s, _, _ in spans)
    end = max(e for _, e, _ in spans)
    if end <= start:
        return None
    phrase = "; ".join(p for _, _, p in sorted(spans, key=lambda s: question.find(s[2])))
    return TimeWindow(start, end, phrase)
