"""Channel administration: /setup (options with autocomplete, or step by step; /settings comes from the command
table), and syncing the slash commands on demand (the application owner's ``@paperscout sync``, then /sync), never
at every start.

Manage Server is checked when a command runs (by the controller, from the member's permissions in the interaction),
not only through the commands' default permissions, which a server can override.
"""

from __future__ import annotations

import time
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.chat import completion
from bot.chat import setup as channel_setup
from bot.chat.messages import Place
from bot.chat.turns import log_turn
from bot.frontends.discord.app import PaperscoutBot, interaction_incoming, place_of
from bot.frontends.discord.commands import MAX_CHOICES, choices, slash_command
from bot.models import MAX_DIGEST_SIZE

# /setup's fields that are Discord's own, and the core's options Discord can check as it takes them
OWN_OPTIONS = {
    "channel": "The channel that gets the digest (default: this one)",
    "profile_file": "A TOML channel profile",
}
OWN_KINDS: dict[str, Any] = {
    "profile": app_commands.Range[str, 0, 2000],
    "profile_file": discord.Attachment | None,
    "size": app_commands.Range[int, 1, MAX_DIGEST_SIZE] | None,
}


class Admin(commands.Cog):
    """/setup and command syncing."""

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


async def run_setup(interaction: discord.Interaction, **given: Any) -> None:
    """/setup with the core's options (`bot.chat.setup.OPTIONS`), the channel it is for and a profile file; the
    core's setup says the rest (the hint to answer by replying, the permissions the bot lacks there)."""
    bot: PaperscoutBot = interaction.client  # type: ignore[assignment]
    await interaction.response.defer(thinking=True)
    place = place_of(given.pop("channel", None) or interaction.channel, interaction.user)
    attachment = await bot.read_attachment(given.pop("profile_file", None))
    options = {name: str(value) for name, value in given.items() if value is not None}
    incoming = interaction_incoming(interaction, place, command="setup", options=options, attachment=attachment)
    await bot.respond(interaction, incoming)


async def categories(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """arXiv categories for /setup's categories."""
    return choices(completion.categories(current, MAX_CHOICES))


async def timezones(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Time zones for /setup's timezone."""
    return choices(completion.timezones(current, MAX_CHOICES))


def setup_command() -> app_commands.Command[Any, ..., None]:
    """/setup as a slash command: a field for each of the core's options, admins only, in a server."""
    kinds = {"channel": discord.TextChannel | None, **dict.fromkeys(channel_setup.OPTIONS, str)} | OWN_KINDS
    hints = channel_setup.OPTIONS | OWN_OPTIONS
    fields = {name: (kind, "" if kind is str else None, hints[name]) for name, kind in kinds.items()}
    command = slash_command("setup", run_setup, fields, in_servers=True, admin=True)
    command.autocomplete("categories")(categories)
    command.autocomplete("timezone")(timezones)
    return command


async def setup(bot: PaperscoutBot) -> None:
    """Add the cog and its /setup."""
    await bot.add_cog(Admin(bot))
    bot.tree.add_command(setup_command())
