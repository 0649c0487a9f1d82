"""Sending rendered messages through PTB with our pacing, and Telegram's errors mapped to what delivery expects.

- 429 (`RetryAfter`, once `AIORateLimiter`'s own retries are spent) -> `DeliveryError(retry_after=...)`, so the
  caller waits what Telegram asked;
- 400 "can't parse entities" -> logged as an error (it means our escaping has a bug) and the same message sent
  once more as plain text;
- 403 (blocked, kicked, deactivated) and 400 "chat not found" -> the `on_gone` hook (which marks the target or the
  member's digest inactive) and a permanent `DeliveryError`: never retried;
- 400 with `migrate_to_chat_id` (`ChatMigrated`: the group became a supergroup under a new id) -> the `on_moved`
  hook (the target follows the chat) and the same message sent once to the new id;
- other 400s are permanent; timeouts and network errors are transient.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Sequence

from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    Message,
    ReplyParameters,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError

from bot.digests.delivery import DeliveryError
from bot.digests.pacing import ChatPacer
from bot.frontends.telegram.render import Keyboard, TgMessage

log = logging.getLogger(__name__)

GoneHook = Callable[[int, str], Awaitable[None]]
MovedHook = Callable[[int, int], Awaitable[None]]
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


def keyboard_markup(rows: Keyboard) -> InlineKeyboardMarkup | None:
    """PTB's inline keyboard for our rows (None when there are none)."""
    if not rows:
        return None
    return InlineKeyboardMarkup([[InlineKeyboardButton(b.label, callback_data=b.value) for b in row] for row in rows])


def retry_seconds(error: RetryAfter) -> float:
    """The wait Telegram asked for, in seconds (PTB gives an int or a timedelta depending on its settings)."""
    value = error.retry_after
    return value.total_seconds() if isinstance(value, dt.timedelta) else float(value)


def is_parse_error(error: BadRequest) -> bool:
    """True for Telegram's refusal of our HTML (PTB re-capitalises the description, so compare lowercased)."""
    return "can't parse entities" in error.message.lower()


class TelegramSender:
    """Paced sends to chats with Telegram's errors mapped (see the module docstring)."""

    def __init__(
        self, bot: Bot, pacer: ChatPacer, on_gone: GoneHook | None = None, on_moved: MovedHook | None = None
    ) -> None:
        self.bot = bot
        self.pacer = pacer
        self.on_gone = on_gone
        self.on_moved = on_moved

    async def send(self, chat_id: int, message: TgMessage, *, reply_to: int | None = None) -> Message:
        """Send one message (HTML, plain text once if Telegram refuses the HTML); DeliveryError when it fails."""
        markup = keyboard_markup(message.keyboard)

        async def post(chat: int, reply: ReplyParameters | None) -> Message:
            try:
                async with self.pacer.turn(chat):
                    return await self.bot.send_message(
                        chat, message.html, parse_mode=ParseMode.HTML, reply_markup=markup, reply_parameters=reply,
                        link_preview_options=NO_PREVIEW,
                    )  # fmt: skip
            except BadRequest as error:
                if not is_parse_error(error):
                    raise
                log.error("Telegram refused our HTML for chat %s (an escaping bug): %s", chat, error.message)
            async with self.pacer.turn(chat):
                return await self.bot.send_message(
                    chat, message.plain, reply_markup=markup, reply_parameters=reply, link_preview_options=NO_PREVIEW
                )

        return await self._request(chat_id, reply_to, post)

    async def send_document(
        self, chat_id: int, name: str, data: bytes, caption: str, *, reply_to: int | None = None
    ) -> Message:
        """Send a file with an HTML caption (`render.caption_html`)."""

        async def post(chat: int, reply: ReplyParameters | None) -> Message:
            async with self.pacer.turn(chat):
                return await self.bot.send_document(
                    chat, data, filename=name, caption=caption or None, parse_mode=ParseMode.HTML,
                    reply_parameters=reply,
                )  # fmt: skip

        return await self._request(chat_id, reply_to, post)

    async def _request(
        self, chat_id: int, reply_to: int | None, post: Callable[[int, ReplyParameters | None], Awaitable[Message]]
    ) -> Message:
        """One paced request with Telegram's errors mapped; a group that became a supergroup gets it once at its
        new id (without the quote: the replied-to message stayed in the old chat)."""
        reply = ReplyParameters(reply_to, allow_sending_without_reply=True) if reply_to else None
        try:
            try:
                return await post(chat_id, reply)
            except ChatMigrated as moved:
                return await post(await self._moved(chat_id, moved), None)
        except TelegramError as error:
            raise await self._delivery_error(chat_id, error) from error

    async def _moved(self, chat_id: int, moved: ChatMigrated) -> int:
        """Telegram says the group now lives under a new id: tell the hook, return the new id."""
        new_chat_id = int(moved.new_chat_id)
        log.warning("chat %s became supergroup %s; its digest follows it", chat_id, new_chat_id)
        if self.on_moved is not None:
            await self.on_moved(chat_id, new_chat_id)
        return new_chat_id

    async def send_many(
        self, chat_id: int, messages: Sequence[TgMessage], *, reply_to: int | None = None
    ) -> list[Message]:
        """Send messages in order (the first one as the reply); stops at the first failure."""
        sent: list[Message] = []
        for index, message in enumerate(messages):
            sent.append(await self.send(chat_id, message, reply_to=reply_to if index == 0 else None))
        return sent

    async def _delivery_error(self, chat_id: int, error: TelegramError) -> DeliveryError:
        if isinstance(error, RetryAfter):
            return DeliveryError(f"Telegram flood control: {error}", retry_after=retry_seconds(error))
        gone = isinstance(error, Forbidden) or (
            isinstance(error, BadRequest) and "chat not found" in error.message.lower()
        )
        if gone:
            log.warning("chat %s is gone for the bot (%s); marking it inactive", chat_id, error.message)
            if self.on_gone is not None:
                await self.on_gone(chat_id, error.message)
            return DeliveryError(f"Telegram chat {chat_id}: {error.message}", permanent=True)
        if isinstance(error, BadRequest):
            return DeliveryError(f"Telegram refused a message to {chat_id}: {error.message}", permanent=True)
        return DeliveryError(f"Telegram request failed: {error}")
