"""The nightly ingest of `paperscout run`: one poll of the RSS feed, polling until the day is announced, and the
days missed while the process was down, from arXiv's API.

A day counts as announced only when the feed's channel date moves past the last day stored and the feed lists
new or cross-listed papers: an empty feed (weekend, arXiv holiday) or an unchanged one (not rebuilt yet) is
not a day, so nothing is stored and no digest can be posted for it. Replacements only update papers that are
stored already; a replaced paper is never one of the day's new papers.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.core import Core
from bot.errors import FeedError, SourceUnavailable
from bot.ingest.announce import announcement_days, latest_announcement_day
from bot.ingest.arxiv_api import Backfill, fetch_range
from bot.ingest.rss import RssDay, fetch_rss
from bot.ingest.save import store_papers

log = logging.getLogger(__name__)

NEW_TYPES = ("new", "cross")
MAX_CATCH_UP_DAYS = 5  # a week of downtime at most; beyond that `paperscout ingest --since` is the tool
CATCH_UP_MAX_RESULTS = 5000


@dataclass(frozen=True, slots=True)
class PollOutcome:
    """What one poll of the feed found: a new day (stored), or why there was none."""

    announced: bool
    day: dt.date | None
    detail: str


async def poll_once(core: Core, fetch: Callable[..., Awaitable[RssDay]] = fetch_rss) -> PollOutcome:
    """Fetch the feed once; store the day's papers when a new day is announced."""
    feed = await fetch(core.settings, core.settings.categories, include_replacements=True)
    latest = await core.repo.latest_day()
    fresh = [p for p in feed.papers if p.announce_type in NEW_TYPES]
    if latest is not None and feed.announced <= latest:
        return PollOutcome(False, feed.announced, f"feed still dated {feed.announced} (stored up to {latest})")
    if not fresh:
        return PollOutcome(False, feed.announced, f"feed dated {feed.announced} lists no new papers")
    replaced = [p for p in feed.papers if p.announce_type not in NEW_TYPES]
    known = {p.id for p in await core.repo.get_papers([p.id for p in replaced])}
    report = await store_papers(core, [*fresh, *(p for p in replaced if p.id in known)])
    return PollOutcome(True, feed.announced, f"{feed.announced}: {report.line()}")


async def ingest_until_announced(
    core: Core,
    *,
    deadline: dt.datetime,
    pauses_minutes: tuple[float, ...],
    clock: Callable[[], dt.datetime],
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    fetch: Callable[..., Awaitable[RssDay]] = fetch_rss,
) -> PollOutcome:
    """Poll with growing pauses until a new day is stored or `deadline` passes ("no announcement")."""
    attempt = 0
    while True:
        try:
            outcome = await poll_once(core, fetch)
        except (SourceUnavailable, FeedError) as exc:  # arXiv down or a broken answer: try again later
            outcome = PollOutcome(False, None, f"feed unavailable: {exc}")
        log.info("ingest poll %d: %s", attempt + 1, outcome.detail)
        if outcome.announced:
            return outcome
        pause = pauses_minutes[min(attempt, len(pauses_minutes) - 1)] * 60
        if clock() + dt.timedelta(seconds=pause) > deadline:
            return PollOutcome(
                False, outcome.day, f"no announcement by {deadline:%Y-%m-%d %H:%M} UTC: {outcome.detail}"
            )
        attempt += 1
        await sleep(pause)


async def catch_up_missed_days(
    core: Core,
    now: dt.datetime,
    fetch: Callable[..., Awaitable[Backfill]] = fetch_range,
    *,
    max_days: int = MAX_CATCH_UP_DAYS,
) -> list[dt.date]:
    """Store the announcement days missed while the process was down, from arXiv's API; returns them.

    Only days after the last stored one and before the latest listing that has gone out are considered (that one
    comes from the RSS feed, with its cross-lists and replacements; never the archive before the first day
    stored), at most `max_days` of the most recent. The API knows submission times,
    not listings, so each paper is put on the announcement day of its first version's submission
    (`bot.ingest.announce`); replacements of those days are not listed by the API and are not needed.
    """
    latest = await core.repo.latest_day()
    if latest is None:
        return []
    missed = announcement_days(latest + dt.timedelta(days=1), latest_announcement_day(now))[:-1][-max_days:]
    if not missed:
        return []
    # fetch_range takes announcement days and files each paper under its own (bot.ingest.announce).
    backfill = await fetch(core.settings, core.settings.categories, missed[0], missed[-1], CATCH_UP_MAX_RESULTS)
    if backfill.incomplete:
        log.warning("%s", backfill.line())
    wanted = set(missed)
    found = [p for p in backfill.papers if p.announced in wanted]
    if found:
        report = await store_papers(core, found)
        log.info("caught up %s from the arXiv API: %s", ", ".join(map(str, missed)), report.line())
    stored = sorted({p.announced for p in found})
    for day in sorted(wanted - set(stored)):
        log.info("caught up nothing for %s: the API lists no paper submitted for it", day)
    return stored
