"""The Discord front end end to end: the real discord.py client in `PaperscoutBot`, the real Core and controller,
the Discord fake on 127.0.0.1 (REST and gateway). Members act through the gateway: slash commands, button presses,
DMs, replies."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import logging
import time
from typing import Any

import aiohttp
import discord
import pytest

from bot.chat import setup as channel_setup
from bot.chat.commands import COMMANDS
from bot.chat.messages import DigestReply
from bot.config import Settings
from bot.core import Core
from bot.digests.delivery import DeliveryError
from bot.errors import SourceUnavailable
from bot.frontend import front_end
from bot.frontends.discord.app import PaperscoutBot, start_discord
from bot.frontends.discord.buttons import BUTTON_VALUE
from bot.frontends.discord.render import render
from bot.models import Digest, Paper, ScoredPaper, Target
from bot.ops.logs import FIELDS
from bot.views.model import MAX_BUTTON_BYTES, digest_view, is_paperscout_button
from tests.conftest import StoreDay, post_all, refused_url, watch_calls, watch_gone
from tests.fakes.discord_client import pointed_at, running
from tests.fakes.discord_server import DiscordFake, Fault, check_message
from tests.test_run import PROFILE

HOSTILE = [
    "@everyone read this <@&{role}> now",
    "**bold** __under__ `code` ||spoiler|| [click](javascript:alert(1)) <t:0:R> # Heading",
    "$\\mathcal{O}(n^2)$ bounds for \\textbf{sparse} attention with $x_i^{(k)}$ and \\\\ breaks",
    "<@{member}> and @here and <#123> ~~strike~~ > quote\n- list",
    "A" * 2000,
]


@pytest.fixture
def fake():
    with DiscordFake() as server, pointed_at(server):
        yield server


def new_bot(core: Core) -> PaperscoutBot:
    return PaperscoutBot(core, guild_ready_timeout=0.05)


async def synced(fake: DiscordFake) -> None:
    """The owner registers the slash commands the documented way: '@paperscout sync' in a channel."""
    fake.say(fake.channel_id, f"<@{fake.bot_id}> sync", user=fake.owner_id)
    await fake.wait_for(lambda: fake.global_commands)
    await fake.wait_for(lambda: any("Synced" in m["content"] for m in fake.channel_messages(fake.channel_id)))


def no_refusals(fake: DiscordFake) -> None:
    refused = [(r.endpoint, r.status, r.response) for r in fake.requests if r.status >= 400]
    assert refused == []


def every_message_suppressed_mentions(fake: DiscordFake) -> None:
    messages = fake.message_requests()
    assert messages and all(r.mentions_suppressed for r in messages), [r.endpoint for r in messages]
    assert fake.pinging_messages() == []


async def test_setup_refused_for_a_member_and_done_by_an_admin(fake: DiscordFake, core: Core) -> None:
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        options = {
            "categories": "cs.LG, cs.CL",
            "time": "08:30",
            "timezone": "Europe/Berlin",
            "profile": "mixture of experts; sparse attention",
            "size": 12,
        }
        refused = fake.slash("setup", options, user=fake.member_id)
        (note,) = await fake.wait_for_followups(refused)
        assert note["flags"] & 64 and "admins" in note["content"]
        assert await core.repo.target_at("discord", str(fake.channel_id)) is None

        done = fake.slash("setup", options, user=fake.owner_id)
        (saved,) = await fake.wait_for_followups(done)
        assert "All set" in saved["content"] and not saved["flags"] & 64
        target, profile = await core.repo.target_at("discord", str(fake.channel_id))
        assert target.categories == ("cs.LG", "cs.CL") and target.timezone == "Europe/Berlin"
        assert target.post_time == "08:30" and [t.want for t in profile.topics] == [
            "mixture of experts",
            "sparse attention",
        ]
        settings = fake.slash("settings", user=fake.member_id)
        (shown,) = await fake.wait_for_followups(settings)
        assert "Europe/Berlin" in shown["content"]
    no_refusals(fake)
    every_message_suppressed_mentions(fake)


async def test_setup_with_a_toml_profile_file_and_autocomplete(fake: DiscordFake, core: Core) -> None:
    bot = new_bot(core)
    toml = b'name = "Reading group"\ncategories = ["cs.LG"]\n\n[[topics]]\nname = "MoE"\nwant = "mixture of experts"\n'
    async with running(bot, fake):
        await synced(fake)
        zones = fake.autocomplete("setup", {"timezone": "berl"}, focused="timezone", user=fake.owner_id)
        choices = (await fake.wait_for_response(zones)).responses[0]["data"]["choices"]
        assert {"name": "Europe/Berlin", "value": "Europe/Berlin"} in choices
        cats = fake.autocomplete("setup", {"categories": "cs.LG, machine"}, focused="categories", user=fake.owner_id)
        choices = (await fake.wait_for_response(cats)).responses[0]["data"]["choices"]
        assert any(c["value"] == "cs.LG, stat.ML" for c in choices)

        upload = fake.add_attachment("group.toml", toml)
        options = {
            "time": "09:00",
            "timezone": "UTC",
            "categories": "cs.LG",
            "profile_file": fake.attachment_option(upload),
            "size": 10,
        }
        done = fake.slash("setup", options, user=fake.owner_id)
        (saved,) = await fake.wait_for_followups(done)
        assert "All set" in saved["content"], saved["content"]
        _, profile = await core.repo.target_at("discord", str(fake.channel_id))
        assert profile.name == "Reading group" and profile.topics[0].want == "mixture of experts"


def hostile_digest(papers: list[Paper], fake: DiscordFake) -> Digest:
    items = []
    for number, paper in enumerate(papers[:60]):
        title = (
            HOSTILE[number % len(HOSTILE)]
            .replace("{role}", str(fake.admin_role_id))
            .replace("{member}", str(fake.member_id))
        )
        hostile = dataclasses.replace(paper, title=title, authors=("@everyone", *paper.authors))
        items.append(
            ScoredPaper(
                hostile,
                score=1.0 - number / 100,
                relevance=5.0,
                novelty=5.0,
                reasons=("matches **you** <@&1>",),
                tldr=HOSTILE[(number + 1) % len(HOSTILE)],
            )
        )
    return Digest(
        day=papers[0].announced,
        profile_name="**Group** @everyone",
        scanned=444,
        items=tuple(items),
        usage={"total_tokens": 1234, "prompt_tokens": 1000, "completion_tokens": 234, "cost_usd": 0.0123},
    )


async def test_a_60_paper_hostile_digest_fits_every_limit_and_pings_nobody(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    bot = new_bot(core)
    target = Target(platform="discord", chat_id=str(fake.channel_id), profile_name="group")
    async with running(bot, fake):
        refs = await post_all(bot.poster, target, hostile_digest(papers, fake))
    no_refusals(fake)  # the fake refuses exactly what Discord refuses: nothing was
    every_message_suppressed_mentions(fake)
    (header, *first_papers) = fake.channel_messages(fake.channel_id)[0]["embeds"]
    assert "444" in header["description"] and "$0.0123" in header["description"]
    (thread,) = fake.threads_of(fake.channel_id)
    in_thread = fake.channel_messages(int(thread["id"]))
    assert len(refs) == 1 + len(in_thread)
    embeds = first_papers + [e for m in in_thread for e in m["embeds"]]
    assert len(embeds) == 60
    buttons = [
        b["custom_id"]
        for m in [fake.channel_messages(fake.channel_id)[0], *in_thread]
        for row in m["components"]
        for b in row["components"]
    ]
    assert buttons[:3] == [f"ps:up:{papers[0].id}", f"ps:down:{papers[0].id}", f"ps:more:{papers[0].id}"]
    assert len(buttons) == 180
    for embed in embeds:  # every hostile string is escaped: no live markup, mention or link syntax left
        text = embed["title"] + embed["description"]
        assert "@everyone" not in text.replace("\\@everyone", "")
        assert "<@" not in text.replace("\\<@", "") and "**bold**" not in text and "[click](" not in text
        assert embed["url"].startswith("https://arxiv.org/abs/")


async def test_thumbs_up_after_a_restart_is_stored_for_that_member(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    digest = Digest(
        day=papers[0].announced,
        profile_name="group",
        scanned=60,
        items=tuple(ScoredPaper(p, 1.0, 5.0, 5.0) for p in papers[:3]),
    )
    target = Target(platform="discord", chat_id=str(fake.channel_id), profile_name="group")
    first = new_bot(core)
    async with running(first, fake):
        (ref,) = await post_all(first.poster, target, digest)
    await fake.wait_for(lambda: fake.connected == 0)

    second = new_bot(core)  # a new process: it never saw the digest message
    async with running(second, fake):
        press = fake.press(int(ref), f"ps:up:{papers[1].id}", user=fake.member_id)
        (ack,) = await fake.wait_for_followups(press)
        assert fake.interaction(press).response_type == 5
        # only for the presser: what it changed, and an Undo button
        assert ack["flags"] & 64 and ack["content"].startswith("Noted: more like “")
        undo = f"ps:undo:{papers[1].id}"
        assert [c["custom_id"] for row in ack["components"] for c in row["components"]] == [undo]
        member_rows = await core.repo.user_feedback_rows(f"discord:{fake.member_id}")
        assert [(r.paper_id, r.value) for r in member_rows] == [(papers[1].id, 1)]
        assert await core.repo.user_feedback_rows(f"discord:{fake.owner_id}") == []

        (undone,) = await fake.wait_for_followups(fake.press(int(ack["id"]), undo, user=fake.member_id))
        assert undone["flags"] & 64 and undone["content"].startswith("Undone: your 👍 on “")
        assert await core.repo.user_feedback_rows(f"discord:{fake.member_id}") == []

        await synced(fake)
        listed = fake.slash("reactions", user=fake.member_id)
        (shown,) = await fake.wait_for_followups(listed)
        assert shown["flags"] & 64 and shown["content"].startswith("You have no reactions yet")

        # /reactions' action and its number come from the command table's words and usage
        await fake.wait_for_followups(fake.press(int(ref), f"ps:down:{papers[2].id}", user=fake.member_id))
        undo_one = fake.slash("reactions", {"action": "undo", "which": "1"}, user=fake.member_id)
        (undone,) = await fake.wait_for_followups(undo_one)
        assert undone["flags"] & 64 and undone["content"].startswith("Undone: your 👎 on “")
        assert await core.repo.user_feedback_rows(f"discord:{fake.member_id}") == []
    no_refusals(fake)


async def test_ask_is_deferred_answered_with_citations_cooled_down_and_followed_up(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    await store_day(core)
    core.settings.ask_cooldown_seconds = 60
    bot = new_bot(core)
    fake.interaction_deadline = 3.0
    async with running(bot, fake):
        await synced(fake)
        asked = fake.slash("ask", {"question": "which papers are about toxicity today?"})
        answer = (await fake.wait_for_followups(asked, within=30))[0]
        assert fake.interaction(asked).response_type == 5  # deferred at once
        assert not answer["flags"] & 64
        sources = next(e for e in answer["embeds"] if e.get("title") == "Sources")
        assert "](https://arxiv.org/abs/" in sources["description"]

        again = fake.slash("ask", {"question": "and transformers?"})  # the core's pause, per member and place
        (cool,) = await fake.wait_for_followups(again)
        assert cool["flags"] & 64 and "ask again in" in cool["content"]
        elsewhere = fake.slash("ask", {"question": "and transformers?"}, channel=None)  # a DM is another place
        answered = (await fake.wait_for_followups(elsewhere, within=30))[0]
        assert "ask again in" not in answered["content"] and answered["embeds"]

        core.settings.ask_cooldown_seconds = 0  # the follow-up below is a question too: no pause for it
        follow = fake.say(fake.channel_id, "which of those use attention?", reply_to=int(answer["id"]))
        reply = await fake.wait_for(
            lambda: [
                m
                for m in fake.channel_messages(fake.channel_id)
                if (m.get("message_reference") or {}).get("message_id") == follow["id"]
            ],
            within=30,
        )
        assert reply[0]["embeds"]
    no_refusals(fake)
    every_message_suppressed_mentions(fake)


async def dm_turn(
    fake: DiscordFake, bot: PaperscoutBot, user: int, text: str = "", press: str = ""
) -> list[dict[str, Any]]:
    """The member writes (or presses a button on the bot's last DM); returns the bot's DM messages that followed, once
    the bot is done with the turn (its driver's `hear` or `press` has returned: all it says has been sent)."""
    channel = fake.dm_channel_of(user)
    before = {m["id"] for m in fake.channel_messages(channel)} if channel else set()
    if press:
        pressed = watch_calls(bot.poster, "press")
        last = [m for m in fake.channel_messages(channel) if m["components"]][-1]
        sent = fake.press(int(last["id"]), press, user=user)
        assert await pressed.wait() == [None]
        return fake.response_messages(sent)
    heard = watch_calls(bot.poster, "hear")
    fake.dm(user, text)
    assert await heard.wait() == [None]
    channel = fake.dm_channel_of(user)
    said = [m for m in fake.channel_messages(channel) if m["id"] not in before]
    return [m for m in said if int(m["author"]["id"]) == fake.bot_id]


async def test_dm_onboarding_end_to_end(fake: DiscordFake, core: Core, store_day: StoreDay) -> None:
    await store_day(core)
    bot = new_bot(core)
    user = fake.member_id
    async with running(bot, fake):
        first = await dm_turn(fake, bot, user, "hi")
        assert "Let's set up your personal paper feed" in first[0]["content"]
        for answer in (
            "graph neural networks; theory of deep learning optimisation",
            "medical imaging",
            "Judea Pearl",
            "cs.LG",
        ):
            replies = await dm_turn(fake, bot, user, answer)
        assert any("Paper 1 of" in m["content"] or m["embeds"] for m in replies)
        ratings = 0
        while ratings < 6:
            latest = [m for m in fake.channel_messages(fake.dm_channel_of(user)) if m["components"]][-1]
            thumbs = [b for row in latest["components"] for b in row["components"] if b["label"].startswith("👍")]
            if "Paper " not in latest["content"] or not thumbs:
                break
            await dm_turn(fake, bot, user, press=thumbs[0]["custom_id"])
            ratings += 1
        for answer in ("daily", "8:15", "Europe/Paris"):
            replies = await dm_turn(fake, bot, user, answer)
        assert any("All set" in m["content"] for m in replies), [m["content"] for m in replies]
    profile = await core.repo.get_profile(f"user:discord:{user}")
    assert profile is not None and profile.authors
    stored = await core.repo.get_user(f"discord:{user}")
    assert stored.digest_mode == "daily" and stored.timezone == "Europe/Paris"
    assert len(await core.repo.user_feedback_rows(f"discord:{user}")) == ratings >= 1
    no_refusals(fake)


async def test_interests_with_closed_dms_gets_an_ephemeral_note(fake: DiscordFake, core: Core) -> None:
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        opened = fake.slash("interests", user=fake.owner_id)
        (note,) = await fake.wait_for_followups(opened)
        assert "sent you a DM" in note["content"]
        assert "Let's set up" in fake.channel_messages(fake.dm_channel_of(fake.owner_id))[0]["content"]
        fake.close_dms(fake.member_id)
        closed = fake.slash("interests", user=fake.member_id)
        (note,) = await fake.wait_for_followups(closed)
        assert note["flags"] & 64 and "DMs are closed" in note["content"]


async def test_a_refused_answer_becomes_an_ephemeral_note_with_a_reference(
    fake: DiscordFake, core: Core, store_day: StoreDay, caplog: pytest.LogCaptureFixture
) -> None:
    await store_day(core)
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        fake.enqueue(Fault.error(400, 50035, "Invalid Form Body", endpoint="followup"))
        sent = fake.slash("search", {"words": "graph neural networks"})
        note = await fake.wait_for(lambda: [m for m in fake.response_messages(sent) if "ref " in m["content"]])
    assert note[0]["flags"] & 64 and "Traceback" not in note[0]["content"]
    ref = note[0]["content"].split("ref ", 1)[1][:6]
    assert any(ref in record.getMessage() for record in caplog.records)


async def test_a_personal_digest_to_closed_dms_is_a_permanent_delivery_error(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    digest = Digest(
        day=papers[0].announced,
        profile_name="me",
        scanned=60,
        items=tuple(ScoredPaper(p, 1.0, 5.0, 5.0) for p in papers[:7]),
    )
    fake.close_dms(fake.member_id)
    target = Target(platform="discord", chat_id=f"dm:{fake.member_id}", profile_name="me")
    bot = new_bot(core)
    async with running(bot, fake):
        open_dm = Target(platform="discord", chat_id=f"dm:{fake.owner_id}", profile_name="me")
        assert len(await post_all(bot.poster, open_dm, digest)) == 2  # no thread in a DM: the rest follows
        in_dm = fake.channel_messages(fake.dm_channel_of(fake.owner_id))
        assert sum(len(m["embeds"]) for m in in_dm) == 8
        with pytest.raises(DeliveryError) as refused:
            await post_all(bot.poster, target, digest)
        assert refused.value.permanent and "DMs" in str(refused.value)
        fake.enqueue(Fault.rate_limit(0.2, endpoint="send_message"))
        started = time.monotonic()
        channel = Target(platform="discord", chat_id=str(fake.channel_id), profile_name="group")
        refs = await post_all(bot.poster, channel, digest)
        assert len(refs) == 2 and time.monotonic() - started >= 0.2  # header + one thread message after a 429
    assert fake.invalid_requests == 2  # the 50007 and the 429; nothing retried that could not succeed
    assert [r.status for r in fake.requests_to("send_message")].count(403) == 1


async def test_start_discord_connects_with_least_intents_and_stops(fake: DiscordFake, core: Core) -> None:
    settings = Settings(
        home=core.settings.home,
        discord_token=fake.token,
        discord_api_url=fake.api_base,
        discord_gateway_url=fake.gateway_url,
    )
    handle = await start_discord(core, settings, guild_ready_timeout=0.05)
    try:
        await asyncio.wait_for(handle.client.wait_until_ready(), 10)
        intents = discord.Intents._from_value(fake.identifies[0]["intents"])
        assert intents.guilds and intents.guild_messages and intents.dm_messages
        assert not (intents.message_content or intents.members or intents.presences)
        assert handle.client.allowed_mentions.to_dict() == {"parse": []}
        assert fake.global_commands == []  # nothing synced at start
    finally:
        await handle.stop()
    assert handle.connection is not None and handle.connection.done()
    await fake.wait_for(lambda: fake.connected == 0)


async def test_wrong_token_fails_at_once(fake: DiscordFake, core: Core) -> None:
    settings = Settings(
        home=core.settings.home,
        discord_token="nope",
        discord_api_url=fake.api_base,
        discord_gateway_url=fake.gateway_url,
    )
    with pytest.raises(discord.LoginFailure):
        await start_discord(core, settings)
    assert len(fake.requests_to("login")) == 1


async def test_a_discord_that_cannot_be_reached_fails_start_up_in_one_line(fake: DiscordFake, core: Core) -> None:
    settings = Settings(home=core.settings.home, discord_token=fake.token, discord_api_url=refused_url() + "/api/v10")
    with pytest.raises(
        SourceUnavailable, match=r"^cannot reach Discord at http://127\.0\.0\.1:\d+/api/v10: "
    ) as failed:
        await start_discord(core, settings)
    assert "\n" not in str(failed.value) and failed.value.__cause__ is None


def test_rendered_digest_messages_pass_discords_checks() -> None:
    paper = Paper("2505.17639", "T" * 5000, ("A" * 400,) * 50, "abs", ("cs.LG",), dt.date(2025, 5, 26))
    items = tuple(
        ScoredPaper(
            dataclasses.replace(paper, id=f"2505.{10000 + n}"),
            1.0,
            9.0,
            9.0,
            reasons=("r" * 3000,),
            author_hits=("h" * 500,),
            tldr="t" * 5000,
            comment="c" * 900,
        )
        for n in range(40)
    )
    view = digest_view(Digest(paper.announced, "p" * 500, 10**6, items, notes=("n" * 3000,) * 9))
    messages = render(DigestReply(view))
    embeds = [e for m in messages for e in m.embeds]
    assert embeds[0].title.startswith("p") and len([e for e in embeds if e.url]) == 40  # the header, every paper
    assert "n" * 100 in embeds[-1].description  # the notes last
    for message in messages:
        rows = [
            {
                "type": 1,
                "components": [{"type": 2, "style": 2, "custom_id": b.custom_id, "label": b.label} for b in row],
            }
            for row in message.rows
        ]
        check_message({"content": message.content, "embeds": [e.to_dict() for e in message.embeds], "components": rows})


async def test_digest_now_posts_once_through_the_ledger_for_admins_only(
    fake: DiscordFake, core: Core, store_day: StoreDay, caplog: pytest.LogCaptureFixture
) -> None:
    await store_day(core)
    bot = new_bot(core)
    caplog.set_level(logging.INFO, logger="bot.chat.controller")
    async with running(bot, fake):
        await synced(fake)
        options = {
            "categories": "cs.LG, cs.CL, cs.AI",
            "time": "09:00",
            "timezone": "UTC",
            "size": 7,
            "profile": "language models; toxicity",
        }
        await fake.wait_for_followups(fake.slash("setup", options, user=fake.owner_id))
        before = len(fake.channel_messages(fake.channel_id))

        refused = fake.slash("digest", {"action": "now"}, user=fake.member_id)
        (note,) = await fake.wait_for_followups(refused)
        assert note["flags"] & 64 and "admins" in note["content"]

        posted = fake.slash("digest", {"action": "now"}, user=fake.owner_id)
        (note,) = await fake.wait_for_followups(posted, within=30)
        assert "Posted the digest of 2025-05-26" in note["content"] and note["flags"] & 64
        (header,) = fake.channel_messages(fake.channel_id)[before:]
        (thread,) = fake.threads_of(fake.channel_id)
        shown = len(header["embeds"]) - 1 + sum(len(m["embeds"]) for m in fake.channel_messages(int(thread["id"])))
        assert shown == 7

        again = fake.slash("digest", {"action": "now"}, user=fake.owner_id)
        (note,) = await fake.wait_for_followups(again, within=30)
        assert "already posted" in note["content"]
        assert len(fake.channel_messages(fake.channel_id)) == before + 1

        preview = fake.slash("digest", {"action": "preview"}, user=fake.owner_id)
        shown = await fake.wait_for_followups(preview, count=2, within=30)
        assert all(m["flags"] & 64 for m in shown)  # a preview is only for the admin who asked
    no_refusals(fake)
    # one log line per command, the owner's sync and each /digest included
    logged = [getattr(r, FIELDS) for r in caplog.records if r.getMessage() == "chat command"]
    assert [(f["command"], f["outcome"]) for f in logged] == [
        ("/sync", "ok"),
        ("/setup", "ok"),
        ("/digest", "ok"),  # a member's: answered with "for its admins", as the controller answers any refusal
        ("/digest", "ok"),
        ("/digest", "ok"),
        ("/digest", "ok"),
    ]


async def test_export_is_a_file_only_the_member_sees(fake: DiscordFake, core: Core) -> None:
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        await fake.wait_for_followups(fake.slash("mydigest", user=fake.member_id))
        exported = fake.slash("export", user=fake.member_id)
        (message,) = await fake.wait_for_followups(exported)
        assert message["flags"] & 64
        (attachment,) = message["attachments"]
        assert attachment["filename"] == "paperscout-export.json"
        data = fake.attachments[int(attachment["id"])][1]
        assert f'"discord:{fake.member_id}"' in data.decode()
    no_refusals(fake)


async def test_a_429_storm_delivers_every_digest_and_waits_out_every_retry_after(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    digest = Digest(
        day=papers[0].announced,
        profile_name="group",
        scanned=60,
        items=tuple(ScoredPaper(p, 1.0, 5.0, 5.0) for p in papers[:12]),
    )
    channels = [fake.add_channel(f"papers-{n}") for n in range(12)]
    fake.storm(0.2, retry_after=0.15, seed=1)
    bot = new_bot(core)
    async with running(bot, fake):
        targets = [Target(platform="discord", chat_id=str(c), profile_name="group") for c in channels]
        refs = await asyncio.gather(*(post_all(bot.poster, t, digest) for t in targets))
    sends = fake.requests_to("send_message")
    limited = [r for r in sends if r.status == 429]
    assert len(limited) >= 5  # the storm happened (seeded: the same draws every run)
    assert all(len(r) == 3 for r in refs)  # header + two thread messages, every channel
    for channel in channels:
        (thread,) = fake.threads_of(channel)
        shown = len(fake.channel_messages(channel)[0]["embeds"]) - 1
        shown += sum(len(m["embeds"]) for m in fake.channel_messages(int(thread["id"])))
        assert shown == 12
    for hit in limited:  # nothing sent to that channel inside the retry_after Discord asked for
        later = [r for r in sends if r.path == hit.path and r.at > hit.at]
        assert later and later[0].at - hit.at >= 0.15 - 0.01


async def test_setup_step_by_step_by_replying_to_the_bot(fake: DiscordFake, core: Core) -> None:
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        started = fake.slash("setup", {"categories": "cs.LG"}, user=fake.owner_id)
        question = (await fake.wait_for_followups(started))[0]
        assert "daily or weekly" in question["content"].lower() and not question["flags"] & 64
        hint = await fake.wait_for(lambda: [m for m in fake.response_messages(started) if "replying" in m["content"]])
        assert hint[0]["flags"] & 64
        last = question
        for answer in ("daily", "08:15", "Europe/Paris", "protein folding; enzyme design", "5"):
            sent = fake.say(fake.channel_id, answer, user=fake.owner_id, reply_to=int(last["id"]))

            def answered(sent: dict[str, Any] = sent) -> list[dict[str, Any]]:
                return [
                    m
                    for m in fake.channel_messages(fake.channel_id)
                    if (m.get("message_reference") or {}).get("message_id") == sent["id"]
                ]

            last = (await fake.wait_for(answered))[0]
        assert "All set" in last["content"], last["content"]
        heard = watch_calls(bot.poster, "hear")
        member_reply = fake.say(fake.channel_id, "cs.AI", user=fake.member_id, reply_to=int(question["id"]))
        assert await heard.wait() == [None]  # the bot is done with it: whatever it would say is sent by now
        assert not [
            m
            for m in fake.channel_messages(fake.channel_id)
            if (m.get("message_reference") or {}).get("message_id") == member_reply["id"]
        ]
    target, profile = await core.repo.target_at("discord", str(fake.channel_id))
    assert target.timezone == "Europe/Paris" and target.digest_size == 5 and target.categories == ("cs.LG",)
    assert [t.want for t in profile.topics] == ["protein folding", "enzyme design"]
    no_refusals(fake)


async def test_forget_asks_with_buttons_and_paper_ids_autocomplete(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    bot = new_bot(core)
    user = f"discord:{fake.member_id}"
    async with running(bot, fake):
        await synced(fake)
        typed = papers[0].id[:6]
        completing = fake.autocomplete("paper", {"paper": typed}, focused="paper")
        choices = (await fake.wait_for_response(completing)).responses[0]["data"]["choices"]
        assert choices and all(c["value"].startswith(typed) for c in choices)
        assert papers[0].id in {c["value"] for c in choices}
        by_title = fake.autocomplete("why", {"paper": papers[1].title.split()[0].lower()}, focused="paper")
        choices = (await fake.wait_for_response(by_title)).responses[0]["data"]["choices"]
        assert papers[1].id in {c["value"] for c in choices}

        await fake.wait_for_followups(fake.slash("up", {"paper": papers[0].id}))
        assert len(await core.repo.user_feedback_rows(user)) == 1
        asked = fake.slash("forget")
        (question,) = await fake.wait_for_followups(asked)
        assert question["flags"] & 64
        yes = next(b for row in question["components"] for b in row["components"] if b["label"].startswith("Yes"))
        pressed = fake.press(int(question["id"]), yes["custom_id"])
        (done,) = await fake.wait_for_followups(pressed)
        assert done["flags"] & 64
    assert await core.repo.user_feedback_rows(user) == []
    no_refusals(fake)


async def test_an_oversized_profile_file_in_a_reply_gets_one_line(fake: DiscordFake, core: Core) -> None:
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        started = fake.slash("setup", {"categories": "cs.LG", "time": "09:00", "timezone": "UTC"}, user=fake.owner_id)
        question = (await fake.wait_for_followups(started))[0]
        big = fake.add_attachment("huge.toml", b"#" * 70_000)
        sent = fake.say(fake.channel_id, "here", user=fake.owner_id, reply_to=int(question["id"]), attachments=[big])
        reply = await fake.wait_for(
            lambda: [
                m
                for m in fake.channel_messages(fake.channel_id)
                if (m.get("message_reference") or {}).get("message_id") == sent["id"]
            ]
        )
    assert "over 64 KB" in reply[0]["content"] and "ref " not in reply[0]["content"]
    assert not fake.requests_to("attachment")  # refused by its size, never downloaded


def three_message_digest(papers: list[Paper], day: dt.date | None = None) -> Digest:
    """A digest of 14 papers: its header and two more messages, which go into a thread under it."""
    items = tuple(ScoredPaper(p, 1.0, 5.0, 5.0) for p in papers[:14])
    return Digest(day=day or papers[0].announced, profile_name="group", scanned=60, items=items)


async def test_a_digest_resumes_message_by_message_after_a_restart_without_duplicates(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    digest = three_message_digest(papers)
    target = Target(platform="discord", chat_id=str(fake.channel_id), profile_name="group")
    nonce = f"ledger-7-2025-05-26-{'x' * 30}"  # longer than Discord's 25: the poster hashes it
    first = new_bot(core)
    async with running(first, fake):
        messages = first.poster.digest_messages(target, digest)
        assert len(messages) == 3 and messages == first.poster.digest_messages(target, digest)
        sent = [await first.poster.send_digest_message(target, messages[0], 0, [], f"{nonce}:0")]
        sent.append(await first.poster.send_digest_message(target, messages[1], 1, sent, f"{nonce}:1"))
    # the process died after Discord took message 1 but before the ledger recorded it
    second = new_bot(core)
    async with running(second, fake):
        messages = second.poster.digest_messages(target, digest)
        again = await second.poster.send_digest_message(target, messages[1], 1, sent[:1], f"{nonce}:1")
        assert again == sent[1]  # Discord returned the message it had, by nonce
        sent.append(await second.poster.send_digest_message(target, messages[2], 2, sent, f"{nonce}:2"))
    (thread,) = fake.threads_of(fake.channel_id)
    assert thread["id"] == sent[0]
    in_thread = fake.channel_messages(int(thread["id"]))
    assert [m["id"] for m in in_thread] == sent[1:]
    assert len(fake.channel_messages(fake.channel_id)) == 1
    assert sum(len(m["embeds"]) for m in in_thread) + len(fake.message(int(sent[0]))["embeds"]) - 1 == 14
    no_refusals(fake)


async def test_without_thread_permission_the_digest_continues_in_the_channel(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    papers = await store_day(core)
    digest = three_message_digest(papers)
    fake.deny_threads(fake.channel_id)
    bot = new_bot(core)
    async with running(bot, fake):
        target = Target(platform="discord", chat_id=str(fake.channel_id), profile_name="group")
        refs = await post_all(bot.poster, target, digest)
    assert [m["id"] for m in fake.channel_messages(fake.channel_id)] == refs and len(refs) == 3
    assert fake.threads_of(fake.channel_id) == []
    assert fake.invalid_requests == 1  # asked for a thread once, not once per message


async def test_a_digest_whose_header_was_deleted_goes_on_in_the_channel_and_keeps_its_digest(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    """A thread refused for good (here 404: the header was deleted before the rest went out) sends the rest into the
    channel, like a thread Discord does not allow; it says nothing about the channel, which is not retired."""
    papers = await store_day(core)
    digest = three_message_digest(papers)
    target = Target(platform="discord", chat_id=str(fake.channel_id), profile_name="group")
    bot = new_bot(core)
    retired = watch_gone(bot.poster)
    async with running(bot, fake):
        messages = bot.poster.digest_messages(target, digest)
        sent = [await bot.poster.send_digest_message(target, messages[0], 0, [], "deleted-header:0")]
        fake.delete_message(int(sent[0]))
        for position in (1, 2):
            ref = await bot.poster.send_digest_message(target, messages[position], position, sent, f"h:{position}")
            sent.append(ref)
    assert [m["id"] for m in fake.channel_messages(fake.channel_id)] == sent[1:]
    assert fake.threads_of(fake.channel_id) == [] and not retired.is_set()


async def saved_channel_target(core: Core, fake: DiscordFake) -> Target:
    """The digest of #papers as set up, so retiring it would show."""
    target = Target("discord", str(fake.channel_id), "group", categories=("cs.LG",), post_time="09:00")
    await core.repo.save_profile(target.key, PROFILE)
    return dataclasses.replace(target, id=await core.repo.save_target(target, target.key))


async def test_a_digests_thread_deleted_midway_sends_the_rest_into_the_channel_and_keeps_its_digest(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    """A moderator deletes the digest's thread before its end (Discord: 404 Unknown Channel on the thread): the rest
    goes into the channel, the thread asked for once per digest; the channel, still there, is not retired."""
    digest = three_message_digest(await store_day(core))
    target = await saved_channel_target(core, fake)
    bot = new_bot(core)
    retired = watch_gone(bot.poster)
    async with running(bot, fake):
        messages = bot.poster.digest_messages(target, digest)
        sent = [await bot.poster.send_digest_message(target, messages[0], 0, [], "gone-thread:0")]
        fake.enqueue(Fault.error(404, 10003, "Unknown Channel", endpoint="send_message"))
        for position in (1, 2):
            sent.append(
                await bot.poster.send_digest_message(target, messages[position], position, sent, f"g:{position}")
            )
    assert [m["id"] for m in fake.channel_messages(fake.channel_id)] == sent
    (refused,) = [r for r in fake.requests_to("send_message") if r.status >= 400]
    assert refused.path.endswith(f"/channels/{sent[0]}/messages")  # the thread (it has the header's id)
    assert not retired.is_set() and await core.repo.inactive_reasons() == {}


async def test_a_digests_thread_locked_before_a_restart_sends_the_rest_into_the_channel(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    """A thread a moderator locked (Discord: 400 code 50083 on a post there) while the bot was down: the restarted bot
    sends the digest's rest into the channel instead of retiring the channel's digest."""
    digest = three_message_digest(await store_day(core))
    target = await saved_channel_target(core, fake)
    first = new_bot(core)
    async with running(first, fake):
        messages = first.poster.digest_messages(target, digest)
        sent = [await first.poster.send_digest_message(target, messages[0], 0, [], "locked:0")]
        sent.append(await first.poster.send_digest_message(target, messages[1], 1, sent, "locked:1"))
    fake.lock_thread(int(sent[0]))
    second = new_bot(core)
    async with running(second, fake):
        messages = second.poster.digest_messages(target, digest)
        sent.append(await second.poster.send_digest_message(target, messages[2], 2, sent, "locked:2"))
    assert [m["id"] for m in fake.channel_messages(int(sent[0]))] == sent[1:2]
    assert [m["id"] for m in fake.channel_messages(fake.channel_id)] == [sent[0], sent[2]]
    assert [r.response.get("code") for r in fake.requests_to("send_message") if r.status >= 400] == [50083]
    assert await core.repo.inactive_reasons() == {}


async def test_a_digests_thread_the_bot_may_not_post_in_sends_the_rest_into_the_channel(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    """Missing Permissions (403 code 50013) on a post in the digest's thread (the bot may not Send Messages in
    Threads there) is the thread refused, like a locked one: the rest goes into the channel, the thread tried once per
    digest; it used to be read as the channel denied, and the digest failed with the rest unsent."""
    digest = three_message_digest(await store_day(core))
    target = await saved_channel_target(core, fake)
    fake.deny_thread_posts(fake.channel_id)
    bot = new_bot(core)
    async with running(bot, fake):
        sent = await post_all(bot.poster, target, digest)
    (thread,) = fake.threads_of(fake.channel_id)
    assert fake.channel_messages(int(thread["id"])) == [] and len(sent) == 3
    assert [m["id"] for m in fake.channel_messages(fake.channel_id)] == sent
    refused = [r for r in fake.requests_to("send_message") if r.status >= 400]
    assert [r.response["code"] for r in refused] == [50013]
    assert refused[0].path.endswith(f"/channels/{thread['id']}/messages")  # the thread (it has the header's id)
    assert await core.repo.inactive_reasons() == {}


async def test_a_digests_thread_and_channel_both_denied_names_the_channels_permissions_to_the_admin(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    """The thread's refusal sends the rest to the channel, whose own refusal is then the channel's: the admin reads
    what to give in #papers, and the channel keeps its digest."""
    digest = three_message_digest(await store_day(core))
    target = await saved_channel_target(core, fake)
    fake.deny_thread_posts(fake.channel_id)
    bot = new_bot(core)
    async with running(bot, fake):
        messages = bot.poster.digest_messages(target, digest)
        sent = [await bot.poster.send_digest_message(target, messages[0], 0, [], "both-denied:0")]
        fake.deny_bot(fake.channel_id)
        await fake.wait_for(lambda: bot.poster.missing_permissions(str(fake.channel_id)) or None)
        with pytest.raises(DeliveryError) as refused:
            await bot.poster.send_digest_message(target, messages[1], 1, sent, "both-denied:1")
    assert refused.value.permanent and str(refused.value).startswith("I can't post in #papers: give paperscout")
    assert "Send Messages" in str(refused.value) and await core.repo.inactive_reasons() == {}


async def test_a_digests_channel_gone_with_its_thread_retires_the_channels_digest(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    """The thread gone because its channel was deleted: the rest's try in the channel is refused too, and only then
    is the channel's digest retired."""
    digest = three_message_digest(await store_day(core))
    target = await saved_channel_target(core, fake)
    bot = new_bot(core)
    async with running(bot, fake):
        messages = bot.poster.digest_messages(target, digest)
        sent = [await bot.poster.send_digest_message(target, messages[0], 0, [], "gone-channel:0")]
        for _ in range(2):
            fake.enqueue(Fault.error(404, 10003, "Unknown Channel", endpoint="send_message"))
        with pytest.raises(DeliveryError) as refused:
            await bot.poster.send_digest_message(target, messages[1], 1, sent, "gone-channel:1")
    assert refused.value.permanent
    assert "no longer exists" in (await core.repo.inactive_reasons())[target.id]


async def test_each_digests_thread_is_named_after_its_own_day_when_several_were_rendered_first(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    """A fan-out renders every due digest before the first send (catch-up days of one channel among them): the thread
    under each header is named after that digest, not after the one rendered last."""
    papers = await store_day(core)
    first_day = papers[0].announced
    earlier, later = three_message_digest(papers, first_day), three_message_digest(papers, first_day + dt.timedelta(1))
    target = Target(platform="discord", chat_id=str(fake.channel_id), profile_name="group")
    bot = new_bot(core)
    async with running(bot, fake):
        rendered = [bot.poster.digest_messages(target, earlier), bot.poster.digest_messages(target, later)]
        for n, messages in enumerate(rendered):
            sent: list[str] = []
            for position, message in enumerate(messages):
                sent.append(await bot.poster.send_digest_message(target, message, position, sent, f"d{n}:{position}"))
    names = sorted(thread["name"] for thread in fake.threads_of(fake.channel_id))
    assert names == [f"More papers: group: arXiv digest for {day.isoformat()}" for day in (first_day, later.day)]


async def test_a_mention_in_a_channel_is_answered_and_no_command_error_is_logged(
    fake: DiscordFake, core: Core, store_day: StoreDay, caplog: pytest.LogCaptureFixture
) -> None:
    await store_day(core)
    bot = new_bot(core)
    async with running(bot, fake):
        asked = fake.say(fake.channel_id, f"<@{fake.bot_id}> what MoE papers this week?", user=fake.member_id)

        def answer() -> list[dict[str, Any]]:
            return [
                m
                for m in fake.channel_messages(fake.channel_id)
                if (m.get("message_reference") or {}).get("message_id") == asked["id"]
            ]

        (reply,) = await fake.wait_for(answer, within=30)
        bare = fake.say(fake.channel_id, f"<@{fake.bot_id}>", user=fake.member_id)
        (pointer,) = await fake.wait_for(
            lambda: [
                m
                for m in fake.channel_messages(fake.channel_id)
                if (m.get("message_reference") or {}).get("message_id") == bare["id"]
            ]
        )
    assert reply["embeds"] or "[1]" in reply["content"] or "stored" in reply["content"]
    assert "/ask" in pointer["content"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
    assert not [r for r in caplog.records if r.exc_info and "CommandNotFound" in repr(r.exc_info[1])]


async def test_a_typed_sync_that_fails_is_told_to_its_author_alone_and_never_to_the_channel(
    fake: DiscordFake, core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    """`@paperscout sync` is the owner's: a member's (with or without a wrong argument) is refused in a DM, the
    owner's wrong argument gets the usage in a DM; nothing is said in the channel, so nobody can make the bot post
    there, and a member never reads the owner's usage."""
    bot = new_bot(core)
    async with running(bot, fake):
        fake.say(fake.channel_id, f"<@{fake.bot_id}> sync", user=fake.member_id)
        fake.say(fake.channel_id, f"<@{fake.bot_id}> sync everywhere", user=fake.member_id)
        fake.say(fake.channel_id, f"<@{fake.bot_id}> sync everywhere", user=fake.owner_id)

        def dms(user: int) -> list[dict[str, Any]]:
            channel = fake.dm_channel_of(user)
            return fake.channel_messages(channel) if channel is not None else []

        refusals = await fake.wait_for(lambda: dms(fake.member_id) if len(dms(fake.member_id)) == 2 else [])
        (usage,) = await fake.wait_for(lambda: dms(fake.owner_id))
        await synced(fake)  # after the three above: had they said anything in the channel, it would be there now
    assert all("owner" in m["content"] and "here" not in m["content"] for m in refusals)
    assert "sync here" in usage["content"]
    in_channel = [m for m in fake.channel_messages(fake.channel_id) if int(m["author"]["id"]) == fake.bot_id]
    assert [m["content"] for m in in_channel] == [in_channel[-1]["content"]] and "Synced" in in_channel[-1]["content"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


async def test_a_failed_digest_now_names_the_missing_permission(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    await store_day(core)
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        options = {"categories": "cs.LG", "time": "09:00", "timezone": "UTC", "size": 3, "profile": "graphs"}
        await fake.wait_for_followups(fake.slash("setup", options, user=fake.owner_id))
        fake.deny_bot(fake.channel_id)
        await fake.wait_for(
            lambda: not bot.get_channel(fake.channel_id).permissions_for(bot.get_guild(fake.guild_id).me).send_messages
        )  # type: ignore[union-attr]
        posted = fake.slash("digest", {"action": "now"}, user=fake.owner_id)
        (note,) = await fake.wait_for_followups(posted, within=30)
    assert "Send Messages" in note["content"], note["content"]
    assert f"discord:{fake.channel_id}" not in note["content"]


async def test_the_bot_shards_as_discord_asks(fake: DiscordFake, core: Core) -> None:
    bot = new_bot(core)
    assert isinstance(bot, discord.AutoShardedClient)
    async with running(bot, fake):
        assert bot.shard_count == 1 and fake.requests_to("gateway")


async def test_slash_commands_are_made_from_the_command_table(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    await store_day(core)
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        registered = {command["name"]: command for command in fake.global_commands}
        # every command of the table that has a slash command of its own on Discord is one, described by its help
        for name, command in COMMANDS.items():
            run = front_end("discord").command(name)
            if " " not in run:
                assert run[1:] in registered, run
                assert registered[run[1:]]["description"].lower() == command.help.lower()[:100], run
        edit = registered["edit"]["options"]  # /help in a DM lists /edit: it exists
        assert [(o["name"], o.get("required")) for o in edit] == [("field", True)]
        assert registered["settings"].get("contexts") == [0]  # a channel command: servers only
        setup = {o["name"]: o["description"] for o in registered["setup"]["options"]}  # the core's setup options
        assert {name: setup[name] for name in channel_setup.OPTIONS} == channel_setup.OPTIONS
        assert set(setup) == {*channel_setup.OPTIONS, "channel", "profile_file"}
        assert [c["value"] for c in registered["digest"]["options"][0]["choices"]] == list(COMMANDS["digest"].actions)
        why = fake.slash("why", {"paper": "2505.99999"}, user=fake.member_id)
        (note,) = await fake.wait_for_followups(why)
        assert note["flags"] & 64  # only for the member, as before
    no_refusals(fake)


async def test_a_refusal_naming_an_uploaded_file_is_escaped(fake: DiscordFake, core: Core) -> None:
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        big = fake.add_attachment("**big** @everyone `x`.toml", b"#" * 70_000)
        options = {"categories": "cs.LG", "profile_file": fake.attachment_option(big)}
        (note,) = await fake.wait_for_followups(fake.slash("setup", options, user=fake.owner_id))
    assert note["flags"] & 64 and "over 64 KB" in note["content"]
    assert "\\*\\*big\\*\\* \\@everyone \\`x\\`" in note["content"], note["content"]
    every_message_suppressed_mentions(fake)


async def test_sync_is_one_hybrid_command_refused_to_a_member_as_a_slash_command(fake: DiscordFake, core: Core) -> None:
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)  # the owner's "@paperscout sync", a text command
        assert "sync" in {command["name"] for command in fake.global_commands}  # and the same one as /sync
        refused = fake.slash("sync", user=fake.member_id)
        await fake.wait_for_response(refused)
        (note,) = fake.response_messages(refused)
    assert note["flags"] & 64 and "owner" in note["content"]
    no_refusals(fake)


async def test_table_commands_in_a_dm_are_kept_not_ephemeral(fake: DiscordFake, core: Core) -> None:
    """In a DM only the member sees a reply anyway; an ephemeral one would vanish when Discord reloads."""
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        (profile,) = await fake.wait_for_followups(fake.slash("profile", user=fake.member_id, channel=None))
        assert not profile["flags"] & 64 and profile["content"].startswith("You have no profile yet")
        (digest,) = await fake.wait_for_followups(
            fake.slash("digest", {"action": "weekly"}, user=fake.member_id, channel=None)
        )
        assert not digest["flags"] & 64 and digest["content"].startswith("You have no profile yet")
    no_refusals(fake)


async def test_a_reply_to_a_channel_that_is_gone_retires_its_digest(fake: DiscordFake, core: Core) -> None:
    """Replies go through the core's driver: a channel Discord says no longer exists (10003) is retired once, as a
    digest to it would be, not answered again with an error report."""
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        options = {"categories": "cs.LG", "time": "09:00", "timezone": "UTC", "size": 3, "profile": "graphs"}
        await fake.wait_for_followups(fake.slash("setup", options, user=fake.owner_id))
        (target, _) = await core.repo.target_at("discord", str(fake.channel_id))
        retired = watch_gone(bot.poster)
        fake.enqueue(Fault.error(404, 10003, "Unknown Channel", endpoint="send_message"))
        fake.say(fake.channel_id, f"<@{fake.bot_id}> what MoE papers this week?", user=fake.member_id)
        await asyncio.wait_for(retired.wait(), 30)
    assert "no longer exists" in (await core.repo.inactive_reasons())[target.id]
    assert [r.status for r in fake.requests_to("send_message")].count(404) == 1


async def two_members_with_daily_digests(fake: DiscordFake, core: Core, store_day: StoreDay) -> tuple[Digest, str, str]:
    """A one-paper digest, and the member's and the owner's keys, both with a daily personal digest on."""
    papers = await store_day(core)
    digest = Digest(day=papers[0].announced, profile_name="me", scanned=60, items=(ScoredPaper(papers[0], 1.0, 5, 5),))
    member, owner = f"discord:{fake.member_id}", f"discord:{fake.owner_id}"
    for key in (member, owner):
        await core.repo.save_user_settings(key, digest_mode="daily", post_time="09:00", timezone="UTC", weekly_day=0)
    return digest, member, owner


async def test_a_closed_dm_turns_off_the_members_digest_keyed_by_their_user_id(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    """A DM the bot can no longer write to retires the member's personal digest: the member is found by their user
    id, not by the DM channel's id (a reply in the DM) nor by the digest's 'dm:<id>' chat read as an id."""
    digest, member, owner = await two_members_with_daily_digests(fake, core, store_day)
    bot = new_bot(core)
    async with running(bot, fake):
        retired = watch_gone(bot.poster)
        fake.close_dms(fake.member_id)
        fake.dm(fake.member_id, "hi")
        await asyncio.wait_for(retired.wait(), 10)
        assert (await core.repo.get_user(member)).digest_mode == "off"
        fake.close_dms(fake.owner_id)
        with pytest.raises(DeliveryError):
            await post_all(
                bot.poster, Target(platform="discord", chat_id=f"dm:{fake.owner_id}", profile_name="me"), digest
            )
    assert (await core.repo.get_user(owner)).digest_mode == "off"


async def test_a_closed_dm_held_without_its_recipient_retires_the_members_digest_or_nothing(
    fake: DiscordFake, core: Core, store_day: StoreDay, caplog: pytest.LogCaptureFixture
) -> None:
    """discord.py may hold a DM channel without its recipient (the channel it makes for a DM it only saw a message
    in): whose DM it is is then asked of Discord, so the member's digest retires, not 'dm:<channel id>', which keys
    nobody and left the member's digest on. When Discord cannot say either, nothing is retired, and that is logged."""
    digest, member, owner = await two_members_with_daily_digests(fake, core, store_day)
    bot = new_bot(core)
    async with running(bot, fake):
        for user in (fake.member_id, fake.owner_id):
            fake.close_dms(user)
            bot._connection._add_private_channel(discord.DMChannel._from_message(bot._connection, fake.open_dm(user)))
        member_dm, owner_dm = fake.open_dm(fake.member_id), fake.open_dm(fake.owner_id)
        with pytest.raises(DeliveryError):
            await post_all(bot.poster, Target(platform="discord", chat_id=str(member_dm), profile_name="me"), digest)
        assert (await core.repo.get_user(member)).digest_mode == "off"
        fake.enqueue(Fault.error(403, 50001, "Missing Access", endpoint="get_channel"))
        with caplog.at_level(logging.WARNING), pytest.raises(DeliveryError):
            await post_all(bot.poster, Target(platform="discord", chat_id=str(owner_dm), profile_name="me"), digest)
    assert (await core.repo.get_user(owner)).digest_mode == "daily"
    assert f"chat {owner_dm} is gone but whose DM it is is unknown" in caplog.text
    assert [r.status for r in fake.requests_to("get_channel")] == [200, 403]


async def test_a_dm_command_run_in_a_channel_is_answered_in_the_members_dm(fake: DiscordFake, core: Core) -> None:
    """/edit works only in a DM: run in a channel, the driver answers it in the member's DM and says so, for the
    member alone, where it was run (as /interests does)."""
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        (note,) = await fake.wait_for_followups(fake.slash("edit", {"field": "interests"}, user=fake.member_id))
        assert note["flags"] & 64 and "sent you a DM" in note["content"]
        in_dm = fake.channel_messages(fake.dm_channel_of(fake.member_id))
        assert in_dm and all("direct message" not in m["content"] for m in in_dm)
    no_refusals(fake)


def test_a_press_is_taken_only_for_a_button_value_the_controller_reads() -> None:
    """Persistent buttons match the core's rule for a button value (the prefix, at most 64 bytes) on the whole
    custom_id: a press of a longer or foreign one never reaches the client (discord.py finds no item for it)."""
    longest = "ps:up:" + "1" * (MAX_BUTTON_BYTES - 6)
    for value in (longest, "ps:more:2505.17639", "ps:c:onboard:3"):
        assert is_paperscout_button(value) and BUTTON_VALUE.fullmatch(value)
    for value in (longest + "1", "xx:up:2505.17639", "ps:", "ps:up:a b"):
        assert not BUTTON_VALUE.fullmatch(value)


async def test_a_command_the_bot_no_longer_has_gets_one_line_only_the_member_sees(
    fake: DiscordFake, core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    """A slash command Discord still offers but this version does not have (synced by an older one, before the owner
    syncs again) is no failure: one plain line only the member sees, saying so and who can sync; logged at INFO,
    with no traceback and no reference."""
    bot = new_bot(core)
    with caplog.at_level(logging.INFO):
        async with running(bot, fake):
            sent = fake.slash("retired", user=fake.member_id)
            (note,) = await fake.wait_for(lambda: [m for m in fake.response_messages(sent) if m["content"]] or None)
    assert note["flags"] & 64, note
    assert "/retired is not in this version of the bot" in note["content"]
    assert "owner" in note["content"] and "sync" in note["content"] and "ref " not in note["content"]
    ours = [r for r in caplog.records if r.name.startswith("bot.")]
    assert not [r for r in ours if r.levelno >= logging.WARNING or r.exc_info], caplog.text
    assert [r for r in ours if r.levelno == logging.INFO and "/retired" in r.getMessage()], caplog.text
    assert fake.channel_messages(fake.channel_id) == []  # nothing the channel sees
    no_refusals(fake)


async def test_a_failing_slash_sync_answers_only_the_owner_and_ends_the_thinking(
    fake: DiscordFake, core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    """/sync (the hybrid command run as a slash command) that Discord refuses: the owner gets one line only they see,
    in place of the deferred "thinking…", with the reference that is logged; nothing is posted in the channel."""
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        before = fake.channel_messages(fake.channel_id)
        fake.enqueue(Fault.error(400, 50035, "Invalid Form Body", endpoint="sync_commands"))
        handled = watch_calls(bot, "on_command_error")  # discord.py hands the failed /sync to it, in a task of its own
        sent = fake.slash("sync", user=fake.owner_id)
        assert await handled.wait() == [None]  # anything it would say (a second line, in the channel) is sent by now
        (note,) = [m for m in fake.response_messages(sent) if m["content"]]
        answers = fake.response_messages(sent)
        in_channel = [m for m in fake.channel_messages(fake.channel_id) if m not in before and m not in answers]
    assert answers == [note] and note["flags"] & 64 and not note["flags"] & 128, note  # 128: still "thinking…"
    assert "ref " in note["content"] and in_channel == []
    assert any(note["content"].split("ref ", 1)[1][:6] in record.getMessage() for record in caplog.records)


async def test_typing_into_a_command_the_bot_no_longer_has_offers_no_choices(
    fake: DiscordFake, core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    """Autocomplete of a slash command this version does not have is answered with no choices (it cannot be told a
    line), quietly: nothing logged above INFO."""
    bot = new_bot(core)
    async with running(bot, fake):
        typing = fake.autocomplete("retired", {"paper": "2505"}, focused="paper")
        answered = await fake.wait_for_response(typing)
    assert answered.response_type == 8 and answered.responses[0]["data"]["choices"] == []
    assert not [r for r in caplog.records if r.name.startswith("bot.") and r.levelno >= logging.WARNING], caplog.text
    no_refusals(fake)


async def test_a_401_is_the_bots_own_token_refused_and_retires_no_channel(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    """HTTP 401 says the request's credentials were refused: the bot's token (reset in the developer portal while
    it runs), never the channel. The digest fails for now and is tried again; the channel keeps its digest."""
    papers = await store_day(core)
    target = Target(platform="discord", chat_id=str(fake.channel_id), profile_name="group")
    bot = new_bot(core)
    retired = watch_gone(bot.poster)
    async with running(bot, fake):
        fake.enqueue(Fault.error(401, 0, "401: Unauthorized", endpoint="send_message"))
        with pytest.raises(DeliveryError) as refused:
            await post_all(bot.poster, target, three_message_digest(papers))
    assert not refused.value.permanent and not retired.is_set()
    assert [r.status for r in fake.requests_to("send_message")] == [401]


async def test_a_typed_sync_discord_refuses_is_told_to_the_owner_in_a_dm_and_not_in_the_channel(
    fake: DiscordFake, core: Core
) -> None:
    """The owner's typed ``@paperscout sync`` that Discord refuses: the line with its reference goes to the owner's
    DM, like every other thing a typed sync says that is not its success; the channel sees nothing."""
    bot = new_bot(core)
    async with running(bot, fake):
        fake.enqueue(Fault.error(400, 50035, "Invalid Form Body", endpoint="sync_commands"))
        fake.say(fake.channel_id, f"<@{fake.bot_id}> sync", user=fake.owner_id)
        channel = await fake.wait_for(lambda: fake.dm_channel_of(fake.owner_id))
        (told,) = await fake.wait_for(lambda: fake.channel_messages(channel))
        await synced(fake)  # after the refused one: had it said anything in the channel, it would be there now
    assert "ref " in told["content"]
    in_channel = [m for m in fake.channel_messages(fake.channel_id) if int(m["author"]["id"]) == fake.bot_id]
    assert ["Synced" in m["content"] for m in in_channel] == [True]


async def test_the_client_does_not_warn_about_voice_libraries_paperscout_never_uses(
    core: Core, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """discord.py logged "davey is not installed, voice will NOT be supported" at every start: a WARNING about a
    feature paperscout has no use for, read by an admin as something to fix."""
    monkeypatch.setattr(discord.VoiceClient, "warn_nacl", True)  # as in a fresh process
    monkeypatch.setattr(discord.VoiceClient, "warn_dave", True)
    with caplog.at_level(logging.WARNING, logger="discord"):
        new_bot(core)
    assert not [r for r in caplog.records if "voice" in r.getMessage()]


async def test_a_note_only_the_member_may_see_is_not_sent_while_a_public_thinking_stays(
    fake: DiscordFake, core: Core, store_day: StoreDay
) -> None:
    """A public command's page refused, the note telling of it is the member's alone; while Discord will not delete
    the public "thinking…" (here Cloudflare limits the bot; the first followup would take its visibility and show the
    note to the channel), the note is not sent, and the "thinking…" is deleted at the end."""
    await store_day(core)
    bot = new_bot(core)
    async with running(bot, fake):
        await synced(fake)
        fake.enqueue(
            Fault.error(400, 50035, "Invalid Form Body", endpoint="followup"),
            Fault.cloudflare_ban(endpoint="delete_webhook_message"),  # not retried by discord.py
        )
        sent = fake.slash("search", {"words": "graph neural networks"})
        await fake.wait_for(lambda: [r for r in fake.requests_to("delete_webhook_message") if r.status < 300])
    assert [m for m in fake.response_messages(sent) if m["content"] or m["embeds"]] == []
    assert [r.status for r in fake.requests_to("delete_webhook_message")] == [429, 204]


async def test_a_thinking_that_cannot_be_deleted_for_a_lost_connection_is_a_refused_delete(
    fake: DiscordFake, core: Core, store_day: StoreDay, caplog: pytest.LogCaptureFixture
) -> None:
    """Deleting the public "thinking…" fails for the network (the connection closes before Discord answers): like a
    refused delete, it is logged and the member-only note is not sent. It was raised out of the command, whose
    handler then posted the note as a followup, which takes the public "thinking…"'s visibility."""
    await store_day(core)
    bot = new_bot(core)
    commands = watch_calls(bot.poster, "command")
    async with running(bot, fake):
        await synced(fake)
        fake.enqueue(Fault.error(400, 50035, "Invalid Form Body", endpoint="followup"))
        fake.always(Fault.disconnect(endpoint="delete_webhook_message"))
        sent = fake.slash("search", {"words": "graph neural networks"})
        assert await commands.wait() == [None]
        fake.always(None)
    deletes = fake.requests_to("delete_webhook_message")
    assert deletes and {r.status for r in deletes} == {0}  # each withdraw tried (aiohttp may retry one once)
    assert [m for m in fake.response_messages(sent) if m["content"] or m["embeds"]] == []
    raised = [r for r in caplog.records if r.exc_info and isinstance(r.exc_info[1], aiohttp.ClientError)]
    assert raised == [] and "could not be deleted (ServerDisconnectedError" in caplog.text
