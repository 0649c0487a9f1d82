"""The Telegram `Poster`: digests rendered as HTML messages and sent to a chat.

A digest is several messages. As a `bot.digests.delivery.MessagePoster` it hands delivery the messages one by one, and
the
ledger records each message id as it goes out, so a restart resumes after the last one. `post_digest` (for callers
outside the ledger) remembers the messages already delivered by (chat, day) within the process.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from bot.digests.delivery import DeliveryError
from bot.frontends.telegram.markup import Markup
from bot.frontends.telegram.render import BUDGET, TgMessage, render_digest, split_text
from bot.frontends.telegram.sending import TelegramSender
from bot.members.users import PERSONAL_CHAT_PREFIX
from bot.models import Digest, Target
from bot.views.model import digest_view

PLATFORM = "telegram"


def chat_id_of(target: Target) -> int:
    """The Telegram chat of a target: a group or channel id, or for a personal digest ('dm:<user id>') the DM."""
    return int(target.chat_id.removeprefix(PERSONAL_CHAT_PREFIX))


class TelegramPoster:
    """Posts digests and plain text to Telegram chats (a `bot.digests.delivery.Poster`)."""

    platform = PLATFORM

    def __init__(self, sender: TelegramSender) -> None:
        self.sender = sender
        self._delivered: dict[tuple[str, dt.date], list[str]] = {}

    async def post_digest(self, target: Target, digest: Digest) -> list[str]:
        """Send `digest` to the target's chat; returns the message ids (as strings)."""
        chat_id = chat_id_of(target)
        messages = render_digest(digest_view(digest))
        key = (target.chat_id, digest.day)
        done = self._delivered.setdefault(key, [])
        try:
            for message in messages[len(done) :]:
                sent = await self.sender.send(chat_id, message)
                done.append(str(sent.message_id))
        except DeliveryError as error:
            if error.permanent:  # never retried: nothing to resume
                self._delivered.pop(key, None)
            raise
        return self._delivered.pop(key)

    def digest_messages(self, target: Target, digest: Digest) -> list[TgMessage]:
        """The digest as Telegram messages, split at paper boundaries (`bot.digests.delivery.MessagePoster`)."""
        return render_digest(digest_view(digest))

    async def send_digest_message(
        self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str
    ) -> str:
        """Send one message of a digest; the ledger records its id, so a restart resumes after it.

        Telegram has no idempotency key, so `nonce` is unused: the sent-message journal keeps the window small.
        """
        assert isinstance(message, TgMessage)
        sent = await self.sender.send(chat_id_of(target), message)
        return str(sent.message_id)

    async def send_text(self, target: Target, text: str) -> list[str]:
        """Send plain text, split under Telegram's limit."""
        chat_id = chat_id_of(target)
        refs = []
        for piece in split_text(text, BUDGET):
            markup = Markup().text(piece)
            sent = await self.sender.send(chat_id, TgMessage(markup.html, markup.plain))
            refs.append(str(sent.message_id))
        return refs
