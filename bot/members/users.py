"""Members as individuals: personal digest settings, personal digests ranked with what they taught us, and privacy.

A user is identified by a key ``platform:id`` (``telegram:123``, ``discord:456``, ``console:alice``). Their profile is
stored under the owner ``user:<key>``; their thumbs up/down live in `bot.ranking.learn`. A personal digest never
repeats a
paper the user already got in a channel digest that day: the console knows its channels itself, and chat adapters
pass the ids of the channel targets the member belongs to (they know server/group membership, the core does not).
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import logging
import re
import zoneinfo
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from bot.core import Core
from bot.digests.build import attach_tldrs
from bot.digests.delivery import DeliveryResult, Poster, deliver
from bot.digests.due import DigestSchedule, due_days, split_by_catchup
from bot.digests.standing import ranked_candidates
from bot.errors import InputError, PaperscoutError
from bot.models import PERSONAL_CHAT_PREFIX, Digest, DigestSection, Profile, Target, UserRecord
from bot.ranking import learn
from bot.ranking.profiles import profile_to_mapping

log = logging.getLogger(__name__)

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_SKIP_LOGGED: set[tuple[str, dt.date]] = set()  # personal digests already logged as skipped by this process
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


# --- personal digests ---


def personal_target(user_key: str, profile: Profile, user: UserRecord | None, size: int) -> Target:
    """The target a user's personal digest is posted to: their DM on the user's platform."""
    platform, _, ident = user_key.partition(":")
    return Target(
        platform=platform,
        chat_id=PERSONAL_CHAT_PREFIX + ident,
        profile_name=profile.name,
        categories=profile.categories,
        post_time=user.post_time if user else "09:00",
        timezone=user.timezone if user else "UTC",
        digest_size=size,
    )


async def channel_targets_of(core: Core, user_key: str) -> list[int]:
    """Channel targets whose digests this user sees, where the core can know it: every console channel for a
    console user. Discord and Telegram adapters know membership and pass target ids to `personal_digest`."""
    platform = user_key.partition(":")[0]
    if platform == "console":
        return await core.repo.channel_target_ids("console")
    return []


async def personal_digest(
    core: Core,
    user_key: str,
    day: dt.date,
    *,
    weekly: bool = False,
    channel_targets: Sequence[int] | None = None,
    size: int | None = None,
    profile: Profile | None = None,
) -> Digest:
    """The user's digest of `day` (or of the 7 days ending on `day`), ranked with their profile and feedback.

    Papers the user already got in a channel digest (of `channel_targets`, default `channel_targets_of`) on those
    days, and papers they rated (a thumbs up or down, in onboarding too: they have seen them), are left out.
    A weekly digest starts on the first day of the week that has papers. `profile` saves a read when the caller
    has it.
    """
    profile = profile or await core.repo.get_profile(profile_owner(user_key))
    if profile is None:
        raise InputError("you have no personal profile yet; send /start to make one")
    size = size or core.settings.digest_size
    start = day - dt.timedelta(days=6) if weekly else day
    papers = await core.repo.papers_between(start, day, list(profile.categories) or None)
    targets = list(channel_targets) if channel_targets is not None else await channel_targets_of(core, user_key)
    already = await core.repo.sent_paper_ids(targets, start, day)
    rated = {f.paper_id for f in await core.repo.user_feedback_rows(user_key)}
    # every candidate is ranked, so a paper's standing is the one /why gives; then what the member has seen goes
    ranked = await ranked_candidates(core, profile, papers, user_key)
    fresh = [item for item in ranked if item.paper.id not in already and item.paper.id not in rated]
    items = await attach_tldrs(core, fresh[:size])
    sections: tuple[DigestSection, ...] = ()
    if weekly:  # the week as a topic tree; imported here, so scikit-learn loads only when a week is grouped
        from bot.topictree.digest import grouped_items

        items, sections = await grouped_items(core, items)
    notes = []
    seen = sum(1 for p in papers if p.id in already)
    if seen:
        notes.append(f"{_papers(seen)} you already got in a channel digest {'is' if seen == 1 else 'are'} left out.")
    hidden = sum(1 for p in papers if p.id in rated and p.id not in already)
    if hidden:
        notes.append(f"{_papers(hidden)} you already rated {'is' if hidden == 1 else 'are'} left out (/reactions).")
    if weekly and papers:
        start = min(p.announced for p in papers)
    if not papers and profile.categories:
        notes.append(f"No stored papers in your categories ({', '.join(profile.categories)}) on these days.")
    return Digest(
        day=day,
        profile_name=profile.name,
        scanned=len(papers),
        items=tuple(items),
        notes=tuple(notes),
        start=start,
        sections=sections,
    )


def _papers(count: int) -> str:
    return f"{count} paper" + ("" if count == 1 else "s")


async def _saved_personal_target(core: Core, user_key: str) -> tuple[Target, Profile, UserRecord | None]:
    """The user's personal digest target, saved (so it has an id for the ledger) and never channel-scheduled."""
    profile = await core.repo.get_profile(profile_owner(user_key))
    if profile is None:
        raise InputError(f"{user_key} has no personal profile")
    user = await core.repo.get_user(user_key)
    target = personal_target(user_key, profile, user, core.settings.digest_size)
    target = replace(target, id=await core.repo.save_target(target, profile_owner(user_key), scheduled=False))
    return target, profile, user


async def deliver_personal_digest(core: Core, poster: Poster, user_key: str, day: dt.date) -> DeliveryResult:
    """Build and post a user's personal digest for `day` once (the posting ledger guards against repeats).

    Holds the user's lock, so a /forget waits for a delivery in progress and a later one finds nothing to send.
    """
    async with core.user_locks(user_key):
        target, profile, user = await _saved_personal_target(core, user_key)
        weekly = user is not None and user.digest_mode == "weekly"
        return await deliver(
            core,
            poster,
            target,
            day,
            lambda: personal_digest(core, user_key, day, weekly=weekly, profile=profile),
        )


async def deliver_due_personal_digests(
    core: Core,
    poster: Poster,
    now: dt.datetime,
    *,
    catchup: dt.timedelta | None = None,
) -> list[DeliveryResult]:
    """Post every personal digest of `poster`'s platform that is due at `now` (see bot/digests/due.py).

    With `catchup` (`paperscout run`), a digest whose post time passed longer ago than that is skipped and logged.

    Meant to be called every few minutes by a scheduler. One user's failure is logged and reported, never
    stops the others; a member the platform no longer lets the bot write to has their digest turned off
    (`bot.digests.delivery.retire`), so it is not tried again every minute.
    """
    days = await core.repo.announcement_days()
    results: list[DeliveryResult] = []
    for user in await core.repo.users_with_digest():
        if user.key.partition(":")[0] != poster.platform:
            continue
        schedule = DigestSchedule(user.digest_mode, user.post_time, user.timezone, user.weekly_day)
        try:
            # read-only until something is due: this runs for every member every few minutes
            targets = await core.repo.targets_of_profile(profile_owner(user.key))
            if not targets and await core.repo.get_profile(profile_owner(user.key)) is None:
                log.debug("%s opted in to a personal digest but has no profile yet", user.key)
                continue
            personal = [t for t in targets if t.chat_id.startswith(PERSONAL_CHAT_PREFIX) and t.id is not None]
            last_sent = await core.repo.last_sent_day(personal[0].id) if personal and personal[0].id else None
            due = due_days(schedule, now, days, last_sent)
            if catchup is not None and due:
                due, skipped = split_by_catchup(schedule, due, now, catchup)
                for day in skipped:
                    if (user.key, day) not in _SKIP_LOGGED:
                        _SKIP_LOGGED.add((user.key, day))
                        log.warning(
                            "personal digest for %s on %s skipped: its post time passed over %s ago",
                            user.key,
                            day,
                            catchup,
                        )
            for day in due:
                result = await deliver_personal_digest(core, poster, user.key, day)
                results.append(result)
                if result.permanent:  # its digest is off now: the other due days would fail the same way
                    break
        except Exception as exc:  # one member's trouble (even a bug) must not cost the others their digest
            if isinstance(exc, PaperscoutError):
                log.warning("personal digest for %s not posted: %s", user.key, exc)
            else:
                log.exception("personal digest for %s failed", user.key)
            unsaved = personal_target(user.key, Profile(name=user.display_name or user.key, topics=()), user, 0)
            results.append(DeliveryResult(unsaved, now.date(), "failed", str(exc)))
    return results


# --- privacy ---


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


async def export_user(core: Core, user_key: str) -> dict[str, Any]:
    """Everything paperscout stores about a user, as plain data they can read."""
    owner = profile_owner(user_key)
    user = await core.repo.get_user(user_key)
    profile = await core.repo.get_profile(owner)
    feedback = await core.repo.user_feedback_rows(user_key)
    targets = await core.repo.targets_of_profile(owner)
    sent = await core.repo.sent_papers_by_day([t.id for t in targets if t.id is not None])
    flows = await core.repo.chat_states_of(user_key)
    questions = await core.repo.conversations_of(user_key)
    return {
        "user_key": user_key,
        "stored": user is not None or profile is not None or bool(feedback) or bool(questions) or bool(flows),
        "user": None
        if user is None
        else {"display_name": user.display_name, "created_at": user.created_at, "updated_at": user.updated_at},
        "personal_digest": None
        if user is None
        else {
            "mode": user.digest_mode,
            "post_time": user.post_time,
            "timezone": user.timezone,
            "weekly_day": WEEKDAYS[user.weekly_day % 7],
        },
        "profile": profile_to_mapping(profile) if profile else None,
        "feedback": [
            {"paper_id": f.paper_id, "title": f.title, "rating": "up" if f.value > 0 else "down", "at": f.at}
            for f in feedback
        ],
        "feedback_vectors": "derived from the papers you rated; deleted with them by /reactions reset or /forget",
        "chat_state": [
            {"kind": kind, "where": scope or "everywhere", "state": _json_or_text(data), "at": at}
            for kind, scope, data, at in flows
        ],
        "last_questions": [
            {"conversation": conversation, "context": _json_or_text(state), "at": at}
            for conversation, state, at in questions
        ],
        "personal_targets": [t.key for t in targets],
        "personal_digests_sent": [{"day": d.isoformat(), "papers": ids} for d, ids in sorted(sent.items())],
    }


async def forget_user(core: Core, user_key: str) -> dict[str, int]:
    """Delete everything stored about a user: feedback and its vectors, profile, personal targets and their
    ledger, settings, any unfinished onboarding and their last questions. Returns how many rows of each kind went;
    safe to repeat."""
    # the user's lock: an onboarding step or a delivery in flight must not store anything afterwards
    async with core.user_locks(user_key), learn.forgetting(core, user_key):
        owner = profile_owner(user_key)
        profile = await core.repo.get_profile(owner)
        if profile is not None:
            core.profile_cache.pop(profile.fingerprint, None)
        targets = await core.repo.targets_of_profile(owner)
        usage_targets = [owner, f"ask:{user_key}", *(t.key for t in targets)]
        return await core.repo.delete_user(user_key, owner, usage_targets=usage_targets)
