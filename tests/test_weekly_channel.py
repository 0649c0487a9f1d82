"""A channel's weekly digest (issue 24): chosen in /setup, due once a week at the channel's time on its weekday, the
week's picks as a topic tree, kept in the posting ledger so a restart neither repeats nor skips it, and posted
through the Telegram fake with the real client library within Telegram's limits."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest
from pydantic import SecretStr

from bot.chat import ChatController, Incoming, Place, Speaker
from bot.chat.setup import parse_schedule
from bot.config import Settings
from bot.core import Core
from bot.digests.build import build_channel_digest
from bot.digests.delivery import deliver_digest, digest_from_json, digest_to_json
from bot.digests.due import DigestSchedule, due_days, split_by_catchup
from bot.errors import InputError
from bot.members.personal import personal_digest
from bot.models import Paper, Target
from bot.ops.scheduler import DigestJobs, due_channel_days
from tests.conftest import StoreDay
from tests.fakes.telegram_server import FakeTelegram
from tests.test_run import PROFILE, RecordingPoster, at
from tests.test_telegram_bot import GROUP, telegram_bot
from tests.test_users import KEY, make_user

WEEK = [dt.date(2026, 6, 1) + dt.timedelta(days=n) for n in range(5)]  # Monday 1 June to Friday 5 June 2026
FRIDAY = WEEK[-1]


def weekly(platform: str = "test", chat: str = "lab", size: int = 12) -> Target:
    return Target(platform, chat, "lab", post_time="09:00", digest_size=size, schedule="weekly", weekly_day=4)


async def spread_over_the_week(core: Core, papers: list[Paper]) -> None:
    """The stored papers announced Monday to Friday in turn, each day stored just after midnight UTC."""
    await announce(core, papers, WEEK)


async def saved(core: Core, target: Target) -> Target:
    await core.repo.save_profile(f"{target.platform}:{target.chat_id}", PROFILE)
    return replace(target, id=await core.repo.save_target(target, f"{target.platform}:{target.chat_id}"))


def test_a_weekly_channel_is_due_once_on_its_weekday_at_its_time() -> None:
    target, catchup = weekly(), dt.timedelta(hours=6)

    def due(now: str, last_sent: dt.date | None = None) -> tuple[tuple[dt.date, ...], tuple[dt.date, ...]]:
        stored = {day: dt.datetime.combine(day, dt.time(0, 30), tzinfo=dt.UTC) for day in WEEK}
        found = due_channel_days(target, at(now), WEEK, last_sent, stored, catchup)
        return found.due, found.skipped

    assert due("2026-06-04T12:00:00") == ((), ())  # Thursday: announcement days, but not the channel's day
    assert due("2026-06-05T08:59:00") == ((), ())
    assert due("2026-06-05T09:01:00") == ((FRIDAY,), ())
    assert due("2026-06-06T10:00:00", last_sent=FRIDAY) == ((), ())  # posted: not again on Saturday
    assert due("2026-06-05T16:00:00") == ((), (FRIDAY,))  # the bot was down past the catch-up: logged, not late
    assert due("2026-06-12T09:01:00", last_sent=FRIDAY) == ((), ())  # a week without announcements is passed over
    # a channel that was daily until Wednesday waits for its first Friday, not for a week already gone
    assert due("2026-06-04T09:30:00", last_sent=WEEK[2]) == ((), ())


def test_a_weekly_channel_waits_for_its_weekdays_papers_when_its_time_comes_before_they_are_stored() -> None:
    """09:00 on Friday in Tokyo is 00:00 UTC, before arXiv's Friday is stored: posting then would leave Friday's papers
    out, and the next week starts on Saturday, so they would reach the channel never."""
    target, catchup = replace(weekly(), timezone="Asia/Tokyo"), dt.timedelta(hours=6)
    stored = {day: dt.datetime.combine(day, dt.time(0, 40), tzinfo=dt.UTC) for day in WEEK}
    before_friday = {day: stamp for day, stamp in stored.items() if day != FRIDAY}

    def due(now: str, stored_at: dict[dt.date, dt.datetime]) -> tuple[tuple[dt.date, ...], tuple[dt.date, ...]]:
        days = sorted(stored_at)
        found = due_channel_days(target, at(now), days, None, stored_at, catchup)
        return found.due, found.skipped

    assert due("2026-06-05T00:05:00", before_friday) == ((), ())  # Friday not stored yet
    assert due("2026-06-05T00:05:00", stored) == ((), ())  # stored at 00:40
    assert due("2026-06-05T00:45:00", stored) == ((FRIDAY,), ())
    late = {**stored, FRIDAY: at("2026-06-05T07:00:00")}  # stored late, within the wait: counted from then
    assert due("2026-06-05T07:01:00", late) == ((FRIDAY,), ())
    saturday = replace(target, weekly_day=5)  # a week ending on a day without a listing goes out at its time
    assert due_channel_days(saturday, at("2026-06-06T00:01:00"), WEEK, None, stored, catchup).due == (
        WEEK[-1] + dt.timedelta(days=1),
    )
    # a member's weekly digest waits the same way
    tokyo = DigestSchedule("weekly", "09:00", "Asia/Tokyo", 4)
    assert due_days(tokyo, at("2026-06-05T00:05:00"), WEEK, None, stored_at=stored) == []
    assert due_days(tokyo, at("2026-06-05T00:45:00"), WEEK, None, stored_at=stored) == [FRIDAY]


def test_the_schedule_answer() -> None:
    assert parse_schedule("daily", 4) == ("daily", 4)
    assert parse_schedule("Weekly, on Fridays") == ("weekly", 4)
    assert parse_schedule("weekly", 2) == ("weekly", 2)
    assert parse_schedule("tue") == ("weekly", 1)
    with pytest.raises(InputError):
        parse_schedule("twice a month")
    for filler in ("every", "on", "a", "once", "", "each, on"):  # nothing in them says weekly or names a day
        with pytest.raises(InputError, match="daily, or weekly with a day of the week"):
            parse_schedule(filler, 4)
    assert parse_schedule("every week", 3) == ("weekly", 3)
    assert parse_schedule("once a week on Monday") == ("weekly", 0)


async def test_the_week_goes_out_once_as_a_topic_tree_and_a_restart_neither_repeats_nor_skips_it(
    core: Core, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    await spread_over_the_week(core, papers)
    target = await saved(core, weekly())
    assert target.id is not None
    # the process dies on Friday after the digest's first two messages went out
    crashing = RecordingPoster(fail_after=2, error=KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        await deliver_digest(core, crashing, target, PROFILE, FRIDAY)
    poster = RecordingPoster()
    clock = [at("2026-06-05T09:05:00")]
    while clock[0] < at("2026-06-09T12:00:00"):  # restarted: the tick runs on into the next week
        await DigestJobs(core, {"test": poster}, clock=lambda: clock[0]).tick()
        clock[0] += dt.timedelta(minutes=30)
    first, rest = crashing.sent["lab"], poster.sent["lab"]
    assert len(first) == 2 and len(rest) == 1 + 12 - 2, "the rest of the week's digest, once"
    assert not set(first) & set(rest) and all(m.startswith(str(FRIDAY)) for m in first + rest)
    assert await core.repo.last_sent_day(target.id) == FRIDAY
    frozen = digest_from_json(await core.repo.frozen_digest(target.id, FRIDAY))
    assert frozen.start == WEEK[0] and frozen.day == FRIDAY
    assert frozen.sections and sum(s.count for s in frozen.sections) == frozen.picked == 12
    assert len({i.paper.announced for i in frozen.items}) > 1, "picks from across the week"


async def test_a_weekly_channel_on_telegram_gets_its_tree_split_at_topics_within_4096(
    core: Core, settings: Settings, fake_telegram: FakeTelegram, store_day: StoreDay
) -> None:
    fake_telegram.add_user(1001, "Ada")
    fake_telegram.add_group(GROUP, "Reading group", creator=1001, members=[])
    tg_settings = settings.model_copy(
        update={
            "telegram_token": SecretStr(fake_telegram.token),
            "telegram_base_url": fake_telegram.url,
            "telegram_chat_interval_seconds": 0.05,
            "telegram_poll_timeout_seconds": 2,
        }
    )
    papers = await store_day(core)
    await spread_over_the_week(core, papers)
    await saved(core, weekly("telegram", str(GROUP), size=30))
    async with telegram_bot(core, tg_settings) as bot:
        for now in ("2026-06-04T09:01:00", "2026-06-05T09:01:00", "2026-06-05T09:31:00", "2026-06-06T09:01:00"):
            await DigestJobs(core, {"telegram": bot.poster}, clock=lambda now=now: at(now)).tick()
    sent = fake_telegram.sent(GROUP)
    assert [c.status for c in fake_telegram.calls("sendMessage")] == [200] * len(sent)
    assert len(sent) >= 2 and all(len(m.text) <= 4096 and m.html is not None for m in sent)
    assert "for the week of 2026-06-01 – 2026-06-05" in sent[0].text
    assert all(m.text.startswith("■ ") for m in sent[1:]), "one week's digest, every later message opens a topic"
    assert sum(m.text.count("■ ") for m in sent) >= 3, "a week of 30 picks has three topics or more"


async def test_setup_takes_the_schedule_inline_and_as_a_form_option(core: Core) -> None:
    ctl = ChatController(core)
    admin = Speaker("telegram:7", "cleo", is_admin=True)
    group = Place("telegram", "-100", is_dm=False, title="Reading group")
    line = "/setup categories=cs.LG schedule=weekly thursday time=08:00 tz=UTC size=20 profile=graph neural networks"
    replies = await ctl.handle(Incoming(admin, group, text=line))
    assert "every Thursday at 08:00 (UTC)" in replies[0].text
    found = await core.repo.target_at("telegram", "-100")
    assert found is not None and (found[0].schedule, found[0].weekly_day, found[0].digest_size) == ("weekly", 3, 20)
    form = {"schedule": "daily"}
    replies = await ctl.handle(Incoming(admin, group, command="setup", options=form))
    assert "every announcement day at 08:00" in replies[0].text
    found = await core.repo.target_at("telegram", "-100")
    assert found is not None and found[0].schedule == "daily"
    bad = await ctl.handle(Incoming(admin, group, command="setup", options={"schedule": "fortnightly"}))
    assert "Nothing was changed" in bad[0].text


async def test_status_names_a_weekly_channels_next_post_on_its_weekday(core: Core) -> None:
    from bot.ops.status import status_report

    await saved(core, weekly())
    await saved(core, replace(weekly(chat="daily"), schedule="daily"))
    report = await status_report(core, at("2026-06-02T10:00:00"))  # a Tuesday
    by_key = {t["target"]: t for t in report["targets"]}
    assert by_key["test:lab"]["next_post_utc"] == "2026-06-05 09:00"
    assert by_key["test:lab"]["post_time"] == "Fridays 09:00 UTC"
    assert by_key["test:daily"]["next_post_utc"] == "2026-06-03 09:00"


async def test_status_reads_a_weekly_channels_ledger_at_its_weeks_end(core: Core, store_day: StoreDay) -> None:
    """A Saturday channel's week is filed under Saturday, a day with no listing: status read the latest stored day's
    ledger (Friday's), so it said 'not yet' all week after the post went out."""
    from bot.ops.status import status_report, status_text

    papers = await store_day(core)
    await spread_over_the_week(core, papers)
    saturday = WEEK[-1] + dt.timedelta(days=1)
    target = await saved(core, replace(weekly(), weekly_day=5))
    assert (await deliver_digest(core, RecordingPoster(), target, PROFILE, saturday)).status == "sent"
    for now in ("2026-06-07T10:00:00", "2026-06-11T10:00:00"):  # Sunday, and Thursday of the next week
        report = await status_report(core, at(now))
        [entry] = report["targets"]
        assert (entry["today"], entry["covers"]) == ("sent", "this week (ending 2026-06-06)")
        assert "test:lab: sent for this week (ending 2026-06-06)" in status_text(report)
    report = await status_report(core, at("2026-06-13T10:00:00"))  # the next Saturday, before its post time
    assert (report["targets"][0]["today"], report["targets"][0]["covers"]) == (
        "not yet",
        "this week (ending 2026-06-13)",
    )


async def test_a_weekly_channels_preview_is_its_week_as_a_topic_tree(core: Core, store_day: StoreDay) -> None:
    from bot.chat import DigestReply

    papers = await store_day(core)
    await spread_over_the_week(core, papers)
    ctl = ChatController(core)
    admin = Speaker("telegram:7", "cleo", is_admin=True)
    group = Place("telegram", "-100", is_dm=False, title="Reading group")
    line = "/setup categories=cs.LG schedule=weekly friday time=09:00 tz=UTC size=20 profile=graph neural networks"
    assert "All set!" in (await ctl.handle(Incoming(admin, group, text=line)))[0].text
    replies = await ctl.handle(Incoming(admin, group, text="/digest preview"))
    [digest] = [r.digest for r in replies if isinstance(r, DigestReply)]
    assert digest.picked == 20 and digest.sections and sum(s.count for s in digest.sections) == 20
    assert "week of 2026-06-01" in digest.title


async def announce(core: Core, papers: list[Paper], days: list[dt.date]) -> None:
    """Each of `papers` announced on the next of `days` in turn, stored just after midnight UTC."""
    for n, paper in enumerate(papers):
        day = days[n % len(days)]
        await core.repo.conn.execute(
            "UPDATE papers SET announced=?, created_at=? WHERE id=?",
            (int(day.strftime("%Y%m%d")), f"{day.isoformat()}T00:30:00Z", paper.id),
        )
    await core.repo.conn.commit()


async def test_digest_now_on_a_tuesday_then_the_friday_tick_post_no_paper_twice(
    core: Core, store_day: StoreDay
) -> None:
    """/digest now files a weekly channel's digest under its week's end, as the tick does: on a Tuesday that is the
    Friday before, so Friday's tick posts the days after it and nothing the channel already got."""
    papers = await store_day(core)
    last_week = [day - dt.timedelta(days=7) for day in WEEK]
    early, late = papers[:42], papers[42:]
    await announce(core, early, [*last_week, *WEEK[:2]])  # stored by Tuesday: last week, Monday and Tuesday
    await announce(core, late, [dt.date(2099, 1, 1)])  # not announced yet
    target = await saved(core, weekly(size=60))
    poster = RecordingPoster()
    admin = Speaker("test:7", "cleo", is_admin=True)
    replies = await ChatController(core, poster).handle(
        Incoming(admin, Place("test", "lab", is_dm=False, title="Lab"), text="/digest now")
    )
    await announce(core, late, WEEK[2:])  # Wednesday to Friday come in
    await DigestJobs(core, {"test": poster}, clock=lambda: at("2026-06-05T09:05:00")).tick()
    posted = [m.split()[1] for m in poster.sent["lab"] if not m.endswith("header")]
    assert len(posted) == len(set(posted)), "a paper posted twice"
    assert "Posted the digest of 2026-05-29" in replies[0].text, "filed under the week's end, the Friday before"
    assert {m.split()[0] for m in poster.sent["lab"]} == {"2026-05-29", str(FRIDAY)}
    assert target.id is not None and await core.repo.last_sent_day(target.id) == FRIDAY
    assert len(posted) == len(papers), "each week's papers once"


def test_a_week_whose_last_day_was_never_stored_goes_out_once_that_listing_is_given_up() -> None:
    """Friday's listing never came (the ingest failed, or an unlisted holiday): the week used to wait for it silently
    and was never posted. It now waits only until arXiv's listing is given up (20:00 US Eastern the evening before
    plus the ingest's polling window: 10:00 UTC in June), then goes out with the days that are stored; the catch-up
    counts from then, so a bot that was down still skips it."""
    catchup = dt.timedelta(hours=6)
    mon_to_thu = {day: dt.datetime.combine(day, dt.time(0, 40), tzinfo=dt.UTC) for day in WEEK[:-1]}
    days = sorted(mon_to_thu)

    def due(target: Target, now: str) -> tuple[tuple[dt.date, ...], tuple[dt.date, ...]]:
        found = due_channel_days(target, at(now), days, None, mon_to_thu, catchup)
        return found.due, found.skipped

    utc, tokyo = weekly(), replace(weekly(), timezone="Asia/Tokyo")  # 09:00 UTC, and 09:00 Tokyo = 00:00 UTC
    assert due(utc, "2026-06-05T09:30:00") == ((), ())  # Friday's listing may still come
    assert due(utc, "2026-06-05T10:01:00") == ((FRIDAY,), ())
    assert due(tokyo, "2026-06-05T09:59:00") == ((), ())
    assert due(tokyo, "2026-06-05T10:01:00") == ((FRIDAY,), ()), "waiting was not downtime: not skipped as late"
    assert due(utc, "2026-06-05T16:30:00") == ((), (FRIDAY,))  # down past the catch-up: skipped and logged
    evening = replace(weekly(), post_time="18:00")  # a post time after the give-up: at its time
    assert due(evening, "2026-06-05T17:59:00") == ((), ())
    assert due(evening, "2026-06-05T18:00:00") == ((FRIDAY,), ())
    # a member's weekly digest the same way
    member = DigestSchedule("weekly", "09:00", "UTC", 4)
    assert due_days(member, at("2026-06-05T09:30:00"), days, None, stored_at=mon_to_thu) == []
    assert due_days(member, at("2026-06-05T10:01:00"), days, None, stored_at=mon_to_thu) == [FRIDAY]
    assert split_by_catchup(member, [FRIDAY], at("2026-06-05T15:00:00"), catchup, mon_to_thu) == ([FRIDAY], [])


def test_a_week_whose_last_listing_came_late_counts_its_catch_up_from_when_it_came() -> None:
    """Friday's listing came at 15:00 UTC, late but within the wait: the week waited for it on purpose, so the
    catch-up counts from then (as it counts from the give-up when the listing never comes), not from an early post
    time, which skipped the week whose listing came while posting the one whose listing was missing."""
    catchup = dt.timedelta(hours=6)
    late = {day: dt.datetime.combine(day, dt.time(0, 40), tzinfo=dt.UTC) for day in WEEK[:-1]}
    late[FRIDAY] = at("2026-06-05T15:00:00")
    early = replace(weekly(), post_time="07:00")  # 07:00 UTC: eight hours before Friday's papers
    found = due_channel_days(early, at("2026-06-05T15:01:00"), sorted(late), None, late, catchup)
    assert (found.due, found.skipped) == ((FRIDAY,), ())
    member = DigestSchedule("weekly", "07:00", "UTC", 4)
    assert split_by_catchup(member, [FRIDAY], at("2026-06-05T15:01:00"), catchup, late) == ([FRIDAY], [])
    assert split_by_catchup(member, [FRIDAY], at("2026-06-05T21:01:00"), catchup, late) == ([], [FRIDAY])


async def test_a_week_with_a_day_not_stored_says_so_in_the_digest(core: Core, store_day: StoreDay) -> None:
    papers = await store_day(core)
    await announce(core, papers, WEEK[:-1])  # Monday to Thursday; Friday's listing never came
    target = await saved(core, weekly())
    poster = RecordingPoster()
    for now in ("2026-06-05T09:05:00", "2026-06-05T10:05:00", "2026-06-05T10:35:00"):
        await DigestJobs(core, {"test": poster}, clock=lambda now=now: at(now)).tick()
    assert target.id is not None and await core.repo.last_sent_day(target.id) == FRIDAY
    assert poster.sent["lab"][0] == f"{FRIDAY} header" and len(poster.sent["lab"]) == 1 + 12, "posted once"
    frozen = digest_from_json(await core.repo.frozen_digest(target.id, FRIDAY))
    assert any("No arXiv listing is stored for Fri 5 Jun" in note for note in frozen.notes), frozen.notes
    # a member's weekly digest says the same
    member = await make_user(core)
    week = await personal_digest(core, KEY, FRIDAY, weekly=True, channel_targets=[], profile=member)
    assert any("No arXiv listing is stored for Fri 5 Jun" in note for note in week.notes), week.notes
    # a week with every day stored says nothing of the kind
    await announce(core, papers, WEEK)
    full = await build_channel_digest(core, target, PROFILE, FRIDAY)
    assert not any("No arXiv listing" in note for note in full.notes)


async def test_a_weekly_channel_digest_gives_each_paper_the_standing_why_gives_there(
    core: Core, store_day: StoreDay
) -> None:
    """A weekly digest numbered each paper by its place in the week ("#6 of 1361 papers from ... to ...") while
    `/why N` read its day's ("#2 of 315 papers on ..."): one standing, its day's, in both; a frozen week keeps it."""
    from bot.views.cards import explain_paper
    from bot.views.model import digest_view

    papers = await store_day(core)
    await spread_over_the_week(core, papers)
    target = await saved(core, weekly())
    week = await build_channel_digest(core, target, PROFILE, FRIDAY)
    assert len({i.paper.announced for i in week.items}) > 1
    for item in digest_view(week).items:
        why = await explain_paper(core, item.id, PROFILE, categories=target.categories)
        assert f": {item.standing}." in why, (item.standing, why)
    assert digest_view(digest_from_json(digest_to_json(week))).items == digest_view(week).items
