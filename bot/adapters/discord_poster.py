"""Posting digests to Discord: the `Poster` of `bot.delivery` for channels and members' DMs.

A digest goes out as a header message (the header embed and the first papers with their buttons) and, when more
papers follow, a thread started from the header holding the rest, so a 60-paper digest takes one message in the
channel. Where a thread cannot be made (a DM, or no permission) the rest follows in the same channel. Discord's
refusals become `DeliveryError`s: permanent for a closed DM (50007), missing access or permissions, or a channel or
user that is gone; with the wait Discord asked for on a rate limit; retryable for server errors.
"""

from __future__ import annotations

import logging

import aiohttp
import discord

from bot.adapters.discord_render import CONTENT_MAX, clip, digest_messages, escape_discord, split_text
from bot.adapters.discord_render import Outgoing as OutgoingMessage
from bot.adapters.discord_send import send_to_channel
from bot.delivery import DeliveryError
from bot.models import Digest, Target
from bot.users import PERSONAL_CHAT_PREFIX
from bot.views import digest_view

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


class DiscordPoster:
    """Posts digests and text to Discord channels and members' DMs through a logged-in client."""

    platform = "discord"

    def __init__(self, client: discord.Client) -> None:
        self.client = client

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

    async def post_digest(self, target: Target, digest: Digest) -> list[str]:
        """Post the digest: the header message, then the rest in a thread under it; returns the message ids."""
        view = digest_view(digest)
        messages = digest_messages(view)
        try:
            channel = await self._destination(target)
            ((_, header),) = await send_to_channel(channel, messages[:1])
            posted = [header]
            if len(messages) > 1:
                where = await self._thread_under(header, view.title) or channel
                posted += [message for _, message in await send_to_channel(where, messages[1:])]
        except (discord.DiscordException, aiohttp.ClientError, OSError) as exc:
            raise delivery_error(exc, target) from exc
        return [str(message.id) for message in posted]

    async def _thread_under(self, header: discord.Message, title: str) -> discord.Thread | None:
        if not isinstance(header.channel, discord.TextChannel):
            return None
        name = clip(f"More papers: {title}", THREAD_NAME_MAX)
        try:
            return await header.create_thread(name=name, auto_archive_duration=THREAD_ARCHIVE_MINUTES)
        except discord.Forbidden:
            log.warning("no thread allowed in %s; posting the rest of the digest in the channel", header.channel.id)
            return None

    async def send_text(self, target: Target, text: str) -> list[str]:
        """Post plain text (escaped, split at 2,000 characters)."""
        pieces = [OutgoingMessage(content=piece) for piece in split_text(escape_discord(text), CONTENT_MAX)]
        try:
            channel = await self._destination(target)
            sent = await send_to_channel(channel, pieces)
        except (discord.DiscordException, aiohttp.ClientError, OSError) as exc:
            raise delivery_error(exc, target) from exc
        return [str(message.id) for _, message in sent]
