"""The weekly digest as a topic tree (issue 24): built from the stored week, frozen and read back, and shown on
Discord, Telegram and the console through the protocol fakes within each platform's limits."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io

import pytest
from pydantic import SecretStr

from bot.config import Settings
from bot.core import Core
from bot.digests.delivery import digest_from_json, digest_to_json
from bot.frontends.console import ConsolePoster
from bot.members.personal import personal_digest
from bot.models import Digest, DigestSection, Target
from bot.views.model import digest_view
from bot.views.render import digest_markdown, digest_to_dict
from tests.conftest import StoreDay, post_all
from tests.fakes.discord_client import running
from tests.fakes.discord_server import DiscordFake
from tests.fakes.telegram_server import FakeTelegram
from tests.test_discord_bot import fake as fake
from tests.test_discord_bot import hostile_digest as discord_hostile_digest
from tests.test_discord_bot import new_bot, no_refusals
from tests.test_telegram_bot import GROUP, telegram_bot
from tests.test_telegram_bot import tg_settings as tg_settings
from tests.test_telegram_render import hostile_digest as telegram_hostile_digest
from tests.test_users import KEY, make_user

DAY = dt.date(2025, 5, 26)
HOSTILE_HEADING = "<b>Graph</b> **neural** @everyone [x](javascript:1)"


def as_tree(digest: Digest) -> Digest:
    """The digest's 60 papers under 4 topics of 15, the first two split into subtopics of 5 and 10."""
    sections = []
    for t in range(4):
        if t < 2:
            sections += [
                DigestSection(f"{HOSTILE_HEADING} {t}", 1, 0),
                DigestSection(f"Sub {t}a & <i>", 2, 5),
                DigestSection(f"Sub {t}b", 2, 10),
            ]
        else:
            sections.append(DigestSection(f"Topic {t}", 1, 15))
    return dataclasses.replace(digest, sections=tuple(sections))


@pytest.mark.slow  # embeds the day's first 60 papers, once per session
async def test_a_weekly_personal_digest_is_a_topic_tree_over_every_pick_and_survives_the_ledger(
    core: Core, store_day: StoreDay
) -> None:
    await store_day(core)
    await make_user(core, "weekly")
    weekly = await personal_digest(core, KEY, DAY, weekly=True, size=30)
    daily = await personal_digest(core, KEY, DAY, size=30)
    assert daily.sections == ()
    assert weekly.picked == 30 and weekly.sections and weekly.sections[0].level == 1
    assert sum(s.count for s in weekly.sections) == 30, "the headings cover every paper once"
    assert {i.paper.id for i in weekly.items} == {i.paper.id for i in daily.items}, "the same picks, grouped"
    assert digest_from_json(digest_to_json(weekly)) == weekly
    view = digest_view(weekly)
    groups = view.topic_groups()
    assert [g.heading for g in groups] == [s.heading for s in weekly.sections]
    assert [i.number for g in groups for i in g.items] == list(range(1, 31)), "numbered in the order shown"
    markdown = digest_markdown(view)
    assert f"## {groups[0].heading}" in markdown
    assert digest_to_dict(view)["topics"][0]["heading"] == groups[0].heading


async def test_the_weekly_tree_on_discord_is_one_embed_per_topic_within_every_limit(
    fake: DiscordFake,
    core: Core,
    store_day: StoreDay,
) -> None:
    papers = await store_day(core)
    digest = as_tree(discord_hostile_digest(papers, fake))
    target = Target(platform="discord", chat_id=str(fake.channel_id), profile_name="group")
    bot = new_bot(core)
    async with running(bot, fake):
        await post_all(bot.poster, target, digest)
    no_refusals(fake)  # the fake refuses what Discord refuses: embed, message and component limits
    messages = list(fake.channel_messages(fake.channel_id))
    for thread in fake.threads_of(fake.channel_id):
        messages += fake.channel_messages(int(thread["id"]))
    embeds = [e for m in messages for e in m["embeds"]]
    topics = [e for e in embeds[1:] if "(continued)" not in e["title"]]
    assert len(topics) == 4, [e["title"] for e in embeds]
    text = "\n".join(e["description"] for e in embeds[1:])
    assert all(f"**{n}.**" in text for n in range(1, 61)), "every paper once, by its number"
    assert "Sub 0a" in text and "Sub 1b" in text
    for embed in embeds:
        shown = embed["title"] + embed.get("description", "")
        assert "@everyone" not in shown.replace("\\@everyone", "") and "[x](javascript" not in shown


async def test_the_weekly_tree_on_telegram_splits_at_topic_boundaries_within_4096(
    core: Core, settings: Settings, fake_telegram: FakeTelegram
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
    digest = as_tree(telegram_hostile_digest(60))
    target = Target("telegram", str(GROUP), digest.profile_name, id=1)
    async with telegram_bot(core, tg_settings) as bot:
        await post_all(bot.poster, target, digest)
    sent = fake_telegram.sent(GROUP)
    assert [c.status for c in fake_telegram.calls("sendMessage")] == [200] * len(sent)
    assert all(len(m.text) <= 4096 and m.html is not None for m in sent)
    bodies = [m.text for m in sent[1:]]
    assert all(b.startswith("■ ") for b in bodies), "every message after the first opens a topic"
    shown = "\n".join(m.text for m in sent)
    assert shown.count("■ ") >= 4 and "▸ Sub 0a & <i>" in shown
    assert not [e for m in sent for e in m.entities if e["type"] == "mention"]


@pytest.mark.parametrize("sections", [True, False])
async def test_the_weekly_tree_on_the_console_prints_headings_then_papers(sections: bool) -> None:
    digest = telegram_hostile_digest(60)
    digest = as_tree(digest) if sections else digest
    out = io.StringIO()
    await post_all(ConsolePoster(out), Target("console", "me", "me"), digest)
    printed = out.getvalue()
    assert ("TOPIC 2" in printed and "-- Sub 0a & <i> --" in printed) == sections
    assert all(f"{n:2}. " in printed for n in range(1, 61))
