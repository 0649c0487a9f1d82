"""arXiv's announcement calendar: which day a submission (or a replacement) is announced on.

The rule (https://info.arxiv.org/help/availability.html): arXiv announces Sunday to Thursday at 20:00 US Eastern,
never on Friday or Saturday evenings nor on an arXiv holiday. An announcement evening takes everything received
before 14:00 US Eastern on its own day (Monday-Thursday) or on the Friday before (Sunday); later submissions wait
for the next announcement evening, so a holiday's submissions roll forward. The RSS feed of that announcement is
dated the next day (20:00 Eastern is midnight or 01:00 UTC), and that date is what paperscout calls the
announcement day: a paper submitted Tuesday 12:00 Eastern is announced on Wednesday, one submitted Friday 12:00
on Monday, one submitted Friday 15:00 on Tuesday.

Holidays are arXiv's published lists (2025 and 2026); a year without a list has only weekends off.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

EASTERN = ZoneInfo("America/New_York")
CUTOFF = dt.time(14, 0)  # US Eastern: submissions received before it make that day's announcement
ANNOUNCE_AT = dt.time(20, 0)  # US Eastern, on the evening before the announcement day
# how long after ANNOUNCE_AT a listing may still come (the feed is rebuilt around midnight Eastern, late ones by early
# morning): the ingest job polls this long, and a listing not stored by then is given up
LISTING_WAIT = dt.timedelta(hours=10)

# Evenings (US Eastern dates) without an announcement; the announcement day after each is skipped. A holiday on
# a Friday changes nothing (Friday evenings have no announcement anyway).
# 2026 from arXiv's schedule as recorded in /work/shared/PLATFORMS.md; 2025 from arXiv's published schedule
# (26 May is confirmed by the shared labelled data: there is no 2025-05-27 listing).
HOLIDAYS: frozenset[dt.date] = frozenset(
    dt.date.fromisoformat(day)
    for day in (
        "2025-01-01",
        "2025-01-20",
        "2025-05-26",
        "2025-06-19",
        "2025-07-04",
        "2025-09-01",
        "2025-11-27",
        "2025-12-25",
        "2025-12-31",
        "2026-01-01",
        "2026-01-19",
        "2026-06-19",
        "2026-07-03",
        "2026-09-07",
        "2026-11-26",
        "2026-12-25",
        "2026-12-29",
        "2026-12-31",
    )
)

_ONE_DAY = dt.timedelta(days=1)
_SUNDAY, _FRIDAY, _SATURDAY = 6, 4, 5


def is_announcement_evening(evening: dt.date) -> bool:
    """Whether arXiv announces at 20:00 US Eastern on `evening` (Sunday-Thursday, not a holiday)."""
    return evening.weekday() not in (_FRIDAY, _SATURDAY) and evening not in HOLIDAYS


def is_announcement_day(day: dt.date) -> bool:
    """Whether `day` has an arXiv listing (its RSS feed is dated `day`): Monday-Friday after a non-holiday evening."""
    return is_announcement_evening(day - _ONE_DAY)


def listing_given_up(day: dt.date) -> dt.datetime:
    """When announcement day `day`'s listing is no longer expected, in UTC: `LISTING_WAIT` after 20:00 US Eastern on
    the evening before (10:00 UTC in summer, 11:00 in winter)."""
    evening = dt.datetime.combine(day - _ONE_DAY, ANNOUNCE_AT, tzinfo=EASTERN).astimezone(dt.UTC)
    return evening + LISTING_WAIT


def announcement_days(start: dt.date, end: dt.date) -> list[dt.date]:
    """The announcement days from `start` to `end`, both included, oldest first (empty when end < start)."""
    days: list[dt.date] = []
    day = start
    while day <= end:
        if is_announcement_day(day):
            days.append(day)
        day += _ONE_DAY
    return days


def next_announcement_day(day: dt.date) -> dt.date:
    """The first announcement day on or after `day`."""
    while not is_announcement_day(day):
        day += _ONE_DAY
    return day


def previous_announcement_day(day: dt.date) -> dt.date:
    """The last announcement day strictly before `day`."""
    day -= _ONE_DAY
    while not is_announcement_day(day):
        day -= _ONE_DAY
    return day


def cutoff(day: dt.date) -> dt.datetime:
    """The submission deadline (aware, US Eastern) of announcement day `day`: 14:00 on the last weekday before it.

    `day` must be an announcement day.
    """
    if not is_announcement_day(day):
        raise ValueError(f"{day} is not an arXiv announcement day")
    deadline = day - _ONE_DAY
    while deadline.weekday() in (_SATURDAY, _SUNDAY):
        deadline -= _ONE_DAY
    return dt.datetime.combine(deadline, CUTOFF, tzinfo=EASTERN)


def announced_at(day: dt.date) -> dt.datetime:
    """When announcement day `day`'s listing goes out (aware, US Eastern): 20:00 on the evening before."""
    return dt.datetime.combine(day - _ONE_DAY, ANNOUNCE_AT, tzinfo=EASTERN)


def submission_window(day: dt.date) -> tuple[dt.datetime, dt.datetime]:
    """The submissions announced on `day` were received in [start, end) (aware, US Eastern)."""
    return cutoff(previous_announcement_day(day)), cutoff(day)


def announcement_day(submitted: dt.datetime) -> dt.date:
    """The announcement day of a submission or replacement received at `submitted` (aware; naive means UTC)."""
    if submitted.tzinfo is None:
        submitted = submitted.replace(tzinfo=dt.UTC)
    local = submitted.astimezone(EASTERN)
    # The first announcement day whose deadline is after the submission; it is at most a couple of weeks away.
    day = next_announcement_day(local.date())
    while cutoff(day) <= local:
        day = next_announcement_day(day + _ONE_DAY)
    return day


def latest_announcement_day(now: dt.datetime) -> dt.date:
    """The most recent announcement day whose listing had gone out at `now` (aware; naive means UTC)."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=dt.UTC)
    # The listing dated tomorrow (Eastern) goes out this evening, so the search starts there.
    day = next_announcement_day(now.astimezone(EASTERN).date() + _ONE_DAY)
    while announced_at(day) > now:
        day = previous_announcement_day(day)
    return day
