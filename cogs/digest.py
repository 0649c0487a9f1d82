"""/digest: in a channel, its admins post it now, preview it, pause or resume it; in a DM, the member's own."""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.frontends.discord.app import PaperscoutBot, place_of
from bot.frontends.discord.commands import description


class Digest(commands.Cog):
    """The channel's digest on demand, and the member's personal one."""

    def __init__(self, bot: PaperscoutBot) -> None:
        self.bot = bot

    @app_commands.command(name="digest", description=description("digest"))
    @app_commands.describe(action="now posts today's channel digest; preview shows it only to you")
    async def digest(
        self,
        interaction: discord.Interaction,
        action: Literal["now", "preview", "pause", "resume", "weekly"] | None = None,
    ) -> None:
        place = place_of(interaction.channel, interaction.user)
        if place.is_dm:
            await self.bot.run_command(interaction, "digest", action or "")
            return
        # the controller checks Manage Server and posts "now" through the ledger, as on every platform
        await self.bot.run_command(interaction, "digest", action or "preview", ephemeral=True)


async def setup(bot: PaperscoutBot) -> None:
    """Add the cog."""
    await bot.add_cog(Digest(bot))
