"""Buttons that teach the ranker: a press trains only the member who pressed it (/up, /down and /reactions come
from the command table, `bot.frontends.discord.commands`).

The persistent `PaperButton` is registered here, while the bot's `setup_hook` loads this cog, so a thumbs-up on a
month-old digest still reaches the controller after any number of restarts.
"""

from __future__ import annotations

import discord
from discord.ext import commands

from bot.chat.messages import Incoming
from bot.frontends.discord.app import PaperscoutBot, place_of, problem, speaker_of
from bot.frontends.discord.send import PaperButton


class Feedback(commands.Cog):
    """Paper buttons (thumbs up/down, more like this, undo, choices)."""

    def __init__(self, bot: PaperscoutBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_paperscout_button(self, interaction: discord.Interaction, value: str) -> None:
        """A press: acknowledge at once, then the controller's replies, only for the presser outside DMs."""
        place = place_of(interaction.channel, interaction.user)
        try:
            await self.bot.respond(interaction, Incoming(speaker_of(interaction), place, button=value), private=True)
        except Exception as exc:  # a press has no command tree to report through
            await self.bot.tell(interaction, problem(exc, "button"))


async def setup(bot: PaperscoutBot) -> None:
    """Register the persistent buttons and the cog."""
    bot.add_dynamic_items(PaperButton)
    await bot.add_cog(Feedback(bot))
