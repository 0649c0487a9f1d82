"""A member's key and the personal digest settings a person types: time, time zone, weekday, and their summary.

A user is identified by a key ``platform:id`` (``telegram:123``, ``discord:456``, ``console:alice``); their profile is
stored under the owner ``user:<key>``.
"""

from __future__ import annotations

import difflib
import re
import zoneinfo
from collections.abc import Sequence
from functools import cache

from bot.errors import InputError
from bot.models import UserRecord

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MAX_USER_KEY = 200

_USER_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,31}:[^\s\x00-\x1f]{1,160}$")


class SettingError(InputError):
    """A digest setting that cannot be used; `suggestions` holds values the person may have meant."""

    def __init__(self, message: str, suggestions: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.suggestions = tuple(suggestions)


def check_user_key(key: str) -> str:
    """Return `key` if it has the form platform:id, else raise `InputError`."""
    if len(key) > MAX_USER_KEY or not _USER_KEY.match(key):
        raise InputError(f"not a user key (platform:id): {key[:40]!r}")
    return key


def profile_owner(user_key: str) -> str:
    """The profiles-table owner of a user's personal profile."""
    return "user:" + user_key


# --- digest settings typed by a person ---

_TIME = re.compile(r"^(\d{1,2})(?:\s*[:.h]\s*(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$")


def parse_post_time(text: str) -> str:
    """'9', '9:30', '21.00', '7pm', '07:30 a.m.' -> 'HH:MM' (24-hour); raises `SettingError`."""
    cleaned = text.strip().lower()
    match = _TIME.match(cleaned) if len(cleaned) <= 12 else None
    if not match:
        raise SettingError(f"{text.strip()[:20]!r} is not a time of day (try 09:00, 18:30 or 7pm)")
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    suffix = (match.group(3) or "").replace(".", "")
    if suffix:
        if not 1 <= hour <= 12:
            raise SettingError(f"{hour}{suffix} is not a time; with am/pm the hour is 1-12")
        hour = hour % 12 + (12 if suffix == "pm" else 0)
    if hour > 23 or minute > 59:
        raise SettingError(f"{text.strip()!r} is not a time of day; use 00:00 to 23:59")
    return f"{hour:02d}:{minute:02d}"


@cache
def _zones() -> dict[str, str]:
    return {name.lower(): name for name in zoneinfo.available_timezones() if "/" in name or name == "UTC"}


_OFFSET = re.compile(r"^(?:utc|gmt)?\s*([+-])\s*(\d{1,2})$")


def parse_timezone(text: str) -> str:
    """An IANA time zone from what a person types ('europe/berlin', 'Berlin', 'UTC+2'); raises `SettingError`."""
    cleaned = text.strip()
    if not cleaned or len(cleaned) > 64:
        raise SettingError("time zones look like Europe/Berlin, America/New_York or UTC")
    lowered = cleaned.lower().replace(" ", "_")
    if lowered in {"utc", "gmt", "z", "zulu"}:
        return "UTC"
    zones = _zones()
    if lowered in zones:
        return zones[lowered]
    offset = _OFFSET.match(lowered.replace("_", ""))
    if offset:
        hours = int(offset.group(2))
        if hours > 14:
            raise SettingError(f"{cleaned!r}: UTC offsets run from -12 to +14")
        if hours == 0:
            return "UTC"
        # POSIX-style Etc zones have the sign inverted: UTC+2 is Etc/GMT-2.
        return f"Etc/GMT{'-' if offset.group(1) == '+' else '+'}{hours}"
    by_city = [name for low, name in zones.items() if low.rsplit("/", 1)[-1] == lowered]
    if len(by_city) == 1:
        return by_city[0]
    suggestions = by_city or [zones[z] for z in difflib.get_close_matches(lowered, list(zones), n=3, cutoff=0.6)]
    if not suggestions:
        cities = {low.rsplit("/", 1)[-1]: name for low, name in zones.items()}
        suggestions = [cities[c] for c in difflib.get_close_matches(lowered, list(cities), n=3, cutoff=0.7)]
    raise SettingError(f"{cleaned[:64]!r} is not a time zone I know", suggestions)


def parse_weekday(text: str) -> int:
    """'monday', 'Mon', 'tu' -> 0..6 (Monday = 0); raises `SettingError`."""
    cleaned = text.strip().lower()
    if len(cleaned) >= 2:
        found = [i for i, day in enumerate(WEEKDAYS) if day.lower().startswith(cleaned)]
        if len(found) == 1:
            return found[0]
    raise SettingError("name a day of the week, e.g. Monday")


def describe_settings(user: UserRecord | None) -> str:
    """One line about a user's personal digest setting."""
    if user is None or user.digest_mode == "off":
        return "Personal digest: off"
    when = f"every {WEEKDAYS[user.weekly_day % 7]}" if user.digest_mode == "weekly" else "every announcement day"
    return f"Personal digest: {user.digest_mode}, {when} at {user.post_time} ({user.timezone})"
