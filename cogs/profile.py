"""A member's own things, set up in DMs: /interests (or any DM) starts or resumes onboarding, in a DM even when run
in a channel; a member who closed their DMs gets an ephemeral note there. /profile, /mydigest, /export and /forget
come from the command table (`bot.frontends.discord.commands`)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.chat.messages import Incoming
from bot.frontends.discord.app import PaperscoutBot, place_of, speaker_of
from bot.frontends.discord.commands import description


class Profile(commands.Cog):
    """Onboarding in DMs and the member's profile commands."""

    def __init__(self, bot: PaperscoutBot) -> None:
        self.bot = bot

    @app_commands.command(name="interests", description=description("start"))
    async def interests(self, interaction: discord.Interaction) -> None:
        if interaction.guild is None:
            await self.bot.run_command(interaction, "interests")
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        dm = await interaction.user.create_dm()
        place = place_of(dm, interaction.user)
        replies = await self.bot.controller.handle(Incoming(speaker_of(interaction), place, command="interests"))
        if not await self.bot.poster.reply(place, replies):  # closed DMs (50007), as a rule
            await self.bot.tell(
                interaction,
                "I can't send you a DM: your DMs are closed for this server. Allow direct messages from server "
                "members (Privacy Settings), then run /interests again.",
            )
            return
        await self.bot.tell(interaction, "I sent you a DM: your profile takes about two minutes.")

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Any DM is the conversation: onboarding answers, typed commands, or questions."""
        if message.guild is not None or message.author.bot or not isinstance(message.channel, discord.DMChannel):
            return
        await self.bot.hear(message, message.content)


async def setup(bot: PaperscoutBot) -> None:
    """Add the cog."""
    await bot.add_cog(Profile(bot))
