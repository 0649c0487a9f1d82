"""Questions and lookups: /ask (deferred, answered with citations, a follow-up by replying), /search, /paper,
/why, /similar, with autocomplete for arXiv ids and a per-member cool-down on /ask; /help."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.chat.messages import Incoming
from bot.frontends.discord.app import PaperscoutBot, place_of, speaker_of_message


def ask_cooldown(interaction: discord.Interaction) -> app_commands.Cooldown | None:
    """One /ask per member per ``PAPERSCOUT_ASK_COOLDOWN_SECONDS`` (none when 0), refused before the answer is
    deferred; the core applies the same pause to every other way of asking."""
    seconds = interaction.client.settings.ask_cooldown_seconds  # type: ignore[attr-defined]
    return app_commands.Cooldown(1, seconds) if seconds > 0 else None


class Ask(commands.Cog):
    """Answers from the stored papers."""

    def __init__(self, bot: PaperscoutBot) -> None:
        self.bot = bot

    @app_commands.command(name="ask", description="Ask about stored papers; the answer cites them")
    @app_commands.describe(question="e.g. what MoE papers this week? (reply to the answer for a follow-up)")
    @app_commands.checks.dynamic_cooldown(ask_cooldown, key=lambda interaction: interaction.user.id)
    async def ask(self, interaction: discord.Interaction, question: app_commands.Range[str, 1, 2000]) -> None:
        await interaction.response.defer(thinking=True)
        await self.bot.run_command(interaction, "ask", question)

    @app_commands.command(name="help", description="What paperscout can do here")
    async def help(self, interaction: discord.Interaction) -> None:
        await self.bot.run_command(interaction, "help", ephemeral=True)

    @app_commands.command(name="search", description="Stored papers matching words")
    @app_commands.describe(words="e.g. sparse attention")
    async def search(self, interaction: discord.Interaction, words: app_commands.Range[str, 1, 300]) -> None:
        await interaction.response.defer(thinking=True)
        await self.bot.run_command(interaction, "search", words)

    @app_commands.command(name="paper", description="One paper: title, authors, TL;DR, link")
    @app_commands.describe(paper="arXiv id (type digits or title words)")
    async def paper(self, interaction: discord.Interaction, paper: str) -> None:
        await interaction.response.defer(thinking=True)
        await self.bot.run_command(interaction, "paper", paper)

    @app_commands.command(name="why", description="Why a paper ranks where it does for your profile")
    @app_commands.describe(paper="arXiv id (type digits or title words)")
    async def why(self, interaction: discord.Interaction, paper: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self.bot.run_command(interaction, "why", paper, ephemeral=True)

    @app_commands.command(name="similar", description="Stored papers like one paper")
    @app_commands.describe(paper="arXiv id (type digits or title words)")
    async def similar(self, interaction: discord.Interaction, paper: str) -> None:
        await interaction.response.defer(thinking=True)
        await self.bot.run_command(interaction, "more", paper)

    @paper.autocomplete("paper")
    @why.autocomplete("paper")
    @similar.autocomplete("paper")
    async def _paper_choices(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await self.bot.paper_choices(current)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """In a channel, a member's reply to the bot or a mention goes to the controller: a follow-up question, an
        answer to a /setup question, or a question. Discord only shows the bot such messages' text (no privileged
        intent)."""
        if message.guild is None or message.author.bot or not message.content.strip():
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
        place = place_of(message.channel, message.author)
        try:
            attachment = await self.bot.read_attachment(message)
            incoming = Incoming(
                speaker_of_message(message),
                place,
                text=text,
                reply_to=str(reply_to or ""),
                attachment=attachment,
                mentioned=written,
            )
            replies = await self.bot.controller.handle(incoming)
            if replies:
                await self.bot.post(message.channel, place, replies, reply_to=message)
        except Exception as exc:
            await self.bot.report_in_channel(message, exc)


async def setup(bot: PaperscoutBot) -> None:
    """Add the cog."""
    await bot.add_cog(Ask(bot))
