"""`paperscout run`: one asyncio process with the core, the configured front ends and one scheduler.

The registered front ends (`bot.frontend`) start when they are enabled (their token is set); with none, the fallback
(the console) is the front end and digests of console targets (set up with `/setup` in `paperscout console`) are
printed. The process holds the archive's writer lock for its whole life. SIGTERM and SIGINT stop it cleanly: no new
send starts, the one in flight finishes (or, past a grace period, is left claimable in the ledger, to be resumed
after its last recorded message), an ingest under way is cancelled at once (what it stored stays; the next run
fetches the rest), the front ends stop and the database closes.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import signal
from collections.abc import Awaitable, Callable
from typing import Any

from bot.config import Settings
from bot.core import Core
from bot.digests.delivery import Poster
from bot.errors import explained, thread_refused
from bot.frontend import Running, front_ends
from bot.ingest.nightly import PollOutcome, catch_up_missed_days, ingest_until_announced, poll_once
from bot.ops.heartbeat import HEARTBEAT_SECONDS, beat
from bot.ops.scheduler import (
    ARXIV_ZONE,
    INGEST_CUTOFF_HOURS,
    INGEST_DAYS,
    INGEST_HOUR,
    INGEST_PAUSES_MINUTES,
    MISFIRE_GRACE_SECONDS,
    TICK_SECONDS,
    Clock,
    DigestJobs,
    JobRun,
    utc_now,
)

log = logging.getLogger(__name__)

STOP_GRACE_SECONDS = 15.0  # how long a stop waits for the digest in flight before leaving it claimable


async def start_front_ends(core: Core, settings: Settings) -> list[Running]:
    """The registered front ends that are enabled (their tokens set), started; with none, the fallback ones (the
    console, which prints digests)."""
    registered = front_ends()
    chosen = [f for f in registered if f.start is not None and f.enabled(settings)]
    if not chosen:
        chosen = [f for f in registered if f.start is not None and f.fallback]
        log.info("no chat token set: %s", ", ".join(f.title for f in chosen) or "no front end")
    started: list[Running] = []
    try:
        for front_end in chosen:
            assert front_end.start is not None
            started.append(await front_end.start(core, settings))
    except BaseException:
        for running in started:
            await running.stop()
        raise
    return started


class Runner:
    """The scheduler, its jobs and the front ends of one `paperscout run` process."""

    def __init__(self, core: Core, posters: dict[str, Poster], *, clock: Clock = utc_now) -> None:
        from apscheduler.schedulers.asyncio import AsyncIOScheduler

        self.core = core
        self.clock = clock
        self.jobs = DigestJobs(core, posters, clock=clock, catchup_hours=core.settings.catchup_hours)
        # coalesce and max_instances: a late tick runs once, never twice at a time; the grace period keeps a
        # tick delayed by a busy loop from being dropped (APScheduler's default grace is one second)
        self.scheduler = AsyncIOScheduler(
            timezone=dt.UTC,
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": MISFIRE_GRACE_SECONDS},
        )
        self._running: dict[asyncio.Task[Any], str] = {}  # task -> job name

    async def settle_journal(self) -> int:
        """Move what the sent-message journal holds into the ledger, then empty it (this process is the writer)."""
        journal = self.core.sent_journal
        if journal is None:
            return 0
        entries = journal.entries()
        for target_id, day, seq, message_id in entries:
            await self.core.repo.record_message(target_id, day, seq, message_id)
        journal.clear()
        return len(entries)

    def start(self) -> None:
        """Schedule the jobs: digests every minute from now (a catch-up on start), ingest on announcement nights."""
        from apscheduler.triggers.cron import CronTrigger
        from apscheduler.triggers.interval import IntervalTrigger

        self.scheduler.add_job(
            self._guarded(self.jobs.tick, "digests"),
            IntervalTrigger(seconds=TICK_SECONDS, timezone=dt.UTC),
            id="digests",
            next_run_time=self.clock(),
        )
        self.scheduler.add_job(
            self._guarded(self.ingest_night, "ingest"),
            CronTrigger(day_of_week=INGEST_DAYS, hour=INGEST_HOUR, minute=0, timezone=ARXIV_ZONE),
            id="ingest",
            misfire_grace_time=int(INGEST_CUTOFF_HOURS * 3600),  # started late is still worth polling
        )
        self.scheduler.add_job(
            self._guarded(self.heartbeat, "heartbeat"),
            IntervalTrigger(seconds=HEARTBEAT_SECONDS, timezone=dt.UTC),
            id="heartbeat",
            next_run_time=self.clock(),
        )
        self.scheduler.start()
        self._track(asyncio.ensure_future(self._guarded(self.catch_up_feed, "ingest")()), "ingest")

    def _guarded(self, job: Callable[[], Awaitable[object]], name: str) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            if self.jobs.stopping:
                return
            task = asyncio.current_task()
            if task is not None:
                self._track(task, name)
            try:
                await job()
            except Exception as exc:  # one failed run must not stop the schedule; it is logged and recorded
                refused = thread_refused(exc)
                if refused is None:
                    log.exception("%s job failed", name)
                else:  # nothing in a traceback would help: the machine is out of threads
                    log.error("%s job failed: %s", name, refused)

        return run

    def _track(self, task: asyncio.Task[Any], name: str) -> None:
        self._running[task] = name
        task.add_done_callback(lambda done: self._running.pop(done, None))

    async def heartbeat(self) -> None:
        """Tell `paperscout doctor --running` (a container healthcheck) that the event loop still turns."""
        # on the loop itself (one small file write): through the thread pool, a pool busy with long work would
        # delay the beat and make a live bot look stuck
        beat(self.core.settings.home)

    async def catch_up_feed(self) -> PollOutcome | None:
        """On start: the days missed while down from arXiv's API, then one look at the feed for the latest one."""
        await self.catch_up_missed()
        job = await JobRun.start(self.core, "ingest")
        try:
            outcome = await poll_once(self.core)
        except Exception as exc:
            await job.finish("failed", f"start-up check of the feed: {explained(exc)}")
            return None
        await job.finish("ok" if outcome.announced else "nothing", f"start-up check of the feed: {outcome.detail}")
        return outcome

    async def catch_up_missed(self) -> list[dt.date]:
        """Days announced while the process was down, older than the feed's current one, from arXiv's API."""
        job = await JobRun.start(self.core, "catch-up")
        try:
            days = await catch_up_missed_days(self.core, self.clock())
        except Exception as exc:  # arXiv's API down: the digests of those days are simply not posted
            await job.finish("failed", f"catching up missed days from the arXiv API: {explained(exc)}")
            return []
        detail = ", ".join(map(str, days)) or "no day missed"
        await job.finish("ok" if days else "nothing", detail)
        return days

    async def ingest_night(self) -> PollOutcome:
        """The announcement-night job: poll until the day is stored or the cut-off ("no announcement")."""
        job = await JobRun.start(self.core, "ingest")
        deadline = self.clock() + dt.timedelta(hours=INGEST_CUTOFF_HOURS)
        try:
            outcome = await ingest_until_announced(
                self.core, deadline=deadline, pauses_minutes=INGEST_PAUSES_MINUTES, clock=self.clock
            )
        except Exception as exc:
            await job.finish("failed", str(explained(exc)))
            raise
        await job.finish("ok" if outcome.announced else "nothing", outcome.detail)
        return outcome

    async def stop(self) -> None:
        """No new sends; wait a little for the ones in flight, then cancel what is left (it stays claimable)."""
        self.jobs.stopping = True
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        pending = [t for t in self._running if not t.done() and t is not asyncio.current_task()]
        # only a digest in flight is worth a wait; an ingest or a heartbeat is cancelled now
        late = {t for t in pending if self._running.get(t) != "digests"}
        sending = [t for t in pending if t not in late]
        if sending:
            _, unfinished = await asyncio.wait(sending, timeout=STOP_GRACE_SECONDS)
            late |= unfinished
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)


async def run_until_stopped(core: Core, settings: Settings, stop: asyncio.Event | None = None) -> int:
    """Start everything, run until SIGTERM/SIGINT (or `stop` is set), then stop cleanly."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    started = await start_front_ends(core, settings)
    posters: dict[str, Poster] = {}
    for front_end in started:
        posters[front_end.poster.platform] = front_end.poster
    runner = Runner(core, posters)
    settled = await runner.settle_journal()
    if settled:
        log.info("%d sent messages from before a crash recorded in the ledger", settled)
    runner.start()
    log.info("paperscout run: %s; digests checked every %ds", ", ".join(sorted(posters)), TICK_SECONDS)
    try:
        await stop.wait()
    finally:
        log.info("stopping: no new sends; waiting for the one in flight")
        await runner.stop()
        for front_end in started:
            await front_end.stop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
    log.info("paperscout run stopped")
    return 0
