"""Personal digests: a member's daily or weekly digest, ranked with what their thumbs up/down taught the ranker.

A personal digest never repeats a paper the member already got in a channel digest that day: the console knows its
channels itself, and chat front ends pass the ids of the channel targets the member belongs to (they know server and
group membership, the core does not).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import replace

from bot.core import Core
from bot.digests.build import attach_tldrs, missing_days_note
from bot.digests.delivery import DeliveryResult, Poster, deliver
from bot.digests.due import DigestSchedule, due_days, parse_stored_at, split_by_catchup
from bot.digests.standing import day_standings, ranked_candidates
from bot.errors import InputError, PaperscoutError, explained, failure_kind
from bot.members.settings import profile_owner
from bot.models import PERSONAL_CHAT_PREFIX, Digest, DigestSection, Profile, Target, UserRecord

log = logging.getLogger(__name__)

_SKIP_LOGGED: set[tuple[str, dt.date]] = set()  # personal digests already logged as skipped by this process


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
    if weekly:  # each paper's standing on its own day, as /why gives it
        items = await day_standings(core, profile, items, user_key=user_key)
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
    gaps = await missing_days_note(core, day - dt.timedelta(days=6), day) if weekly else ""
    if gaps:
        notes.append(gaps)
    return Digest(
        day=day,
        profile_name=profile.name,
        scanned=len(papers),
        items=tuple(items),
        notes=tuple(notes),
        start=start,
        sections=sections,
        by_day=weekly,
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
    stored_at: dict[dt.date, dt.datetime] = {}  # a week ending on an announcement day waits for its papers
    for day in days[-7:]:
        stamp = await core.repo.day_stored_at(day)
        if stamp:
            stored_at[day] = parse_stored_at(stamp)
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
            due = due_days(schedule, now, days, last_sent, stored_at=stored_at)
            if catchup is not None and due:
                due, skipped = split_by_catchup(schedule, due, now, catchup, stored_at)
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
            known = explained(exc)  # a refused thread is the operator's to fix: one line saying how, no traceback
            if isinstance(known, PaperscoutError):
                log.warning("personal digest for %s not posted: %s", user.key, known)
            else:
                log.exception("personal digest for %s failed", user.key)
            unsaved = personal_target(user.key, Profile(name=user.display_name or user.key, topics=()), user, 0)
            results.append(DeliveryResult(unsaved, now.date(), "failed", failure_kind(exc)))
    return results
