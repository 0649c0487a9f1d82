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
_DAY_MONTH = rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MON})\.?(?:\s+\d{{4}})?"
_DATE = rf"(?:{_ISO}|{_MONTH_DAY}|{_DAY_MONTH})"
# A day of a month written with the month's full name ("May 28", "28th of May") is a date wherever it stands ("recap
# of May 28", "May 29th papers"), as a full weekday name is; an abbreviation ("Jan", "Mar") may be a name or a word,
# and a bare number before the month may be a count ("the top 3 May papers"), so the number then needs its ordinal.
_FULL_MON = "|".join(name.lower() for name in calendar.month_name if name) + "|sept"
_BARE_DATE = (
    rf"(?:(?:{_FULL_MON})\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?|"
    rf"\d{{1,2}}(?:st|nd|rd|th)\s+(?:of\s+)?(?:{_FULL_MON})(?:\s+\d{{4}})?)(?![\d%]|[.,:/-]\d)"
)


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


def _ordinal_day(today: dt.date, number: int) -> dt.date | None:
    """The most recent day numbered `number` of a month, on or before today ("the 29th"), or None (no such day)."""
    year, month = today.year, today.month
    for _ in range(2):
        if number <= calendar.monthrange(year, month)[1] and dt.date(year, month, number) <= today:
            return dt.date(year, month, number)
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return None


def _number(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text]


# the words before "today" that make it the end of every day so far ("up to today", "as of today"), not a day of its own
UNTIL_WORDS = ("up to", "till", "until", "through", "as of")
_UNTIL = "|".join(w.replace(" ", r"\s+") for w in UNTIL_WORDS)
UP_TO_TODAY = rf"(?:{_UNTIL})\s+today"
# one fixed-width look-behind per phrase, as `re` needs
_NOT_AFTER_UNTIL = "".join(r"(?<!\b" + w.replace(" ", r"\s") + r"\s)" for w in UNTIL_WORDS)


# what makes the day after "from" the first of a window ending today, whether a date, a day's name or a day of the
# month: "from May 27 onwards", "from Tuesday on" (at the end of a clause: "from Tuesday on diffusion" is that day),
# "from the 27th and later", "from May 27 up to today"; and "starting from" before it
_SINCE_AFTER = (
    rf"\s+(?:onwards?\b|forward\b|on(?=\s*(?:$|[?.!,;]))|and\s+(?:later|after)\b|(?:to|-|{_UNTIL})\s+(?:today|now)\b)"
)
_STARTING = r"\b(?:starting|beginning)\s+(?:from|on)\s+"


def find_time_window(question: str, today: dt.date) -> TimeWindow | None:
    """The first time expression in `question` as a window ending no later than `today`, or None."""
    q = question.lower()

    def window(start: dt.date, end: dt.date, match: re.Match[str]) -> TimeWindow:
        end = min(end, today)
        return TimeWindow(min(start, end), end, match.group(0).strip())

    rules: list[tuple[str, object]] = [
        # "between X and Y" is a range; "from X and Y" is two days (a list, read after the first)
        (rf"\b(?:between\s+({_DATE})\s+(?:and|to|until|-)|from\s+({_DATE})\s+(?:to|until|-))\s+({_DATE})", "range"),
        # "from May 26 until Thursday", "from Monday to May 29": a date and a day's name, the days between
        (rf"\bfrom\s+({_DATE})\s+(?:to|till|until|through|-)\s+({_WD})\b", "date_to_weekday"),
        (rf"\bfrom\s+(?:last\s+)?({_WD})\s+(?:to|till|until|through|-)\s+({_DATE})", "weekday_to_date"),
        (rf"\bsince\s+({_DATE})", "since_date"),
        # "from May 27 onwards", "from May 27 to today", "starting from May 27": since that day
        (rf"\bfrom\s+({_DATE}){_SINCE_AFTER}", "since_date"),
        (rf"{_STARTING}({_DATE})", "since_date"),
        # "papers from May 28": that day (or the list of days it begins), as "from Tuesday" is (issue 22)
        (rf"\bfrom\s+({_DATE})", "from_date"),
        (
            rf"\b(?:between\s+({_WD})\s+(?:and|to|until|through|-)|from\s+({_WD})\s+(?:to|until|through|-))"
            rf"\s+({_WD})\b",
            "weekday_range",
        ),
        (rf"\bsince\s+(?:last\s+)?({_WD})\b", "since_weekday"),
        (rf"\bfrom\s+(?:last\s+)?({_WD}){_SINCE_AFTER}", "since_weekday"),
        (rf"{_STARTING}(?:last\s+)?({_WD})\b", "since_weekday"),
        (rf"\bfrom\s+the\s+(\d{{1,2}})(?:st|nd|rd|th){_SINCE_AFTER}", "since_ordinal"),
        (
            rf"(?:\bsince\s+|{_STARTING})the\s+(\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:{_MON})\b)",
            "since_ordinal",
        ),
        (rf"\b(?:on\s+)?({_ISO})\b", "on_date"),
        # "up to today", "until today": every day before it too, the window every question has already ("restrict
        # to today" is today alone)
        (rf"{_NOT_AFTER_UNTIL}\btoday\b|\bthis morning\b", "today"),
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
        (r"\b(?:on|from)\s+(?=(?:the\s+)?\d)", "day_number"),  # days of a month named later: "on 26 and 28 May"
        (rf"\b({_BARE_DATE})", "on_date"),
        # "from the 29th", "on the 28th": that day of this month (of the last month when it is still to come)
        (rf"\b(?:on|from|of|for)\s+the\s+(\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:{_MON})\b)", "ordinal_day"),
        (rf"\b(?:on\s+|last\s+|from\s+(?:last\s+)?)({_WD})(?:'s)?\b", "on_weekday"),  # "from Tuesday": that day
        (rf"\b({_FULL_WD})\b", "on_weekday"),  # "T. Okita Thursday": a full day name alone
        (rf"\b(?:in|during|from)\s+({_MON})\.?(?:\s+(\d{{4}}))?\b", "in_month"),
        (r"\b(?:in|during)\s+(\d{4})\b", "in_year"),
    ]
    best: tuple[int, TimeWindow] | None = None
    for pattern, kind in rules:
        match = re.search(pattern, q)
        if not match:
            continue
        found = None if kind == "day_number" else _resolve(str(kind), match, today, window)
        if kind in _LIST_STARTS and (found is not None or kind == "day_number"):
            found = _listed_days(match, found, today, dated=kind in ("on_date", "from_date"))
        if found is not None and (best is None or match.start() < best[0]):
            best = (match.start(), found)
    return None if best is None else best[1]


# the rules whose match names one day (or "from <date>", or a day of a month named later) that may begin a list
_LIST_STARTS = frozenset({"on_date", "from_date", "on_weekday", "today", "yesterday", "day_number"})
_NAMES = "|".join(w for w in sorted(WEEKDAYS, key=len, reverse=True) if w not in ("sat", "sun"))
# an item of a list of days: a date, a day's name (not "sat" or "sun", which are words and surnames too), today or
# yesterday, or a bare day of a month ("May 26 and 27", "on 26 and 28 May"): a number that is not a share or a part
# of another number ("May 26 and 5%")
_LIST_ITEM = re.compile(
    rf"(?:on\s+)?(?:the\s+)?(?:(?P<date>{_DATE})|(?P<name>{_NAMES}|today|yesterday)"
    r"|(?P<number>\d{1,2})(?:st|nd|rd|th)?(?!\s*%|[.,:/-]\d))\b",
    re.IGNORECASE,
)
# what joins the items of a list ("Monday and Thursday", "Monday, Wednesday or Friday", "Monday & Thursday")
_LIST_JOINER = re.compile(r"(?:\s*,\s*|\s+)(?:(?:and|or|&|plus)\s+)?(?:(?:also|on|from)\s+)?(?=\S)", re.IGNORECASE)


def _listed_days(match: re.Match[str], found: TimeWindow | None, today: dt.date, *, dated: bool) -> TimeWindow | None:
    """The window of a rule's `match` that names one day (`found`, `dated` when it names the month), or of the list
    of days it begins ("on Monday and Thursday", "May 26, May 28 and May 30", "from May 26 and 27"): a list is that
    set of days, not its first, nor the range between them, nor "since". A bare number is a day of a month: of the
    date just before it when it counts up from that day ("May 26 and 27", never "May 26 and 3 more"), or, at the
    start of a list (no `found`), of the date the numbers count up to ("on the 26th and 28th May"; None without)."""
    q, last = match.string, match.end()
    days = [] if found is None else [found.start]
    ahead: list[int] = []  # days of a month a later item names
    at = last if found is None else _after_joiner(q, last)
    while at is not None and (item := _LIST_ITEM.match(q, at)):
        if item["number"]:
            number = int(item["number"])
            if days and dated and days[-1].day < number <= calendar.monthrange(days[-1].year, days[-1].month)[1]:
                days.append(days[-1].replace(day=number))
            elif not days and number > (ahead[-1] if ahead else 0):
                ahead.append(number)
            else:
                break
        else:
            day = _one_day(item, today)
            if day is None or (ahead and (not item["date"] or ahead[-1] >= day.day)):
                break
            days += [*(day.replace(day=n) for n in ahead), day]
            ahead, dated = [], bool(item["date"])
        last = item.end()
        at = _after_joiner(q, last)
    if found is not None and len(set(days)) == 1:
        return found
    if ahead or len(set(days)) < 2:
        return None
    ordered = tuple(sorted(set(days)))
    end = min(ordered[-1], today)
    return TimeWindow(min(ordered[0], end), end, q[match.start() : last].strip(), days=ordered)


def _after_joiner(q: str, at: int) -> int | None:
    """Where the next item of a list begins, when a joiner follows `at`."""
    joiner = _LIST_JOINER.match(q, at)
    return None if joiner is None else joiner.end()


def _one_day(item: re.Match[str], today: dt.date) -> dt.date | None:
    """The day an item of a list names, when it is not a bare number (a date after today is today, as a window
    never ends after it)."""
    if item["date"]:
        day = parse_date(item["date"], today)
        return None if day is None else min(day, today)
    name = item["name"].lower()
    if name in ("today", "yesterday"):
        return today - dt.timedelta(days=int(name == "yesterday"))
    return _last_weekday(today, WEEKDAYS[name])


def _resolve(
    kind: str, match: re.Match[str], today: dt.date, window: Callable[[dt.date, dt.date, re.Match[str]], TimeWindow]
) -> TimeWindow | None:
    if kind == "range":
        first = parse_date(match.group(1) or match.group(2), today)
        second = parse_date(match.group(3), today, allow_future=True)
        return window(first, second, match) if first and second else None
    if kind == "date_to_weekday":
        first = parse_date(match.group(1), today)
        if first is None:
            return None
        return window(first, first + dt.timedelta(days=(WEEKDAYS[match.group(2)] - first.weekday()) % 7), match)
    if kind == "weekday_to_date":
        second = parse_date(match.group(2), today, allow_future=True)
        return window(_last_weekday(today, WEEKDAYS[match.group(1)]), second, match) if second else None
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
    if kind in ("on_date", "from_date"):
        day = parse_date(match.group(1), today)
        return window(day, day, match) if day else None
    if kind in ("ordinal_day", "since_ordinal"):
        day = _ordinal_day(today, int(match.group(1)))
        return window(day, today if kind == "since_ordinal" else day, match) if day else None
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
