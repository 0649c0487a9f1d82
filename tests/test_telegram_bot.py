"""The Telegram front end end to end: the real PTB Application (AIORateLimiter, long polling) started the way
`paperscout run` starts it, over real HTTP to the fake Bot API, driving the real chat controller and core."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import random
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest
from pydantic import SecretStr
from telegram import Update
from telegram.error import InvalidToken
from telegram.ext import ContextTypes, TypeHandler

from bot.config import Settings
from bot.core import Core
from bot.digests.delivery import deliver
from bot.errors import SourceUnavailable
from bot.frontends.telegram.app import start_telegram
from bot.frontends.telegram.handlers import TelegramFrontEnd
from bot.frontends.telegram.render import HTML, PLAIN, TgMessage, render_digest
from bot.ingest.bundled import EXAMPLE_PROFILE_FILE, bundled_file
from bot.members.personal import deliver_personal_digest
from bot.members.privacy import export_user
from bot.members.settings import profile_owner
from bot.models import Digest, Paper, Profile, ScoredPaper, Target, Topic
from bot.ranking import learn
from bot.views.model import digest_view
from tests.conftest import StoreDay, post_all, refused_url, watch_gone
from tests.fakes.telegram_server import FakeTelegram, Fault, RatePolicy, SentMessage
from tests.test_telegram_render import hostile_digest

ADA, BOB, CLEO = 1001, 1002, 1003
GROUP = -1001234567890


@pytest.fixture
def fake(fake_telegram: FakeTelegram) -> FakeTelegram:
    fake_telegram.add_user(ADA, "Ada", username="ada")
    fake_telegram.add_user(BOB, "Bob")
    fake_telegram.add_user(CLEO, "Cleo")
    fake_telegram.add_group(GROUP, "Reading group", creator=CLEO, members=[BOB, ADA])
    return fake_telegram


@pytest.fixture
def tg_settings(settings: Settings, fake: FakeTelegram) -> Settings:
    """Settings pointing the bot at the fake, with pacing short enough for tests."""
    return settings.model_copy(
        update={
            "telegram_token": SecretStr(fake.token),
            "telegram_base_url": fake.url,
            "telegram_chat_interval_seconds": 0.05,
            "telegram_poll_timeout_seconds": 2,
        }
    )


@asynccontextmanager
async def telegram_bot(core: Core, settings: Settings) -> AsyncIterator[TelegramFrontEnd]:
    handle = await start_telegram(core, settings)
    try:
        yield handle
    finally:
        await handle.stop()


def watch_handled(bot: TelegramFrontEnd, wanted: Callable[[Update], bool], count: int = 1) -> asyncio.Event:
    """An event set once the bot's handlers are done with `count` updates `wanted` picks: PTB runs a later group's
    handler for an update after the earlier groups' handlers have finished with it, so a test waits on what the code
    did, never on a clock."""
    done, seen = asyncio.Event(), 0

    async def mark(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        nonlocal seen
        if wanted(update):
            seen += 1
            if seen >= count:
                done.set()

    bot.application.add_handler(TypeHandler(Update, mark), group=1)
    return done


def scored(papers: list[Paper]) -> tuple[ScoredPaper, ...]:
    """Papers as a digest's items, in order."""
    return tuple(ScoredPaper(p, score=1.0 - n / 10, relevance=5, novelty=5) for n, p in enumerate(papers))


def text_message(text: str) -> TgMessage:
    """Plain text as one Telegram message."""
    return TgMessage(HTML.escape(text), PLAIN.escape(text))


async def saved_group(core: Core) -> Target:
    """The group's digest target, saved (with a profile), as /setup leaves it."""
    await core.repo.save_profile(f"telegram:{GROUP}", Profile("Group", (Topic("graphs", "graph learning"),)))
    target = Target("telegram", str(GROUP), "Group")
    return dataclasses.replace(target, id=await core.repo.save_target(target, f"telegram:{GROUP}"))


async def as_built(digest: Digest) -> Digest:
    """A digest build that returns `digest`."""
    return digest


async def recorded(core: Core, target: Target, digest: Digest) -> list[str]:
    """The message ids the ledger recorded for the target's digest, in order."""
    assert target.id is not None
    messages = await core.repo.sent_messages(target.id, digest.day)
    return [messages[seq] for seq in sorted(messages)]


async def say(fake: FakeTelegram, chat: int, user: int, text: str, *, expect: int = 1) -> list[SentMessage]:
    """A user writes; returns the bot's new messages in that chat (waits for `expect` of them)."""
    before = len(fake.sent(chat)) if chat in fake._chats else 0
    fake.inject_message(chat, user, text)
    sent = await fake.wait_for_sent(chat, before + expect)
    return sent[before:]


async def press(fake: FakeTelegram, chat: int, user: int, message: SentMessage, data: str) -> list[SentMessage]:
    """A user presses a button of a bot message; returns the bot's new messages in that chat."""
    before = len(fake.sent(chat))
    query = fake.press_button(chat, message.message_id, user, data)
    await fake.wait_until(lambda: fake.callback_answered(query), what="the press to be answered")
    await fake.wait_until(lambda: len(fake.sent(chat)) > before, what="a reply")
    return fake.sent(chat)[before:]


async def test_start_in_a_dm_runs_onboarding_end_to_end(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    await store_day(core)
    async with telegram_bot(core, tg_settings):
        [welcome] = await say(fake, ADA, ADA, "/start")
        assert "set up your personal paper feed" in welcome.text
        assert fake.chat_actions(ADA)[:1] == ["typing"]
        await say(fake, ADA, ADA, "graph neural networks; theory of deep learning optimisation")
        await say(fake, ADA, ADA, "medical imaging")
        [asked] = await say(fake, ADA, ADA, "Judea Pearl; Nobody Atall")
        assert "'Nobody Atall'" in asked.text and asked.callback_data == ["ps:c:authors:1", "ps:c:authors:2"]
        [categories] = await press(fake, ADA, ADA, asked, "ps:c:authors:1")
        assert "categories" in categories.text
        answered = [c.method for c in fake.calls() if c.method in ("answerCallbackQuery", "sendMessage")]
        assert answered[-2:] == ["answerCallbackQuery", "sendMessage"], "the press is answered before the reply"
        reply = await say(fake, ADA, ADA, "cs.LG")
        for _ in range(6):  # rate sample papers with their buttons until the digest question
            last = reply[-1]
            rate = [d for d in last.callback_data if d.startswith("ps:c:rate:")]
            if not rate:
                break
            reply = await press(fake, ADA, ADA, last, rate[0])
        assert "daily or weekly" in reply[-1].text or "personal digest" in reply[-1].text.lower()
        [done] = await say(fake, ADA, ADA, "off")
        assert "All set!" in done.text
    assert await core.repo.get_profile(profile_owner(f"telegram:{ADA}")) is not None
    # (the long poll cut short at shutdown ends with 409 once the final getUpdates arrives, as Telegram's would)
    assert [c.status for c in fake.calls() if c.status != 200 and c.method != "getUpdates"] == []


async def test_setup_by_an_admin_with_a_toml_file_and_refused_for_a_member(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    await store_day(core)
    async with telegram_bot(core, tg_settings):
        [refused] = await say(fake, GROUP, BOB, "/setup@paperscout_test_bot")
        assert "admins" in refused.text and refused.reply_to_message_id is not None
        assert await core.repo.target_at("telegram", str(GROUP)) is None

        before = len(fake.sent(GROUP))
        toml = bundled_file(EXAMPLE_PROFILE_FILE).read_bytes()
        caption = "/setup categories=cs.LG, cs.AI time=07:30 timezone=Europe/Berlin size=5"
        fake.inject_document(GROUP, CLEO, "lab.toml", toml, mime_type="application/toml", caption=caption)
        [done] = (await fake.wait_for_sent(GROUP, before + 1))[before:]
        assert "All set!" in done.text
        [settings] = await say(fake, GROUP, BOB, "/settings")
        assert "07:30 (Europe/Berlin)" in settings.text
    found = await core.repo.target_at("telegram", str(GROUP))
    assert found is not None
    target, profile = found
    assert (target.categories, target.post_time, target.digest_size) == (("cs.LG", "cs.AI"), "07:30", 5)
    assert profile.boost, "the profile came from the attached TOML file, fetched with getFile"
    assert [c.method for c in fake.calls("getFile")] == ["getFile"]
    assert [c.params["user_id"] for c in fake.calls("getChatMember")] == [str(BOB), str(CLEO)]


async def test_a_60_paper_hostile_digest_posts_split_with_no_parse_error(
    core: Core, tg_settings: Settings, fake: FakeTelegram
) -> None:
    # the group's flood limits enforced by the fake, scaled down in time: our pacing must keep under them
    fake.set_rate_policy(RatePolicy(overall_per_second=30, per_chat_per_second=10, per_group_per_minute=None))
    digest = hostile_digest(60)
    target = Target("telegram", str(GROUP), digest.profile_name, id=1)
    async with telegram_bot(core, tg_settings.model_copy(update={"telegram_chat_interval_seconds": 0.11})) as bot:
        refs = await post_all(bot.poster, target, digest)
    sent = fake.sent(GROUP)
    assert [str(m.message_id) for m in sent] == refs and len(sent) >= 8
    assert [c.status for c in fake.calls("sendMessage")] == [200] * len(sent)
    shown = "\n".join(m.text for m in sent)
    assert "<script>alert('x')</script> & friends" in shown and "Unbalanced <b>bold and <i>italic" in shown
    assert "Ping @\u2060alice_lab" in shown, "shown, but not as a mention"
    assert not [e for m in sent for e in m.entities if e["type"] == "mention"], "nobody is pinged by a title"
    buttons = [data for m in sent for data in m.callback_data]
    assert len(buttons) == 3 * 60 and all(m.html is not None for m in sent)


async def test_a_thumbs_up_pressed_after_a_restart_is_stored(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    fake.open_private_chat(ADA)
    digest = Digest(day=papers[0].announced, profile_name="Ada", scanned=60, items=scored(papers[:3]))
    async with telegram_bot(core, tg_settings) as first:
        await post_all(first.poster, Target("telegram", f"dm:{ADA}", "Ada", id=1), digest)
    [posted] = fake.sent(ADA)
    up = f"ps:up:{papers[1].id}"
    assert up in posted.callback_data
    async with telegram_bot(core, tg_settings):  # a new process: nothing in memory about the message
        [noted] = await press(fake, ADA, ADA, posted, up)
    rows = await core.repo.user_feedback_rows(f"telegram:{ADA}")
    assert [(r.paper_id, r.value) for r in rows] == [(papers[1].id, 1)]
    # what it changed, with an Undo button: a message, not a toast
    assert noted.text.startswith(f"Noted: more like “{papers[1].title[:30]}") and "1 reaction so far" in noted.text
    assert noted.callback_data == [f"ps:undo:{papers[1].id}"]


async def test_a_reaction_says_what_it_changed_and_is_listed_undone_and_reset(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    user = f"telegram:{ADA}"
    await learn.record_reactions(core, user, {papers[10].id: 1, papers[11].id: -1})  # the learner is in use
    fake.open_private_chat(ADA)
    digest = Digest(day=papers[0].announced, profile_name="Ada", scanned=60, items=scored(papers[:3]))
    async with telegram_bot(core, tg_settings) as bot:
        await post_all(bot.poster, Target("telegram", f"dm:{ADA}", "Ada", id=1), digest)
        [posted] = fake.sent(ADA)
        [noted] = await press(fake, ADA, ADA, posted, f"ps:up:{papers[1].id}")
        assert noted.text.startswith(f"Noted: more like “{papers[1].title[:30]}")
        assert "Your next digest moves papers " in noted.text and "3 reactions so far" in noted.text
        [undone] = await press(fake, ADA, ADA, noted, f"ps:undo:{papers[1].id}")
        assert undone.text.startswith("Undone: your 👍 on “") and "2 reactions left" in undone.text
        assert undone.callback_data == []

        [listed] = await say(fake, ADA, ADA, "/reactions")
        lines = listed.text.splitlines()
        assert lines[0] == "Your 2 reactions, the latest first:" and len(lines) == 4
        assert lines[1].startswith(f"1. 👎 {papers[11].title[:30]}") and lines[2].startswith("2. 👍 ")
        [asked] = await say(fake, ADA, ADA, "/reactions reset")
        assert asked.callback_data == ["ps:c:reactions-reset:1", "ps:c:reactions-reset:2"]
        [kept] = await press(fake, ADA, ADA, asked, "ps:c:reactions-reset:2")
        assert kept.text == "Kept your reactions." and len(await core.repo.user_feedback_rows(user)) == 2
        [asked] = await say(fake, ADA, ADA, "/reactions reset")
        [done] = await press(fake, ADA, ADA, asked, "ps:c:reactions-reset:1")
        assert done.text == "Deleted your 2 reactions: your profile alone ranks your digest again."
    assert await core.repo.user_feedback_rows(user) == []


async def test_ask_is_answered_with_citations_and_a_reply_continues_it(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    await store_day(core)
    async with telegram_bot(core, tg_settings):
        answer = await say(fake, GROUP, BOB, "/ask papers about toxicity today")
        links = [url for m in answer for e in m.entities if e["type"] == "text_link" for url in [e["url"]]]
        assert links and all(url.startswith("https://arxiv.org/abs/") for url in links)
        assert "[1]" in answer[0].text and answer[0].reply_to_message_id is not None
        said = "\n".join(m.text for m in answer)  # the answer's days and how to follow it up, as on every platform
        assert "Papers from 20" in said and "Reply to this message to ask a follow-up." in said
        assert "typing" in fake.chat_actions(GROUP)
        before = len(fake.sent(GROUP))
        fake.inject_message(GROUP, BOB, "which of those are about health?", reply_to=answer[0].message_id)
        follow = (await fake.wait_for_sent(GROUP, before + 1))[before:]
        assert "[1]" in follow[0].text


async def test_a_dm_line_starting_with_a_slash_that_is_no_command_is_a_question(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    """A bot command is a slash and 1-32 letters, digits or underscores at the start: "/r/MachineLearning ..." is
    none, and "/s is sarcasm ..." names none of ours and goes on; both are questions, where they were told "I don't
    know /r/machinelearning". A real command, and an unknown one said alone, are commands as before."""
    await store_day(core)
    async with telegram_bot(core, tg_settings):
        for line in ("/r/MachineLearning has a thread on toxicity, any papers about it today?",
                     "/s is sarcasm, but are there papers about toxicity today?"):  # fmt: skip
            answer = await say(fake, BOB, BOB, line)
            assert "I don't know" not in answer[0].text and "[1]" in answer[0].text, line
        [unknown] = await say(fake, BOB, BOB, "/frobnicate")
        assert "I don't know /frobnicate" in unknown.text
        [listed] = await say(fake, BOB, BOB, "/help@paperscout_test_bot")
        assert "/ask" in listed.text


async def test_a_second_question_within_the_cooldown_is_told_when_to_ask_again(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    await store_day(core)
    core.settings.ask_cooldown_seconds = 600
    async with telegram_bot(core, tg_settings):
        first = await say(fake, GROUP, BOB, "/ask papers about toxicity today")
        assert "[1]" in first[0].text
        [cooled] = await say(fake, GROUP, BOB, "/ask and about health?")
        assert cooled.text.startswith("One question at a time: ask again in ") and cooled.text.endswith(" s.")
        other = await say(fake, GROUP, ADA, "/ask papers about toxicity today")  # the pause is per member
        assert "[1]" in other[0].text


async def test_blocked_member_and_kicked_group_are_marked_inactive_after_one_403(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    key = f"telegram:{ADA}"
    profile = Profile("Ada", (Topic("graphs", "graph neural networks"),), categories=("cs.LG",))
    await core.repo.save_profile(profile_owner(key), profile)
    await core.repo.save_user_settings(key, digest_mode="daily", post_time="08:00", timezone="UTC", weekly_day=0)
    await core.repo.save_profile(f"telegram:{GROUP}", profile)
    target_id = await core.repo.save_target(
        Target("telegram", str(GROUP), "Group", categories=("cs.LG",)), f"telegram:{GROUP}"
    )
    fake.open_private_chat(ADA)
    fake.block(ADA)
    fake.kick(GROUP)
    day = papers[0].announced
    async with telegram_bot(core, tg_settings) as bot:
        result = await deliver_personal_digest(core, bot.poster, key, day)
        assert result.status == "failed"
        saved = (await core.repo.target_at("telegram", str(GROUP)) or (None,))[0]
        assert saved is not None
        digest = Digest(day=day, profile_name="Group", scanned=1, items=scored(papers[:1]))

        async def build() -> Digest:
            return digest

        group_result = await deliver(core, bot.poster, saved, day, build)
        assert group_result.status == "failed"
    user = await core.repo.get_user(key)
    assert user is not None and user.digest_mode == "off"
    found = await core.repo.target_at("telegram", str(GROUP))
    assert found is not None and found[0].id == target_id and target_id in await core.repo.inactive_reasons()
    refused = [c for c in fake.calls("sendMessage") if c.status == 403]
    assert [c.chat_id for c in refused] == [ADA, GROUP], "one 403 each, never retried"


async def test_a_reply_refused_in_a_private_chat_turns_off_the_members_digest(
    core: Core, tg_settings: Settings, fake: FakeTelegram
) -> None:
    """A private chat's id is its member's user id: a reply the member's chat refuses (they blocked the bot while it
    was answering) retires their personal digest, keyed by that id, and nothing is retried."""
    key = f"telegram:{ADA}"
    await core.repo.save_user_settings(key, digest_mode="daily", post_time="08:00", timezone="UTC", weekly_day=0)
    fake.open_private_chat(ADA)
    async with telegram_bot(core, tg_settings) as bot:
        retired = watch_gone(bot)
        fake.enqueue(Fault.forbidden().on("sendMessage"))
        fake.inject_message(ADA, ADA, "/help")
        await asyncio.wait_for(retired.wait(), 10)
    user = await core.repo.get_user(key)
    assert user is not None and user.digest_mode == "off"
    assert [c.status for c in fake.calls("sendMessage")] == [403], "the rest of the reply is not sent"


async def test_flood_control_waits_and_a_refused_html_falls_back_to_plain_text_once(
    core: Core, tg_settings: Settings, fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    fake.open_private_chat(ADA)
    async with telegram_bot(core, tg_settings) as bot:
        fake.enqueue(Fault.rate_limit(retry_after=1).on("sendMessage"))
        await bot.poster.deliver(str(ADA), text_message("after a 429"))
        fake.enqueue(Fault.bad_request('can\'t parse entities: Unsupported start tag "x" at byte offset 0'))
        with caplog.at_level(logging.ERROR, logger="bot.chat.driver"):
            await bot.poster.deliver(str(ADA), text_message("a <b>plain</b> & fallback"))
    assert [c.status for c in fake.calls("sendMessage")] == [429, 200, 400, 200]
    first, second = fake.sent(ADA)
    assert first.text == "after a 429"
    assert second.text == "a <b>plain</b> & fallback" and second.html is None
    assert any("escaping bug" in r.message for r in caplog.records)


async def test_export_is_a_document_and_only_ever_sent_in_a_dm(
    core: Core, tg_settings: Settings, fake: FakeTelegram
) -> None:
    fake.open_private_chat(ADA)
    async with telegram_bot(core, tg_settings):
        await say(fake, ADA, ADA, "/export")
        [note] = await say(fake, GROUP, ADA, "/export")
    assert "direct message" in note.text
    exports = [m for m in fake.sent(ADA) if m.document is not None]
    assert len(exports) == 2 and all(m.document.file_name.endswith(".json") for m in exports)
    assert json.loads(exports[0].document.content) is not None
    assert not any(m.document for m in fake.sent(GROUP))


@pytest.mark.parametrize("command", ["/export", "/start", "/interests"])
async def test_an_anonymous_admins_command_for_their_dm_is_told_in_the_group_that_no_dm_can_reach_them(
    core: Core, tg_settings: Settings, fake: FakeTelegram, command: str
) -> None:
    """An admin writing anonymously (as the group: Telegram never says who) runs a command whose answer goes to
    their DM: nobody can be written to, and the group is told so in one line. /export got no answer at all."""
    fake.open_private_chat(CLEO)
    async with telegram_bot(core, tg_settings) as bot:
        handled = watch_handled(bot, lambda update: bool(update.message and update.message.text == command))
        fake.inject_anonymous_admin_message(GROUP, CLEO, command)
        await asyncio.wait_for(handled.wait(), 30)
    [told] = fake.sent(GROUP)
    assert told.text == (
        "You wrote anonymously, as the chat itself, and Telegram does not let me send a direct message to an"
        f" anonymous admin: run {command} again without anonymity, or in a direct message with me."
    )
    assert fake.sent(CLEO) == []


@pytest.mark.parametrize("writer", ["an anonymous admin", "a channel post"])
async def test_a_members_own_command_written_as_the_chat_itself_acts_for_nobody(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay, writer: str
) -> None:
    """A command that acts on the member who runs it (/forget, /profile, /up, /why, /reactions, /mydigest...),
    written as the chat itself (an anonymous admin in a group, a channel's post: Telegram never says who), is told in
    one line that nobody can be acted for. No member keyed by the chat is made, read or changed: what an older
    version stored for one stays as it was, and /forget offers no buttons a member of the group could then press."""
    papers = await store_day(core)
    channel = -1009876543210
    fake.add_channel(channel, "Papers daily", admins=[CLEO])
    chat = GROUP if writer == "an anonymous admin" else channel
    itself = f"telegram:{chat}"
    await core.repo.add_feedback(itself, papers[0].id, 1)  # what a version that acted for the chat left
    stored = await export_user(core, itself)
    lines = ["/forget", "/forget yes", "/profile", "/up 1", f"/down {papers[1].id}", "/why 1", "/reactions"]
    lines += ["/reactions reset yes", "/mydigest daily"]
    async with telegram_bot(core, tg_settings):
        for count, line in enumerate(lines, 1):
            if chat == GROUP:
                fake.inject_anonymous_admin_message(GROUP, CLEO, line)
            else:
                fake.inject_channel_post(channel, line)
            await fake.wait_for_sent(chat, count)
    told = fake.sent(chat)
    assert [m.text for m in told] == [
        "You wrote anonymously, as the chat itself, and Telegram does not let me send a direct message to an"
        f" anonymous admin: run {line.split()[0]} again without anonymity, or in a direct message with me."
        for line in lines
    ]
    assert not any(m.buttons for m in told)
    assert await export_user(core, itself) == stored


async def test_a_channels_post_copied_into_its_discussion_group_is_no_members(
    core: Core, tg_settings: Settings, fake: FakeTelegram
) -> None:
    """Telegram copies a channel's post into the channel's linked discussion group, sent on behalf of the channel
    with Telegram's own service account in `from` (777000, no bot): no member of the group wrote it, so it is not
    answered there (the channel's own post is, in the channel), and no member 777000, shared by every linked
    channel, is made."""
    channel = -1009876543210
    fake.add_channel(channel, "Papers daily", admins=[CLEO])
    async with telegram_bot(core, tg_settings) as bot:
        handled = watch_handled(bot, lambda update: bool(update.message and update.message.is_automatic_forward))
        fake.inject_automatic_forward(GROUP, channel, "/forget")
        await asyncio.wait_for(handled.wait(), 30)
    assert fake.sent(GROUP) == []
    assert (await export_user(core, "telegram:777000"))["stored"] is False


async def test_a_forget_button_of_another_member_deletes_nothing_of_the_presser(
    core: Core, tg_settings: Settings, fake: FakeTelegram
) -> None:
    """/forget asks with Yes/No buttons in the group; another member pressing that Yes is refused, even one who has
    a /forget of their own pending in their DM: theirs stays pending there, and nothing of theirs is deleted."""
    fake.open_private_chat(BOB)
    bob = profile_owner(f"telegram:{BOB}")
    await core.repo.save_profile(bob, Profile("Bob", (Topic("graphs", "graph learning"),)))
    async with telegram_bot(core, tg_settings):
        [asked] = await say(fake, BOB, BOB, "/forget")
        assert asked.buttons
        [ada_asked] = await say(fake, GROUP, ADA, "/forget")
        query = fake.press_button(GROUP, ada_asked.message_id, BOB, ada_asked.callback_data[0])
        await fake.wait_until(lambda: fake.callback_answered(query), what="the press to be answered")
        assert await core.repo.get_profile(bob) is not None
        [answer] = [a for a in fake.callback_answers if a["callback_query_id"] == query]
        assert answer["text"] == "That confirmation is not pending for you here; nothing was deleted."
        [deleted] = await say(fake, BOB, BOB, "yes")
    assert deleted.text.startswith("Deleted your profile (1)") and await core.repo.get_profile(bob) is None


async def test_a_dm_command_sent_in_a_group_is_answered_in_the_members_dm(
    core: Core, tg_settings: Settings, fake: FakeTelegram
) -> None:
    """/start works only in a DM: sent in a group it is answered in the member's DM and the group is told so (the
    same route as every platform's commands); a member who never opened a chat with the bot is told to."""
    fake.open_private_chat(ADA)
    async with telegram_bot(core, tg_settings):
        [note] = await say(fake, GROUP, ADA, "/start")
        assert note.text == "Sent you a direct message."
        [welcome] = fake.sent(ADA)
        assert "set up your personal paper feed" in welcome.text
        [refused] = await say(fake, GROUP, BOB, "/start")
    assert "can't send you a direct message" in refused.text and "/start" in refused.text


async def test_removal_from_a_group_pauses_its_digest_at_once_and_a_channel_admin_sets_up_by_posting(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    await store_day(core)
    channel = -1009876543210
    fake.add_channel(channel, "Papers daily", username="papers_daily", admins=[CLEO])
    profile = Profile("Group", (Topic("graphs", "graph neural networks"),), categories=("cs.LG",))
    await core.repo.save_profile(f"telegram:{GROUP}", profile)
    await core.repo.save_target(Target("telegram", str(GROUP), "Group"), f"telegram:{GROUP}")
    async with telegram_bot(core, tg_settings) as bot:
        retired = watch_gone(bot)
        fake.kick(GROUP)
        await asyncio.wait_for(retired.wait(), 10)
        found = await core.repo.target_at("telegram", str(GROUP))  # inactive: passed over until /setup again
        assert found is not None and found[0].id in await core.repo.inactive_reasons()
        fake.inject_channel_post(
            channel, "/setup categories=cs.LG time=06:00 timezone=UTC size=3 profile=graph learning"
        )
        [done] = await fake.wait_for_sent(channel)
        assert "All set!" in done.text
    assert fake.calls("sendMessage")[0].chat_id == channel, "nothing was sent to the group the bot left"
    found = await core.repo.target_at("telegram", str(channel))
    assert found is not None and found[0].digest_size == 3


async def test_a_digest_retried_after_a_failure_half_way_does_not_repeat_what_went_out(
    core: Core, tg_settings: Settings, fake: FakeTelegram
) -> None:
    digest = hostile_digest(20)
    target = await saved_group(core)
    async with telegram_bot(core, tg_settings) as bot:
        # the first message goes through, the second meets a server error: delivery retries that message only
        fake.enqueue(Fault.delay(0).on("sendMessage"), Fault.server_error(500).on("sendMessage"))
        result = await deliver(core, bot.poster, target, digest.day, lambda: as_built(digest))
    assert result.status == "sent"
    refs = await recorded(core, target, digest)
    sent = fake.sent(GROUP)
    assert [str(m.message_id) for m in sent] == refs and len(sent) == 3
    assert [c.status for c in fake.calls("sendMessage")] == [200, 500, 200, 200]


async def test_webhook_mode_receives_updates_posted_by_telegram(
    core: Core, tg_settings: Settings, fake: FakeTelegram, unused_tcp_port: int
) -> None:
    url = f"http://127.0.0.1:{unused_tcp_port}/telegram/hook"
    webhook = tg_settings.model_copy(update={"telegram_webhook_url": url, "telegram_webhook_port": unused_tcp_port})
    async with telegram_bot(core, webhook) as bot:
        [welcome] = await say(fake, ADA, ADA, "/start")
        assert "set up your personal paper feed" in welcome.text
        info = await bot.application.bot.get_webhook_info()
        assert info.url == url and info.pending_update_count == 0
        async with httpx.AsyncClient(trust_env=False) as client:  # someone else posting a forged update
            forged = await client.post(url, json={"update_id": 1, "message": {"text": "/forget yes"}})
        assert forged.status_code == 403
    [set_call] = fake.calls("setWebhook")
    assert len(set_call.params["secret_token"]) >= 32
    assert fake.calls("getUpdates") == [] and len(fake.webhook_deliveries) == 1


async def test_paper_buttons_in_a_group_answer_the_presser_alone(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    fake.open_private_chat(BOB)
    digest = Digest(day=papers[0].announced, profile_name="Group", scanned=60, items=scored(papers[:2]))
    async with telegram_bot(core, tg_settings) as bot:
        await post_all(bot.poster, Target("telegram", str(GROUP), "Group", id=1), digest)
        [posted] = fake.sent(GROUP)
        thumbs = fake.press_button(GROUP, posted.message_id, BOB, f"ps:up:{papers[0].id}")
        more = fake.press_button(GROUP, posted.message_id, BOB, f"ps:more:{papers[0].id}")
        stranger = fake.press_button(GROUP, posted.message_id, ADA, f"ps:more:{papers[0].id}")
        for query in (thumbs, more, stranger):
            await fake.wait_until(lambda q=query: fake.callback_answered(q), what="every press answered")
    toasts = {a["callback_query_id"]: a["text"] for a in fake.callback_answers}
    assert toasts[thumbs] == toasts[more] == "Sent you a direct message."
    assert "press Start" in toasts[stranger]
    assert len(fake.sent(GROUP)) == 1, "nothing posted to the group for one member's press"
    [noted] = [m for m in fake.sent(BOB) if m.text.startswith("Noted: more like")]
    assert noted.callback_data == [f"ps:undo:{papers[0].id}"]
    similar = [m for m in fake.sent(BOB) if m.message_id != noted.message_id]
    assert similar and all(papers[0].id not in m.callback_data[0] for m in similar if m.callback_data)
    assert await core.repo.user_feedback_rows(f"telegram:{BOB}")


async def test_a_refused_token_fails_start_up_at_once(core: Core, tg_settings: Settings, fake: FakeTelegram) -> None:
    wrong = tg_settings.model_copy(update={"telegram_token": SecretStr("42:not-the-token")})
    with pytest.raises(InvalidToken):
        await start_telegram(core, wrong)
    assert [c.method for c in fake.calls()] == ["getMe"]


async def test_a_failure_inside_the_core_is_answered_with_one_line(
    core: Core, tg_settings: Settings, fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    fake.open_private_chat(ADA)
    async with telegram_bot(core, tg_settings):
        await core.repo.close()  # the database goes away under the running bot
        with caplog.at_level(logging.ERROR, logger="bot.frontends.telegram.handlers"):
            [reply] = await say(fake, ADA, ADA, "/profile")
    assert "went wrong on my side (ref " in reply.text
    ref = reply.text.split("ref ", 1)[1][:6]
    assert any("failed" in r.message and ref in r.message for r in caplog.records)


async def test_a_429_storm_delays_but_never_loses_or_repeats_a_digest(
    core: Core, tg_settings: Settings, fake: FakeTelegram
) -> None:
    rng = random.Random(13)
    storm = [Fault.rate_limit(retry_after=1) if rng.random() < 0.3 else Fault.delay(0) for _ in range(40)]
    fake.enqueue(*(fault.on("sendMessage") for fault in storm))
    digest = hostile_digest(24)
    target = await saved_group(core)
    async with telegram_bot(core, tg_settings) as bot:
        result = await deliver(core, bot.poster, target, digest.day, lambda: as_built(digest))
    assert result.status == "sent"
    refs = await recorded(core, target, digest)
    calls = fake.calls("sendMessage")
    limited = [c for c in calls if c.status == 429]
    assert limited, "the seeded storm hit"
    for hit in limited:  # nothing is sent to Telegram inside a retry_after it gave
        later = [c.at for c in calls if c.at > hit.at]
        assert not later or min(later) - hit.at >= 1.0
    sent = fake.sent(GROUP)
    assert [str(m.message_id) for m in sent] == refs and len(sent) == len(render_digest(digest_view(digest)))
    shown = [data for m in sent for data in m.callback_data if data.startswith("ps:up:")]
    assert shown == [f"ps:up:{item.paper.id}" for item in digest.items], "each paper exactly once, in order"


async def test_setup_step_by_step_in_a_group_by_replying_to_the_bot(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    await store_day(core)

    async def answer(user: int, text: str, question: SentMessage) -> list[SentMessage]:
        before = len(fake.sent(GROUP))
        fake.inject_message(GROUP, user, text, reply_to=question.message_id)
        return (await fake.wait_for_sent(GROUP, before + 1))[before:]

    async with telegram_bot(core, tg_settings):
        [question] = await say(fake, GROUP, CLEO, "/setup")
        assert "categories" in question.text
        # plain chatter never reaches the bot (privacy mode); a member's reply is not taken as an answer
        fake.inject_message(GROUP, BOB, "cs.CV")
        fake.inject_message(GROUP, BOB, "cs.CV", reply_to=question.message_id)
        [question] = await answer(CLEO, "cs.LG, cs.AI", question)
        assert "daily or weekly" in question.text.lower()
        [question] = await answer(CLEO, "weekly Friday", question)
        assert "time" in question.text.lower()
        [question] = await answer(CLEO, "8am", question)
        [question] = await answer(CLEO, "Berlin", question)
        [question] = await answer(CLEO, "graph neural networks; optimisation theory", question)
        [done] = await answer(CLEO, "10", question)
        assert "All set!" in done.text
    found = await core.repo.target_at("telegram", str(GROUP))
    assert found is not None and found[0].categories == ("cs.LG", "cs.AI") and found[0].digest_size == 10
    assert (found[0].schedule, found[0].weekly_day) == ("weekly", 4)
    assert len(fake.sent(GROUP)) == 7, "nothing answered Bob"


async def test_a_group_upgraded_to_a_supergroup_keeps_its_digest_under_the_new_id(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    basic, upgraded = -4001, -1004000000001
    fake.add_group(basic, "Basic group", creator=CLEO, members=[BOB], supergroup=False)
    profile = Profile("Group", (Topic("graphs", "graph neural networks"),), categories=("cs.LG",))
    await core.repo.save_profile(f"telegram:{basic}", profile)
    target_id = await core.repo.save_target(
        Target("telegram", str(basic), "Group", categories=("cs.LG",)), f"telegram:{basic}"
    )
    day = papers[0].announced
    digest = Digest(day=day, profile_name="Group", scanned=2, items=scored(papers[:2]))

    async def build() -> Digest:
        return digest

    stale = (await core.repo.target_at("telegram", str(basic)) or (None,))[0]
    assert stale is not None
    fake.migrate_group(basic, upgraded)
    async with telegram_bot(core, tg_settings) as bot:
        result = await deliver(core, bot.poster, stale, day, build)
    assert result.status == "sent"
    assert [c.status for c in fake.calls("sendMessage")][:1] == [400], "the old id is refused once"
    assert len(fake.sent(upgraded)) == len(render_digest(digest_view(digest)))
    moved = await core.repo.target_at("telegram", str(upgraded))
    assert moved is not None and moved[0].id == target_id and moved[1] == profile
    assert await core.repo.target_at("telegram", str(basic)) is None
    assert await core.repo.get_profile(f"telegram:{upgraded}") == profile
    assert await core.repo.sent_messages(target_id, day), "the same ledger row: no second digest that day"


def _migration(message: object) -> bool:
    return bool(getattr(message, "migrate_to_chat_id", None) or getattr(message, "migrate_from_chat_id", None))


async def test_the_upgrade_service_message_alone_moves_the_digest(
    core: Core, tg_settings: Settings, fake: FakeTelegram
) -> None:
    basic, upgraded = -4002, -1004000000002
    fake.add_group(basic, "Basic group", creator=CLEO, members=[BOB], supergroup=False)
    profile = Profile("Group", (Topic("graphs", "graph neural networks"),), categories=("cs.LG",))
    await core.repo.save_profile(f"telegram:{basic}", profile)
    await core.repo.save_target(Target("telegram", str(basic), "Group"), f"telegram:{basic}")
    async with telegram_bot(core, tg_settings) as bot:
        # one service message in each chat: both handled, whichever came first moved the digest
        handled = watch_handled(bot, lambda update: _migration(update.effective_message), count=2)
        fake.migrate_group(basic, upgraded)
        await asyncio.wait_for(handled.wait(), 10)
    assert await core.repo.target_at("telegram", str(upgraded)) is not None
    assert await core.repo.target_at("telegram", str(basic)) is None
    assert not fake.calls("sendMessage"), "nothing is said about it in either chat"


async def test_a_group_admin_posts_the_digest_now_once_and_a_member_is_refused(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    await store_day(core)
    profile = Profile("Group", (Topic("language models", "large language models"),), categories=("cs.CL",))
    await core.repo.save_profile(f"telegram:{GROUP}", profile)
    await core.repo.save_target(Target("telegram", str(GROUP), "Group", digest_size=4), f"telegram:{GROUP}")
    async with telegram_bot(core, tg_settings) as bot:
        [refused] = await say(fake, GROUP, BOB, "/digest now")
        assert "admins" in refused.text
        before = len(fake.sent(GROUP))
        from_cleo = watch_handled(
            bot, lambda update: update.effective_user is not None and update.effective_user.id == CLEO
        )
        fake.inject_message(GROUP, CLEO, "/digest now")
        await asyncio.wait_for(from_cleo.wait(), 30)  # the digest's messages, then the note to the admin
        sent = fake.sent(GROUP)[before:]
        assert "Posted the digest of 2025-05-26" in sent[-1].text
        assert any("arxiv.org/abs/" in (m.html or "") for m in sent[:-1])  # the digest went to the group
        [again] = await say(fake, GROUP, CLEO, "/digest now")
        assert "already posted" in again.text
    found = await core.repo.target_at("telegram", str(GROUP))
    assert found is not None
    assert [p.day.isoformat() for p in await core.repo.posted_digests(found[0].id)] == ["2025-05-26"]


async def test_the_next_button_of_a_search_in_a_group_pages_on_in_the_group(
    core: Core, tg_settings: Settings, fake: FakeTelegram, demo_papers: list[Paper]
) -> None:
    """A search's 'Next' button continues its list where the list is, as /more typed there does: pressed in a group,
    each next page comes to the group with its own 'Next', and that one lists the page after it (the group's list,
    not the presser's DM conversation, where the list is not)."""
    from bot.ingest.save import store_papers

    await store_papers(core, demo_papers[:120])
    fake.open_private_chat(BOB)
    async with telegram_bot(core, tg_settings):

        async def next_page_message(after: int) -> SentMessage:
            """The group's first message after the `after` first ones that carries a 'Next' button."""
            messages = await answered_with_next(fake, GROUP, after)
            return next_of(messages)[0]

        fake.inject_message(GROUP, BOB, "/search language models")
        page = await next_page_message(0)
        for _ in range(2):
            before = len(fake.sent(GROUP))
            await press(fake, GROUP, BOB, page, next_of([page])[1])
            assert fake.sent(GROUP)[before].text.startswith("10 more matching papers"), fake.sent(GROUP)[before].text
            page = await next_page_message(before)
    assert not [m for m in fake.sent(BOB) if "more matching papers" in m.text]


def arxiv_ids(messages: list[SentMessage]) -> list[str]:
    """The arXiv ids the messages link to, in order, each once."""
    urls = [e["url"] for m in messages for e in m.entities if e["type"] == "text_link"]
    return list(dict.fromkeys(u.rsplit("/", 1)[-1] for u in urls if u.startswith("https://arxiv.org/abs/")))


async def whole_page(fake: FakeTelegram, chat: int, start: int) -> list[SentMessage]:
    """The messages of one /more page sent to `chat` from its `start`th message on, once every paper its first line
    counts ("10 more papers ...") is there (a page may take several messages)."""

    def listed() -> list[SentMessage]:
        return fake.sent(chat)[start:]

    def whole() -> bool:
        counted = re.match(r"(\d+) more ", listed()[0].text) if listed() else None
        return counted is not None and len(arxiv_ids(listed())) >= int(counted.group(1))

    await fake.wait_until(whole, what="a whole page")
    return listed()


async def answered_with_next(fake: FakeTelegram, chat: int, start: int) -> list[SentMessage]:
    """The messages of an answer sent to `chat` from its `start`th message on, once the last, with its "Next"
    button, is there."""
    await fake.wait_until(
        lambda: any(b["text"].startswith("Next ") for m in fake.sent(chat)[start:] for b in m.buttons),
        what="an answer with its Next button",
    )
    return fake.sent(chat)[start:]


def next_of(messages: list[SentMessage]) -> tuple[SentMessage, str]:
    """The message carrying the "Next N" button, and the button's data."""
    return next((m, b["callback_data"]) for m in messages for b in m.buttons if b["text"].startswith("Next "))


async def test_more_and_next_in_a_group_find_the_list_each_member_was_given(
    core: Core, tg_settings: Settings, fake: FakeTelegram, store_day: StoreDay
) -> None:
    """Issue 22: a question asked as a reply to another member's answer continues that answer's conversation, but
    its list is the asker's own: their /more pages through it. Next on another member's answer lists the page after
    that answer, the same page whoever presses it."""
    await store_day(core)
    async with telegram_bot(core, tg_settings):
        fake.inject_message(GROUP, BOB, "/ask papers on language models")
        bobs = await answered_with_next(fake, GROUP, 0)
        before = len(fake.sent(GROUP))
        fake.inject_message(GROUP, ADA, "/ask papers on reinforcement learning", reply_to=bobs[0].message_id)
        adas = await answered_with_next(fake, GROUP, before)
        assert "/more" in adas[0].text and "papers about reinforcement learning" in adas[0].text, adas[0].text
        before = len(fake.sent(GROUP))
        fake.inject_message(GROUP, ADA, "/more")
        her_page = await whole_page(fake, GROUP, before)
        assert re.match(r"\d+ more ", her_page[0].text) and arxiv_ids(her_page), her_page[0].text
        assert not set(arxiv_ids(her_page)) & set(arxiv_ids(adas))
        # Ada presses Next on Bob's answer: the page after it, where the list is (the group), as /more typed there
        message, data = next_of(bobs)
        before = len(fake.sent(GROUP))
        fake.press_button(GROUP, message.message_id, ADA, data)
        pressed = await whole_page(fake, GROUP, before)
        before = len(fake.sent(GROUP))
        fake.inject_message(GROUP, BOB, "/more")
        his_page = await whole_page(fake, GROUP, before)
    assert arxiv_ids(pressed) == arxiv_ids(his_page) and arxiv_ids(his_page)
    assert not set(arxiv_ids(his_page)) & set(arxiv_ids(bobs))


async def test_a_file_that_cannot_be_read_is_told_with_a_reference(
    core: Core, tg_settings: Settings, fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    fake.open_private_chat(ADA)
    fake.enqueue(Fault.server_error(500).on("getFile"), Fault.server_error(500).on("getFile"))
    async with telegram_bot(core, tg_settings):
        fake.inject_document(ADA, ADA, "me.toml", b'[profile]\nname = "me"\n', mime_type="application/toml")
        [note] = await fake.wait_for_sent(ADA, 1)
    assert "went wrong on my side (ref " in note.text and "Traceback" not in note.text
    ref = note.text.split("ref ", 1)[1][:6]
    assert any(ref in record.getMessage() for record in caplog.records)


async def test_a_profile_file_over_the_bound_is_refused_in_one_line_and_never_downloaded(
    core: Core, tg_settings: Settings, fake: FakeTelegram
) -> None:
    async with telegram_bot(core, tg_settings):
        before = len(fake.sent(GROUP)) if GROUP in fake._chats else 0
        fake.inject_document(GROUP, CLEO, "huge.toml", b"#" * 70_000, caption="/setup categories=cs.LG")
        [note] = (await fake.wait_for_sent(GROUP, before + 1))[before:]
    assert "huge.toml is over 64 KB" in note.text and note.reply_to_message_id is not None
    assert fake.calls("getFile") == []


async def test_a_telegram_that_cannot_be_reached_fails_start_up_in_one_line(core: Core, tg_settings: Settings) -> None:
    away = tg_settings.model_copy(update={"telegram_base_url": refused_url()})
    with pytest.raises(SourceUnavailable, match=r"^cannot reach Telegram at http://127\.0\.0\.1:\d+: ") as failed:
        await start_telegram(core, away)
    assert "\n" not in str(failed.value) and failed.value.__cause__ is None


async def test_a_big_file_passing_by_in_a_group_gets_no_refusal(
    core: Core, tg_settings: Settings, fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the bot reads every message (an admin in the group), a file nobody sent to it is no one's profile: one
    over the bound is not downloaded and nothing is said about it, while the same file sent with /setup is refused."""
    hears_all = -1009876543210
    fake.add_group(hears_all, "Lab chat", creator=CLEO, members=[BOB], bot_admin=True)
    handled: list[bool] = []
    on_message = TelegramFrontEnd.on_message

    async def noted(self: TelegramFrontEnd, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        try:
            await on_message(self, update, context)
        finally:
            handled.append(update.effective_message is not None and update.effective_message.document is not None)

    monkeypatch.setattr(TelegramFrontEnd, "on_message", noted)
    async with telegram_bot(core, tg_settings):
        fake.inject_document(hears_all, BOB, "slides.pdf", b"%" * 70_000, caption="slides from today")
        await fake.wait_until(lambda: any(handled), what="the file's update to be handled")
        [told] = await say(fake, hears_all, CLEO, "/help")
    assert "slides.pdf" not in told.text and len(fake.sent(hears_all)) == 1
    assert fake.calls("getFile") == []
