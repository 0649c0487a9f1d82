"""The Discord front end: one `commands.Bot` around the Core and the chat controller, and its start and stop.

Made as discord.py's advanced start-up example makes a bot: the Core (and everything it holds) is created once by the
caller and handed in; the cogs are loaded and the commands added in `setup_hook`; the client never pings
(`AllowedMentions.none()`) and asks for the least intents that work (guilds, guild messages for replies to answers
and the owner's ``@paperscout sync``, DMs for onboarding; no privileged intent). Slash commands are synced on demand
by the application owner (``@paperscout sync`` in a channel, or ``/sync`` once synced), not at every start. Every
other slash command, /setup's form included, is made from the command table (`bot.frontends.discord.commands`);
Manage Server is checked when a command runs (by the controller, from the member's permissions in the interaction),
not only through the commands' default permissions, which a server can override.

`start_discord(core, settings)` logs in, connects in a background task and returns the bot's `DiscordPoster` (the
driver), which posts digests and whose `stop()` closes the connection; `paperscout run` calls it when
``PAPERSCOUT_DISCORD_TOKEN`` is set.

A slash command goes to the driver's `command`, a button press to its `press`, each answered through the interaction
(`Followups`); a DM, or a reply or mention in a channel, goes to the controller and its replies to the place through
the driver (`hear`). Errors never reach a member as a traceback: the driver tells them in one line, logged under a
short reference it names (`ChatDriver.problem`, `tell`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import aiohttp
import discord
import discord.gateway
import discord.http
import yarl
from discord import app_commands
from discord.ext import commands

from bot.chat.completion import Completer
from bot.chat.controller import ChatController, typed
from bot.chat.messages import Incoming, Place, Speaker, Upload
from bot.chat.turns import logged_turn
from bot.config import Settings
from bot.core import Core
from bot.errors import PaperscoutError
from bot.frontend import starting
from bot.frontends.discord.buttons import PaperButton
from bot.frontends.discord.commands import table_commands
from bot.frontends.discord.poster import DiscordPoster, Followups
from bot.views.layout import clip

log = logging.getLogger(__name__)

COGS = ("cogs.messages",)
PLATFORM = "discord"
NOT_IN_THIS_VERSION = (
    "/{command} is not in this version of the bot; the bot's owner can sync its commands (@paperscout sync). "
    "/help lists what you can use."
)


SYNC_REFUSED = "Only the bot's owner syncs its commands; /help lists what you can use."
SYNC_USAGE = "Use: @paperscout sync (every server) or @paperscout sync here (this server only)."


def cause(error: BaseException) -> BaseException:
    """What went wrong under discord.py's wrappers (a command's invoke error, a hybrid command's app command error)."""
    while isinstance(getattr(error, "original", None), BaseException):
        error = error.original  # type: ignore[attr-defined]
    return error


def least_intents() -> discord.Intents:
    """Guilds (channels, roles), guild messages (replies to answers, the owner's sync), DMs (onboarding).

    Message content is privileged and not asked for: Discord still sends it for DMs and for messages that mention
    the bot, which a reply to the bot's answer does unless its author turned the ping off.
    """
    return discord.Intents(guilds=True, guild_messages=True, dm_messages=True)


def speaker_of(user: discord.abc.User, permissions: discord.Permissions | None) -> Speaker:
    """Who spoke ('discord:<id>'); an admin holds Manage Server where they spoke (`permissions`, None in a DM),
    checked now, not from the commands' defaults."""
    is_admin = permissions is not None and permissions.manage_guild
    return Speaker(f"{PLATFORM}:{user.id}", user.display_name, is_admin=is_admin)


def interaction_incoming(interaction: discord.Interaction, place: Place | None = None, **said: Any) -> Incoming:
    """What the member who ran a command or pressed a button said (`said`: `Incoming`'s fields), where (by default
    the interaction's channel)."""
    permissions = interaction.permissions if interaction.guild is not None else None
    place = place or place_of(interaction.channel, interaction.user)
    return Incoming(speaker_of(interaction.user, permissions), place, **said)


def upload_of(attachment: discord.Attachment | None) -> Upload | None:
    """A file given with a message or a command, read by the driver when its stated size fits a profile."""
    return None if attachment is None else Upload(attachment.filename, attachment.size, attachment.read)


def place_of(channel: discord.abc.Messageable | discord.abc.GuildChannel | None, user: discord.abc.User) -> Place:
    """Where something happened: a DM (keyed by the user's DM channel) or a guild channel named for messages."""
    if channel is None:
        return Place(platform=PLATFORM, chat_id=f"dm-{user.id}", is_dm=True)
    if isinstance(channel, discord.DMChannel) or getattr(channel, "guild", None) is None:
        return Place(platform=PLATFORM, chat_id=str(channel.id), is_dm=True)
    name = getattr(channel, "name", "") or ""
    return Place(platform=PLATFORM, chat_id=str(channel.id), is_dm=False, title=f"#{name}" if name else "")


class PaperscoutBot(commands.AutoShardedBot):
    """The Discord client of one `paperscout` process (see the module docstring); sharded as Discord asks, so a
    public instance keeps working past 2,500 servers."""

    def __init__(self, core: Core, controller: ChatController | None = None, **options: object) -> None:
        # paperscout never joins a voice channel: discord.py's warnings that its voice libraries are missing ("voice
        # will NOT be supported") only alarm whoever reads the log
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=least_intents(),
            allowed_mentions=discord.AllowedMentions.none(),
            help_command=None,
            **options,  # type: ignore[arg-type]
        )
        self.core = core
        self.controller = controller or ChatController(core)
        self.poster = DiscordPoster(self, core, self.controller)  # also what an admin's /digest now posts with
        self.completer = Completer(core)

    async def setup_hook(self) -> None:
        """Register the persistent buttons, load the cogs (`cogs`: the owner's sync; DMs, replies and mentions), add
        every command of the command table (`bot.frontends.discord.commands`), route command errors."""
        self.add_dynamic_items(PaperButton)
        for extension in COGS:
            await self.load_extension(extension)
        for command in table_commands():
            self.tree.add_command(command)
        self.tree.on_error = self.on_app_command_error

    async def on_command_error(self, ctx: commands.Context[PaperscoutBot], error: commands.CommandError) -> None:
        """``@paperscout WORDS`` that is no text command is a question the messages cog answers: nothing to do here; a
        wrong ``@paperscout sync`` gets its usage; anything else is reported with a correlation id, for the invoker
        alone: through the interaction when /sync ran as a slash command (its "thinking…" becomes that line), in their
        DM when it was typed (`tell_author`)."""
        if isinstance(error, commands.CommandNotFound):
            return
        if isinstance(error, commands.UserInputError):  # sync is the one text command: its argument was wrong
            with logged_turn("/sync", place_of(ctx.channel, ctx.author)) as outcome:
                owner = await self.is_owner(ctx.author)
                outcome.value = "refused"
                await self.tell_author(ctx, SYNC_USAGE if owner else SYNC_REFUSED, owner=owner)
            return
        place, interaction = place_of(ctx.channel, ctx.author), ctx.interaction
        what = ctx.command.qualified_name if interaction is not None and ctx.command is not None else "message"
        text = self.poster.problem(cause(error), what)
        if interaction is None:  # a typed sync: what is not its success goes to its author alone
            await self.tell_author(ctx, text, owner=await self.is_owner(ctx.author))
        else:
            await self.poster.tell(place, text, answering=Followups(interaction))

    async def tell_author(self, ctx: commands.Context[PaperscoutBot], text: str, *, owner: bool) -> None:
        """`text` for the author of the owner's command (/sync, or a typed ``@paperscout sync``) alone: ephemeral for a
        slash command; for a typed one, which cannot be, in a DM, so that nobody can make the bot post in a channel
        and a member never reads the owner's usage. The owner whose DMs are closed gets a short reply instead (they
        must learn what went wrong); a member, nothing more than the log line."""
        if ctx.interaction is not None:
            await ctx.reply(text, ephemeral=True)
            return
        try:
            await ctx.author.send(text)
        except discord.HTTPException as exc:
            log.info("Discord: could not tell %s in a DM (%s)", "the owner" if owner else "a member", exc.status)
            if owner:
                with contextlib.suppress(discord.HTTPException):
                    await ctx.reply(text)

    async def on_app_command_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        """A friendly ephemeral line for a refused check or a command this version does not have (Discord still
        offers it until the owner syncs: logged, not a failure; typing into it offers no choices); a reference for
        everything else (`problem`)."""
        if isinstance(error, app_commands.CommandNotFound):
            if interaction.type is discord.InteractionType.autocomplete:  # typing into it: no line can be shown
                with contextlib.suppress(discord.HTTPException):
                    await interaction.response.autocomplete([])
                return
            name = " ".join([*error.parents, error.name])
            log.info("Discord: /%s is not a command of this version; the owner's sync updates Discord's list", name)
            text = NOT_IN_THIS_VERSION.format(command=clip(name, 40))
        elif isinstance(error, app_commands.CheckFailure):
            text = str(error) or "You can't use this command here."
        else:
            what = interaction.command.qualified_name if interaction.command else "command"
            text = self.poster.problem(cause(error), what)
        await self.poster.tell(place_of(interaction.channel, interaction.user), text, answering=Followups(interaction))

    async def hear(self, message: discord.Message, text: str, *, mentioned: bool = False) -> None:
        """A member's message to the controller with its first file: its text may be a typed command ('/cmd' in a DM
        or a reply); in a channel it was said to us (a reply to the bot, or `mentioned`) and is answered as a reply
        to it (`ChatDriver.hear`)."""
        place, author = place_of(message.channel, message.author), message.author
        reply_to = str(message.reference.message_id) if message.reference else ""
        permissions = message.channel.permissions_for(author) if isinstance(author, discord.Member) else None
        speaker = speaker_of(author, permissions)
        incoming = typed(speaker, place, text, reply_to=reply_to, mentioned=mentioned)
        upload = upload_of(message.attachments[0] if message.attachments else None)
        await self.poster.hear(incoming, "" if place.is_dm else str(message.id), upload=upload)

    async def run_command(
        self, interaction: discord.Interaction, command: str, given: dict[str, Any], *, form: bool, private: bool
    ) -> None:
        """A command of the table run as a slash command (`bot.frontends.discord.commands`): its fields' words as
        the argument line (a form's as named options), a channel field as the place it is for, a file field as its
        attachment, downloaded once the command is acknowledged (it may take longer than Discord waits)."""
        channel = next((v for v in given.values() if isinstance(v, discord.abc.GuildChannel)), None)
        upload = next((v for v in given.values() if isinstance(v, discord.Attachment)), None)
        words = {name: str(value) for name, value in given.items() if isinstance(value, str | int)}
        place = place_of(channel or interaction.channel, interaction.user)
        args, options = ("", words) if form else (" ".join(words.values()), {})
        incoming = interaction_incoming(interaction, place, command=command, args=args, options=options)
        await self.poster.command(incoming, Followups(interaction), private=private, upload=upload_of(upload))

    async def press(self, interaction: discord.Interaction, value: str) -> None:
        """A pressed paperscout button (`PaperButton`), answered through its interaction (`ChatDriver.press`)."""
        await self.poster.press(interaction_incoming(interaction, button=value), Followups(interaction))


def point_at(settings: Settings) -> None:
    """Use the configured Discord endpoints (a fake in tests) through discord.py's own class attributes."""
    discord.http.Route.BASE = settings.discord_api_url.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)


async def start_discord(
    core: Core, settings: Settings | None = None, *, controller: ChatController | None = None, **options: object
) -> DiscordPoster:
    """Log in with ``PAPERSCOUT_DISCORD_TOKEN`` and connect in a background task; returns the bot's driver.

    Raises `discord.LoginFailure` at once for a wrong token (no retry: Discord bans clients that keep failing),
    `SourceUnavailable` (one line) when Discord cannot be reached.
    """
    settings = settings or core.settings
    if settings.discord_token is None:
        raise PaperscoutError("PAPERSCOUT_DISCORD_TOKEN is not set")
    point_at(settings)
    bot = PaperscoutBot(core, controller, **options)
    async with starting("Discord", settings.discord_api_url, (aiohttp.ClientError, OSError, TimeoutError), bot.close):
        await bot.login(settings.discord_token.get_secret_value())
    bot.poster.connection = asyncio.create_task(bot.connect(reconnect=True), name="discord-gateway")
    return bot.poster
