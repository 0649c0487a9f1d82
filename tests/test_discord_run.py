"""Discord as the platform of scheduled delivery: digests through the posting ledger under a 429 storm, each
message once and in order, and a second delivery of the same day refused by the ledger."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from bot.core import Core
from bot.digests.delivery import deliver_digest
from bot.models import Profile, Target, Topic
from tests.conftest import StoreDay
from tests.fakes.discord_client import pointed_at, running
from tests.fakes.discord_server import DiscordFake
from tests.test_discord_bot import new_bot

PROFILE = Profile(name="reading group", topics=(Topic("llm", "language models"), Topic("tox", "toxicity")))


def received(fake: DiscordFake, channel: int) -> list[str]:
    """What a channel shows, in order: its messages, then those of the threads under them (as embed JSON)."""
    shown = []
    for message in fake.channel_messages(channel):
        shown.append(json.dumps(message["embeds"], sort_keys=True))
    for thread in fake.threads_of(channel):
        shown += [json.dumps(m["embeds"], sort_keys=True) for m in fake.channel_messages(int(thread["id"]))]
    return shown


async def test_a_429_storm_through_the_ledger_delivers_each_message_once(core: Core, store_day: StoreDay) -> None:
    papers = await store_day(core)
    day = papers[0].announced
    with DiscordFake() as fake, pointed_at(fake):
        channels = [fake.add_channel(f"digest-{n}") for n in range(10)]
        targets: list[Target] = []
        for channel in channels:
            owner = f"discord:{channel}"
            await core.repo.save_profile(owner, PROFILE)
            target = Target("discord", str(channel), PROFILE.name, ("cs.LG", "cs.CL"), "09:00", "UTC", 12)
            await core.repo.save_target(target, owner)
            found = await core.repo.target_at("discord", str(channel))
            assert found is not None
            targets.append(found[0])
        fake.storm(0.2, retry_after=0.1, seed=2)
        bot = new_bot(core)
        async with running(bot, fake):
            results = await asyncio.gather(*(deliver_digest(core, bot.poster, t, PROFILE, day) for t in targets))
            again = [await deliver_digest(core, bot.poster, t, PROFILE, day) for t in targets]
        limited = [r for r in fake.requests_to("send_message") if r.status == 429]
    assert [r.status for r in results] == ["sent"] * 10, [r.detail for r in results]
    assert [r.status for r in again] == ["already-sent"] * 10
    assert limited  # the storm happened
    shown: list[list[Any]] = [received(fake, channel) for channel in channels]
    assert all(len(messages) == len(set(messages)) == 3 for messages in shown)  # header + thread of two, once
    headers = [json.loads(messages[0])[0]["title"] for messages in shown]
    assert all("reading group" in title for title in headers)
