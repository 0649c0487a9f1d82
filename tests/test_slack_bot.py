"""The Slack front end end to end: the real slack-bolt AsyncApp in Socket Mode and slack_sdk, started the way
`paperscout run` starts them, over real HTTP and a websocket to the fake Slack, driving the real controller and core."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.chat import DigestReply
from bot.config import Settings
from bot.core import Core
from bot.digests.delivery import DeliveryError, deliver
from bot.errors import SourceUnavailable
from bot.frontends.slack import MAX_SECTION, SlackFrontEnd, render, start_slack
from bot.members.personal import deliver_personal_digest
from bot.members.settings import profile_owner
from bot.models import Digest, DigestSection, Paper, Profile, ScoredPaper, Target, Topic
from bot.ops.logs import FIELDS
from bot.ops.scheduler import DigestJobs
from bot.views.model import digest_view
from tests.conftest import StoreDay, post_all, refused_url, watch_calls, watch_gone
from tests.fakes.arxiv_server import FakeArxiv
from tests.fakes.slack_server import Fault, Message, SlackFake
from tests.test_doctor import doctor, env, line_of, point_at  # noqa: F401 (env: the doctor's fixture)
from tests.test_run import PROFILE, _redate, at

ADA, CLEO = "U0ADA", "U0CLEO"  # a member, a workspace admin
PAPERS = "C0PAPERS"
DAY = dt.date(2026, 6, 1)
HOSTILE = [
    "<!channel> read this now",
    "Thanks <@U0CLEO> & <!subteam^S123|team>",
    "<https://evil.example/x|Click me> for the code",
    "@here and @everyone & *bold* _claims_",
    "R&amp;D &lt;not a tag&gt; " + "long title " * 400,
]


@pytest.fixture
def fake() -> Iterator[SlackFake]:
    with SlackFake() as fake:
        fake.add_user(ADA, "ada")
        fake.add_user(CLEO, "cleo", admin=True)
        fake.add_channel(PAPERS, "papers", members=[ADA, CLEO])
        yield fake


@pytest.fixture
def slack_settings(settings: Settings, fake: SlackFake) -> Settings:
    return settings.model_copy(
        update={
            "slack_bot_token": SecretStr(fake.bot_token),
            "slack_app_token": SecretStr(fake.app_token),
            "slack_api_url": fake.api_url,
            "slack_channel_interval_seconds": 0.05,
        }
    )


@asynccontextmanager
async def slack_bot(core: Core, settings: Settings) -> AsyncIterator[SlackFrontEnd]:
    handle = await start_slack(core, settings)
    try:
        yield handle
    finally:
        await handle.stop()


def seen_by(fake: SlackFake, channel: str, user: str) -> list[Message]:
    """What `user` sees in `channel`: the messages for everyone and the ones only for them, in order."""
    return [m for m in fake.messages if m.channel == channel and m.ephemeral_to in ("", user)]


async def command(fake: SlackFake, user: str, channel: str, text: str, *, expect: int = 1) -> list[Message]:
    """`/paperscout text`: acknowledged within 3 s; returns the `expect` new messages the runner sees."""
    before = len(seen_by(fake, channel, user))
    envelope = await fake.wait_for_ack(fake.slash_command(user, channel, "/paperscout", text))
    assert envelope.acked_in_time
    await fake.wait_until(lambda: len(seen_by(fake, channel, user)) >= before + expect, what=f"a reply to {text}")
    return seen_by(fake, channel, user)[before:]


async def say(
    fake: SlackFake, user: str, channel: str, text: str, *, thread: str = "", expect: int = 1
) -> list[Message]:
    """A message from `user`; returns the bot's `expect` new messages in the channel."""
    before = len(seen_by(fake, channel, user))
    await fake.wait_for_ack(fake.message_event(user, channel, text, thread_ts=thread))
    await fake.wait_until(lambda: len(seen_by(fake, channel, user)) >= before + expect, what=f"a reply to {text}")
    return seen_by(fake, channel, user)[before:]


def hostile_papers(count: int) -> list[Paper]:
    return [
        Paper(
            id=f"2606.{10000 + n:05d}",
            title=HOSTILE[n % len(HOSTILE)] + f" #{n}",
            authors=("Ada <@U0ADA>", "B. & Co"),
            abstract="abstract",
            categories=("cs.LG",),
            announced=DAY,
        )
        for n in range(count)
    ]


async def saved_target(core: Core, chat_id: str) -> Target:
    key = f"slack:{chat_id}"
    await core.repo.save_profile(key, PROFILE)
    target = Target("slack", chat_id, "lab", categories=("cs.LG",), post_time="09:00", digest_size=3)
    return replace(target, id=await core.repo.save_target(target, key))


async def post_digest(core: Core, handle: SlackFrontEnd, papers: list[Paper], chat_id: str = PAPERS) -> str:
    await core.repo.upsert_papers(papers)
    digest = Digest(
        day=DAY,
        profile_name="Lab <!channel>",
        scanned=444,
        items=tuple(
            ScoredPaper(
                p,
                score=1 - n / 100,
                relevance=7,
                novelty=5,
                reasons=("matches <@U0ADA>",),
                tldr="We show <x> & <!here> " * 60,
            )
            for n, p in enumerate(papers)
        ),
        notes=("Note <!everyone> & co",),
    )

    async def build() -> Digest:
        return digest

    result = await deliver(core, handle.poster, await saved_target(core, chat_id), DAY, build)
    return result.status


async def test_a_channel_digest_is_block_kit_within_slacks_limits_and_pings_nobody(
    core: Core, slack_settings: Settings, fake: SlackFake
) -> None:
    papers = hostile_papers(60)
    async with slack_bot(core, slack_settings) as bot:
        assert await post_digest(core, bot, papers) == "sent"
    assert all(c.ok for c in fake.calls("chat.postMessage")), [c.answer for c in fake.calls() if not c.ok]
    messages = fake.posted(PAPERS)
    assert len(messages) >= 60 * 2 // 50
    shown: list[str] = []
    for message in messages:
        assert len(message.blocks) <= 50 and message.pings == [], message.pings
        assert all(url.startswith("https://arxiv.org/abs/2606.") for url, _ in message.links)
        sections = [b["text"]["text"] for b in message.blocks if b["type"] == "section"]
        assert all(len(text) <= MAX_SECTION for text in sections)
        shown += [b["value"].removeprefix("ps:up:") for b in message.buttons if b["value"].startswith("ps:up:")]
    assert shown == [p.id for p in papers], "every paper once, in order, with its buttons"
    first = messages[0].visible_text
    assert first.startswith("*Lab &lt;!channel&gt;: arXiv digest for 2026-06-01*")
    assert "&lt;https://evil.example/x|Click me&gt;" in first and "@here and @everyone" in first
    assert messages[-1].visible_text.endswith("_Note &lt;!everyone&gt; &amp; co_")


async def test_a_channel_digest_is_one_message_in_the_channel_and_the_rest_in_its_thread(
    core: Core, slack_settings: Settings, fake: SlackFake
) -> None:
    """The core's `digest_threads`: a digest's later messages are replies in the header's thread (``thread_ts``), so a
    channel gets one message a day however many papers there are."""
    async with slack_bot(core, slack_settings) as bot:
        assert await post_digest(core, bot, hostile_papers(60)) == "sent"
    header, *rest = fake.posted(PAPERS)
    assert header.thread_ts == "" and header.visible_text.startswith("*Lab &lt;!channel&gt;: arXiv digest")
    assert len(rest) >= 2 and all(m.thread_ts == header.ts for m in rest)
    assert [m.ts for m in fake.posted(PAPERS) if not m.thread_ts] == [header.ts]


async def test_a_button_press_is_feedback_of_the_presser_answered_only_to_them(
    core: Core, slack_settings: Settings, fake: SlackFake
) -> None:
    papers = hostile_papers(3)
    async with slack_bot(core, slack_settings) as bot:
        await post_digest(core, bot, papers)
        [message] = fake.posted(PAPERS)
        envelope = await fake.wait_for_ack(fake.press_button(ADA, message, f"ps:up:{papers[1].id}"))
        assert envelope.acked_in_time
        [noted] = await fake.wait_for_posted(PAPERS, 1, user=ADA)
    assert noted.via == "response_url" and noted.visible_text.startswith("Noted: more like “")
    assert [b["value"] for b in noted.buttons] == [f"ps:undo:{papers[1].id}"]  # what it changed, and Undo
    assert [(f.paper_id, f.value) for f in await core.repo.user_feedback_rows(f"slack:{ADA}")] == [(papers[1].id, 1)]
    assert fake.posted(PAPERS, user=CLEO) == [] and len(fake.posted(PAPERS)) == 1


async def test_slash_command_sub_commands_setup_and_digest_now(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay
) -> None:
    await store_day(core)
    async with slack_bot(core, slack_settings):
        [listed] = await command(fake, ADA, PAPERS, "")
        assert (
            listed.ephemeral_to == ADA
            and "/paperscout help" in listed.visible_text
            and "/paperscout ask" in listed.visible_text
        )
        [unknown] = await command(fake, ADA, PAPERS, "frobnicate")
        assert "I don't know /frobnicate" in unknown.visible_text and unknown.ephemeral_to == ADA
        [refused] = await command(fake, ADA, PAPERS, "setup")
        assert "admins" in refused.visible_text and refused.ephemeral_to == ADA
        [asked] = await command(fake, CLEO, PAPERS, "setup")
        assert "#papers" in asked.visible_text and "categories" in asked.visible_text
        [kinds] = await say(fake, CLEO, PAPERS, "cs.LG, cs.AI")
        assert [b["text"]["text"] for b in kinds.buttons] == ["daily", "weekly Monday"]
        await fake.wait_for_ack(fake.press_button(CLEO, kinds, kinds.buttons[0]["value"]))
        await fake.wait_until(lambda: "what time" in seen_by(fake, PAPERS, CLEO)[-1].visible_text, what="the time")
        await say(fake, CLEO, PAPERS, "8am")
        await say(fake, CLEO, PAPERS, "Berlin")
        await say(fake, CLEO, PAPERS, "graph neural networks; optimisation theory")
        [done] = await say(fake, CLEO, PAPERS, "3")
        assert "All set!" in done.visible_text
        [described] = await command(fake, ADA, PAPERS, "settings")
        assert "08:00 (Europe/Berlin)" in described.visible_text
        before = len(fake.posted(PAPERS))
        posted, said = await command(fake, CLEO, PAPERS, "digest now", expect=2)
        assert posted.ephemeral_to == "" and "arXiv digest" in posted.visible_text and len(posted.buttons) == 9
        assert said.ephemeral_to == CLEO and said.visible_text.startswith("Posted the digest")
        assert len(fake.posted(PAPERS)) == before + 1
    found = await core.repo.target_at("slack", PAPERS)
    assert found is not None and found[0].post_time == "08:00" and found[0].digest_size == 3


async def test_a_dm_line_starting_with_a_slash_that_is_no_command_is_a_question(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay
) -> None:
    """A line typed in a DM is a command only when it reads as one ("/r/MachineLearning ..." does not) and names one
    of ours or says nothing more ("/s is sarcasm ..." goes on): the rest are questions, as on every platform."""
    await store_day(core)
    dm = fake.im_of(CLEO)
    async with slack_bot(core, slack_settings):
        for line in ("/r/MachineLearning has a thread on toxicity, any papers about it today?",
                     "/s is sarcasm, but are there papers about toxicity today?"):  # fmt: skip
            [answer] = await say(fake, CLEO, dm, line)
            assert "I don't know" not in answer.visible_text and "[1]" in answer.visible_text, line
        [unknown] = await say(fake, CLEO, dm, "/frobnicate")
        assert "I don't know /frobnicate" in unknown.visible_text


async def test_a_dm_starts_onboarding_and_a_question_is_answered_with_citations(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay
) -> None:
    await store_day(core)
    dm = fake.im_of(ADA)
    async with slack_bot(core, slack_settings):
        [welcome] = await say(fake, ADA, dm, "hello")
        assert "set up your personal paper feed" in welcome.visible_text
        await say(fake, ADA, dm, "graph neural networks; theory of deep learning optimisation")
        await say(fake, ADA, dm, "medical imaging")
        [asked] = await say(fake, ADA, dm, "Judea Pearl; Nobody Atall")
        assert [b["value"] for b in asked.buttons] == ["ps:c:authors:1", "ps:c:authors:2"]
        await fake.wait_for_ack(fake.press_button(ADA, asked, "ps:c:authors:1"))
        [categories] = (await fake.wait_for_posted(dm, len(fake.posted(dm)) + 1))[-1:]
        assert "categories" in categories.visible_text and categories.ephemeral_to == ""

        [answer] = await say(fake, CLEO, fake.im_of(CLEO), "papers about toxicity today?")
        assert answer.pings == [] and len(answer.links) >= 1
        assert all(url.startswith("https://arxiv.org/abs/") for url, _ in answer.links)
        assert "[1]" in answer.visible_text
    assert await core.repo.get_profile(profile_owner(f"slack:{CLEO}")) is None


async def test_a_dm_command_run_in_a_channel_is_answered_in_the_members_dm(
    core: Core, slack_settings: Settings, fake: SlackFake
) -> None:
    """/paperscout start works only in a DM: run in a channel, the driver answers it in the member's DM (where the
    onboarding then goes on) and tells the runner alone, as Discord does; nothing is posted in the channel."""
    dm = fake.im_of(ADA)
    async with slack_bot(core, slack_settings):
        [note] = await command(fake, ADA, PAPERS, "start")
        assert note.ephemeral_to == ADA and note.visible_text == "Sent you a direct message."
        [welcome] = fake.posted(dm)
        assert "set up your personal paper feed" in welcome.visible_text
        [next_question] = await say(fake, ADA, dm, "graph neural networks; theory of deep learning optimisation")
        assert "Anything you would rather not see?" in next_question.visible_text
    assert fake.posted(PAPERS) == []


async def test_a_command_typed_in_a_dm_takes_the_one_command_route_and_is_logged_as_that_command(
    core: Core, slack_settings: Settings, fake: SlackFake, caplog: pytest.LogCaptureFixture
) -> None:
    """ "/export" typed in a DM goes through the driver's one command route (`ChatDriver.command`), as on Discord and
    Telegram, and its log line names the command; it was a plain message there, logged as "text"."""
    caplog.set_level(logging.INFO, logger="bot.chat.controller")
    dm = fake.im_of(ADA)
    async with slack_bot(core, slack_settings) as bot:
        commands = watch_calls(bot, "command")
        [answer] = await say(fake, ADA, dm, " /export")  # Slack sends a "/" line as a message after a space
        assert await commands.wait() == [None]
    assert "Files are not sent on Slack yet" in answer.visible_text and answer.ephemeral_to == ""
    logged = [getattr(r, FIELDS) for r in caplog.records if r.getMessage() == "chat command"]
    assert [(f["command"], f["target"], f["outcome"]) for f in logged] == [("/export", "slack:dm", "ok")]


async def test_a_reply_refused_because_the_bot_left_the_channel_retires_its_digest_and_reaches_the_runner(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay
) -> None:
    await store_day(core)
    fake.add_channel("C0KICKED", "kicked", members=[ADA])
    kicked = await saved_target(core, "C0KICKED")
    fake.remove_bot("C0KICKED")
    async with slack_bot(core, slack_settings):
        [answer] = await command(fake, ADA, "C0KICKED", "ask papers about toxicity today?")
    assert answer.ephemeral_to == ADA and "[1]" in answer.visible_text, "the answer came through the response_url"
    reasons = await core.repo.inactive_reasons()
    assert "not_in_channel" in reasons[kicked.id], "the gone channel's digest retires at once, not at its next post"


async def test_a_mention_is_answered_in_its_thread_and_a_reply_there_follows_up(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay
) -> None:
    await store_day(core)
    async with slack_bot(core, slack_settings) as bot:
        envelope = fake.message_event(ADA, PAPERS, "<@U0PAPERBOT> papers about toxicity today")
        await fake.wait_for_ack(envelope)  # the message event of a mention is left to app_mention
        mention = fake.mention_event(ADA, PAPERS, "<@U0PAPERBOT> papers about toxicity today")
        await fake.wait_for_ack(mention)
        [answer] = await fake.wait_for_posted(PAPERS, 1)
        await bot.idle.wait()  # the answer is remembered for follow-ups once posted
        root = fake.envelopes[mention].payload["event"]["ts"]
        assert answer.thread_ts == root and answer.links
        assert "Papers from 20" in answer.visible_text and "ask a follow-up" in answer.visible_text
        [follow_up] = await say(fake, ADA, PAPERS, "which of them are about dialogue?", thread=root)
        assert follow_up.thread_ts == root and "[1]" in follow_up.visible_text
        assert await say(fake, ADA, PAPERS, "nice weather today", expect=0) == []
    assert len(fake.posted(PAPERS)) == 2, "channel chatter outside our threads is not answered"


async def test_a_thread_where_the_bot_posted_no_answer_is_still_spoken_to_it(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay
) -> None:
    """Every thread the bot starts or posts into is the bot's: a reply under its help line or its setup question is
    spoken to it (a question, or the setup's answer while the setup waits), not channel chatter."""
    await store_day(core)
    async with slack_bot(core, slack_settings) as bot:
        mention = fake.mention_event(ADA, PAPERS, "<@U0PAPERBOT>")
        await fake.wait_for_ack(mention)
        [how] = await fake.wait_for_posted(PAPERS, 1)
        root = fake.envelopes[mention].payload["event"]["ts"]
        assert how.thread_ts == root and not how.links  # how to ask: no answer, no question context
        await bot.idle.wait()
        [answer] = await say(fake, ADA, PAPERS, "papers about toxicity today?", thread=root)
        assert answer.thread_ts == root and "[1]" in answer.visible_text
        [asked] = await command(fake, CLEO, PAPERS, "setup")
        assert asked.ephemeral_to == "" and "categories" in asked.visible_text
        await bot.idle.wait()
        [kinds] = await say(fake, CLEO, PAPERS, "cs.LG, cs.AI", thread=asked.ts)  # the setup's answer, not a question
        assert kinds.thread_ts == asked.ts and [b["text"]["text"] for b in kinds.buttons] == ["daily", "weekly Monday"]


async def test_a_reply_in_our_thread_is_looked_up_once(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay, context_lookups: list[str]
) -> None:
    """Whether a thread is the bot's is read from the store once per message, not by the front end, then the
    controller, then the question again."""
    await store_day(core)
    async with slack_bot(core, slack_settings) as bot:
        mention = fake.mention_event(ADA, PAPERS, "<@U0PAPERBOT> papers about toxicity today")
        await fake.wait_for_ack(mention)
        await fake.wait_for_posted(PAPERS, 1)
        await bot.idle.wait()
        root = fake.envelopes[mention].payload["event"]["ts"]
        context_lookups.clear()
        [follow_up] = await say(fake, ADA, PAPERS, "which of them are about dialogue?", thread=root)
        assert follow_up.thread_ts == root and "[1]" in follow_up.visible_text
    assert context_lookups == [root]


async def test_pacing_keeps_a_digest_under_one_message_a_second_and_a_429_waits_its_retry_after(
    core: Core, slack_settings: Settings, fake: SlackFake
) -> None:
    fake.rate_per_channel_seconds = 1.0
    paced = slack_settings.model_copy(update={"slack_channel_interval_seconds": 1.05})
    async with slack_bot(core, paced) as bot:
        assert await post_digest(core, bot, hostile_papers(50)) == "sent"
        calls = fake.calls("chat.postMessage")
        assert len(calls) >= 3 and all(c.ok for c in calls), "paced: Slack never had to refuse"
        fake.rate_per_channel_seconds = 0.0
        fake.add_channel("C0OTHER", "other")
        fake.enqueue(*[Fault.rate_limited(1, method="chat.postMessage")] * 2)
        assert await post_digest(core, bot, hostile_papers(2), chat_id="C0OTHER") == "sent"
    refused, *_, accepted = [c for c in fake.calls("chat.postMessage") if c.args.get("channel") == "C0OTHER"]
    assert refused.status == 429 and accepted.ok
    assert accepted.at - refused.at >= 1.0, "the post waited the Retry-After Slack gave"


async def test_a_429_that_asks_no_wait_is_retried_promptly(
    core: Core, slack_settings: Settings, fake: SlackFake
) -> None:
    """`Retry-After: 0` is a retry now: it was read as no wait named and the digest waited a minute."""
    fake.enqueue(*[Fault.rate_limited(0, method="chat.postMessage")] * 2)  # the SDK's own retry takes the first
    async with slack_bot(core, slack_settings) as bot:
        async with asyncio.timeout(20):
            assert await post_digest(core, bot, hostile_papers(1)) == "sent"
    assert [c.status for c in fake.calls("chat.postMessage")][:2] == [429, 429]


async def test_a_gone_channel_turns_its_digest_inactive_after_one_refusal(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    await _redate(core, papers[:20], DAY, "2026-06-01T04:00:00Z")
    fake.add_channel("C0KICKED", "kicked")
    fake.add_channel("C0ARCHIVED", "archived")
    kicked, archived = await saved_target(core, "C0KICKED"), await saved_target(core, "C0ARCHIVED")
    gone = await saved_target(core, "C0DELETED")
    fake.remove_bot("C0KICKED")
    fake.archive("C0ARCHIVED")
    async with slack_bot(core, slack_settings) as bot:
        jobs = DigestJobs(core, {"slack": bot.poster}, clock=lambda: at("2026-06-01T09:05:00"))
        assert {r.status for r in await jobs.tick()} == {"failed"}
        assert await jobs.tick() == []
    reasons = await core.repo.inactive_reasons()
    assert set(reasons) == {kicked.id, archived.id, gone.id}
    assert "not_in_channel" in reasons[kicked.id] and "is_archived" in reasons[archived.id]
    assert "channel_not_found" in reasons[gone.id]
    assert len(fake.calls("chat.postMessage")) == 3, "one refused post each, never retried"


@pytest.mark.usefixtures("env")  # a clean environment, through the same monkeypatch
def test_doctor_checks_both_slack_tokens_without_printing_them(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    fake: SlackFake,
    fake_arxiv: FakeArxiv,
) -> None:
    online = monkeypatch
    point_at(online, **fake_arxiv.settings_overrides())
    point_at(online, home=tmp_path / "home", slack_bot_token=fake.bot_token, slack_api_url=fake.api_url)
    _, lines = doctor(capsys)
    assert line_of(lines, "Slack").startswith("FAIL  Slack: PAPERSCOUT_SLACK_APP_TOKEN is not set; fix: Socket Mode")
    point_at(online, slack_app_token=fake.app_token)
    code, lines = doctor(capsys)
    assert line_of(lines, "Slack") == "OK    Slack: token accepted: paperscout in Fake Lab" and code == 0
    point_at(online, slack_bot_token="xoxb-1111-2222-NotTheToken")
    code, lines = doctor(capsys)
    assert line_of(lines, "Slack").startswith("FAIL  Slack: Slack refused PAPERSCOUT_SLACK_BOT_TOKEN (invalid_auth)")
    assert code == 1 and "NotTheToken" not in "\n".join(lines) and fake.app_token not in "\n".join(lines)
    assert [c.method for c in fake.calls()] == ["auth.test"] * 3


@pytest.mark.usefixtures("env")
def test_doctor_offline_fails_a_bot_token_without_the_app_token_slack_bot_cannot_start_without(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`run` refuses Slack without an app-level token: --offline says so instead of "all is well"."""
    point_at(monkeypatch, home=tmp_path / "home", slack_bot_token="xoxb-1111-2222-Secret")
    code, lines = doctor(capsys, "--offline")
    assert line_of(lines, "Slack").startswith("FAIL  Slack: PAPERSCOUT_SLACK_APP_TOKEN is not set") and code == 1
    point_at(monkeypatch, slack_app_token="xoxb-not-an-app-token")
    code, lines = doctor(capsys, "--offline")
    assert line_of(lines, "Slack").startswith("FAIL  Slack: PAPERSCOUT_SLACK_APP_TOKEN is not an app-level token")
    point_at(monkeypatch, slack_app_token="xapp-1-A1-Secret")
    code, lines = doctor(capsys, "--offline")
    assert line_of(lines, "Slack").startswith("skip  Slack: token not checked") and code == 0
    assert "Secret" not in "\n".join(lines)


async def test_a_personal_digest_goes_to_the_members_dm_and_a_deactivated_member_is_not_retried(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    profile = Profile("Ada", (Topic("graphs", "graph neural networks"),), categories=("cs.LG",))
    for user in (ADA, CLEO):
        key = f"slack:{user}"
        await core.repo.save_profile(profile_owner(key), profile)
        await core.repo.save_user_settings(key, digest_mode="daily", post_time="08:00", timezone="UTC", weekly_day=0)
    fake.deactivate(CLEO)
    async with slack_bot(core, slack_settings) as bot:
        sent = await deliver_personal_digest(core, bot.poster, f"slack:{ADA}", papers[0].announced)
        refused = await deliver_personal_digest(core, bot.poster, f"slack:{CLEO}", papers[0].announced)
    assert sent.status == "sent" and refused.status == "failed" and refused.permanent
    [digest] = fake.posted(fake.im_of(ADA))
    assert digest.visible_text.startswith("*Ada: arXiv digest for") and digest.buttons
    assert [c.answer.get("error") for c in fake.calls("chat.postMessage") if not c.ok] == ["user_disabled"]
    retired = await core.repo.get_user(f"slack:{CLEO}")
    assert retired is not None and retired.digest_mode == "off", "the core's gone policy: no retry every minute"


async def test_a_reply_refused_in_a_members_dm_turns_off_their_digest_keyed_by_their_user_id(
    core: Core, slack_settings: Settings, fake: SlackFake
) -> None:
    """A DM channel's id ('D…') is not its member's ('U…'): a reply the DM refuses retires the member's personal
    digest, found through conversations.info, instead of a 'slack:D…' no one is (retried every minute)."""
    key = f"slack:{ADA}"
    await core.repo.save_user_settings(key, digest_mode="daily", post_time="08:00", timezone="UTC", weekly_day=0)
    dm = fake.im_of(ADA)
    async with slack_bot(core, slack_settings) as bot:
        retired = watch_gone(bot)
        fake.deactivate(ADA)
        await fake.wait_for_ack(fake.message_event(ADA, dm, "/help"))
        await asyncio.wait_for(retired.wait(), 10)
    assert [c.answer.get("error") for c in fake.calls("chat.postMessage") if not c.ok] == ["user_disabled"]
    retired = await core.repo.get_user(key)
    assert retired is not None and retired.digest_mode == "off"


async def test_a_dm_refused_while_slack_cannot_say_whose_it_is_keeps_the_refusal_and_retires_nothing(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay
) -> None:
    """When conversations.info cannot be had (the network drops, or a token installed without im:read), the post's
    own refusal is what the poster reports, not the lookup's error, and no 'slack:D…' is retired in the member's
    stead; the member's digest is left as it is (logged)."""
    papers = await store_day(core)
    digest = Digest(day=papers[0].announced, profile_name="me", scanned=60, items=(ScoredPaper(papers[0], 1.0, 5, 5),))
    key = f"slack:{ADA}"
    await core.repo.save_user_settings(key, digest_mode="daily", post_time="08:00", timezone="UTC", weekly_day=0)
    dm = fake.im_of(ADA)
    async with slack_bot(core, slack_settings) as bot:
        fake.deactivate(ADA)
        fake.always(Fault.disconnect(method="conversations.info"))  # slack_sdk tries a dropped connection again
        with pytest.raises(DeliveryError, match="user_disabled"):
            await post_all(bot.poster, Target(platform="slack", chat_id=dm, profile_name="me"), digest)
        fake.always(None)
        dropped = [c.answer for c in fake.calls("conversations.info")]
        assert dropped and all(answer == {"disconnected": True} for answer in dropped)
        fake.scopes.remove("im:read")
        with pytest.raises(DeliveryError, match="user_disabled"):
            await post_all(bot.poster, Target(platform="slack", chat_id=dm, profile_name="me"), digest)
        assert fake.calls("conversations.info")[-1].answer["error"] == "missing_scope"
    assert (await core.repo.get_user(key)).digest_mode == "daily"  # type: ignore[union-attr]
    assert await core.repo.inactive_reasons() == {}


@pytest.mark.usefixtures("env")
def test_doctor_says_which_scope_the_bot_token_lacks(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, fake: SlackFake,
    fake_arxiv: FakeArxiv,
) -> None:  # fmt: skip
    """An app installed before im:read was in the manifest: doctor names the scope and how to add it."""
    point_at(monkeypatch, **fake_arxiv.settings_overrides())
    point_at(
        monkeypatch, home=tmp_path / "home", slack_bot_token=fake.bot_token, slack_api_url=fake.api_url,
        slack_app_token=fake.app_token,
    )  # fmt: skip
    fake.scopes.remove("im:read")
    code, lines = doctor(capsys)
    assert line_of(lines, "Slack").startswith("FAIL  Slack: the bot token lacks the scope im:read; fix: add it")
    assert code == 1


@pytest.mark.usefixtures("env")
def test_doctor_warns_when_it_cannot_read_the_bot_tokens_scopes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, fake: SlackFake,
    fake_arxiv: FakeArxiv,
) -> None:  # fmt: skip
    """Slack's answer without the token's scopes (a proxy dropped the header): doctor cannot tell whether one is
    missing, so it warns (WARN, exit 0, the last line says so) instead of failing or passing it as OK."""
    point_at(monkeypatch, **fake_arxiv.settings_overrides())
    point_at(
        monkeypatch, home=tmp_path / "home", slack_bot_token=fake.bot_token, slack_api_url=fake.api_url,
        slack_app_token=fake.app_token,
    )  # fmt: skip
    fake.names_scopes = False
    code, lines = doctor(capsys)
    assert line_of(lines, "Slack").startswith("WARN  Slack: token accepted: ")
    assert "cannot tell whether it has the 8 paperscout needs; fix: compare" in line_of(lines, "Slack")
    assert lines[-1].startswith("doctor: nothing failed; 1 warning worth a look (the WARN lines)"), lines
    assert code == 0, lines


async def test_an_http_refusal_slack_gives_no_code_for_retires_no_channel_and_is_retried(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Slack says what is wrong with a channel in its error codes; a bare 404 (``unknown_method``: a method it no
    longer has) or a proxy's 403 is nobody's channel: the digest is retried, never retired."""
    monkeypatch.setattr("bot.digests.delivery.FIRST_BACKOFF_SECONDS", 0.01)
    papers = await store_day(core)
    await _redate(core, papers[:20], DAY, "2026-06-01T04:00:00Z")
    fake.add_channel("C0SECOND", "second")
    first, second = await saved_target(core, PAPERS), await saved_target(core, "C0SECOND")
    fake.enqueue(
        Fault("status", "chat.postMessage", error="unknown_method", status=404),
        Fault("status", "chat.postMessage", error="forbidden", status=403),
    )
    async with slack_bot(core, slack_settings) as bot:
        jobs = DigestJobs(core, {"slack": bot.poster}, clock=lambda: at("2026-06-01T09:05:00"))
        results = await jobs.tick()
    assert {r.target.id: r.status for r in results} == {first.id: "sent", second.id: "sent"}
    assert await core.repo.inactive_reasons() == {}
    assert sorted(c.status for c in fake.calls("chat.postMessage") if not c.ok) == [403, 404]


async def test_a_thread_slack_refuses_sends_the_rest_of_the_digest_into_the_channel(
    core: Core, slack_settings: Settings, fake: SlackFake
) -> None:
    """A channel that takes no thread replies (or a thread locked or gone: Slack says which in its code) gets the
    rest of the digest as messages in the channel, asked once per digest; nothing is retired."""
    papers = hostile_papers(60)
    items = tuple(ScoredPaper(p, 1.0, 5.0, 5.0) for p in papers)
    digest = Digest(day=DAY, profile_name="Lab", scanned=444, items=items)
    target = await saved_target(core, PAPERS)
    async with slack_bot(core, slack_settings) as bot:
        messages = bot.poster.digest_messages(target, digest)
        assert len(messages) >= 3
        sent = [await bot.poster.send_digest_message(target, messages[0], 0, [], "n:0")]
        fake.enqueue(Fault.refuse("restricted_action_non_threadable_channel", method="chat.postMessage"))
        for position, message in enumerate(messages[1:], 1):
            sent.append(await bot.poster.send_digest_message(target, message, position, sent, f"n:{position}"))
    posted = fake.posted(PAPERS)
    assert [m.ts for m in posted] == sent and not any(m.thread_ts for m in posted)
    (refused,) = [c for c in fake.calls("chat.postMessage") if not c.ok]
    assert refused.args.get("thread_ts") == sent[0]
    assert await core.repo.inactive_reasons() == {}


async def test_a_channel_slack_lets_no_app_post_in_retires_its_digest_with_the_admins_line(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``restricted_action`` (a workspace or channel preference: who may post) is the admin's to change: the digest
    is not retried every minute but retired at once, with a line saying what to check."""
    monkeypatch.setattr("bot.digests.delivery.FIRST_BACKOFF_SECONDS", 0.01)
    papers = await store_day(core)
    await _redate(core, papers[:20], DAY, "2026-06-01T04:00:00Z")
    target = await saved_target(core, PAPERS)
    fake.enqueue(Fault.refuse("restricted_action", method="chat.postMessage"))
    async with slack_bot(core, slack_settings) as bot:
        jobs = DigestJobs(core, {"slack": bot.poster}, clock=lambda: at("2026-06-01T09:05:00"))
        (result,) = await jobs.tick()
    assert (result.status, result.permanent) == ("failed", True)
    assert "I can't post in that channel" in (await core.repo.inactive_reasons())[target.id]
    assert len(fake.calls("chat.postMessage")) == 1


async def test_a_token_slack_refuses_retires_no_channel_and_stops_posting(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    await _redate(core, papers[:20], DAY, "2026-06-01T04:00:00Z")
    fake.add_channel("C0SECOND", "second")
    first, second = await saved_target(core, PAPERS), await saved_target(core, "C0SECOND")
    async with slack_bot(core, slack_settings) as bot:
        fake.token_error = "account_inactive"  # the app was uninstalled, or its token revoked, while running
        jobs = DigestJobs(core, {"slack": bot.poster}, clock=lambda: at("2026-06-01T09:05:00"))
        results = await jobs.tick()
    assert {r.target.id: (r.status, r.permanent) for r in results} == {
        first.id: ("failed", False),
        second.id: ("failed", False),
    }
    assert await core.repo.inactive_reasons() == {}, "the channels are fine: the token is not"
    assert len(fake.calls("chat.postMessage")) == 1, "one refusal, then nothing more is sent to Slack"


def test_a_topic_tree_digest_shows_its_topics_on_slack_as_on_the_other_platforms() -> None:
    papers = [Paper(f"2606.0{n:04d}", f"Paper {n} <b>", ("A",), "abstract", ("cs.LG",), DAY) for n in range(12)]
    digest = Digest(
        day=DAY,
        profile_name="Weekly",
        scanned=100,
        items=tuple(ScoredPaper(p, 0.5, 5.0, 5.0, tldr=f"We show {p.id}.") for p in papers),
        sections=(DigestSection("Sparse & <models>", 1, 0), DigestSection("Routing", 2, 12)),
    )
    (message,) = render(DigestReply(digest_view(digest)))
    sections = [b["text"]["text"] for b in message.blocks if b["type"] == "section"]
    assert sections[1].startswith(
        "*■ Sparse &amp; &lt;models&gt;*\n*▸ Routing*\n*1.* <https://arxiv.org/abs/2606.00000|"
    )
    assert all(f"{p.id}|Paper" in sections[1] for p in papers)
    assert not [b for b in message.blocks if b["type"] == "actions"], "a topic names its papers by number"


async def test_a_weekly_topic_tree_of_60_hostile_papers_goes_through_slack_within_block_kit_limits(
    core: Core, slack_settings: Settings, fake: SlackFake
) -> None:
    from tests.conftest import post_all
    from tests.test_weekly_tree import as_tree

    papers = hostile_papers(60)
    items = tuple(ScoredPaper(p, score=1, relevance=7, novelty=5, tldr="We show <x> & <!here> " * 30) for p in papers)
    digest = as_tree(Digest(day=DAY, profile_name="Lab", scanned=400, items=items, start=DAY - dt.timedelta(days=6)))
    async with slack_bot(core, slack_settings) as bot:
        await post_all(bot.poster, Target("slack", PAPERS, "lab"), digest)
    assert all(c.ok for c in fake.calls("chat.postMessage")), [c.answer for c in fake.calls() if not c.ok]
    linked: list[str] = []
    for message in fake.posted(PAPERS):
        assert len(message.blocks) <= 50 and message.pings == []
        assert all(len(b["text"]["text"]) <= MAX_SECTION for b in message.blocks if b["type"] == "section")
        linked += [url.removeprefix("https://arxiv.org/abs/") for url, _ in message.links]
    assert linked == [p.id for p in papers], "every paper once, in order"
    shown = "\n".join(m.visible_text for m in fake.posted(PAPERS))
    assert "Sub 0a &amp; &lt;i&gt;" in shown and "Topic 3" in shown and "@everyone" in shown


async def test_a_failure_while_answering_is_told_with_a_reference_to_the_runner_and_in_the_thread(
    core: Core, slack_settings: Settings, fake: SlackFake, caplog: pytest.LogCaptureFixture
) -> None:
    async with slack_bot(core, slack_settings):
        fake.always(Fault.disconnect(method="users.info"))  # who spoke cannot be asked: the network fails
        [note] = await command(fake, ADA, PAPERS, "help")
        assert note.ephemeral_to == ADA and "went wrong on my side (ref " in note.visible_text
        asked = fake.mention_event(ADA, PAPERS, "<@U0PAPERBOT> what is new in graphs?")
        await fake.wait_for_ack(asked)
        await fake.wait_until(lambda: len(fake.posted(PAPERS)) >= 1, what="the note in the thread")
        [told] = fake.posted(PAPERS)
    assert told.thread_ts and "went wrong on my side (ref " in told.visible_text
    for shown in (note, told):
        ref = shown.visible_text.split("ref ", 1)[1][:6]
        assert any(ref in record.getMessage() for record in caplog.records)


async def test_a_reply_in_a_thread_the_bot_never_answered_in_is_not_spoken_to_it(
    core: Core, slack_settings: Settings, fake: SlackFake, store_day: StoreDay, caplog: pytest.LogCaptureFixture
) -> None:
    """Every reply in a channel thread carries the thread's ts: one in a member's own thread is chatter (a failure
    with it only logged, nothing posted there), one in the bot's thread is still told what went wrong."""
    await store_day(core)
    async with slack_bot(core, slack_settings) as bot:
        mention = fake.mention_event(ADA, PAPERS, "<@U0PAPERBOT> papers about toxicity today")
        await fake.wait_for_ack(mention)
        await fake.wait_for_posted(PAPERS, 1)
        await bot.idle.wait()  # the answer is remembered for follow-ups once posted
        ours = fake.envelopes[mention].payload["event"]["ts"]
        chatter = fake.message_event(CLEO, PAPERS, "lunch at noon?")
        await fake.wait_for_ack(chatter)
        theirs = fake.envelopes[chatter].payload["event"]["ts"]
        fake.always(Fault.disconnect(method="users.info"))  # who spoke cannot be asked: the network fails
        bea = "U0BEA"  # not asked about before: no cached answer hides the failure
        await fake.wait_for_ack(fake.message_event(bea, PAPERS, "count me in", thread_ts=theirs))
        await fake.wait_until(
            lambda: any(f"Slack message in {PAPERS} failed" in r.getMessage() for r in caplog.records),
            what="the failure to be logged",
        )
        assert len(fake.posted(PAPERS)) == 1, "nothing is posted in a thread that is not the bot's"
        [told] = await say(fake, bea, PAPERS, "which of them are about dialogue?", thread=ours)
    assert told.thread_ts == ours and "went wrong on my side (ref " in told.visible_text


async def test_a_slack_that_cannot_be_reached_fails_start_up_in_one_line(core: Core, slack_settings: Settings) -> None:
    away = slack_settings.model_copy(update={"slack_api_url": refused_url() + "/api/"})
    with pytest.raises(SourceUnavailable, match=r"^cannot reach Slack at http://127\.0\.0\.1:\d+/api: ") as failed:
        await start_slack(core, away)
    assert "\n" not in str(failed.value) and failed.value.__cause__ is None


async def test_a_failure_with_a_channel_message_nobody_said_to_the_bot_is_only_logged(
    core: Core, slack_settings: Settings, fake: SlackFake, caplog: pytest.LogCaptureFixture
) -> None:
    """Chatter in a channel the bot is in, not in a thread and naming no bot, is nobody's message to it: when who
    spoke cannot be asked, the failure is logged, and nothing is posted there."""
    async with slack_bot(core, slack_settings):
        fake.always(Fault.disconnect(method="users.info"))
        await fake.wait_for_ack(fake.message_event(ADA, PAPERS, "nice weather today"))
        await fake.wait_until(
            lambda: any(f"Slack message in {PAPERS}" in r.getMessage() for r in caplog.records),
            what="the failure to be logged",
        )
    assert fake.posted(PAPERS) == []
    # logged once, with its traceback, and not as the line a member would have read
    [logged] = [r for r in caplog.records if f"Slack message in {PAPERS}" in r.getMessage()]
    assert logged.exc_info is not None
    assert not any("went wrong on my side" in r.getMessage() for r in caplog.records)
