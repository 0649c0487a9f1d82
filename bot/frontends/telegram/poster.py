"""The Telegram digest poster: a digest's view rendered as HTML messages, sent one by one through the paced sender.

Fan-out, the ledger, retries and the gone/moved policy are `bot.digests.poster.PlatformPoster`'s; pacing is the
sender's (it paces replies too).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.digests.poster import PlatformPoster
from bot.frontends.telegram.render import TgMessage, render_digest
from bot.frontends.telegram.sending import TelegramSender
from bot.models import PERSONAL_CHAT_PREFIX, Target
from bot.views.model import DigestView

PLATFORM = "telegram"


def chat_id_of(target: Target) -> int:
    """The Telegram chat of a target: a group or channel id, or for a personal digest ('dm:<user id>') the DM."""
    return int(target.chat_id.removeprefix(PERSONAL_CHAT_PREFIX))


class TelegramPoster(PlatformPoster):
    """Posts digests to Telegram chats."""

    platform = PLATFORM

    def __init__(self, sender: TelegramSender) -> None:
        super().__init__()
        self.sender = sender

    def render_digest(self, target: Target, view: DigestView) -> list[TgMessage]:
        """The digest as Telegram messages, split at paper boundaries."""
        return render_digest(view)

    async def send(self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str) -> str:
        """Send one message; Telegram has no idempotency key, so `nonce` is unused (the sent-message journal keeps
        the window small)."""
        assert isinstance(message, TgMessage)
        return str((await self.sender.send(chat_id_of(target), message)).message_id)
