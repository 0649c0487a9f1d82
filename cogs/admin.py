"""The bot owner's command: syncing the slash commands on demand (``@paperscout sync``, then /sync), never at every
start. Every other slash command, /setup's form included, is made from the command table
(`bot.frontends.discord.commands`); Manage Server is checked when a command runs (by the controller, from the
member's permissions in the interaction), not only through the commands' default permissions, which a server can
override.
"""

from __future__ import annotations

from typing import Literal

from discord.ext import commands

from bot.chat.turns import logged_turn
from bot.frontends.discord.app import PaperscoutBot, place_of


class Admin(commands.Cog):
    """Command syncing."""

    def __init__(self, bot: PaperscoutBot) -> None:
        self.bot = bot

    @commands.hybrid_command(name="sync", description="Register the slash commands with Discord (the bot's owner)")
    async def sync(self, ctx: commands.Context[PaperscoutBot], scope: Literal["global", "here"] = "global") -> None:
        """``@paperscout sync`` or /sync (the owner): register the slash commands, globally or in this server."""
        guild = ctx.guild if scope == "here" else None
        with logged_turn("/sync", place_of(ctx.channel, ctx.author)) as outcome:
            if await self.bot.is_owner(ctx.author):
                await ctx.defer(ephemeral=True)
                if guild is not None:
                    self.bot.tree.copy_global_to(guild=guild)
                count = len(await self.bot.tree.sync(guild=guild))
            else:
                outcome.value = "refused"
        if outcome.value == "refused":
            await ctx.reply("Only the bot's owner syncs its commands; /help lists what you can use.", ephemeral=True)
            return
        await ctx.reply(f"Synced {count} commands{' here' if guild is not None else ''}.", ephemeral=True)


async def setup(bot: PaperscoutBot) -> None:
    """Add the cog."""
    await bot.add_cog(Admin(bot))
