"""Personal digests (no repeats of channel digests, weekly window, exactly-once delivery) and privacy."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from bot.core import Core
from bot.digests.delivery import DeliveryError, deliver_digest
from bot.frontends.console import ConsolePoster
from bot.members.onboarding import Draft, build_profile
from bot.members.personal import deliver_due_personal_digests, deliver_personal_digest, personal_digest
from bot.members.privacy import export_user, forget_user
from bot.members.settings import profile_owner
from bot.models import Paper, Profile, Target
from bot.ranking import learn
from bot.views.model import digest_view
from tests.conftest import StoreDay

KEY = "console:ada"
DAY = dt.date(2025, 5, 26)


async def make_user(core: Core, digest_mode: str = "daily") -> Profile:
    """A user with a saved profile, as onboarding leaves one."""
    draft = Draft(
        interests=["graph neural networks", "theory of deep learning optimisation"], avoid=["medical imaging"]
    )
    profile = build_profile(draft, "Ada (personal)")
    await core.repo.ensure_user(KEY, "Ada")
    await core.repo.save_profile(profile_owner(KEY), profile)
    await core.repo.save_user_settings(KEY, digest_mode=digest_mode, post_time="08:00", timezone="UTC", weekly_day=0)
    return profile


async def console_channel(core: Core, profile: Profile) -> Target:
    """A console channel target with the same interests, so its digest overlaps the personal one."""
    await core.repo.save_profile("channel:console:lab", replace(profile, name="lab"))
    target = Target(platform="console", chat_id="lab", profile_name="lab", categories=(), digest_size=5)
    return replace(target, id=await core.repo.save_target(target, "channel:console:lab"))


async def test_a_personal_digest_never_repeats_what_a_channel_digest_sent_that_day(
    core: Core, store_day: StoreDay
) -> None:
    await store_day(core)
    profile = await make_user(core)
    unfiltered = await personal_digest(core, KEY, DAY, channel_targets=[], size=8)
    channel = await console_channel(core, profile)
    result = await deliver_digest(core, ConsolePoster(io.StringIO()), channel, profile, DAY)
    assert result.status == "sent"
    sent = await core.repo.sent_paper_ids([channel.id or 0], DAY)
    assert len(sent) == 5 and sent & {i.paper.id for i in unfiltered.items}

    personal = await personal_digest(core, KEY, DAY, size=8)  # a console user sees the console channels
    assert personal.picked == 8 and not sent & {i.paper.id for i in personal.items}
    assert "5 papers you already got in a channel digest are left out." in personal.notes
    assert all(i.tldr for i in personal.items)
    # the day after, the same papers are not "already sent that day"
    assert (await personal_digest(core, KEY, DAY + dt.timedelta(days=1))).picked == 0


async def test_weekly_covers_seven_days_names_its_week_and_thumbs_down_papers_are_left_out(
    core: Core, store_day: StoreDay, embedded_day: tuple[list[Paper], np.ndarray]
) -> None:
    papers = await store_day(core)
    _, vectors = embedded_day
    # the same texts announced three days earlier under other ids stand in for earlier days of the week
    earlier = [replace(p, id=f"2505.9{i:04d}", announced=DAY - dt.timedelta(days=3)) for i, p in enumerate(papers)]
    await core.repo.upsert_papers(earlier)
    await core.vectors.upsert(earlier, vectors)
    await make_user(core, "weekly")
    daily = await personal_digest(core, KEY, DAY, size=50)
    weekly = await personal_digest(core, KEY, DAY, weekly=True, size=200)
    assert daily.scanned == 60 and weekly.scanned == 120
    assert any(i.paper.announced < DAY for i in weekly.items)
    # the header names the week from its first day with papers, not one day
    assert digest_view(weekly).title == "Ada (personal): arXiv digest for the week of 2025-05-23 – 2025-05-26"
    assert digest_view(daily).title == "Ada (personal): arXiv digest for 2025-05-26"
    assert digest_view(weekly).items[0].standing.startswith("#")

    top = daily.items[0].paper.id
    await learn.record_reaction(core, KEY, top, -1)
    again = await personal_digest(core, KEY, DAY, size=50)
    assert top not in {i.paper.id for i in again.items}
    assert "1 paper you already rated is left out (/reactions)." in again.notes


async def test_a_weekly_digest_gives_each_paper_the_standing_why_gives(
    core: Core, store_day: StoreDay, embedded_day: tuple[list[Paper], np.ndarray]
) -> None:
    """A weekly digest showed "#6 of 1361 papers from 2025-05-26 to 2025-05-30" for a paper whose /why said "#2 of
    315 papers on 2025-05-30": one standing per paper, its day's, in both."""
    from bot.views.cards import explain_paper

    papers = await store_day(core)
    _, vectors = embedded_day
    earlier = [replace(p, id=f"2505.9{i:04d}", announced=DAY - dt.timedelta(days=3)) for i, p in enumerate(papers)]
    await core.repo.upsert_papers(earlier[:30])
    await core.vectors.upsert(earlier[:30], vectors[:30])
    profile = await make_user(core, "weekly")
    weekly = await personal_digest(core, KEY, DAY, weekly=True, size=12)
    shown = {item.id: item.standing for item in digest_view(weekly).items}
    assert {i.paper.announced for i in weekly.items} == {DAY, DAY - dt.timedelta(days=3)}
    for item in weekly.items:
        why = await explain_paper(core, item.paper.id, profile, user_key=KEY)
        assert f"{shown[item.paper.id]}." in why, (shown[item.paper.id], why)


async def test_papers_rated_in_onboarding_do_not_lead_the_weekly_digest(core: Core, store_day: StoreDay) -> None:
    await store_day(core)
    await make_user(core, "weekly")
    before = await personal_digest(core, KEY, DAY, weekly=True, size=10)
    rated = {item.paper.id: 1 for item in before.items[:3]}  # onboarding shows the day's best matches to rate
    await learn.record_reactions(core, KEY, rated)
    after = await personal_digest(core, KEY, DAY, weekly=True, size=10)
    assert not rated.keys() & {i.paper.id for i in after.items}
    assert after.picked == 10 and after.scanned == before.scanned
    assert "3 papers you already rated are left out (/reactions)." in after.notes


async def test_a_personal_digest_is_delivered_once_and_never_by_channel_scheduling(
    core: Core, store_day: StoreDay
) -> None:
    await store_day(core)
    await make_user(core)
    out = io.StringIO()
    first = await deliver_personal_digest(core, ConsolePoster(out), KEY, DAY)
    assert first.status == "sent" and first.target.key == "console:dm:ada"
    assert out.getvalue().startswith("--- to console:dm:ada ---\nAda (personal): arXiv digest for 2025-05-26")
    again = await deliver_personal_digest(core, ConsolePoster(io.StringIO()), KEY, DAY)
    assert again.status == "already-sent"
    assert all(t.chat_id != "dm:ada" for t, _ in await core.repo.targets())


async def test_export_shows_everything_and_forget_deletes_it_all(core: Core, store_day: StoreDay) -> None:
    papers = await store_day(core)
    profile = await make_user(core)
    channel = await console_channel(core, profile)
    await deliver_digest(core, ConsolePoster(io.StringIO()), channel, profile, DAY)
    await learn.record_reaction(core, KEY, papers[0].id, 1)
    await learn.record_reaction(core, KEY, papers[1].id, -1)
    delivered = await deliver_personal_digest(core, ConsolePoster(io.StringIO()), KEY, DAY)
    await core.repo.record_llm_usage(
        day=DAY,
        purpose="score",
        model="m",
        target=delivered.target.key,
        run_id="r",
        prompt_tokens=10,
        completion_tokens=2,
        cost_usd=0.01,
    )

    await core.repo.save_conversation_state("telegram-chat-7", '{"topic": "gnn"}', asker=KEY)
    await core.repo.save_conversation_state("telegram-chat-8", '{"topic": "moe"}', asker="console:bob")

    exported = await export_user(core, KEY)
    assert exported["stored"] and exported["user"]["display_name"] == "Ada"
    assert exported["personal_digest"]["mode"] == "daily"
    assert exported["profile"]["topics"][0]["want"] == "graph neural networks"
    assert {(f["paper_id"], f["rating"]) for f in exported["feedback"]} == {
        (papers[0].id, "up"),
        (papers[1].id, "down"),
    }
    assert exported["feedback"][0]["title"]
    assert exported["personal_targets"] == ["console:dm:ada"]
    assert exported["personal_digests_sent"][0]["day"] == "2025-05-26"
    assert [q["context"] for q in exported["last_questions"]] == [{"topic": "gnn"}]

    counts = await forget_user(core, KEY)
    assert counts["users"] == 1 and counts["profiles"] == 1 and counts["feedback"] == 2
    assert counts["targets"] == 1 and counts["ledger"] == 1 and counts["llm_usage_anonymised"] == 1
    assert counts["conversations"] == 1 and await core.repo.conversations_of(KEY) == []
    assert await core.repo.conversation_state("telegram-chat-8") == '{"topic": "moe"}'  # someone else's stays
    assert await core.repo.get_user(KEY) is None
    assert await core.repo.get_profile(profile_owner(KEY)) is None
    assert await core.repo.user_feedback_rows(KEY) == []
    assert await core.repo.targets_of_profile(profile_owner(KEY)) == []
    assert delivered.target.id is not None and await core.repo.last_sent_day(delivered.target.id) is None
    totals = await core.repo.llm_usage_totals(by="target")
    assert set(totals) == {""} and totals[""].cost_usd == 0.01  # the cost stays for the budget, the name goes
    # the channel and its ledger are not the user's: they stay
    assert channel.id is not None and await core.repo.last_sent_day(channel.id) == DAY
    assert (await export_user(core, KEY))["stored"] is False
    assert (await forget_user(core, KEY))["users"] == 0  # forgetting twice is harmless


class BrokenPoster(ConsolePoster):
    """A console poster whose platform fails every send: for now (asking to be retried at once) or for good (the
    member closed their DMs)."""

    def __init__(self, *, permanent: bool) -> None:
        super().__init__(io.StringIO())
        self.permanent = permanent
        self.attempts = 0

    async def send(self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str) -> str:
        self.attempts += 1
        retry_after = None if self.permanent else 0.0
        raise DeliveryError("the platform refused the message", retry_after=retry_after, permanent=self.permanent)


async def test_due_personal_digests_go_out_at_each_users_time_once_and_only_on_their_platform(
    core: Core, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    await make_user(core)  # console:ada, daily at 08:00 UTC
    await core.repo.save_profile(profile_owner("telegram:42"), (await core.repo.get_profile(profile_owner(KEY))))
    await core.repo.save_user_settings(
        "telegram:42", digest_mode="daily", post_time="07:00", timezone="UTC", weekly_day=0
    )
    await core.repo.ensure_user("console:bob")  # opted in, then forgot to finish: no profile
    await core.repo.save_user_settings(
        "console:bob", digest_mode="daily", post_time="07:00", timezone="UTC", weekly_day=0
    )
    out = io.StringIO()
    poster = ConsolePoster(out)
    morning = dt.datetime(2025, 5, 26, 7, 59, tzinfo=dt.UTC)

    # before ada's time nothing goes out, and bob (no profile yet) is passed over quietly
    assert await deliver_due_personal_digests(core, poster, morning) == []
    assert out.getvalue() == "" and await core.repo.targets_of_profile(profile_owner(KEY)) == []

    sent = await deliver_due_personal_digests(core, poster, morning + dt.timedelta(minutes=1))
    assert [(r.target.key, r.day, r.status) for r in sent] == [("console:dm:ada", DAY, "sent")]
    assert out.getvalue().count("--- to console:dm:ada ---") == 1  # telegram:42 waits for the Telegram poster
    assert await deliver_due_personal_digests(core, poster, morning + dt.timedelta(hours=6)) == []
    assert out.getvalue().count("--- to console:dm:ada ---") == 1

    # a platform that fails is reported, and the ledger keeps the day owed for the next round
    await core.repo.save_user_settings(
        "console:ada", digest_mode="daily", post_time="08:00", timezone="UTC", weekly_day=0
    )
    next_day = DAY + dt.timedelta(days=1)
    await core.repo.upsert_papers([replace(p, id=p.id + "1", announced=next_day) for p in papers[:20]])
    broken = BrokenPoster(permanent=False)
    failing = await deliver_due_personal_digests(core, broken, dt.datetime(2025, 5, 27, 9, 0, tzinfo=dt.UTC))
    assert [(r.day, r.status) for r in failing] == [(next_day, "failed")] and "refused" in failing[0].detail
    retried = await deliver_due_personal_digests(core, poster, dt.datetime(2025, 5, 27, 9, 5, tzinfo=dt.UTC))
    assert [(r.day, r.status) for r in retried] == [(next_day, "sent")]


async def test_a_closed_dm_turns_the_personal_digest_off_instead_of_retrying_every_minute(
    core: Core, store_day: StoreDay
) -> None:
    await store_day(core)
    await make_user(core)  # console:ada, daily at 08:00 UTC
    closed = BrokenPoster(permanent=True)
    first = await deliver_due_personal_digests(core, closed, dt.datetime(2025, 5, 26, 8, 0, tzinfo=dt.UTC))
    assert [(r.status, r.permanent) for r in first] == [("failed", True)] and closed.attempts == 1
    user = await core.repo.get_user(KEY)
    assert user is not None and user.digest_mode == "off"
    for minute in range(1, 4):  # the scheduler's next ticks find nothing to send
        later = dt.datetime(2025, 5, 26, 8, minute, tzinfo=dt.UTC)
        assert await deliver_due_personal_digests(core, closed, later) == []
    assert closed.attempts == 1


async def test_forget_during_a_delivery_waits_for_it_and_leaves_nothing(core: Core, store_day: StoreDay) -> None:
    import asyncio

    await store_day(core)
    await make_user(core)
    out = io.StringIO()
    delivered, counts = await asyncio.gather(
        deliver_personal_digest(core, ConsolePoster(out), KEY, DAY), forget_user(core, KEY)
    )
    assert delivered.status == "sent" and counts["ledger"] == 1 and counts["profiles"] == 1
    assert await core.repo.get_user(KEY) is None and await core.repo.targets_of_profile(profile_owner(KEY)) == []


async def test_a_failed_personal_digest_records_its_kind_and_logs_a_refused_thread_in_one_line(
    core: Core, store_day: StoreDay, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """What a failure records is its kind in a few words, never the exception's own text (a path, a paper's words, a
    member's id); a thread the system refused is one WARNING line that says what to do, without a traceback, while a
    bug keeps its traceback."""
    import logging

    from bot.errors import THREAD_REFUSED

    await store_day(core)
    await make_user(core)
    due = dt.datetime(2025, 5, 26, 8, 0, tzinfo=dt.UTC)
    failures: list[BaseException] = [
        RuntimeError(THREAD_REFUSED),
        KeyError("/home/ada/.paperscout/state.db: 'console:ada' " + "x" * 500),
    ]

    async def failing(*args: object) -> object:
        raise failures.pop(0)

    monkeypatch.setattr("bot.members.personal.deliver_personal_digest", failing)
    poster = ConsolePoster(io.StringIO())
    with caplog.at_level(logging.WARNING, logger="bot.members.personal"):
        (refused,) = await deliver_due_personal_digests(core, poster, due)
        (bug,) = await deliver_due_personal_digests(core, poster, due)
    assert refused.status == bug.status == "failed"
    assert refused.detail == "the system refused a thread (out of memory or at its limit)"
    assert bug.detail == "an unexpected error (logged)"
    first, second = caplog.records
    assert first.levelname == "WARNING" and first.exc_info is None and "ulimit -u" in first.getMessage()
    assert "\n" not in first.getMessage()
    assert second.levelname == "ERROR" and second.exc_info is not None
