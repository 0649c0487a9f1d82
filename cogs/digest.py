"""/digest: in a channel, its admins post it now, preview it, pause or resume it; in a DM, the member's own."""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.adapters.discord_app import PaperscoutBot, place_of
from bot.delivery import deliver_digest

NOT_ADMIN = "/digest in a channel is for its admins (Manage Server); in a DM with me, /digest is your own."


class Digest(commands.Cog):
    """The channel's digest on demand, and the member's personal one."""

    def __init__(self, bot: PaperscoutBot) -> None:
        self.bot = bot

    @app_commands.command(name="digest", description="The digest: now, preview, pause or resume here; yours in a DM")
    @app_commands.describe(action="now posts today's channel digest; preview shows it only to you")
    async def digest(
        self,
        interaction: discord.Interaction,
        action: Literal["now", "preview", "pause", "resume", "weekly"] | None = None,
    ) -> None:
        place = place_of(interaction.channel, interaction.user)
        if place.is_dm:
            await interaction.response.defer(thinking=True)
            await self.bot.run_command(interaction, "digest", action or "")
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        if not interaction.permissions.manage_guild:
            await self.bot.tell(interaction, NOT_ADMIN)
            return
        if action == "now":
            await self.post_now(interaction)
            return
        await self.bot.run_command(interaction, "digest", action or "preview", ephemeral=True)

    async def post_now(self, interaction: discord.Interaction) -> None:
        """Post today's digest to this channel through the ledger: the scheduled post then knows it went out."""
        core = self.bot.core
        found = await core.repo.target_at("discord", str(interaction.channel_id))
        if found is None:
            await self.bot.tell(interaction, "This channel has no digest yet; /setup makes one.")
            return
        target, profile = found
        day = await self.bot.controller.today()
        result = await deliver_digest(core, self.bot.poster, target, profile, day)
        notes = {
            "sent": f"Posted the digest of {day.isoformat()} ({result.detail}).",
            "already-sent": f"The digest of {day.isoformat()} was already posted here.",
            "failed": f"The digest could not be posted: {result.detail[:300]}",
        }
        await self.bot.tell(interaction, notes.get(result.status, result.status))


async def setup(bot: PaperscoutBot) -> None:
    """Add the cog."""
    await bot.add_cog(Digest(bot))
