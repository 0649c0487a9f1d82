"""The schedule of `paperscout run`: ingest after arXiv's announcement, every digest at its local time, once.

One APScheduler `AsyncIOScheduler` (no second scheduler: Telegram's JobQueue is off) runs two jobs:

- **ingest**, Sunday to Thursday at 20:00 America/New_York (arXiv's announcement time, never the machine's zone):
  polls the RSS feed with growing pauses until its channel date moves past the last stored day with new or
  cross-listed papers, or until the cut-off, when it logs "no announcement" (weekends, arXiv holidays, a late
  feed that never came). Replacements only update papers already stored; they are never papers of the day.
- **digests**, every minute: for every channel target (and every member's personal digest) works out from the
  clock, the target's own time zone and the stored days which digests are due, and delivers them through the
  ledger (`bot.digests.delivery`). A minute's tick instead of one cron job per target is deliberate: settings changed in
  chat apply at the next tick without a restart, daylight-saving shifts are handled by `zoneinfo` when each
  local post time is computed (a post time that does not exist on a spring-forward day is taken an hour later,
  one that happens twice on a fall-back day counts once), and a restart catches up by the same rule.

A digest is due from its post time (local date of the announcement day at the target's `post_time`), or from
when the day's papers were stored if that is later (a post time before the announcement waits for it), until
`catchup_hours` after the post time; past that it is skipped and logged, so a bot that was down for a day does
not post yesterday's digest as today's. A weekly channel's digest is due at its post time on its weekday, covering
the seven days ending there (`bot.digests.due`), again no earlier than that weekday's papers were stored when it is an
announcement day, with the same catch-up; the ledger keys it by that weekday's date,
so a restart neither posts the week twice nor passes it over. When that weekday's listing never comes (the ingest
failed), the week goes out once the listing is given up, with the days that are stored and a note naming the missing
ones; its catch-up then counts from that moment.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
import zoneinfo
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from bot.core import Core
from bot.digests.build import build_channel_digest
from bot.digests.delivery import DeliveryResult, Poster, PreparedDigest, prepare, send_prepared
from bot.digests.due import DigestSchedule, due_days, parse_stored_at, split_by_catchup
from bot.digests.due import post_moment as schedule_post_moment
from bot.errors import PaperscoutError, explained
from bot.ingest.announce import LISTING_WAIT
from bot.models import Digest, Profile, Target
from bot.ops.logs import elapsed_ms, log_event

log = logging.getLogger(__name__)

ARXIV_ZONE = zoneinfo.ZoneInfo("America/New_York")
INGEST_HOUR = 20  # arXiv announces Sunday-Thursday at 20:00 US Eastern
INGEST_DAYS = "sun,mon,tue,wed,thu"
INGEST_PAUSES_MINUTES = (10, 20, 30, 30, 30, 60)  # between polls of an unchanged feed; the last one repeats
INGEST_CUTOFF_HOURS = LISTING_WAIT.total_seconds() / 3600  # after 20:00 ET (`bot.ingest.announce`)
TICK_SECONDS = 60
MISFIRE_GRACE_SECONDS = 300  # a tick delayed by a busy loop still runs (APScheduler's default is 1 s)
MAX_PARALLEL_POSTS = 64  # targets posted to at once; each platform's sender paces its own requests (1/s per chat)
DAYS_CONSIDERED = 10  # announcement days looked at per target and tick (catch-up is hours, not weeks)

Clock = Callable[[], dt.datetime]


def utc_now() -> dt.datetime:
    """The current time, timezone-aware (UTC)."""
    return dt.datetime.now(dt.UTC)


def post_moment(target: Target, day: dt.date) -> dt.datetime:
    """When the digest of announcement day `day` is meant to go out for `target`, in UTC (`bot.digests.due`)."""
    return schedule_post_moment(day, target.post_time, target.timezone)


@dataclass(frozen=True, slots=True)
class JobRun:
    """One run of a scheduled job: a `job_runs` row for `paperscout status`, and one log line when it ends."""

    core: Core
    job: str
    run_id: int
    started: float
    frequent: bool = False  # runs every minute: a run that found nothing to do logs at DEBUG only

    @classmethod
    async def start(cls, core: Core, job: str, *, frequent: bool = False) -> JobRun:
        """Record that `job` started now."""
        return cls(core, job, await core.repo.start_job_run(job), time.monotonic(), frequent)

    async def finish(self, outcome: str, detail: str) -> None:
        """Record how the run ended (ok, nothing, failed) and log it: a warning when it failed; a frequent job's
        run that found nothing only at DEBUG (else the minute's digest check says nothing 1,440 times a day)."""
        await self.core.repo.finish_job_run(self.run_id, outcome, detail)
        quiet = self.frequent and outcome == "nothing"
        log_event(
            log,
            "job finished",
            level=logging.WARNING if outcome == "failed" else logging.DEBUG if quiet else logging.INFO,
            event="job",
            job=self.job,
            outcome=outcome,
            detail=detail,
            duration_ms=elapsed_ms(self.started),
        )


@dataclass(frozen=True, slots=True)
class DueDays:
    """What a target should post now, and which days it missed beyond the catch-up window."""

    due: tuple[dt.date, ...]
    skipped: tuple[dt.date, ...]


def due_channel_days(
    target: Target,
    now: dt.datetime,
    days: Sequence[dt.date],
    last_sent: dt.date | None,
    stored_at: Mapping[dt.date, dt.datetime],
    catchup: dt.timedelta,
) -> DueDays:
    """The announcement days whose digest `target` should post at `now`, oldest first (see the module docstring); for
    a weekly channel, the date of its weekday ending a week with announcements (`bot.digests.due`)."""
    if target.schedule == "weekly":
        schedule = DigestSchedule("weekly", target.post_time, target.timezone, target.weekly_day)
        week = due_days(schedule, now, days, last_sent, stored_at=stored_at)
        weekly, late = split_by_catchup(schedule, week, now, catchup, stored_at)
        return DueDays(tuple(weekly), tuple(late))
    due: list[dt.date] = []
    skipped: list[dt.date] = []
    for day in sorted(set(days)):
        if last_sent is not None and day <= last_sent:
            continue
        planned = post_moment(target, day)
        ready = max(planned, stored_at.get(day, planned))
        if now < ready:
            continue
        (due if now - planned <= catchup else skipped).append(day)
    return DueDays(tuple(due), tuple(skipped))


class DigestJobs:
    """The digest tick: every due channel and personal digest, delivered once through the ledger."""

    def __init__(
        self, core: Core, posters: Mapping[str, Poster], *, clock: Clock = utc_now, catchup_hours: float = 6.0
    ) -> None:
        self.core = core
        self.posters = dict(posters)
        self.clock = clock
        self.catchup = dt.timedelta(hours=catchup_hours)
        self.stopping = False
        self._skip_logged: set[tuple[int, dt.date]] = set()

    async def tick(self) -> list[DeliveryResult]:
        """Deliver everything due now; one line per delivery in the log, a job-run row for `paperscout status`."""
        job = await JobRun.start(self.core, "digests", frequent=True)
        try:
            results = await self._deliver_due()
        except Exception as exc:
            await job.finish("failed", str(explained(exc)))
            raise
        sent = sum(1 for r in results if r.status == "sent")
        failed = sum(1 for r in results if r.status == "failed")
        outcome = "failed" if failed else ("ok" if sent else "nothing")
        await job.finish(outcome, f"{sent} sent, {failed} failed")
        return results

    async def _deliver_due(self) -> list[DeliveryResult]:
        now = self.clock()
        days = (await self.core.repo.announcement_days())[-DAYS_CONSIDERED:]
        stored_at: dict[dt.date, dt.datetime] = {}
        for day in days:
            stamp = await self.core.repo.day_stored_at(day)
            if stamp:
                stored_at[day] = parse_stored_at(stamp)
        work = []
        for target, profile in await self.core.repo.targets():
            poster = self.posters.get(target.platform)
            if poster is None or target.id is None:
                continue
            found = due_channel_days(
                target, now, days, await self.core.repo.last_sent_day(target.id), stored_at, self.catchup
            )
            for day in found.skipped:
                if (target.id, day) not in self._skip_logged:
                    self._skip_logged.add((target.id, day))
                    log.warning(
                        "digest for %s on %s skipped: its post time passed more than %s ago",
                        target.key,
                        day,
                        self.catchup,
                    )
            work += [(poster, target, profile, day) for day in found.due]
        gate = asyncio.Semaphore(MAX_PARALLEL_POSTS)
        # many channels often share a profile (a lab's reading groups): build each distinct digest once per tick
        built: dict[tuple[str, dt.date, tuple[str, ...], int, str], asyncio.Future[Digest]] = {}

        def build(target: Target, profile: Profile, day: dt.date) -> Awaitable[Digest]:
            key = (profile.fingerprint, day, tuple(target.categories), target.digest_size, target.schedule)
            if key not in built:
                built[key] = asyncio.ensure_future(build_channel_digest(self.core, target, profile, day))
            return asyncio.shield(built[key])

        async def ready(
            poster: Poster, target: Target, profile: Profile, day: dt.date
        ) -> PreparedDigest | DeliveryResult | None:
            async with gate:
                if self.stopping:  # no new sends once a stop was asked for; the ledger keeps it claimable
                    return None
                try:
                    return await prepare(self.core, poster, target, day, lambda: build(target, profile, day))
                except PaperscoutError as exc:
                    log.error("digest for %s on %s not built: %s", target.key, day, exc)
                    return DeliveryResult(target, day, "failed", str(exc))

        async def post(poster: Poster, prepared: PreparedDigest) -> DeliveryResult | None:
            async with gate:
                if self.stopping:
                    return None
                return await send_prepared(self.core, poster, prepared)

        # every due digest is built, frozen and rendered before the first send: a platform without an idempotency
        # key (Telegram) may repeat the one message accepted just before a crash, and a crash in the middle of the
        # fan-out leaves only sends to redo, not builds
        prepared = await asyncio.gather(*(ready(*w) for w in work))
        results = [r for r in prepared if isinstance(r, DeliveryResult)]
        sends = [post(w[0], p) for w, p in zip(work, prepared, strict=True) if isinstance(p, PreparedDigest)]
        results += [r for r in await asyncio.gather(*sends) if r is not None]
        if not self.stopping:
            from bot.members.personal import deliver_due_personal_digests

            for poster in self.posters.values():
                results += await deliver_due_personal_digests(self.core, poster, now, catchup=self.catchup)
        return results
