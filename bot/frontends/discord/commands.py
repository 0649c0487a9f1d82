"""Discord's slash commands made from the core's command table (`bot.chat.commands.COMMANDS`), so a command's
name, help and options are written once: its name as Discord members run it (`FRONT_END.names`), the table's help
line as its description, its options the table's named fields (`Command.fields`: a paper, a question, words, a
schedule, a field, the words its argument begins with as an ``action`` choice, /setup's form), each with its type,
bounds and completion. Where it works and who may run it follow the table too (a channel command is guild-only, an
admin's needs Manage Server by default). Only /sync, the bot owner's, is written in its cog.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any, Literal

import discord
from discord import app_commands

from bot.chat.commands import COMMANDS, Argument, Command
from bot.frontend import front_end
from bot.views.layout import clip

DESCRIPTION_MAX = 100
MAX_CHOICES = 25  # autocomplete: at most 25 choices, each named and valued in 1-100 characters
CHOICE_MAX = 100
PUBLIC = frozenset({"ask", "search", "paper", "more", "setup"})  # answered in the channel; the rest to the member
KINDS: dict[str, Any] = {"text": str, "number": int, "channel": discord.TextChannel, "file": discord.Attachment}


def slash_name(name: str) -> str:
    """The slash command core command `name` is on Discord ('' when it has none of its own: '/digest pause')."""
    run = front_end("discord").command(name)
    return run[1:] if run.startswith("/") and " " not in run else ""


def completer(kind: str) -> Callable[..., Any]:
    """Autocomplete for a field the core completes as `kind` (`bot.chat.completion`): its completions as choices."""

    async def complete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = await interaction.client.completer(kind, current, MAX_CHOICES)  # type: ignore[attr-defined]
        return [app_commands.Choice(name=clip(label, CHOICE_MAX), value=value[:CHOICE_MAX]) for label, value in found]

    return complete


def annotation(field: Argument) -> Any:
    """A field's type as discord.py reads it: one of its words, its kind within its bounds, or its kind."""
    if field.choices:
        return Literal[field.choices]
    if field.longest:
        return app_commands.Range[KINDS[field.kind], field.shortest, field.longest]
    return KINDS[field.kind]


def table_command(name: str, command: Command) -> app_commands.Command[Any, ..., None]:
    """Core command `name` as a Discord slash command (see the module docstring)."""
    public, run_as, form, fields = name in PUBLIC, slash_name(name), bool(command.form), command.fields

    async def run(interaction: discord.Interaction, **given: Any) -> None:
        client: Any = interaction.client  # the `PaperscoutBot`
        # in a DM only the member sees it anyway: a reply is kept, not ephemeral (the driver's rule)
        await client.run_command(interaction, run_as, given, form=form, private=not public)

    parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_ONLY, annotation=discord.Interaction)]
    for field in fields:
        default = inspect.Parameter.empty if field.required else None
        parameters.append(
            inspect.Parameter(field.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation(field))
        )
    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    app_commands.describe(**{field.name: clip(field.hint, DESCRIPTION_MAX) for field in fields})(run)
    if command.where == "channel":
        app_commands.guild_only()(run)
    if command.admin:
        app_commands.default_permissions(manage_guild=True)(run)
    described = clip(command.help[:1].upper() + command.help[1:], DESCRIPTION_MAX)  # a help line, capitalised
    slash = app_commands.Command(name=run_as, description=described, callback=run)
    for field in fields:
        if field.completion:
            slash.autocomplete(field.name)(completer(field.completion))
    return slash


def table_commands() -> Iterator[app_commands.Command[Any, ..., None]]:
    """A slash command for every table command that has a name of its own on Discord."""
    for name, command in COMMANDS.items():
        if slash_name(name):
            yield table_command(name, command)
