"""When a personal digest (or a weekly channel's) is due: pure functions of a schedule, the clock and the stored
announcement days.

A daily digest covers one announcement day and goes out at the user's time of day, in their time zone, on that
day's date there. arXiv announces around 00:00 UTC, so in time zones ahead of UTC the day's papers may arrive
after the user's time of day has passed: the digest is then due as soon as they are stored. Days missed while
the bot was down are caught up (at most `CATCH_UP_DAYS`, oldest first); a user who just opted in starts with the
latest day, not the archive.

A weekly digest covers the seven days ending on the user's weekday and goes out at their time on that weekday, or
when that weekday's papers were stored if it is an announcement day and they came later (else the next week starts
the day after and that day's papers would reach nobody). When that day's listing never comes (the ingest failed, an
unlisted holiday) the week does not wait for ever: it goes out once the listing is given up (`listing_given_up`),
with the days that are stored, and says which are missing (`unstored_days`). Its catch-up counts from when the
week could first go out (its last day's papers stored, or given up), since the wait was not downtime. Only the
latest missed week is caught up, and a week without any stored day is skipped.

The ledger still guards every (target, day): these functions only say what to attempt.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from bot.ingest.announce import announcement_days, is_announcement_day, listing_given_up

CATCH_UP_DAYS = 3  # missed daily digests sent after downtime; older ones are dropped rather than flooding a DM


@dataclass(frozen=True, slots=True)
class DigestSchedule:
    """A user's personal digest setting, as stored with the user."""

    mode: str  # off | daily | weekly
    post_time: str = "09:00"  # HH:MM, 24-hour, local time
    timezone: str = "UTC"  # IANA name
    weekly_day: int = 0  # 0 = Monday


def local_time(now: dt.datetime, timezone: str) -> dt.datetime:
    """`now` (timezone-aware) as wall-clock time in `timezone`; an unknown zone counts as UTC."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    try:
        zone: dt.tzinfo = zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = dt.UTC
    return now.astimezone(zone)


_HH_MM = re.compile(r"\d{1,2}:\d{2}")


def schedule_problems(post_time: str, timezone: str) -> list[str]:
    """What is wrong with a stored post time and time zone, each with what is used instead ([] when nothing)."""
    problems = []
    try:
        zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        problems.append(f"time zone {timezone[:60]!r} is unknown, so UTC is used")
    try:
        if not _HH_MM.fullmatch(post_time):
            raise ValueError
        hour, minute = (int(part) for part in post_time.split(":", 1))
        dt.time(hour, minute)
    except ValueError:
        problems.append(f"post time {post_time[:20]!r} is not a time like 09:00, so 09:00 is used")
    return problems


def _post_time(text: str) -> dt.time:
    try:
        hour, minute = (int(part) for part in text.split(":", 1))
        return dt.time(hour, minute)
    except ValueError:
        return dt.time(9, 0)


def post_moment(day: dt.date, post_time: str, timezone: str) -> dt.datetime:
    """When a digest meant for `post_time` local time on `day` in `timezone` goes out, in UTC.

    The local time is normalised through UTC, so a post time skipped by a spring-forward shift lands just after
    the gap and one repeated by a fall-back shift means its first occurrence: either way there is one moment.
    An unknown zone counts as UTC, an unreadable time as 09:00.
    """
    when = _post_time(post_time)
    try:
        zone: dt.tzinfo = zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = dt.UTC
    return dt.datetime.combine(day, when, tzinfo=zone).astimezone(dt.UTC)


def parse_stored_at(stamp: str) -> dt.datetime:
    """A stored-at stamp of the store ('YYYY-MM-DDTHH:MM:SSZ') as an aware UTC moment."""
    return dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)


def week_ready(week_end: dt.date, planned: dt.datetime, stored_at: Mapping[dt.date, dt.datetime]) -> dt.datetime:
    """When the week ending on `week_end` (meant for `planned`) may go out: `planned`, or if `week_end` is an
    announcement day, when its papers were stored if that is later, or when its listing is given up while it is not
    stored (the week then goes out with the days that are)."""
    if not is_announcement_day(week_end):
        return planned
    stored = stored_at.get(week_end)
    return max(planned, stored if stored is not None else listing_given_up(week_end))


def unstored_days(start: dt.date, end: dt.date, stored: Collection[dt.date]) -> list[dt.date]:
    """arXiv's announcement days from `start` to `end` with no stored papers, oldest first."""
    return [day for day in announcement_days(start, end) if day not in stored]


def split_by_catchup(
    schedule: DigestSchedule,
    days: Sequence[dt.date],
    now: dt.datetime,
    catchup: dt.timedelta,
    stored_at: Mapping[dt.date, dt.datetime] | None = None,
) -> tuple[list[dt.date], list[dt.date]]:
    """`days` (from `due_days`) as (still due, skipped): a digest whose post time passed more than `catchup` ago
    (the bot was down) is skipped rather than posted late. With `stored_at`, a week counts from when it could first
    go out (`week_ready`: its last day's papers stored, or that listing given up), since until then it waited on
    purpose: a listing that came late is not downtime any more than one that never came."""
    due: list[dt.date] = []
    skipped: list[dt.date] = []
    for day in days:
        since = post_moment(day, schedule.post_time, schedule.timezone)
        if schedule.mode == "weekly" and stored_at is not None:
            since = week_ready(day, since, stored_at)
        (due if now - since <= catchup else skipped).append(day)
    return due, skipped


def week_ending(day: dt.date, weekday: int) -> dt.date:
    """The date of the latest `weekday` (0 = Monday) on or before `day`: the day a weekly digest is filed under."""
    return day - dt.timedelta(days=(day.weekday() - weekday % 7) % 7)


def _posted_by(schedule: DigestSchedule, now: dt.datetime) -> dt.date:
    """The latest local date whose posting time has passed."""
    local = local_time(now, schedule.timezone)
    if local.time() >= _post_time(schedule.post_time):
        return local.date()
    return local.date() - dt.timedelta(days=1)


def due_days(
    schedule: DigestSchedule,
    now: dt.datetime,
    announcement_days: Sequence[dt.date],
    last_sent: dt.date | None,
    catch_up: int = CATCH_UP_DAYS,
    stored_at: Mapping[dt.date, dt.datetime] | None = None,
) -> list[dt.date]:
    """The digest days to post now, oldest first: announcement days for daily, weekday dates for weekly.

    With `stored_at` (when each stored day's papers came), a week ending on an announcement day waits for that day's
    papers, or until its listing is given up (`week_ready`); the catch-up counts from the post time, or from the
    give-up (`split_by_catchup`)."""
    if schedule.mode not in ("daily", "weekly"):
        return []
    until = _posted_by(schedule, now)
    if schedule.mode == "daily":
        days = sorted(d for d in set(announcement_days) if d <= until and (last_sent is None or d > last_sent))
        return days[-1:] if last_sent is None else days[-catch_up:]
    week_end = week_ending(until, schedule.weekly_day)
    if last_sent is not None and week_end <= last_sent:
        return []
    start = week_end - dt.timedelta(days=6)
    if not any(start <= d <= week_end for d in announcement_days):
        return []
    planned = post_moment(week_end, schedule.post_time, schedule.timezone)
    if stored_at is not None and now < week_ready(week_end, planned, stored_at):
        return []
    return [week_end]
