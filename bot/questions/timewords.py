"""Time words in questions ("this week", "since Monday", "in May") turned into announcement-date windows.

All windows are inclusive [start, end] dates relative to `today` and never end after it. arXiv announces on
weekdays, so "this week" is Monday to today, "last week" is last Monday to last Sunday.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
WEEKDAYS.update({name.lower(): i for i, name in enumerate(calendar.day_abbr)})
MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
NUMBER_WORDS = {
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
    "fourteen": 14,
    "thirty": 30,
    "a": 1,
}

_WD = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_FULL_WD = "|".join(name.lower() for name in calendar.day_name)
_MON = "|".join(sorted(MONTHS, key=len, reverse=True))
_NUM = r"\d{1,3}|" + "|".join(NUMBER_WORDS)
_ISO = r"\d{4}-\d{2}-\d{2}"
_MONTH_DAY = rf"(?:{_MON})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?"
_DAY_MONTH = rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MON})\.?(?:\s+\d{{4}})?"
_DATE = rf"(?:{_ISO}|{_MONTH_DAY}|{_DAY_MONTH})"
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"
_DAY_JOINER = r"(?:\s*,\s*(?:(?:and|&|or)\s+)?|\s+(?:and|&|or)\s+)(?:the\s+)?"


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """An inclusive date window and the words it was read from."""

    start: dt.date
    end: dt.date
    phrase: str
    assumed: str = ""  # which day relative words were taken to mean when they could mean more than one
    days: tuple[dt.date, ...] = ()  # a list of days ("Monday and Thursday"): only these, from start to end

    def contains(self, day: dt.date) -> bool:
        """True when `day` falls inside the window (one of its days, when it is a list of days)."""
        return day in self.days if self.days else self.start <= day <= self.end


def _monday(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=day.weekday())


def _last_weekday(today: dt.date, weekday: int) -> dt.date:
    """The most recent `weekday` on or before today."""
    return today - dt.timedelta(days=(today.weekday() - weekday) % 7)


def _month_window(today: dt.date, month: int, year: int | None) -> tuple[dt.date, dt.date]:
    if year is None:
        year = today.year if month <= today.month else today.year - 1
    last = calendar.monthrange(year, month)[1]
    return dt.date(year, month, 1), dt.date(year, month, last)


def parse_date(text: str, today: dt.date, *, allow_future: bool = False) -> dt.date | None:
    """Parse '2025-05-26', 'May 26', 'May 26, 2025' or '26 May'.

    Without a year it is the most recent such day, unless `allow_future` (the end of a range) keeps this year.
    """
    text = text.strip().lower().replace(",", " ")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        pass
    words = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text).replace(".", " ").split()
    month = next((MONTHS[w] for w in words if w in MONTHS), None)
    numbers = [int(w) for w in words if w.isdigit()]
    if month is None or not numbers:
        return None
    day = numbers[0] if numbers[0] <= 31 else None
    year = next((n for n in numbers if n > 31), None)
    if day is None:
        return None
    try:
        candidate = dt.date(year or today.year, month, day)
    except ValueError:
        return None
    if year is None and candidate > today and not allow_future:
        candidate = candidate.replace(year=candidate.year - 1)
    return candidate


def _number(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text]


def find_time_window(question: str, today: dt.date) -> TimeWindow | None:
    """The first time expression in `question` as a window ending no later than `today`, or None."""
    q = question.lower()

    def window(start: dt.date, end: dt.date, match: re.Match[str]) -> TimeWindow:
        end = min(end, today)
        return TimeWindow(min(start, end), end, match.group(0).strip())

    rules: list[tuple[str, object]] = [
        # "between X and Y" is a range; "from X and Y" is two days (a list, read after the first)
        (rf"\b(?:between\s+({_DATE})\s+(?:and|to|until|-)|from\s+({_DATE})\s+(?:to|until|-))\s+({_DATE})", "range"),
        (rf"\b(?:since|from)\s+({_DATE})", "since_date"),
        (
            rf"\b(?:between\s+({_WD})\s+(?:and|to|until|through|-)|from\s+({_WD})\s+(?:to|until|through|-))"
            rf"\s+({_WD})\b",
            "weekday_range",
        ),
        (rf"\bsince\s+(?:last\s+)?({_WD})\b", "since_weekday"),
        (rf"\b(?:on\s+)?({_ISO})\b", "on_date"),
        (r"\btoday\b|\bthis morning\b", "today"),
        (r"\byesterday\b", "yesterday"),
        (rf"\b(?:in\s+the\s+)?(?:last|past)\s+({_NUM})\s+days?\b", "last_days"),
        (rf"\b(?:in\s+the\s+)?(?:last|past)\s+({_NUM})\s+weeks?\b", "last_weeks"),
        (r"\b(?:in\s+the\s+)?(?:last|past)\s+day\b", "today"),
        (r"\bthis\s+week\b|\bso\s+far\s+this\s+week\b", "this_week"),
        (r"\blast\s+week\b|\bprevious\s+week\b", "last_week"),
        (r"\b(?:in\s+the\s+)?(?:past|last)\s+week\b", "past_week"),
        (r"\bthis\s+month\b", "this_month"),
        (r"\blast\s+month\b|\bprevious\s+month\b", "last_month"),
        (r"\bthis\s+year\b", "this_year"),
        (rf"\bon\s+({_DATE})", "on_date"),
        # days of one month listed before it ("on 26 and 28 May"): that set of days
        (rf"\b(?:on|from)\s+(?:the\s+)?((?:{_ORDINAL}{_DAY_JOINER})+)({_DAY_MONTH})", "days_of_month"),
        (rf"\b(?:on\s+|last\s+|from\s+(?:last\s+)?)({_WD})(?:'s)?\b", "on_weekday"),  # "from Tuesday": that day
        (rf"\b({_FULL_WD})\b", "on_weekday"),  # "T. Okita Thursday": a full day name alone
        (rf"\b(?:in|during|from)\s+({_MON})\.?(?:\s+(\d{{4}}))?\b", "in_month"),
        (r"\b(?:in|during)\s+(\d{4})\b", "in_year"),
    ]
    best: tuple[int, int, TimeWindow] | None = None
    for pattern, kind in rules:
        match = re.search(pattern, q)
        if not match:
            continue
        found = _resolve(str(kind), match, today, window)
        if found is not None and (best is None or match.start() < best[0]):
            best = (match.start(), match.end(), found)
    if best is None:
        return None
    first, last, found = best
    if found.start == found.end:
        return _listed_days(q, first, last, found, today)
    if q[first:].startswith("from") and found.end == today:  # "from May 26 and 27": a list of days, not since
        listed = _listed_days(q, first, last, TimeWindow(found.start, found.start, found.phrase), today)
        return listed if listed.days else found
    return found


# what joins the items of a list ("Monday and Thursday", "Monday, Wednesday or Friday", "Monday & Thursday")
# a later item of a list of days: a day's name (not "sat" or "sun", which are words and surnames too) or a date
_LISTED_DAY = re.compile(
    rf"(?:on\s+)?({'|'.join(w for w in sorted(WEEKDAYS, key=len, reverse=True) if w not in ('sat', 'sun'))}|{_DATE}|"
    r"today|yesterday)\b",
    re.IGNORECASE,
)
# a later day of the month just named ("May 26 and 27", "May 26, 28 and 30"): a number after the day before it, not
# a count or share ("May 26 and 3 more", "5%")
_LATER_DAY = re.compile(r"(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\b(?!\s*%|[.,:/-]\d)")
_MONTH_WORD = re.compile(rf"\b(?:{_MON})\b|{_ISO}", re.IGNORECASE)
_LIST_JOINER = re.compile(r"(?:\s*,\s*|\s+)(?:(?:and|or|&|plus)\s+)?(?:(?:also|on|from)\s+)?(?=\S)", re.IGNORECASE)


def _listed_days(q: str, first: int, last: int, day: TimeWindow, today: dt.date) -> TimeWindow:
    """One day, or the days of a list it begins ("on Monday and Thursday", "May 26, May 28 and May 30"): a list of
    days is that set of days, not its first, nor the range between them."""
    days = [day.start]
    dated = bool(_MONTH_WORD.search(q[first:last]))  # the last item named a month: a bare number is its day
    while joiner := _LIST_JOINER.match(q, last):
        later = _LATER_DAY.match(q, joiner.end()) if dated else None
        if later and days[-1].day < int(later.group(1)) <= calendar.monthrange(days[-1].year, days[-1].month)[1]:
            days.append(days[-1].replace(day=int(later.group(1))))
            last = later.end()
            continue
        item = _LISTED_DAY.match(q, joiner.end())
        if item is None:
            break
        dated = bool(_MONTH_WORD.search(item.group(1)))
        # an item read as a day on its own ("on wed", "on may 28"): inside a list, a short name or a bare date is one
        following = find_time_window(f"on {item.group(1)}", today)
        if following is None or following.start != following.end:
            break
        days.append(following.start)
        last = item.end()
    if len(set(days)) == 1:
        return day
    ordered = tuple(sorted(set(days)))
    return TimeWindow(ordered[0], ordered[-1], q[first:last].strip(), day.assumed, ordered)


def _resolve(
    kind: str, match: re.Match[str], today: dt.date, window: Callable[[dt.date, dt.date, re.Match[str]], TimeWindow]
) -> TimeWindow | None:
    if kind == "range":
        first = parse_date(match.group(1) or match.group(2), today)
        second = parse_date(match.group(3), today, allow_future=True)
        return window(first, second, match) if first and second else None
    if kind == "since_date":
        first = parse_date(match.group(1), today)
        return window(first, today, match) if first else None
    if kind == "weekday_range":
        start = match.group(1) or match.group(2)
        first = _last_weekday(today, WEEKDAYS[start])
        length = (WEEKDAYS[match.group(3)] - WEEKDAYS[start]) % 7
        return window(first, first + dt.timedelta(days=length), match)
    if kind == "since_weekday":
        return window(_last_weekday(today, WEEKDAYS[match.group(1)]), today, match)
    if kind == "on_date":
        day = parse_date(match.group(1), today)
        return window(day, day, match) if day else None
    if kind == "days_of_month":
        last = parse_date(match.group(2), today)
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        if last is None:
            return None
        ordered = [*numbers, last.day]
        if not numbers[0] or ordered != sorted(set(ordered)):
            return None  # a list of days counts up to the dated one; other numbers are not days
        days = (*(last.replace(day=n) for n in numbers), last)
        return TimeWindow(days[0], min(last, today), match.group(0).strip(), days=days)
    if kind == "today":
        return window(today, today, match)
    if kind == "yesterday":
        day = today - dt.timedelta(days=1)
        return window(day, day, match)
    if kind == "last_days":
        return window(today - dt.timedelta(days=_number(match.group(1)) - 1), today, match)
    if kind == "last_weeks":
        return window(today - dt.timedelta(days=7 * _number(match.group(1)) - 1), today, match)
    if kind == "this_week":
        return window(_monday(today), today, match)
    if kind == "last_week":
        start = _monday(today) - dt.timedelta(days=7)
        return window(start, start + dt.timedelta(days=6), match)
    if kind == "past_week":
        return window(today - dt.timedelta(days=6), today, match)
    if kind == "this_month":
        return window(today.replace(day=1), today, match)
    if kind == "last_month":
        end = today.replace(day=1) - dt.timedelta(days=1)
        return window(end.replace(day=1), end, match)
    if kind == "this_year":
        return window(dt.date(today.year, 1, 1), today, match)
    if kind == "on_weekday":
        day = _last_weekday(today, WEEKDAYS[match.group(1)])
        return window(day, day, match)
    if kind == "in_month":
        year = int(match.group(2)) if match.group(2) else None
        start, end = _month_window(today, MONTHS[match.group(1)], year)
        return window(start, end, match) if start <= today else None
    if kind == "in_year":
        year = int(match.group(1))
        return window(dt.date(year, 1, 1), dt.date(year, 12, 31), match) if 1991 <= year <= today.year else None
    raise ValueError(kind)


# A day named relative to the day a conversation was about ("and the day before?", "the next day?"), not to today.
_RELATIVE_DAY = re.compile(
    r"\b(?:the\s+|a\s+)?(?:(?P<back>day\s+before|previous\s+day|day\s+earlier|preceding\s+day)|"
    r"(?P<on>day\s+after|next\s+day|following\s+day|day\s+later))\b",
    re.IGNORECASE,
)


def relative_day(question: str, previous: tuple[dt.date, dt.date] | None, today: dt.date) -> TimeWindow | None:
    """The announcement day before or after the day a conversation was about ("and the day before?"), weekends
    skipped (arXiv announces Monday to Friday); None without such words, which are always time words.

    After a window of several days the day is the one before its first or after its last, and with no earlier window
    the one before or after today: the window's `assumed` then says which day was taken, so it is never a silent
    guess."""
    found = _RELATIVE_DAY.search(question)
    if found is None:
        return None
    back = bool(found.group("back"))
    start, end = previous or (today, today)
    step = dt.timedelta(days=-1 if back else 1)
    day = (start if back else end) + step
    while day.weekday() >= 5:
        day += step
    phrase = found.group(0).strip()
    named = f"{day.strftime('%A')} {day.isoformat()}"
    side = "before" if back else "after"
    assumed = ""
    if previous is None:
        assumed = f"Reading '{phrase}' as {named}, the announcement day {side} today:"
    elif start != end:
        assumed = (
            f"The last answer covered {start.isoformat()} to {end.isoformat()}; reading '{phrase}' as {named}, the "
            f"announcement day {side} {(start if back else end).isoformat()}:"
        )
    if day > today:
        assumed = f"Reading '{phrase}' as {named}, which is after today ({today.isoformat()}):"
    return TimeWindow(day, day, phrase, assumed)
