"""Posting digests to Discord: the `Poster` of `bot.digests.delivery` for channels and members' DMs.

A digest goes out as a header message (the header embed and the first papers with their buttons) and, when more
papers follow, a thread started from the header holding the rest, so a 60-paper digest takes one message in the
channel. Where a thread cannot be made (a DM, or no permission) the rest follows in the same channel. Discord's
refusals become `DeliveryError`s: permanent for a closed DM (50007), missing access or permissions, or a channel or
user that is gone; with the wait Discord asked for on a rate limit; retryable for server errors.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence

import aiohttp
import discord

from bot.digests.delivery import DeliveryError
from bot.digests.poster import PlatformPoster
from bot.frontends.discord.render import Outgoing as OutgoingMessage
from bot.frontends.discord.render import digest_messages as render_digest
from bot.frontends.discord.send import send_to_channel
from bot.models import PERSONAL_CHAT_PREFIX, Target
from bot.views.layout import clip
from bot.views.model import DigestView

log = logging.getLogger(__name__)

THREAD_NAME_MAX = 100
THREAD_ARCHIVE_MINUTES = 1440
PERMANENT_CODES = {
    10003: "the channel no longer exists",
    10013: "the user no longer exists",
    50001: "I can't see {where}",
    50007: "the member does not accept DMs from the bot",
    50013: "I can't post in {where}",
}
# what the bot needs where it posts a digest, by discord.py's name, as Discord's settings name them for the admin
NEEDED_PERMISSIONS = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "embed_links": "Embed Links",
    "create_public_threads": "Create Public Threads",
    "send_messages_in_threads": "Send Messages in Threads",
}
CLOUDFLARE_WAIT_SECONDS = 60.0
NONCE_MAX = 25
THREAD_EXISTS = 160004


def missing_permissions(channel: object) -> list[str]:
    """The permissions the bot lacks to post a digest in a server channel, as the admin finds them in Discord."""
    if not isinstance(channel, discord.TextChannel | discord.Thread):
        return []
    mine = channel.permissions_for(channel.guild.me)
    return [words for name, words in NEEDED_PERMISSIONS.items() if not getattr(mine, name)]


def permission_problem(reason: str, channel: object) -> str:
    """A refusal for want of access or a permission, in the admin's words: where, and which permissions to give."""
    name = getattr(channel, "name", "")
    text = reason.format(where=f"#{name}" if name else "that channel")
    missing = missing_permissions(channel)
    if missing:
        return f"{text}: give paperscout {', '.join(missing)} there (channel settings > Permissions)"
    return f"{text}: check paperscout's permissions there (channel settings > Permissions)"


def delivery_error(exc: Exception, channel: object = None) -> DeliveryError:
    """What a discord.py failure means for delivery (permanent, wait-and-retry, or retry), said as the admin who
    reads it in /digest now or `paperscout status` can act on it; the log adds which target it was."""
    if isinstance(exc, discord.RateLimited):
        return DeliveryError("Discord rate limited the bot", retry_after=exc.retry_after)
    if isinstance(exc, discord.HTTPException):
        reason = PERMANENT_CODES.get(exc.code)
        if exc.code in (50001, 50013) and reason is not None:
            return DeliveryError(permission_problem(reason, channel), permanent=True)
        if reason is not None or exc.status in (401, 403, 404):
            return DeliveryError(reason or f"Discord refused it ({exc.status}: {exc.text[:200]})", permanent=True)
        if exc.status == 429:  # not retried by discord.py: a Cloudflare limit, wait long
            wait = float(exc.response.headers.get("Retry-After", CLOUDFLARE_WAIT_SECONDS) or CLOUDFLARE_WAIT_SECONDS)
            return DeliveryError("Cloudflare rate limited the bot", retry_after=wait)
        if exc.status >= 500:
            return DeliveryError(f"Discord server error {exc.status}")
        # 400: Discord refused the message itself; sending it again cannot succeed
        return DeliveryError(f"Discord refused the message ({exc.code}: {exc.text[:200]})", permanent=True)
    return DeliveryError(f"{type(exc).__name__}: {exc}")


def message_nonce(key: str) -> str:
    """A Discord nonce (at most 25 characters) that is the same for the same message across restarts."""
    return key if len(key) <= NONCE_MAX else hashlib.sha256(key.encode()).hexdigest()[:NONCE_MAX]


class DiscordPoster(PlatformPoster):
    """Posts digests to Discord channels and members' DMs through a logged-in client (discord.py paces itself)."""

    platform = "discord"

    def __init__(self, client: discord.Client) -> None:
        super().__init__()
        self.client = client
        self._threadless: set[int] = set()  # headers whose channel refused a thread: the rest goes in the channel

    async def _destination(self, target: Target) -> discord.abc.Messageable:
        chat_id = target.chat_id
        if chat_id.startswith(PERSONAL_CHAT_PREFIX):
            user_id = int(chat_id[len(PERSONAL_CHAT_PREFIX) :])
            user = self.client.get_user(user_id) or await self.client.fetch_user(user_id)
            return user.dm_channel or await user.create_dm()
        channel = self.client.get_channel(int(chat_id)) or await self.client.fetch_channel(int(chat_id))
        if not isinstance(channel, discord.abc.Messageable):
            raise DeliveryError("that is not a channel messages can be posted in", permanent=True)
        return channel

    def render_digest(self, target: Target, view: DigestView) -> list[OutgoingMessage]:
        """The digest as Discord messages, in sending order: the header (with the first papers), then the rest,
        which go into a thread under the header."""
        messages = render_digest(view)
        for message in messages[1:]:
            message.thread = clip(f"More papers: {view.title}", THREAD_NAME_MAX)
        return messages

    async def send(self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str) -> str:
        """Send one digest message; the first goes to the channel, the others into the thread under it (`sent[0]`).

        The nonce makes Discord return the message already sent instead of a second copy when a crash came between
        Discord accepting it and the ledger recording it.
        """
        if not isinstance(message, OutgoingMessage):
            raise TypeError(f"not a Discord digest message: {type(message).__name__}")
        channel: discord.abc.Messageable | None = None
        try:
            channel = await self._destination(target)
            if position > 0 and sent:
                channel = await self._continuation(channel, int(sent[0]), message.thread)
            ((_, posted),) = await send_to_channel(channel, [message], nonce=message_nonce(nonce))
        except (discord.DiscordException, aiohttp.ClientError, OSError) as exc:
            raise delivery_error(exc, channel) from exc
        return str(posted.id)

    async def _continuation(
        self, channel: discord.abc.Messageable, header_id: int, thread_name: str
    ) -> discord.abc.Messageable:
        """Where a digest continues: the thread started from its header (made on first use), else the channel."""
        if not isinstance(channel, discord.TextChannel) or not thread_name or header_id in self._threadless:
            return channel
        thread = channel.guild.get_thread(header_id)  # a thread started from a message has the message's id
        if thread is not None:
            return thread
        try:
            return await channel.get_partial_message(header_id).create_thread(
                name=thread_name, auto_archive_duration=THREAD_ARCHIVE_MINUTES
            )
        except discord.Forbidden:
            log.warning("no thread allowed in %s; the rest of the digest goes in the channel", channel.id)
            self._threadless.add(header_id)
            return channel
        except discord.HTTPException as exc:
            if exc.code != THREAD_EXISTS:  # made by an earlier process that stopped before recording more
                raise
            found = await self.client.fetch_channel(header_id)
            return found if isinstance(found, discord.Thread) else channel
