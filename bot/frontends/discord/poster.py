"""Discord's `ChatDriver` (`bot.chat.driver`): replies to channels and DMs and digests, sent with the core's policy.

A digest goes out as a header message (the header embed and the first papers with their buttons) and, when more
papers follow, a thread started from the header holding the rest, so a 60-paper digest takes one message in the
channel (the driver's `digest_threads`; `thread` makes it). Where a thread cannot be made (a DM, or no permission),
or it is deleted or locked before the digest's end (the driver's `unthreaded`), the rest follows in the channel.
Discord's refusals are read by the core's `refusal` from the HTTP status and Discord's own codes (`CODES`): gone for
a closed DM (50007), a channel or user that no longer exists; unthreaded for a locked thread; denied for
missing access, which the driver tells the admin with the permissions to give (`missing_permissions`); a wait on a
rate limit; transient for server errors. A digest's thread is a channel of its own: whatever it refuses (gone,
locked, denied: 50013 without Send Messages in Threads) is the thread's, and the rest goes to the channel. A command
or a press is answered through its interaction (`Followups`: the core's `bot.chat.answering.Interaction`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import aiohttp
import discord

from bot.chat.answering import Interaction
from bot.chat.driver import ChatDriver
from bot.chat.messages import Reply
from bot.chat.refusals import Failure, Kind, refusal
from bot.digests.delivery import DeliveryError
from bot.frontends.discord.render import EMBEDS, arguments, message, render
from bot.frontends.discord.render import Outgoing as OutgoingMessage
from bot.models import Target
from bot.views.layout import Page

if TYPE_CHECKING:
    from bot.chat.controller import ChatController
    from bot.core import Core

log = logging.getLogger(__name__)

THREAD_ARCHIVE_MINUTES = 1440
# what Discord's own error codes mean (`refusal` reads the rest from the HTTP status)
CODES: dict[object, tuple[Kind, str]] = {
    10003: ("gone", "the channel no longer exists"),
    10013: ("gone", "the user no longer exists"),
    50001: ("denied", "I can't see {where}"),
    50007: ("gone", "the member does not accept DMs from the bot"),
    50013: ("denied", "I can't post in {where}"),
    50083: ("unthreaded", "the thread is archived"),  # a locked one, which the bot may not open again
    160005: ("unthreaded", "the thread is locked"),
}
# what the bot needs where it posts a digest, by discord.py's name, as Discord's settings name them for the admin
NEEDED_PERMISSIONS = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "embed_links": "Embed Links",
    "create_public_threads": "Create Public Threads",
    "send_messages_in_threads": "Send Messages in Threads",
}
NONCE_MAX = 25
THREAD_EXISTS = 160004


def message_nonce(key: str) -> str:
    """A Discord nonce (at most 25 characters) that is the same for the same message across restarts."""
    return key if len(key) <= NONCE_MAX else hashlib.sha256(key.encode()).hexdigest()[:NONCE_MAX]


class Followups(Interaction):
    """The answer to one interaction (the core's `Interaction`): a deferred "thinking…", then its followups (the
    first takes the defer's visibility, whatever it asks for: the driver withdraws a public one first)."""

    def __init__(self, interaction: discord.Interaction) -> None:
        self.interaction = interaction

    async def acknowledge(self, private: bool) -> bool:
        """ "thinking…" (only for the member when `private`), unless the interaction was answered already."""
        if self.interaction.response.is_done():
            return False
        await self.interaction.response.defer(ephemeral=private, thinking=True)
        return True

    async def send(self, message: object, private: bool) -> str:
        """One page as a followup (ephemeral when `private`); its message id."""
        assert isinstance(message, OutgoingMessage)
        sent = await self.interaction.followup.send(ephemeral=private, wait=True, **arguments(message))
        return str(sent.id)

    async def withdraw(self) -> bool:
        """The "thinking…" deleted; False when Discord refused or could not be reached (it still shows, as far as
        the bot knows), True when it is gone. Never raises: the core reads False as the page not to send."""
        try:
            await self.interaction.delete_original_response()
        except discord.NotFound:
            return True
        except discord.HTTPException as exc:
            log.warning("Discord: the interaction's response could not be deleted (%s)", exc.status)
            return False
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:  # the network, not Discord: the same for the core
            log.warning("Discord: the interaction's response could not be deleted (%s: %s)", type(exc).__name__, exc)
            return False
        return True


class DiscordPoster(ChatDriver):
    """Sends replies and digests to Discord channels and members' DMs through a logged-in client (discord.py paces
    itself)."""

    platform, title, sends_files = "discord", "Discord", False  # a file is a message's attachment (`render`)
    digest_threads = True  # a thread is a channel of its own (`thread`)
    style = EMBEDS
    permissions_at = "channel settings > Permissions"
    sent_to_dm = "I sent you a DM."
    dm_refused = (
        "I can't send you a DM: your DMs are closed for this server. Allow direct messages from server members "
        "(Privacy Settings), then run {command} again."
    )

    def __init__(self, client: discord.Client, core: Core, controller: ChatController) -> None:
        super().__init__(core, controller)
        self.client = client
        self.connection: asyncio.Task[None] | None = None  # the gateway's, once started (`start_discord`)

    async def stop(self) -> None:
        """Close the connection (no new interactions are taken) and wait for the client to finish."""
        await self.client.close()
        if self.connection is not None:
            with contextlib.suppress(asyncio.CancelledError, discord.ConnectionClosed):
                await asyncio.wait_for(self.connection, 30)

    def message(self, page: Page) -> OutgoingMessage:
        """A page as a message (`render.message`)."""
        return message(page)

    def render(self, reply: Reply) -> list[OutgoingMessage]:  # type: ignore[override]
        """A reply as Discord messages (`render.render`: text alone as content, anything with cards as embeds)."""
        return render(reply)

    async def send(self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str) -> str:
        """One digest message with its nonce: Discord returns the message already sent instead of a second copy when
        a crash came between Discord accepting it and the ledger recording it."""
        assert isinstance(message, OutgoingMessage)
        message.nonce = message_nonce(nonce)
        return await super().send(target, message, position, sent, nonce)

    async def thread(self, chat: str, header: str, name: str) -> tuple[str, str]:
        """The thread started from a digest's header (made on first use; it has the header's id), or the channel
        itself outside a server's text channel (a DM)."""
        channel = await self._destination(chat)
        if not isinstance(channel, discord.TextChannel):
            return chat, ""
        if channel.guild.get_thread(int(header)) is None:
            try:
                await channel.get_partial_message(int(header)).create_thread(
                    name=name, auto_archive_duration=THREAD_ARCHIVE_MINUTES
                )
            except discord.HTTPException as exc:
                if exc.code != THREAD_EXISTS:  # made by an earlier process that stopped before recording more
                    raise
        return header, ""

    async def post(self, chat: str, message: object, *, reply_to: str = "", plain: bool = False) -> str:
        """Send one message to a channel, a thread or a DM channel, quoting `reply_to` if it still exists. Its
        `nonce` makes Discord hand back the message it already has with that nonce instead of posting it twice."""
        assert isinstance(message, OutgoingMessage)  # a file too is a message's attachment here (`sends_files`)
        channel = await self._destination(chat)
        quoted = channel.get_partial_message(int(reply_to)) if reply_to else None  # type: ignore[attr-defined]
        reference = quoted.to_reference(fail_if_not_exists=False) if quoted is not None else None
        posted = await channel.send(**arguments(message), reference=reference, nonce=message.nonce or None)
        return str(posted.id)

    def failure(self, error: Exception) -> Failure | None:
        """What a discord.py failure means for the core (the module docstring; `refusal` with Discord's `CODES`)."""
        if isinstance(error, discord.RateLimited):
            return Failure("retry", "Discord rate limited the bot", error.retry_after)
        if isinstance(error, discord.HTTPException):  # a 429 here is Cloudflare's: discord.py does not retry it
            said = f"Discord refused it ({error.status} {error.code}: {error.text[:200]})"
            return refusal(error.status, error.code, said, CODES, error.response.headers.get("Retry-After"))
        if isinstance(error, discord.DiscordException | aiohttp.ClientError | OSError):
            return Failure("transient", f"{type(error).__name__}: {error}")
        return None

    def missing_permissions(self, chat: str) -> list[str]:
        """The permissions the bot lacks to post a digest in a server channel, as the admin finds them in Discord."""
        channel = self.client.get_channel(int(chat)) if chat.isdigit() else None
        if not isinstance(channel, discord.TextChannel | discord.Thread):
            return []
        mine = channel.permissions_for(channel.guild.me)
        return [words for name, words in NEEDED_PERMISSIONS.items() if not getattr(mine, name)]

    def place_name(self, chat: str) -> str:
        """A server channel as its members know it ('#papers')."""
        name = getattr(self.client.get_channel(int(chat)) if chat.isdigit() else None, "name", "")
        return f"#{name}" if name else ""

    async def dm_user(self, chat: str) -> str:
        """The member a DM channel is with: a DM's channel id is not its member's id (asked of Discord when
        discord.py does not hold the channel, or holds it without its recipient, as it does for a DM it only saw a
        message in); '' for a server channel (a channel id is never a member's id, so it is not guessed)."""
        if not chat.isdigit():
            return await super().dm_user(chat)
        channel = self.client.get_channel(int(chat))
        if channel is None or (isinstance(channel, discord.DMChannel) and channel.recipient is None):
            channel = await self.client.fetch_channel(int(chat))
        if isinstance(channel, discord.DMChannel) and channel.recipient is not None:
            return str(channel.recipient.id)
        return ""  # a server channel without a digest: nobody's DM

    async def dm_chat(self, user: str) -> str:
        """The member's DM channel, opened if need be."""
        found = self.client.get_user(int(user)) or await self.client.fetch_user(int(user))
        return str((found.dm_channel or await found.create_dm()).id)

    async def _destination(self, chat: str) -> discord.abc.Messageable:
        channel = self.client.get_channel(int(chat)) or await self.client.fetch_channel(int(chat))
        if not isinstance(channel, discord.abc.Messageable):
            raise DeliveryError("that is not a channel messages can be posted in", permanent=True)
        return channel
