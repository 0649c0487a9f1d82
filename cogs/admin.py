"""The bot owner's command: syncing the slash commands on demand (``@paperscout sync``, then /sync), never at every
start. Every other slash command, /setup's form included, is made from the command table
(`bot.frontends.discord.commands`); Manage Server is checked when a command runs (by the controller, from the
member's permissions in the interaction), not only through the commands' default permissions, which a server can
override.
"""

from __future__ import annotations

import time
from typing import Literal

import discord
from discord.ext import commands

from bot.chat.messages import Place
from bot.chat.turns import log_turn
from bot.frontends.discord.app import PaperscoutBot, place_of


class Admin(commands.Cog):
    """Command syncing."""

    def __init__(self, bot: PaperscoutBot) -> None:
        self.bot = bot

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
