"""What members say to the bot in messages, in one cog because one listener tells the two apart: the application
owner's ``@paperscout sync`` (the one text command, also /sync once synced: registers the slash commands on demand,
never at every start), and everything else said to the bot, which goes to the controller: any DM (onboarding
answers, typed commands, questions), and in a channel a reply to one of the bot's answers (a follow-up, a /setup
answer) or a mention.

Every other slash command, /setup's form included, is made from the command table
(`bot.frontends.discord.commands`); one that works only in a DM, such as /interests, run in a channel is answered in
the member's DM (`bot.chat.driver.ChatDriver.respond`). Manage Server is checked when a command runs (by the
controller, from the member's permissions in the interaction), not only through the commands' default permissions,
which a server can override.
"""

from __future__ import annotations

from typing import Literal

import discord
from discord.ext import commands

from bot.chat.turns import logged_turn
from bot.frontends.discord.app import PaperscoutBot, place_of


class Messages(commands.Cog):
    """The owner's sync; DMs, and replies and mentions in channels."""

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

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """In a channel, a member's reply to the bot or a mention goes to the controller: a follow-up question, an
        answer to a /setup question, or a question. Discord only shows the bot such messages' text (no privileged
        intent). Any DM is the conversation."""
        if message.author.bot:
            return
        if isinstance(message.channel, discord.DMChannel):
            await self.bot.hear(message, message.content)
            return
        if message.guild is None or not message.content.strip():
            return
        context = await self.bot.get_context(message)
        if context.valid:  # the owner's "@paperscout sync"
            return
        me = self.bot.user
        reply_to = message.reference.message_id if message.reference else None
        if me is None or (reply_to is None and me not in message.mentions):
            return
        text = message.content.replace(f"<@{me.id}>", "").replace(f"<@!{me.id}>", "").strip()
        # a reply pings the replied-to author by default: only a mention written in the text is speaking to us
        written = text != message.content.strip()
        await self.bot.hear(message, text, mentioned=written)


async def setup(bot: PaperscoutBot) -> None:
    """Add the cog."""
    await bot.add_cog(Messages(bot))
