"""What members say to the bot in messages, in one cog because one listener tells the two apart: the application
owner's ``@paperscout sync`` (the one text command, also /sync once synced: registers the slash commands on demand,
never at every start), and everything else said to the bot, which goes to the driver: any DM (onboarding answers,
typed commands, questions), and in a channel a reply to one of the bot's answers (a follow-up, a /setup answer) or
a mention. Discord only shows the bot such messages' text (no privileged intent).
"""

from __future__ import annotations

from typing import Literal

import discord
from discord.ext import commands

from bot.chat.turns import logged_turn
from bot.frontends.discord.app import SYNC_REFUSED, PaperscoutBot, place_of


class Messages(commands.Cog):
    """The owner's sync; DMs, and replies and mentions in channels."""

    def __init__(self, bot: PaperscoutBot) -> None:
        self.bot = bot

    @commands.hybrid_command(name="sync", description="Register the slash commands with Discord (the bot's owner)")
    async def sync(self, ctx: commands.Context[PaperscoutBot], scope: Literal["global", "here"] = "global") -> None:
        """``@paperscout sync`` or /sync (the owner): register the slash commands, globally or in this server."""
        guild = ctx.guild if scope == "here" else None
        with logged_turn("/sync", place_of(ctx.channel, ctx.author)) as outcome:
            if not await self.bot.is_owner(ctx.author):
                outcome.value = "refused"
                await self.bot.tell_author(ctx, SYNC_REFUSED, owner=False)
                return
            await ctx.defer(ephemeral=True)
            if guild is not None:
                self.bot.tree.copy_global_to(guild=guild)
            count = len(await self.bot.tree.sync(guild=guild))
        await ctx.reply(f"Synced {count} commands{' here' if guild is not None else ''}.", ephemeral=True)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Any DM is the conversation; in a channel, a member's reply to the bot or a mention: a follow-up question,
        an answer to a /setup question, or a question. The owner's sync is the bot's own command processing."""
        if message.author.bot or (await self.bot.get_context(message)).valid:
            return
        if isinstance(message.channel, discord.DMChannel):
            await self.bot.hear(message, message.content)
            return
        me, said = self.bot.user, message.content.strip()
        if message.guild is None or me is None or not said or (not message.reference and me not in message.mentions):
            return
        text = said.replace(f"<@{me.id}>", "").replace(f"<@!{me.id}>", "").strip()
        # a reply pings the replied-to author by default: only a mention written in the text is speaking to us
        await self.bot.hear(message, text, mentioned=text != said)


async def setup(bot: PaperscoutBot) -> None:
    """Add the cog."""
    await bot.add_cog(Messages(bot))
