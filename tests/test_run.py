"""`paperscout run`'s schedule and delivery: due days in the target's zone (DST included), catch-up after
downtime, message-level exactly-once with a frozen digest, the nightly ingest's notion of "announced", the
writer lock, and `paperscout status`."""

from __future__ import annotations

import asyncio
import datetime as dt
import fcntl
import sqlite3
import threading
import time
import zoneinfo
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from bot.config import Settings
from bot.core import Core
from bot.digests.delivery import DeliveryError, deliver_digest
from bot.errors import StateError
from bot.ingest.nightly import ingest_until_announced, poll_once
from bot.ingest.rss import RssDay
from bot.models import Digest, Paper, Profile, Target, Topic
from bot.ops.scheduler import DigestJobs, due_channel_days, post_moment
from bot.ops.status import next_ingest, status_report, status_text
from bot.store.archive_lock import LOCK_FILE, hold_archive
from tests.conftest import StoreDay

UTC = dt.UTC
PROFILE = Profile(name="lab", topics=(Topic("graphs", "graph neural networks"),))


def target(zone: str, post_time: str, chat: str = "1") -> Target:
    return Target(platform="test", chat_id=chat, profile_name="lab", post_time=post_time, timezone=zone, digest_size=3)


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


# --- when a digest is due (pure) ---


def test_a_digest_is_due_from_its_local_post_time_and_waits_for_a_late_announcement() -> None:
    day = dt.date(2026, 6, 1)
    berlin = target("Europe/Berlin", "09:00")  # 07:00 UTC in summer
    stored = {day: at("2026-06-01T04:30:00")}
    six = dt.timedelta(hours=6)
    assert due_channel_days(berlin, at("2026-06-01T06:59:00"), [day], None, stored, six).due == ()
    assert due_channel_days(berlin, at("2026-06-01T07:00:00"), [day], None, stored, six).due == (day,)
    assert due_channel_days(berlin, at("2026-06-01T07:00:00"), [day], day, stored, six).due == ()  # sent already
    tokyo = target("Asia/Tokyo", "09:00")  # 00:00 UTC: before the papers are stored, so it waits for them
    assert due_channel_days(tokyo, at("2026-06-01T03:00:00"), [day], None, stored, six).due == ()
    assert due_channel_days(tokyo, at("2026-06-01T04:31:00"), [day], None, stored, six).due == (day,)


def test_downtime_two_hours_late_posts_eight_hours_late_skips() -> None:
    day = dt.date(2026, 6, 1)
    utc9 = target("UTC", "09:00")
    stored = {day: at("2026-06-01T04:00:00")}
    six = dt.timedelta(hours=6)
    assert due_channel_days(utc9, at("2026-06-01T11:00:00"), [day], None, stored, six).due == (day,)
    late = due_channel_days(utc9, at("2026-06-01T17:00:00"), [day], None, stored, six)
    assert late.due == () and late.skipped == (day,)


@pytest.mark.parametrize(
    ("zone", "day", "post_time"),
    [
        ("America/New_York", dt.date(2026, 3, 8), "02:30"),  # spring forward: 02:30 does not exist
        ("America/New_York", dt.date(2026, 11, 1), "01:30"),  # fall back: 01:30 happens twice
        ("Europe/Berlin", dt.date(2026, 3, 29), "02:30"),
        ("Europe/Berlin", dt.date(2026, 10, 25), "02:30"),
    ],
)
def test_dst_days_have_exactly_one_post_moment(zone: str, day: dt.date, post_time: str) -> None:
    tgt = target(zone, post_time)
    moment = post_moment(tgt, day)
    local = moment.astimezone(zoneinfo.ZoneInfo(zone))
    assert local.date() == day and abs(local.hour - int(post_time[:2])) <= 1
    # ticking every minute over the day: it becomes due at one moment and, once sent, never again
    stored = {day: dt.datetime(day.year, day.month, day.day, tzinfo=UTC) - dt.timedelta(hours=1)}
    now = dt.datetime(day.year, day.month, day.day, tzinfo=UTC) - dt.timedelta(hours=12)
    sent: list[dt.datetime] = []
    last_sent = None
    while now < dt.datetime(day.year, day.month, day.day, tzinfo=UTC) + dt.timedelta(hours=36):
        if due_channel_days(tgt, now, [day], last_sent, stored, dt.timedelta(hours=6)).due:
            sent.append(now)
            last_sent = day
        now += dt.timedelta(minutes=1)
    assert sent == [moment]


# --- the digest jobs over a real core, with a controllable clock ---


class RecordingPoster:
    """A message poster that records every message per chat, failing on command."""

    platform = "test"

    def __init__(self, fail_after: int | None = None, error: BaseException | None = None) -> None:
        self.sent: dict[str, list[str]] = {}
        self.fail_after = fail_after
        self.error = error
        self.count = 0

    def digest_messages(self, target: Target, digest: Digest) -> list[str]:
        return [f"{digest.day} header"] + [f"{digest.day} {item.paper.id}" for item in digest.items]

    async def send_digest_message(
        self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str
    ) -> str:
        if self.fail_after is not None and self.count >= self.fail_after:
            raise self.error or DeliveryError("flaky")
        self.count += 1
        self.sent.setdefault(target.chat_id, []).append(str(message))
        return f"m{self.count}"


async def _redate(core: Core, papers: list[Paper], day: dt.date, stored_at: str) -> None:
    """Store the day's papers as announced on `day`, first seen at `stored_at` (as the clock of the test has it)."""
    await core.repo.upsert_papers([replace(p, announced=day) for p in papers])
    await core.repo.conn.execute(
        "UPDATE papers SET announced=?, created_at=?", (int(day.strftime("%Y%m%d")), stored_at)
    )
    await core.repo.conn.commit()


async def _add_target(core: Core, tgt: Target) -> Target:
    await core.repo.save_profile(f"test:{tgt.chat_id}", PROFILE)
    return replace(tgt, id=await core.repo.save_target(tgt, f"test:{tgt.chat_id}"))


async def test_each_digest_goes_out_once_across_dst_days_in_two_zones(core: Core, store_day: StoreDay) -> None:
    papers = await store_day(core)
    day = dt.date(2026, 3, 29)  # Europe's spring-forward Sunday; New York moved three weeks earlier
    await _redate(core, papers, day, "2026-03-28T23:00:00Z")
    await _add_target(core, target("Europe/Berlin", "02:30", "berlin"))
    await _add_target(core, target("America/New_York", "09:00", "ny"))
    clock = [at("2026-03-28T20:00:00")]
    poster = RecordingPoster()
    jobs = DigestJobs(core, {"test": poster}, clock=lambda: clock[0], catchup_hours=6)
    while clock[0] < at("2026-03-30T12:00:00"):
        await jobs.tick()
        clock[0] += dt.timedelta(minutes=10)
    assert set(poster.sent) == {"berlin", "ny"}
    for messages in poster.sent.values():
        assert len(messages) == len(set(messages)) == 4  # header + 3 papers, each once


async def test_every_due_digest_is_built_and_rendered_before_the_first_send(
    core: Core, store_day: StoreDay, monkeypatch: pytest.MonkeyPatch
) -> None:
    papers = await store_day(core)
    day = dt.date(2026, 6, 1)
    await _redate(core, papers[:30], day, "2026-06-01T04:00:00Z")
    for chat in ("a", "b", "c"):
        await _add_target(core, target("UTC", "09:00", chat))
    # one delivery at a time, so the order does not depend on how the event loop interleaves them
    monkeypatch.setattr("bot.ops.scheduler.MAX_PARALLEL_POSTS", 1)
    calls: list[str] = []

    class Ordered(RecordingPoster):
        def digest_messages(self, target: Target, digest: Digest) -> list[str]:
            calls.append(f"render {target.chat_id}")
            return super().digest_messages(target, digest)

        async def send_digest_message(
            self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str
        ) -> str:
            calls.append(f"send {target.chat_id}")
            return await super().send_digest_message(target, message, position, sent, nonce)

    jobs = DigestJobs(core, {"test": Ordered()}, clock=lambda: at("2026-06-01T09:01:00"))
    results = await jobs.tick()
    assert sorted(r.target.chat_id for r in results if r.status == "sent") == ["a", "b", "c"]
    first_send = next(n for n, call in enumerate(calls) if call.startswith("send"))
    assert sorted(calls[:first_send]) == ["render a", "render b", "render c"]
    assert len(calls) == 3 + 3 * 4  # each rendered once, then its header and three papers sent


async def test_a_crash_mid_digest_resumes_after_the_last_message_with_the_same_papers(
    core: Core, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    day = dt.date(2026, 6, 1)
    await _redate(core, papers[:30], day, "2026-06-01T04:00:00Z")
    tgt = await _add_target(core, target("UTC", "09:00", "lab"))
    crashing = RecordingPoster(fail_after=2, error=KeyboardInterrupt())  # the process dies after two messages
    with pytest.raises(KeyboardInterrupt):
        await deliver_digest(core, crashing, tgt, PROFILE, day)
    # more papers arrive before the restart: the frozen digest still sends the same ones
    await _redate(core, papers, day, "2026-06-01T04:00:00Z")
    resumed = RecordingPoster()
    result = await deliver_digest(core, resumed, tgt, PROFILE, day)
    assert result.status == "sent"
    first, rest = crashing.sent["lab"], resumed.sent["lab"]
    assert len(first) == 2 and len(rest) == 2 and not set(first) & set(rest)
    assert (await deliver_digest(core, RecordingPoster(), tgt, PROFILE, day)).status == "already-sent"
    assert sorted((await core.repo.sent_messages(tgt.id or 0, day)).values()) == ["m1", "m1", "m2", "m2"]


async def test_two_deliveries_of_one_digest_at_once_post_it_once(core: Core, store_day: StoreDay) -> None:
    """The scheduled post and an admin's /digest now in the same moment: one posts, the other finds it sent."""
    papers = await store_day(core)
    day = dt.date(2026, 6, 1)
    await _redate(core, papers[:30], day, "2026-06-01T04:00:00Z")
    tgt = await _add_target(core, target("UTC", "09:00", "lab"))

    class Slow(RecordingPoster):
        async def send_digest_message(
            self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str
        ) -> str:
            await asyncio.sleep(0.05)  # the other delivery runs while this one waits on the platform
            return await super().send_digest_message(target, message, position, sent, nonce)

    poster = Slow()
    results = await asyncio.gather(*(deliver_digest(core, poster, tgt, PROFILE, day) for _ in range(2)))
    assert sorted(r.status for r in results) == ["already-sent", "sent"]
    assert len(poster.sent["lab"]) == len(set(poster.sent["lab"])) == 4


async def test_a_429_storm_delivers_everything_waiting_what_the_platform_asks(
    core: Core, store_day: StoreDay, monkeypatch: pytest.MonkeyPatch
) -> None:
    papers = await store_day(core)
    day = dt.date(2026, 6, 1)
    await _redate(core, papers[:20], day, "2026-06-01T04:00:00Z")
    waits: list[float] = []

    async def no_sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("bot.digests.delivery.asyncio.sleep", no_sleep)

    class Stormy(RecordingPoster):
        async def send_digest_message(
            self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str
        ) -> str:
            self.calls = getattr(self, "calls", 0) + 1
            if self.calls % 5 == 0:  # every fifth send is refused with a retry-after
                raise DeliveryError("Too Many Requests", retry_after=3)
            return await super().send_digest_message(target, message, position, sent, nonce)

    poster = Stormy()
    targets = [await _add_target(core, target("UTC", "09:00", f"c{i}")) for i in range(10)]
    results = [await deliver_digest(core, poster, t, PROFILE, day) for t in targets]
    assert all(r.status == "sent" for r in results)
    assert all(len(msgs) == len(set(msgs)) == 4 for msgs in poster.sent.values()) and len(poster.sent) == 10
    assert waits and all(w == 3 for w in waits)


# --- the nightly ingest: what counts as announced ---


def _feed(day: dt.date, papers: list[Paper]) -> RssDay:
    return RssDay(announced=day, papers=papers)


async def test_weekends_holidays_and_late_feeds(core: Core, store_day: StoreDay) -> None:
    papers = await store_day(core)
    monday = dt.date(2025, 5, 26)
    stored_before = await core.repo.count_papers()
    feeds = iter([_feed(monday, papers[:5]), _feed(dt.date(2025, 5, 27), [])])

    async def fetch(*args: object, **kwargs: object) -> RssDay:
        return next(feeds)

    unchanged = await poll_once(core, fetch)  # the feed still shows the stored day: not a new day
    assert not unchanged.announced and "still dated 2025-05-26" in unchanged.detail
    empty = await poll_once(core, fetch)  # a holiday: a new date, no papers
    assert not empty.announced and "no new papers" in empty.detail
    assert await core.repo.count_papers() == stored_before

    # a late feed: unchanged for a while, then the new day with one replacement of a stored paper
    tuesday = dt.date(2025, 5, 27)
    new = [replace(p, id=f"2505.9{i:04d}", announced=tuesday) for i, p in enumerate(papers[:3])]
    replaced = replace(papers[10], title="A new title", announced=tuesday, announce_type="replace", version=2)
    stranger = replace(papers[11], id="2401.00001", announced=tuesday, announce_type="replace")
    late = iter([_feed(monday, papers[:5])] * 3 + [_feed(tuesday, [*new, replaced, stranger])])
    clock = [at("2025-05-27T00:00:00")]
    pauses: list[float] = []

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)
        clock[0] += dt.timedelta(seconds=seconds)

    async def fetch_late(*args: object, **kwargs: object) -> RssDay:
        return next(late)

    outcome = await ingest_until_announced(
        core,
        deadline=at("2025-05-27T10:00:00"),
        pauses_minutes=(10, 20),
        clock=lambda: clock[0],
        sleep=sleep,
        fetch=fetch_late,
    )
    assert outcome.announced and outcome.day == tuesday and pauses == [600, 1200, 1200]
    assert {p.id for p in await core.repo.papers_on(tuesday)} == {p.id for p in new}  # replacements are not new
    (updated,) = await core.repo.get_papers([papers[10].id])
    assert updated.title == "A new title" and updated.announced == monday
    assert await core.repo.get_papers(["2401.00001"]) == []

    never = iter([_feed(tuesday, new)] * 100)

    async def fetch_never(*args: object, **kwargs: object) -> RssDay:
        return next(never)

    gave_up = await ingest_until_announced(
        core,
        deadline=clock[0] + dt.timedelta(hours=2),
        pauses_minutes=(30,),
        clock=lambda: clock[0],
        sleep=sleep,
        fetch=fetch_never,
    )
    assert not gave_up.announced and gave_up.detail.startswith("no announcement by")


# --- one writer per archive, and status ---


def test_a_second_writer_is_told_who_holds_the_archive(settings: Settings) -> None:
    with (
        hold_archive(settings, "ingest"),
        pytest.raises(StateError, match=r"being written by pid \d+ \(ingest, since"),
        hold_archive(settings, "run"),
    ):
        pass
    with hold_archive(settings, "run"):  # released when the first writer finished
        pass


def test_a_writer_that_has_only_just_taken_the_lock_is_named_once_it_writes_its_record(settings: Settings) -> None:
    settings.home.mkdir(parents=True, exist_ok=True)
    with open(settings.home / LOCK_FILE, "a+", encoding="utf-8") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)  # taken, its record not written yet

        def write_record() -> None:
            time.sleep(0.3)
            holder.write('{"pid": 4242, "command": "ingest", "since": "2026-11-23 13:00:00 UTC"}')
            holder.flush()

        writer = threading.Thread(target=write_record)
        writer.start()
        with (
            pytest.raises(StateError, match=r"being written by pid 4242 \(ingest, since"),
            hold_archive(settings, "run"),
        ):
            pass
        writer.join()


async def test_status_reports_jobs_targets_and_the_next_ingest(core: Core, store_day: StoreDay) -> None:
    await store_day(core)
    await _add_target(core, target("Europe/Berlin", "09:00", "lab"))
    run_id = await core.repo.start_job_run("ingest")
    await core.repo.finish_job_run(run_id, "nothing", "feed still dated 2025-05-26")
    report = await status_report(core, at("2026-11-27T12:00:00"))  # a Friday: the next ingest is Sunday evening
    assert report["next_ingest_utc"] == "2026-11-30 01:00"
    assert report["jobs"]["ingest"]["outcome"] == "nothing"
    assert report["targets"][0]["today"] == "not yet"
    text = status_text(report)
    assert "test:lab: not yet for 2025-05-26" in text and "next ingest (UTC): 2026-11-30 01:00" in text
    assert next_ingest(at("2026-11-26T00:30:00")) == at("2026-11-26T01:00:00")  # Wednesday 20:00 EST


def test_the_schema_has_the_message_ledger(settings: Settings, core: Core) -> None:
    tables = {r[0] for r in sqlite3.connect(Path(settings.db_path)).execute("SELECT name FROM sqlite_master")}
    assert {"ledger_messages", "job_runs"} <= tables


def test_log_lines_never_show_a_token_or_url_credentials(capsys: pytest.CaptureFixture[str]) -> None:
    import logging

    from pydantic import SecretStr

    from bot.ops.logs import configure_logging

    token = "123456789:AAFakeTokenThatMustNotLeak_0123456789"
    configure_logging(True, Settings(telegram_token=SecretStr(token), llm_api_key=SecretStr("sk-secret-key-123")))
    logging.getLogger("httpx").info('HTTP Request: POST http://127.0.0.1:1/bot%s/sendMessage "200 OK"', token)
    logging.getLogger("x").warning("calling https://user:hunter2@llm.example/v1?key=abc123&x=1 with sk-secret-key-123")
    err = capsys.readouterr().err
    assert token not in err and "AAFake" not in err and "hunter2" not in err and "abc123" not in err
    assert "sk-secret-key-123" not in err and "/bot***/sendMessage" in err and "x=1" in err
    configure_logging(False)
