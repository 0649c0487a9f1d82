"""Channel administration: /setup (options with autocomplete, or step by step; /settings comes from the command
table), and syncing the slash commands on demand (the application owner's ``@paperscout sync``, then /sync), never
at every start.

Manage Server is checked when a command runs (by the controller, from the member's permissions in the interaction),
not only through the commands' default permissions, which a server can override.
"""

from __future__ import annotations

import time
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.chat import completion
from bot.chat import setup as channel_setup
from bot.chat.messages import Place
from bot.chat.turns import log_turn
from bot.frontends.discord.app import PaperscoutBot, place_of, speaker_of
from bot.frontends.discord.commands import MAX_CHOICES, choices, description
from bot.frontends.discord.poster import missing_permissions
from bot.models import MAX_DIGEST_SIZE

REPLY_HINT = "(Answer by replying to this message; /setup with options sets everything at once.)"


class Admin(commands.Cog):
    """/setup and command syncing."""

    def __init__(self, bot: PaperscoutBot) -> None:
        self.bot = bot

    @app_commands.command(name="setup", description=description("setup"))
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    @app_commands.describe(
        channel="The channel that gets the digest (default: this one)",
        categories="arXiv categories, e.g. cs.LG, cs.CL",
        schedule="daily, or weekly with a day (the week's best grouped by topic), e.g. weekly Friday",
        time="Post time, e.g. 09:00",
        timezone="Time zone, e.g. Europe/Berlin",
        profile="What the channel reads about, in words (or attach a TOML profile)",
        profile_file="A TOML channel profile",
        size="Papers per digest",
    )
    async def setup(
        self,
        interaction: discord.Interaction,
        channel: discord.TextChannel | None = None,
        categories: str = "",
        schedule: str = "",
        time: str = "",
        timezone: str = "",
        profile: app_commands.Range[str, 0, 2000] = "",
        profile_file: discord.Attachment | None = None,
        size: app_commands.Range[int, 1, MAX_DIGEST_SIZE] | None = None,
    ) -> None:
        await interaction.response.defer(thinking=True)
        where = channel or interaction.channel
        place = place_of(where, interaction.user)
        options = {
            "categories": categories,
            "schedule": schedule,
            "time": time,
            "timezone": timezone,
            "profile": profile,
        }
        if size is not None:
            options["size"] = str(size)
        attachment = await self.bot.read_attachment(profile_file)
        replies = await self.bot.run_command(interaction, "setup", place=place, options=options, attachment=attachment)
        speaker = speaker_of(interaction)
        if speaker.is_admin and await channel_setup.load(self.bot.core, speaker.user_key, place) is not None:
            await self.bot.tell(interaction, REPLY_HINT)
        missing = missing_permissions(where)
        if speaker.is_admin and replies and missing:
            await self.bot.tell(interaction, f"I can't post there yet: give paperscout {', '.join(missing)} there.")

    @setup.autocomplete("categories")
    async def _categories(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return choices(completion.categories(current, MAX_CHOICES))

    @setup.autocomplete("timezone")
    async def _timezones(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return choices(completion.timezones(current, MAX_CHOICES))

    @commands.hybrid_command(name="sync", description="Register the slash commands with Discord (the bot's owner)")
    async def sync(self, ctx: commands.Context[PaperscoutBot], scope: Literal["global", "here"] = "global") -> None:
        """``@paperscout sync`` or /sync (the owner): register the slash commands, globally or in this server."""
        place = place_of(ctx.channel, ctx.author)
        if not await self.bot.is_owner(ctx.author):
            log_turn("/sync", place, "refused", time.monotonic())
            await ctx.reply("Only the bot's owner syncs its commands; /help lists what you can use.", ephemeral=True)
            return
        await ctx.defer(ephemeral=True)
        count = await self._sync(place, ctx.guild if scope == "here" else None)
        await ctx.reply(f"Synced {count} commands{' here' if scope == 'here' else ''}.", ephemeral=True)

    async def _sync(self, place: Place, guild: discord.abc.Snowflake | None) -> int:
        started, outcome = time.monotonic(), "error"
        try:
            if guild is not None:
                self.bot.tree.copy_global_to(guild=guild)
            count = len(await self.bot.tree.sync(guild=guild))
            outcome = "ok"
            return count
        finally:
            log_turn("/sync", place, outcome, started)


async def setup(bot: PaperscoutBot) -> None:
    """Add the cog."""
    await bot.add_cog(Admin(bot))
