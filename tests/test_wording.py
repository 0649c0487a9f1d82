"""Each platform's own words: the commands a reply names are the ones its members can run there, and a refusal
names who administers a place on that platform; the core itself names no platform."""

from __future__ import annotations

import logging
import re

import pytest

from bot.chat import ChatController, Incoming, Place, Reply, Speaker, TextReply
from bot.core import Core
from bot.errors import SourceUnavailable
from bot.frontend import Expiring, front_end, front_ends, wording

DISCORD_DM = Place("discord", "42", is_dm=True)
DISCORD_CHANNEL = Place("discord", "555", is_dm=False, title="#papers")
TELEGRAM_GROUP = Place("telegram", "-100", is_dm=False, title="Lab")
BOB = Speaker("discord:7", "Bob")
TG_MEMBER = Speaker("telegram:8", "Dana")


def texts(replies: list) -> str:
    return "\n".join(r.text for r in replies if isinstance(r, TextReply))


async def test_discord_replies_name_discords_own_commands(core: Core) -> None:
    ctl = ChatController(core)
    shown = texts(await ctl.handle(Incoming(BOB, DISCORD_DM, command="help")))
    assert "/interests" in shown and "/similar" in shown
    assert not re.search(r"(?<![\w/])/(start|more)\b", shown), shown
    shown = texts(await ctl.handle(Incoming(BOB, DISCORD_CHANNEL, command="profile")))
    assert "/interests makes one" in shown and "/start" not in shown
    admin = Speaker("discord:8", "Cleo", is_admin=True)
    options = {"categories": "cs.LG", "time": "09:00", "timezone": "UTC", "size": "3", "profile": "graphs"}
    await ctl.handle(Incoming(admin, DISCORD_CHANNEL, command="setup", options=options))
    paused = texts(await ctl.handle(Incoming(admin, DISCORD_CHANNEL, command="digest", args="pause")))
    assert "/digest resume" in paused and not re.search(r"(?<![\w/])/resume\b", paused)


async def test_a_telegram_groups_refusal_names_telegrams_admins(core: Core) -> None:
    ctl = ChatController(core)
    refused = texts(await ctl.handle(Incoming(TG_MEMBER, TELEGRAM_GROUP, command="setup")))
    assert "admins" in refused and "Discord" not in refused and "Manage Server" not in refused
    refused = texts(await ctl.handle(Incoming(BOB, DISCORD_CHANNEL, command="setup")))
    assert "Manage Server" in refused


def test_every_front_end_is_registered_and_words_leave_links_alone() -> None:
    platforms = {f.platform for f in front_ends()}
    assert {"console", "discord", "telegram"} <= platforms
    assert front_end("discord").command("more") == "/similar" and front_end("telegram").command("more") == "/more"
    line = "See https://arxiv.org/abs/2505.17639 or /more 3, not /morex; a/start stays."
    assert wording("discord", line) == "See https://arxiv.org/abs/2505.17639 or /similar 3, not /morex; a/start stays."


def test_expiring_keeps_an_answer_for_its_time_and_drops_expired_ones_when_full() -> None:
    now = [100.0]
    kept: Expiring[str, bool] = Expiring(60.0, size=2, clock=lambda: now[0])
    assert kept.get("ada") is None and kept.put("ada", True) is True and kept.get("ada") is True
    now[0] = 159.0
    assert kept.put("bob", False) is False and kept.get("ada") is True
    now[0] = 161.0
    assert kept.get("ada") is None, "asked again after a minute"
    kept.put("cleo", True)
    assert set(kept._entries) == {"bob", "cleo"}, "the expired answer went when the cache was full"


async def test_answer_greets_a_bare_start_in_a_dm_and_never_raises(
    core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    controller = ChatController(core)
    speaker, dm, group = Speaker("telegram:1", "Ada"), Place("telegram", "1"), Place("telegram", "-5", is_dm=False)

    async def greet(speaker: Speaker, place: Place) -> list[TextReply]:
        return [TextReply("welcome back")]

    async def broken(msg: Incoming) -> list[TextReply]:
        raise RuntimeError("a bug")

    controller.greet, controller.handle = greet, broken  # type: ignore[method-assign,assignment]
    assert await controller.answer(Incoming.from_text(speaker, dm, "/start")) == [TextReply("welcome back")]

    def apology(replies: list[Reply]) -> str:
        """The reference an apology names (each failure its own, logged with it)."""
        (failed,) = replies
        assert isinstance(failed, TextReply) and failed.ephemeral and "went wrong on my side (ref " in failed.text
        return failed.text.split("ref ", 1)[1][:6]

    with caplog.at_level(logging.ERROR):
        refs = [
            apology(await controller.answer(Incoming.from_text(speaker, dm, "/start now"))),
            apology(await controller.answer(Incoming.from_text(speaker, group, "/ask x"))),
            apology(await controller.answer(Incoming(speaker, group, button="ps:up:2505.17639"))),
        ]
    assert len(set(refs)) == 3 and all(any(ref in r.getMessage() for r in caplog.records) for ref in refs)
    assert await controller.answer(Incoming(speaker, group, text="chatter")) == [], "chatter gets no apology"


async def test_answer_says_our_own_errors_line_not_an_apology(core: Core) -> None:
    controller = ChatController(core)
    speaker, dm, group = Speaker("telegram:1", "Ada"), Place("telegram", "1"), Place("telegram", "-5", is_dm=False)

    async def unavailable(msg: Incoming) -> list[TextReply]:
        raise SourceUnavailable("arXiv did not answer; the digest will be retried at the next tick.")

    controller.handle = unavailable  # type: ignore[method-assign,assignment]
    (said,) = await controller.answer(Incoming.from_text(speaker, dm, "/digest now"))
    assert isinstance(said, TextReply) and said.ephemeral and said.text.startswith("arXiv did not answer")
    assert await controller.answer(Incoming(speaker, group, text="chatter")) == []
