"""Telegram updates in, controller replies out: the only place that knows both PTB and `bot.chat`.

`TelegramFrontEnd` is a `bot.chat.driver.ChatDriver`: the driver sends replies and digests with the core's policy,
this module gives it Telegram's primitives (send a message or a document, paced; what a Telegram error means) and
translates updates into `Incoming` (who: user key ``telegram:<user id>`` and whether getChatMember says they
administer the chat; where: the chat; what: a command, text, a reply to one of our messages, an attached file).
Where a reply goes: a reply to a message goes to the same chat (quoting it in groups); a button's short refusal is
its toast (200 characters); a paper button's answer pressed in a group or channel goes to the presser's DM; a file
(an export) is personal data and only ever goes to a DM. Telegram's errors: 429 waits its retry_after (once
`AIORateLimiter`'s own retries are spent), "can't parse entities" is our escaping bug (sent once more as plain
text), 403 and "chat not found" are a gone chat, `ChatMigrated` a group that became a supergroup, other 400s are
permanent, timeouts and network errors transient.
"""

from __future__ import annotations

import datetime as dt
import logging

from telegram import (
    CallbackQuery,
    Chat,
    Document,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    ReplyParameters,
    Update,
)
from telegram import Message as TgApiMessage
from telegram.constants import ChatAction, ChatType, MessageEntityType, ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError
from telegram.ext import Application, CallbackQueryHandler, ChatMemberHandler, ContextTypes, MessageHandler, filters

from bot.chat.answering import Posts
from bot.chat.controller import ChatController, typed
from bot.chat.driver import ChatDriver
from bot.chat.messages import FileReply, Incoming, Place, Speaker, Upload
from bot.chat.refusals import Failure
from bot.core import Core
from bot.digests.pacing import ChatPacer
from bot.digests.poster import moved
from bot.frontends.telegram.render import HTML, TgMessage, caption_html, message
from bot.views.layout import Page

log = logging.getLogger(__name__)

PLATFORM = "telegram"
ADMIN_STATUSES = frozenset({"creator", "administrator"})
REMOVED_STATUSES = frozenset({"kicked", "left"})
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


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


class TelegramFrontEnd(ChatDriver):
    """PTB handlers around one `ChatController`, and the digest poster (see the module docstring)."""

    platform, title, style = PLATFORM, "Telegram", HTML
    file_only_in_dm = "I only send that in a direct message: open a chat with me, press Start and ask there."

    def __init__(self, core: Core, controller: ChatController, application: Application, pacer: ChatPacer) -> None:
        super().__init__(core, controller)
        self.application, self.bot, self.chats = application, application.bot, pacer

    async def stop(self) -> None:
        """Stop polling, then the application, then release its resources (the reverse of `start_telegram`)."""
        app = self.application
        if app.updater is not None and app.updater.running:
            await app.updater.stop()
        if app.running:
            await app.stop()
        await app.shutdown()

    def register(self) -> None:
        """Add the handlers: messages and channel posts (not edits), button presses, and an error logger."""
        app = self.application
        app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, self.on_migrate))
        app.add_handler(MessageHandler(filters.UpdateType.MESSAGE | filters.UpdateType.CHANNEL_POST, self.on_message))
        app.add_handler(CallbackQueryHandler(self.on_button))
        app.add_handler(ChatMemberHandler(self.on_my_status, ChatMemberHandler.MY_CHAT_MEMBER))
        app.add_error_handler(self.on_error)

    # --- the driver's primitives ---

    def message(self, page: Page) -> TgMessage:
        """One packed page as a Telegram message."""
        return message(page)

    async def post(self, chat: str, message: object, *, reply_to: str = "", plain: bool = False) -> str:
        """sendMessage (HTML, or plain text) or sendDocument, in the chat's turn; the message id."""
        reply = ReplyParameters(int(reply_to), allow_sending_without_reply=True) if reply_to else None
        options = {"reply_parameters": reply} | ({} if plain else {"parse_mode": ParseMode.HTML})
        async with self.chats.turn(int(chat)):
            if isinstance(message, FileReply):
                caption = caption_html(message.caption) or None
                sent = await self.bot.send_document(int(chat), message.data, filename=message.name, caption=caption,
                                                    **options)  # fmt: skip
                return str(sent.message_id)
            assert isinstance(message, TgMessage)
            rows = [[InlineKeyboardButton(b.label, callback_data=b.value) for b in row] for row in message.keyboard]
            sent = await self.bot.send_message(
                int(chat), message.plain if plain else message.html, link_preview_options=NO_PREVIEW,
                reply_markup=InlineKeyboardMarkup(rows) if rows else None, **options,
            )  # fmt: skip
        return str(sent.message_id)

    def failure(self, error: Exception) -> Failure | None:
        """Telegram's errors in the core's terms (module docstring)."""
        if isinstance(error, RetryAfter):
            wait = error.retry_after
            seconds = wait.total_seconds() if isinstance(wait, dt.timedelta) else float(wait)
            return Failure("retry", f"flood control: {error}", retry_after=seconds)
        if isinstance(error, ChatMigrated):
            return Failure("moved", "became a supergroup", new_chat=str(error.new_chat_id))
        text = error.message if isinstance(error, TelegramError) else ""
        if isinstance(error, Forbidden) or (isinstance(error, BadRequest) and "chat not found" in text.lower()):
            return Failure("gone", text)
        if isinstance(error, BadRequest):
            return Failure("markup" if "can't parse entities" in text.lower() else "refused", text)
        return Failure("transient", f"request failed: {error}") if isinstance(error, TelegramError) else None

    async def show_busy(self, chat: str) -> None:
        """ "typing…" for 5 seconds."""
        await self.bot.send_chat_action(int(chat), ChatAction.TYPING)

    async def fetch_admin(self, chat: str, user: str) -> bool:
        """getChatMember: the chat's creator or an administrator."""
        return (await self.bot.get_chat_member(int(chat), int(user))).status in ADMIN_STATUSES

    # --- updates ---

    async def on_my_status(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The bot was blocked, kicked or removed: the chat's digest retires now, not at the next post."""
        change = update.my_chat_member
        if change is not None and change.new_chat_member.status in REMOVED_STATUSES:
            await self.gone(str(change.chat.id), f"the bot was {change.new_chat_member.status}")

    async def on_migrate(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group became a supergroup (Telegram says so in both chats): the digest follows the new chat id."""
        message = update.effective_message
        if message is not None and message.migrate_to_chat_id:
            await moved(self.core, PLATFORM, str(message.chat.id), str(message.migrate_to_chat_id))
        elif message is not None and message.migrate_from_chat_id:
            await moved(self.core, PLATFORM, str(message.migrate_from_chat_id), str(message.chat.id))

    async def on_message(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A message in a DM or group, or a channel post: to the controller, replies back to the chat."""
        message, chat = update.effective_message, update.effective_chat
        if message is None or chat is None or for_another_bot(message, context.bot.username):
            return
        speaker = await self._speaker_of(message, chat)
        if speaker is None:
            return
        place = place_of(chat)
        quote = "" if place.is_dm else str(message.message_id)
        replied = message.reply_to_message
        ours = replied is not None and replied.from_user is not None and replied.from_user.id == context.bot.id
        reply_to = str(replied.message_id) if ours and replied is not None else ""
        incoming = typed(speaker, place, message.text or message.caption or "", reply_to=reply_to)
        if incoming.command or incoming.text.strip() or message.document is not None:
            await self.hear(incoming, quote, upload=_upload(message.document) if message.document else None)

    async def _speaker_of(self, message: TgApiMessage, chat: Chat) -> Speaker | None:
        sender = message.from_user
        if message.sender_chat is not None and message.sender_chat.id == chat.id:
            # a channel post, or an anonymous admin writing as the group: only admins can do either
            return self.as_speaker(chat.id, message.author_signature or chat.title or "", is_admin=True)
        if message.sender_chat is not None:
            # another chat speaking here (a channel's post copied into its discussion group, `from` then Telegram's
            # own account; someone writing as their channel): no member of this place, nobody to answer
            return None
        if sender is None or sender.is_bot:
            return None
        is_admin = chat.type != ChatType.PRIVATE and await self.is_admin(str(chat.id), str(sender.id))
        return self.as_speaker(sender.id, sender.full_name, is_admin=is_admin)

    async def on_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A pressed inline button: to the controller (`ChatDriver.press`); the toast always answers the press."""
        query = update.callback_query
        if query is None:
            return
        chat, presser = query.message.chat if query.message is not None else None, query.from_user
        if chat is None:  # a press on an inline message: not one of ours
            await self._toast(query, "")
            return
        is_admin = chat.type != ChatType.PRIVATE and await self.is_admin(str(chat.id), str(presser.id))
        speaker = self.as_speaker(presser.id, presser.full_name, is_admin=is_admin)
        pressed = Incoming(speaker, place_of(chat), button=query.data or "")
        await self.press(pressed, Posts(self, pressed.place, toast=lambda text: self._toast(query, text)))

    async def _toast(self, query: CallbackQuery, text: str) -> None:
        try:
            await query.answer(text or None)
        except TelegramError as error:  # an old press (over 15 minutes) can no longer be answered
            log.info("could not answer a button press: %s", error)

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Log what a handler raised (PTB would otherwise print it without our logger's context)."""
        log.error("Telegram handler failed: %r", context.error, exc_info=context.error)


def _upload(document: Document) -> Upload:
    """The attached file with the size Telegram states, read by the driver (`ChatDriver.hear`) when that fits."""

    async def download() -> bytes:
        return bytes(await (await document.get_file()).download_as_bytearray())

    return Upload(document.file_name or "attachment", document.file_size, download)
