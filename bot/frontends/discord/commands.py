"""Discord's slash commands made from the core's command table (`bot.chat.commands.COMMANDS`), so a command's
name, help and option are written once: its name as Discord members run it (`FRONT_END.names`), the table's help
line as its description, its one option the table's (`Command.argument`: a paper, a question, words, a schedule,
a field), and the words its argument begins with (`Command.actions`) as an ``action`` option's choices. Where it works
and who may run it follow the table too (a channel command is guild-only, an admin's needs Manage Server by default).
Commands with options of their own (/setup, /sync) are written in their cogs, described from the table
the same way (`description`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any, Literal

import discord
from discord import app_commands

from bot.chat.commands import COMMANDS, Command
from bot.chat.completion import Completion
from bot.frontend import front_end
from bot.views.layout import clip

DESCRIPTION_MAX = 100
MAX_CHOICES = 25  # autocomplete: at most 25 choices, each named and valued in 1-100 characters
CHOICE_MAX = 100
PUBLIC = frozenset({"ask", "search", "paper", "more"})  # answered in the channel; the rest only to the member


def description(name: str) -> str:
    """The table's help line of core command `name` as a Discord description (capitalised, at most 100)."""
    text = COMMANDS[name].help
    text = text[:1].upper() + text[1:]
    return text if len(text) <= DESCRIPTION_MAX else text[: DESCRIPTION_MAX - 1] + "…"


def slash_name(name: str) -> str:
    """The slash command core command `name` is on Discord ('' when it has none of its own: '/digest pause')."""
    run = front_end("discord").command(name)
    return run[1:] if run.startswith("/") and " " not in run else ""


def choices(completions: list[Completion]) -> list[app_commands.Choice[str]]:
    """The core's completions (`bot.chat.completion`) as autocomplete choices."""
    return [app_commands.Choice(name=clip(label, CHOICE_MAX), value=value[:CHOICE_MAX]) for label, value in completions]


async def paper_choices(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Recent papers for a paper option."""
    return choices(await interaction.client.recent_papers.complete(current, MAX_CHOICES))  # type: ignore[attr-defined]


def _callback(name: str) -> Callable[..., Any]:
    public, run_as = name in PUBLIC, slash_name(name)  # as the member ran it: /interests is not Telegram's /start

    async def run(interaction: discord.Interaction, **given: str) -> None:
        args = " ".join(value for value in given.values() if value)
        # in a DM only the member sees it anyway: a reply is kept, not ephemeral (the driver's rule)
        await interaction.client.run_command(interaction, run_as, args, private=not public)  # type: ignore[attr-defined]

    return run


def slash_command(
    name: str, run: Callable[..., Any], fields: dict[str, tuple[Any, Any, str]], *, in_servers: bool, admin: bool
) -> app_commands.Command[Any, ..., None]:
    """Core command `name` as a slash command calling `run` with `fields` (option -> its type, its default
    (`inspect.Parameter.empty`: required) and what it says), in servers only or anywhere, for Manage Server by
    default when `admin`."""
    parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_ONLY, annotation=discord.Interaction)]
    for option, (kind, default, _) in fields.items():
        parameters.append(inspect.Parameter(option, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind))
    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    app_commands.describe(**{option: hint for option, (_, _, hint) in fields.items()})(run)
    if in_servers:
        app_commands.guild_only()(run)
    if admin:
        app_commands.default_permissions(manage_guild=True)(run)
    return app_commands.Command(name=slash_name(name), description=description(name), callback=run)


def table_command(name: str, command: Command) -> app_commands.Command[Any, ..., None]:
    """Core command `name` as a Discord slash command (see the module docstring)."""
    argument, fields = command.argument, dict[str, tuple[Any, Any, str]]()
    if command.actions:
        fields["action"] = (Literal[command.actions], "", clip(command.usage, DESCRIPTION_MAX))
    if argument is not None:
        kind = app_commands.Range[str, 1, argument.longest] if argument.longest else str
        fields[argument.name] = (kind, inspect.Parameter.empty if argument.required else "", argument.hint)
    run = _callback(name)
    slash = slash_command(name, run, fields, in_servers=command.where == "channel", admin=command.admin)
    option = argument.name if argument is not None else ""
    if option == "paper":
        slash.autocomplete(option)(paper_choices)
    return slash


def table_commands(taken: set[str]) -> Iterator[app_commands.Command[Any, ..., None]]:
    """A slash command for every table command that has a name of its own on Discord, not already in `taken`
    (written in a cog)."""
    for name, command in COMMANDS.items():
        if slash_name(name) and slash_name(name) not in taken:
            yield table_command(name, command)
