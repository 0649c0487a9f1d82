"""Messages to the bot go to the controller: any DM (onboarding answers, typed commands, questions), and in a channel
a reply to one of the bot's answers (a follow-up, a /setup answer) or a mention. Every slash command but the owner's
/sync comes from the command table (`bot.frontends.discord.commands`); one that works only in a DM, such as
/interests, run in a channel is answered in the member's DM (`bot.chat.driver.ChatDriver.respond`)."""

from __future__ import annotations

import discord
from discord.ext import commands

from bot.frontends.discord.app import PaperscoutBot


class Ask(commands.Cog):
    """DMs, and replies and mentions in channels."""

    def __init__(self, bot: PaperscoutBot) -> None:
        self.bot = bot

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
    await bot.add_cog(Ask(bot))
