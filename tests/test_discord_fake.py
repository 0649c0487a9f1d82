"""The Discord fake, driven by the real discord.py client: login, gateway, slash commands, buttons, limits, 429s."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakes.discord_client import pointed_at, running
from tests.fakes.discord_server import DiscordFake, Fault, check_message


class Vote(discord.ui.DynamicItem[discord.ui.Button], template=r"t:up:(?P<paper>[0-9.]+)"):
    """A persistent button whose custom_id carries the paper id."""

    def __init__(self, paper: str) -> None:
        super().__init__(discord.ui.Button(label="👍", custom_id=f"t:up:{paper}"))
        self.paper = paper

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item, match: Any) -> Vote:
        return cls(match["paper"])

    async def callback(self, interaction: discord.Interaction) -> None:
        interaction.client.votes.append((interaction.user.id, self.paper))  # type: ignore[attr-defined]
        await interaction.response.send_message(f"noted {self.paper}", ephemeral=True)


class Probe(commands.Bot):
    """A minimal bot: one slash command, one persistent button, nothing pings."""

    def __init__(self, *, guild_messages: bool = False) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        intents.dm_messages = True
        intents.guild_messages = guild_messages
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            allowed_mentions=discord.AllowedMentions.none(),
            guild_ready_timeout=0.05,
        )
        self.votes: list[tuple[int, str]] = []
        self.dms: list[str] = []

        @self.tree.command(name="echo", description="Say it back")
        async def echo(interaction: discord.Interaction, text: str) -> None:
            await interaction.response.send_message(text)

        @self.tree.command(name="slow", description="Deferred answer")
        async def slow(interaction: discord.Interaction, text: str) -> None:
            await interaction.response.defer(thinking=True)
            await interaction.followup.send(f"later: {text}")

        @self.tree.command(name="pick", description="Autocompleted")
        async def pick(interaction: discord.Interaction, paper: str) -> None:
            await interaction.response.send_message(paper, ephemeral=True)

        @pick.autocomplete("paper")
        async def pick_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
            return [app_commands.Choice(name=p, value=p) for p in ("2505.17639", "2505.00001") if p.startswith(current)]

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Vote)

    async def on_message(self, message: discord.Message) -> None:
        if message.guild is None and message.author != self.user:
            self.dms.append(message.content)


@pytest.fixture
def fake():
    with DiscordFake() as server, pointed_at(server):
        yield server


async def test_login_gateway_ready_and_guild(fake: DiscordFake) -> None:
    bot = Probe()
    async with running(bot, fake):
        guild = bot.get_guild(fake.guild_id)
        assert guild is not None and guild.name == "Reading group"
        assert guild.get_channel(fake.channel_id).name == "papers"
        assert bot.user.id == fake.bot_id
        assert bot.application_id == fake.application_id
    identify = fake.identifies[0]
    assert identify["intents"] == bot.intents.value
    assert "token" not in identify
    assert all(r.authorized for r in fake.requests_to("login"))


async def test_wrong_token_is_refused(fake: DiscordFake) -> None:
    bot = Probe()
    with pytest.raises(discord.LoginFailure):
        await bot.login("not-the-token")
    await bot.close()


async def test_slash_command_sync_and_invoke(fake: DiscordFake) -> None:
    bot = Probe()
    async with running(bot, fake):
        synced = await bot.tree.sync()
        assert {c.name for c in synced} == {"echo", "slow", "pick"}
        sent = fake.slash("echo", {"text": f"hello @everyone <@&{fake.admin_role_id}>"})
        state = await fake.wait_for_response(sent)
        assert state.response_type == 4
        (message,) = fake.response_messages(sent)
        assert message["content"].startswith("hello")
        # AllowedMentions.none() on the client: the role and @everyone are not resolved.
        assert not message["mention_everyone"] and message["mention_roles"] == []
        assert fake.requests_to("callback")[0].mentions_suppressed
        assert fake.pinging_messages() == []
        with pytest.raises(ValueError, match="not registered"):
            fake.slash("nope")


async def test_deferred_command_and_followup(fake: DiscordFake) -> None:
    bot = Probe()
    async with running(bot, fake):
        sent = fake.slash("slow", {"text": "x"})
        (followup,) = await fake.wait_for_followups(sent)
        assert fake.interaction(sent).response_type == 5
        assert followup["content"] == "later: x"


async def test_autocomplete_answers_choices(fake: DiscordFake) -> None:
    bot = Probe()
    async with running(bot, fake):
        sent = fake.autocomplete("pick", {"paper": "2505.1"}, focused="paper")
        state = await fake.wait_for_response(sent)
        assert state.responses[0] == {"type": 8, "data": {"choices": [{"name": "2505.17639", "value": "2505.17639"}]}}


async def test_dynamic_button_pressed_after_restart(fake: DiscordFake) -> None:
    first = Probe()
    async with running(first, fake):
        view = discord.ui.View(timeout=None)
        view.add_item(Vote("2505.17639"))
        posted = await first.get_channel(fake.channel_id).send("a paper", view=view)
    await fake.wait_for(lambda: fake.connected == 0)
    second = Probe()  # a new process: nothing in memory about the message
    async with running(second, fake):
        sent = fake.press(posted.id, "t:up:2505.17639", user=fake.member_id)
        await fake.wait_for_response(sent)
        assert second.votes == [(fake.member_id, "2505.17639")]
        (reply,) = fake.response_messages(sent)
        assert reply["flags"] & 64 and reply["content"] == "noted 2505.17639"
    with pytest.raises(ValueError, match="no button"):
        fake.press(posted.id, "t:up:0000.00000")


async def test_second_answer_to_an_interaction_is_40060(fake: DiscordFake) -> None:
    bot = Probe()
    answers: list[Exception | None] = []

    @bot.tree.command(name="twice", description="Answers twice")
    async def twice(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("one")
        interaction.response._response_type = None  # forget it, as a second process would
        try:
            await interaction.response.send_message("two")
            answers.append(None)
        except discord.HTTPException as exc:
            answers.append(exc)

    async with running(bot, fake):
        fake.slash("twice")
        await fake.wait_for(lambda: answers)
    assert isinstance(answers[0], discord.HTTPException) and answers[0].code == 40060


async def test_late_answer_is_unknown_interaction(fake: DiscordFake) -> None:
    bot = Probe()
    errors: list[discord.HTTPException] = []

    @bot.tree.command(name="late", description="Too slow")
    async def late(interaction: discord.Interaction) -> None:
        await asyncio.sleep(0.2)
        try:
            await interaction.response.send_message("finally")
        except discord.NotFound as exc:
            errors.append(exc)

    fake.interaction_deadline = 0.1
    async with running(bot, fake):
        fake.slash("late")
        await fake.wait_for(lambda: errors)
    assert errors[0].code == 10062


async def test_message_limits_rejected_with_discord_shape(fake: DiscordFake) -> None:
    bot = Probe()
    async with running(bot, fake):
        channel = bot.get_channel(fake.channel_id)
        with pytest.raises(discord.HTTPException) as too_long:
            await channel.send("x" * 2001)
        assert too_long.value.code == 50035 and too_long.value.status == 400
        assert "content" in too_long.value.text
        embed = discord.Embed(title="t" * 257, description="d" * 10)
        with pytest.raises(discord.HTTPException) as bad_title:
            await channel.send(embed=embed)
        assert bad_title.value.code == 50035
        big = [discord.Embed(description="d" * 4000) for _ in range(2)]
        with pytest.raises(discord.HTTPException, match="6000"):
            await channel.send(embeds=big)
        ok = await channel.send("x" * 2000, embed=discord.Embed(title="t" * 256, description="d" * 4096))
        assert ok.id in fake.messages
        body = fake.requests_to("send_message")[0].response
        assert body["errors"]["content"]["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"


@pytest.mark.parametrize(
    ("payload", "what"),
    [
        ({"embeds": [{"title": "a"}] * 11}, "embeds"),
        ({"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]}, "fields"),
        ({"embeds": [{"fields": [{"name": "n" * 257, "value": "v"}]}]}, "name"),
        ({"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]}, "value"),
        ({"embeds": [{"fields": [{"name": "n", "value": ""}]}]}, "value"),
        ({"embeds": [{"footer": {"text": "f" * 2049}}]}, "footer"),
        ({"embeds": [{"description": "d" * 4097}]}, "description"),
        ({"embeds": [{"title": "x", "url": "javascript:alert(1)"}]}, "url"),
        ({"components": [{"type": 1, "components": [{"type": 2, "style": 1, "custom_id": ""}]}]}, "custom_id"),
        ({"components": [{"type": 1, "components": [{"type": 2, "style": 1, "custom_id": "c" * 101}]}]}, "custom_id"),
        (
            {
                "components": [
                    {"type": 1, "components": [{"type": 2, "style": 1, "custom_id": f"b{i}"} for i in range(6)]}
                ]
            },
            "components",
        ),
        (
            {
                "components": [
                    {"type": 1, "components": [{"type": 2, "style": 1, "custom_id": f"r{i}"}]} for i in range(6)
                ]
            },
            "components",
        ),
        (
            {"components": [{"type": 1, "components": [{"type": 2, "style": 1, "custom_id": "same"}] * 2}]},
            "custom_id",
        ),
    ],
)
def test_check_message_rejects_what_discord_rejects(payload: dict[str, Any], what: str) -> None:
    from tests.fakes.discord_server import DiscordError

    with pytest.raises(DiscordError) as rejected:
        check_message({"content": "x", **payload})
    assert rejected.value.status == 400 and rejected.value.body["code"] == 50035
    assert what in str(rejected.value.body["errors"])


def test_empty_message_is_50006() -> None:
    from tests.fakes.discord_server import DiscordError

    with pytest.raises(DiscordError) as rejected:
        check_message({"content": ""})
    assert rejected.value.body["code"] == 50006


async def test_rate_limit_is_retried_after_retry_after(fake: DiscordFake, caplog: pytest.LogCaptureFixture) -> None:
    bot = Probe()
    async with running(bot, fake):
        fake.enqueue(Fault.rate_limit(0.3, endpoint="send_message"))
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="discord.http"):
            message = await bot.get_channel(fake.channel_id).send("after the wait")
        assert time.monotonic() - started >= 0.3
        assert message.content == "after the wait"
        statuses = [r.status for r in fake.requests_to("send_message")]
        assert statuses == [429, 200]
        assert fake.invalid_requests == 1


async def test_global_rate_limit_blocks_every_route(fake: DiscordFake) -> None:
    bot = Probe()
    async with running(bot, fake):
        fake.enqueue(Fault.rate_limit(0.2, endpoint="send_message", is_global=True))
        channel = bot.get_channel(fake.channel_id)
        await asyncio.gather(channel.send("one"), bot.get_channel(fake.other_channel_id).send("two"))
        assert [r.status for r in fake.requests_to("send_message")].count(429) == 1
        assert len(fake.channel_messages(fake.channel_id)) == 1


async def test_cloudflare_429_is_not_retried(fake: DiscordFake) -> None:
    bot = Probe()
    async with running(bot, fake):
        fake.enqueue(Fault.cloudflare_ban(endpoint="send_message"))
        with pytest.raises(discord.HTTPException) as banned:
            await bot.get_channel(fake.channel_id).send("no")
        assert banned.value.status == 429
        assert len(fake.requests_to("send_message")) == 1


async def test_server_limit_per_second_answers_global_429(fake: DiscordFake) -> None:
    fake.global_rate_limit = 5
    bot = Probe()
    async with running(bot, fake):
        channel = bot.get_channel(fake.channel_id)
        await asyncio.gather(*(channel.send(f"m{i}") for i in range(8)))
    assert len(fake.channel_messages(fake.channel_id)) == 8
    assert any(r.status == 429 for r in fake.requests_to("send_message"))


async def test_dm_closed_is_50007_and_dm_in_reaches_the_bot(fake: DiscordFake) -> None:
    bot = Probe()
    async with running(bot, fake):
        user = await bot.fetch_user(fake.member_id)
        await user.send("welcome")
        assert fake.channel_messages(fake.dm_channel_of(fake.member_id))[0]["content"] == "welcome"
        fake.close_dms(fake.member_id)
        with pytest.raises(discord.Forbidden) as closed:
            await user.send("again")
        assert closed.value.code == 50007
        fake.dm(fake.owner_id, "hi bot")
        await fake.wait_for(lambda: bot.dms)
        assert bot.dms == ["hi bot"]


async def test_guild_message_content_needs_the_privileged_intent(fake: DiscordFake) -> None:
    seen: list[str] = []
    bot = Probe(guild_messages=True)  # but not message_content

    async def on_message(message: discord.Message) -> None:
        if message.author.id != fake.bot_id:
            seen.append(message.content)

    bot.on_message = on_message  # type: ignore[method-assign]
    async with running(bot, fake):
        fake.say(fake.channel_id, "secret words")
        fake.say(fake.channel_id, f"<@{fake.bot_id}> hello")
        await fake.wait_for(lambda: len(seen) == 2)
    assert seen == ["", f"<@{fake.bot_id}> hello"]


async def test_thread_from_message_and_attachment_roundtrip(fake: DiscordFake) -> None:
    bot = Probe()
    async with running(bot, fake):
        channel = bot.get_channel(fake.channel_id)
        header = await channel.send("header")
        thread = await header.create_thread(name="more papers")
        assert thread.id == header.id and thread.parent_id == fake.channel_id
        await thread.send("overflow", file=discord.File(__file__, filename="a.py"))
        (in_thread,) = fake.channel_messages(thread.id)
        assert in_thread["attachments"][0]["filename"] == "a.py"
        attachment = fake.add_attachment("profile.toml", b'name = "x"\n')
        data = await discord.Attachment(data=attachment, state=bot._connection).read()
        assert data == b'name = "x"\n'
        with pytest.raises(discord.HTTPException) as twice:
            await header.create_thread(name="again")
        assert twice.value.code == 160004
        fake.lock_thread(thread.id)
        with pytest.raises(discord.HTTPException) as locked:
            await thread.send("after the lock")
        assert (locked.value.status, locked.value.code) == (400, 50083)
        assert len(fake.channel_messages(thread.id)) == 1


async def test_member_permissions_come_with_the_interaction(fake: DiscordFake) -> None:
    bot = Probe()
    seen: dict[int, bool] = {}

    @bot.tree.command(name="whoami", description="Permissions")
    async def whoami(interaction: discord.Interaction) -> None:
        seen[interaction.user.id] = interaction.permissions.manage_guild
        await interaction.response.send_message("ok", ephemeral=True)

    admin = 900000000000000099
    fake.add_member(admin, "margaret", roles=[fake.admin_role_id])
    async with running(bot, fake):
        for user in (fake.member_id, admin):
            await fake.wait_for_response(fake.slash("whoami", user=user))
    assert seen == {fake.member_id: False, admin: True}


async def test_reconnect_after_gateway_drop_resumes(fake: DiscordFake) -> None:
    bot = Probe()
    async with running(bot, fake):
        fake.disconnect_gateway(4000)
        await fake.wait_for(lambda: fake.connected == 1, within=10)
        sent = fake.slash("echo", {"text": "still here"})
        await fake.wait_for_response(sent)


async def test_mentions_resolve_when_the_client_allows_them(fake: DiscordFake) -> None:
    bot = Probe()
    async with running(bot, fake):
        channel = bot.get_channel(fake.channel_id)
        await channel.send(f"@everyone <@{fake.member_id}>", allowed_mentions=discord.AllowedMentions.all())
    (pinging,) = fake.pinging_messages()
    assert pinging["mention_everyone"] and pinging["mentions"][0]["id"] == str(fake.member_id)
    assert not fake.requests_to("send_message")[0].mentions_suppressed


async def test_a_nonce_sent_twice_returns_the_first_message(fake: DiscordFake) -> None:
    bot = Probe()
    async with running(bot, fake):
        channel = bot.get_channel(fake.channel_id)
        first = await channel.send("once", nonce="digest-1-0")
        second = await channel.send("once", nonce="digest-1-0")
        assert first.id == second.id and len(fake.channel_messages(fake.channel_id)) == 1
        with pytest.raises(discord.HTTPException) as too_long:
            await channel.send("x", nonce="n" * 26)
        assert too_long.value.code == 50035
