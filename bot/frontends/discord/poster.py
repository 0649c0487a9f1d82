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
import secrets
from collections.abc import Sequence

import aiohttp
import discord

from bot.digests.delivery import DeliveryError
from bot.frontends.discord.render import CONTENT_MAX, clip, escape_discord, split_text
from bot.frontends.discord.render import Outgoing as OutgoingMessage
from bot.frontends.discord.render import digest_messages as render_digest
from bot.frontends.discord.send import send_to_channel
from bot.members.users import PERSONAL_CHAT_PREFIX
from bot.models import Digest, Target
from bot.views.model import digest_view

log = logging.getLogger(__name__)

THREAD_NAME_MAX = 100
THREAD_ARCHIVE_MINUTES = 1440
PERMANENT_CODES = {
    10003: "the channel no longer exists",
    10013: "the user no longer exists",
    50001: "the bot has no access to the channel",
    50007: "the member does not accept DMs from the bot",
    50013: "the bot lacks a permission in the channel",
}
CLOUDFLARE_WAIT_SECONDS = 60.0
NONCE_MAX = 25
THREAD_EXISTS = 160004


def delivery_error(exc: Exception, target: Target) -> DeliveryError:
    """What a discord.py failure means for delivery: permanent, wait-and-retry, or retry."""
    if isinstance(exc, discord.RateLimited):
        return DeliveryError(f"{target.key}: rate limited", retry_after=exc.retry_after)
    if isinstance(exc, discord.HTTPException):
        reason = PERMANENT_CODES.get(exc.code)
        if reason is not None or exc.status in (401, 403, 404):
            return DeliveryError(f"{target.key}: {reason or exc.text or exc.status}", permanent=True)
        if exc.status == 429:  # not retried by discord.py: a Cloudflare limit, wait long
            wait = float(exc.response.headers.get("Retry-After", CLOUDFLARE_WAIT_SECONDS) or CLOUDFLARE_WAIT_SECONDS)
            return DeliveryError(f"{target.key}: rate limited by Cloudflare", retry_after=wait)
        if exc.status >= 500:
            return DeliveryError(f"{target.key}: Discord server error {exc.status}")
        # 400: Discord refused the message itself; sending it again cannot succeed
        return DeliveryError(f"{target.key}: refused ({exc.code}: {exc.text[:200]})", permanent=True)
    return DeliveryError(f"{target.key}: {type(exc).__name__}: {exc}")


def message_nonce(key: str) -> str:
    """A Discord nonce (at most 25 characters) that is the same for the same message across restarts."""
    return key if len(key) <= NONCE_MAX else hashlib.sha256(key.encode()).hexdigest()[:NONCE_MAX]


class DiscordPoster:
    """Posts digests and text to Discord channels and members' DMs through a logged-in client.

    A digest is sent message by message (`digest_messages`, then `send_digest_message` for each), so the delivery
    ledger can resume after the last message that went out; `post_digest` sends them all in one go.
    """

    platform = "discord"

    def __init__(self, client: discord.Client) -> None:
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
            raise DeliveryError(f"{target.key}: not a channel messages can be posted in", permanent=True)
        return channel

    def digest_messages(self, target: Target, digest: Digest) -> list[OutgoingMessage]:
        """The digest as Discord messages, in sending order: the header (with the first papers), then the rest,
        which go into a thread under the header. The same digest always gives the same messages."""
        view = digest_view(digest)
        messages = render_digest(view)
        for message in messages[1:]:
            message.thread = clip(f"More papers: {view.title}", THREAD_NAME_MAX)
        return messages

    async def send_digest_message(
        self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str
    ) -> str:
        """Send one digest message; the first goes to the channel, the others into the thread under it (`sent[0]`).

        The nonce makes Discord return the message already sent instead of a second copy when a crash came between
        Discord accepting it and the ledger recording it.
        """
        if not isinstance(message, OutgoingMessage):
            raise TypeError(f"not a Discord digest message: {type(message).__name__}")
        try:
            channel = await self._destination(target)
            if position > 0 and sent:
                channel = await self._continuation(channel, int(sent[0]), message.thread)
            ((_, posted),) = await send_to_channel(channel, [message], nonce=message_nonce(nonce))
        except (discord.DiscordException, aiohttp.ClientError, OSError) as exc:
            raise delivery_error(exc, target) from exc
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

    async def post_digest(self, target: Target, digest: Digest) -> list[str]:
        """Post the whole digest (header, then the thread under it); returns the message ids."""
        sent: list[str] = []
        key = f"{target.key}:{digest.day.isoformat()}:{secrets.token_hex(4)}"
        for position, message in enumerate(self.digest_messages(target, digest)):
            sent.append(await self.send_digest_message(target, message, position, sent, f"{key}:{position}"))
        return sent

    async def send_text(self, target: Target, text: str) -> list[str]:
        """Post plain text (escaped, split at 2,000 characters)."""
        pieces = [OutgoingMessage(content=piece) for piece in split_text(escape_discord(text), CONTENT_MAX)]
        try:
            channel = await self._destination(target)
            sent = await send_to_channel(channel, pieces)
        except (discord.DiscordException, aiohttp.ClientError, OSError) as exc:
            raise delivery_error(exc, target) from exc
        return [str(message.id) for _, message in sent]
