"""Telegram updates in, controller replies out: the only place that knows both PTB and `bot.chat`.

Handlers decide nothing about the conversation. They translate a message, channel post or button press into an
`Incoming` (who: user key ``telegram:<user id>`` and whether getChatMember says they administer the chat; where:
the chat; what: a command, text, a reply to one of our messages, an attached file) and render the controller's
replies with `bot.frontends.telegram.render`. Where a reply goes is the one platform decision made here:

- a reply to a message goes to the same chat (quoting the message in groups);
- an ephemeral text without buttons answering a button press (a refusal, "nothing changed") is the button's toast
  (cut to 200 characters);
- anything else answering a paper button (a thumb's reply with its Undo button, more like this) pressed in a group
  or channel concerns only the presser and goes to their DM (the toast says so); answers to choice buttons go to
  the chat of the question;
- a file (an export) is personal data and always goes to the DM.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence

from telegram import CallbackQuery, Chat, Update
from telegram import Message as TgApiMessage
from telegram.constants import ChatAction, ChatType, MessageEntityType
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from bot.chat.controller import ChatController
from bot.chat.messages import (
    AnswerReply,
    Attachment,
    FileReply,
    Incoming,
    Place,
    Reply,
    Speaker,
    TextReply,
    is_paperscout_button,
)
from bot.digests.delivery import DeliveryError
from bot.frontend import Expiring
from bot.frontends.telegram.render import caption_html, render
from bot.frontends.telegram.sending import TelegramSender
from bot.views.layout import clip
from bot.views.model import BUTTON_PREFIX, PAPER_ACTIONS

log = logging.getLogger(__name__)

PLATFORM = "telegram"
MAX_ATTACHMENT_BYTES = 1_000_000  # the controller refuses profiles over 64 KB with a message; bigger is not fetched
MAX_TOAST = 200  # answerCallbackQuery text limit
ADMIN_CACHE_SECONDS = 60.0
TYPING_EVERY_SECONDS = 4.5  # Telegram shows "typing…" for 5 s
ADMIN_STATUSES = frozenset({"creator", "administrator"})
REMOVED_STATUSES = frozenset({"kicked", "left"})


def user_key(user_id: int) -> str:
    """The controller's key of a Telegram user (or of a channel speaking as itself)."""
    return f"{PLATFORM}:{user_id}"


def place_of(chat: Chat) -> Place:
    """Where a Telegram chat is, for the controller."""
    return Place(PLATFORM, str(chat.id), is_dm=chat.type == ChatType.PRIVATE, title=chat.title or "")


def for_another_bot(message: TgApiMessage, bot_username: str) -> bool:
    """True when the message starts with a command addressed to another bot (``/paper@other_bot``)."""
    entities = message.entities or message.caption_entities or ()
    first = next((e for e in entities if e.offset == 0 and e.type == MessageEntityType.BOT_COMMAND), None)
    if first is None:
        return False
    word = message.parse_entity(first) if message.text else message.parse_caption_entity(first)
    _, _, addressee = word.partition("@")
    return bool(addressee) and addressee.lower() != bot_username.lower()


class TelegramFrontEnd:
    """PTB handlers around one `ChatController` (see the module docstring)."""

    def __init__(self, controller: ChatController, sender: TelegramSender) -> None:
        self.controller = controller
        self.sender = sender
        self._admins: Expiring[tuple[int, int], bool] = Expiring(ADMIN_CACHE_SECONDS)

    def register(self, app: Application) -> None:
        """Add the handlers: messages and channel posts (not edits), button presses, and an error logger."""
        app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, self.on_migrate))
        app.add_handler(MessageHandler(filters.UpdateType.MESSAGE | filters.UpdateType.CHANNEL_POST, self.on_message))
        app.add_handler(CallbackQueryHandler(self.on_button))
        app.add_handler(ChatMemberHandler(self.on_my_status, ChatMemberHandler.MY_CHAT_MEMBER))
        app.add_error_handler(self.on_error)

    async def on_my_status(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The bot was blocked, kicked or removed: mark the chat's digest inactive now, not at the next post."""
        change = update.my_chat_member
        if change is None or change.new_chat_member.status not in REMOVED_STATUSES:
            return
        log.warning("bot removed from chat %s (%s)", change.chat.id, change.new_chat_member.status)
        if self.sender.on_gone is not None:
            await self.sender.on_gone(change.chat.id, change.new_chat_member.status)

    async def on_migrate(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group became a supergroup (Telegram says so in both chats): the digest follows the new chat id."""
        message = update.effective_message
        if message is None or self.sender.on_moved is None:
            return
        if message.migrate_to_chat_id:
            await self.sender.on_moved(message.chat.id, message.migrate_to_chat_id)
        elif message.migrate_from_chat_id:
            await self.sender.on_moved(message.migrate_from_chat_id, message.chat.id)

    # --- messages ---

    async def on_message(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A message in a DM or group, or a channel post: to the controller, replies back to the chat."""
        message, chat = update.effective_message, update.effective_chat
        if message is None or chat is None:
            return
        if for_another_bot(message, context.bot.username):
            return
        speaker = await self._speaker_of(message, chat)
        if speaker is None:
            return
        text = message.text or message.caption or ""
        place = place_of(chat)
        try:
            attachment = await self._attachment(message)
        except _TooBig as too_big:
            await self._reply(chat.id, message, [TextReply(str(too_big), ephemeral=True)], place)
            return
        replied = message.reply_to_message
        ours = replied is not None and replied.from_user is not None and replied.from_user.id == context.bot.id
        reply_to = str(replied.message_id) if ours and replied is not None else ""
        incoming = Incoming.from_text(speaker, place, text, reply_to=reply_to, attachment=attachment)
        if not (incoming.command or incoming.text.strip() or attachment is not None):
            return
        # "typing…" only where we are addressed: group chatter the controller passes over must not show it
        async with self._typing(chat.id) if incoming.addressed else contextlib.nullcontext():
            replies = await self.controller.answer(incoming)
        await self._reply(chat.id, message, replies, place)

    async def _speaker_of(self, message: TgApiMessage, chat: Chat) -> Speaker | None:
        sender = message.from_user
        if message.sender_chat is not None and message.sender_chat.id == chat.id:
            # a channel post, or an anonymous admin writing as the group: only admins can do either
            return Speaker(user_key(chat.id), message.author_signature or chat.title or "", is_admin=True)
        if sender is None or sender.is_bot:
            return None
        is_admin = chat.type != ChatType.PRIVATE and await self.is_admin(chat.id, sender.id)
        return Speaker(user_key(sender.id), sender.full_name, is_admin=is_admin)

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        """Whether getChatMember says the user is the chat's creator or an administrator (kept for a minute)."""
        cached = self._admins.get((chat_id, user_id))
        if cached is not None:
            return cached
        try:
            member = await self.sender.bot.get_chat_member(chat_id, user_id)
        except TelegramError as error:
            log.warning("getChatMember(%s, %s) failed: %s", chat_id, user_id, error)
            return False
        return self._admins.put((chat_id, user_id), member.status in ADMIN_STATUSES)

    async def _attachment(self, message: TgApiMessage) -> Attachment | None:
        document = message.document
        if document is None:
            return None
        name = document.file_name or "attachment"
        if (document.file_size or 0) > MAX_ATTACHMENT_BYTES:
            raise _TooBig(f"{name[:60]} is too big for me to read; a profile file is a few KB.")
        file = await document.get_file()
        data = bytes(await file.download_as_bytearray())
        if len(data) > MAX_ATTACHMENT_BYTES:
            raise _TooBig(f"{name[:60]} is too big for me to read; a profile file is a few KB.")
        return Attachment(name, data)

    # --- buttons ---

    async def on_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A pressed inline button: to the controller; the toast always answers the press."""
        query = update.callback_query
        if query is None:
            return
        data = query.data or ""
        chat = query.message.chat if query.message is not None else None
        if not is_paperscout_button(data) or chat is None:
            await self._toast(query, "")
            return
        place = place_of(chat)
        is_admin = chat.type != ChatType.PRIVATE and await self.is_admin(chat.id, query.from_user.id)
        speaker = Speaker(user_key(query.from_user.id), query.from_user.full_name, is_admin=is_admin)
        replies = await self.controller.answer(Incoming(speaker, place, button=data))
        short = _short_toast(replies)
        if short is not None or not replies:
            await self._toast(query, short or "")
            return
        personal = data[len(BUTTON_PREFIX) :].partition(":")[0] in PAPER_ACTIONS
        if place.is_dm or not personal:
            await self._toast(query, "")
            await self._reply(chat.id, None, replies, place)
            return
        # a personal answer to a press in a group or channel goes to the presser's DM
        dm = Place(PLATFORM, str(query.from_user.id), is_dm=True)
        try:
            await self._send(query.from_user.id, None, replies, dm)
        except DeliveryError:
            await self._toast(query, f"Open a chat with @{context.bot.username} and press Start to see this.")
            return
        await self._toast(query, "Sent you a direct message.")

    async def _toast(self, query: CallbackQuery, text: str) -> None:
        try:
            await query.answer(text[:MAX_TOAST] or None)
        except TelegramError as error:  # an old press (over 15 minutes) can no longer be answered
            log.info("could not answer a button press: %s", error)

    # --- replies ---

    async def _reply(self, chat_id: int, message: TgApiMessage | None, replies: Sequence[Reply], place: Place) -> None:
        try:
            await self._send(chat_id, message, replies, place)
        except DeliveryError as error:
            log.warning("reply to chat %s not delivered: %s", chat_id, error)

    async def _send(self, chat_id: int, message: TgApiMessage | None, replies: Sequence[Reply], place: Place) -> None:
        quote = message.message_id if message is not None and not place.is_dm else None
        for reply in replies:
            if isinstance(reply, FileReply):
                await self._send_file(chat_id, message, reply, place)
                continue
            sent = await self.sender.send_many(chat_id, render(reply), reply_to=quote)
            quote = None
            if isinstance(reply, AnswerReply):
                for part in sent:
                    await self.controller.remember_message(place, str(part.message_id), reply)

    async def _send_file(self, chat_id: int, message: TgApiMessage | None, reply: FileReply, place: Place) -> None:
        caption = caption_html(reply.caption)
        if place.is_dm:
            await self.sender.send_document(chat_id, reply.name, reply.data, caption)
            return
        asker = message.from_user if message is not None else None
        if asker is None:
            return  # a channel has no one to send personal data to
        try:
            await self.sender.send_document(asker.id, reply.name, reply.data, caption)
            note = "I sent it to you in a direct message."
        except DeliveryError:
            note = "I only send that in a direct message: open a chat with me, press Start and ask there."
        await self.sender.send_many(chat_id, render(TextReply(note)), reply_to=message.message_id if message else None)

    @contextlib.asynccontextmanager
    async def _typing(self, chat_id: int) -> AsyncIterator[None]:
        """Show "typing…" in the chat until the block is done."""

        async def keep_typing() -> None:
            while True:
                with contextlib.suppress(TelegramError):
                    await self.sender.bot.send_chat_action(chat_id, ChatAction.TYPING)
                await asyncio.sleep(TYPING_EVERY_SECONDS)

        task = asyncio.create_task(keep_typing())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Log what a handler raised (PTB would otherwise print it without our logger's context)."""
        log.error("Telegram handler failed: %r", context.error, exc_info=context.error)


class _TooBig(Exception):
    """An attachment too big to download."""


def _short_toast(replies: Sequence[Reply]) -> str | None:
    """The text of an answer that is a button toast (one ephemeral text, cut to the toast's 200), else None."""
    if len(replies) == 1 and isinstance(replies[0], TextReply):
        reply = replies[0]
        if reply.ephemeral and not reply.cards and not reply.choices:
            return clip(reply.text, MAX_TOAST)
    return None
