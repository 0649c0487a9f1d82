"""A fake Telegram Bot API server on 127.0.0.1: real HTTP, the real JSON shapes, Telegram's validation and limits.

Point the unmodified python-telegram-bot at it::

    with FakeTelegram() as fake:
        app = (
            ApplicationBuilder().token(fake.token).base_url(fake.base_url).base_file_url(fake.base_file_url)
            .rate_limiter(AIORateLimiter()).build()
        )
        alice = fake.add_user(1001, "Alice")
        fake.add_group(-100200, "Reading group", admins=[alice["id"]])
        fake.inject_message(-100200, alice["id"], "/setup cs.LG")
        ...  # start the app (initialize, start, updater.start_polling)
        sent = await fake.wait_for_sent(-100200)
        assert sent[0].text.startswith("Setup")

Served routes: ``/bot<token>/<method>`` (GET query, form-encoded or JSON POST, multipart for uploads, method names
case-insensitive like Telegram's) and ``/file/bot<token>/<file_path>`` for downloads. Methods: getMe, getUpdates
(offset, limit, timeout long polling, allowed_updates; a newer call ends an older waiting one with 409 Conflict),
deleteWebhook, getWebhookInfo, setWebhook (updates are then POSTed to the bot's URL in order, with the secret
token header, retried with back-off until accepted; plain http is accepted for loopback URLs only, so tests need no
TLS), sendMessage, editMessageText, editMessageReplyMarkup, answerCallbackQuery,
getChatMember, getChatAdministrators, sendChatAction, sendDocument, getFile, setMyCommands, getMyCommands,
deleteMyCommands. Anything else is 404 "Not Found", a wrong token 401 "Unauthorized", as Telegram answers.

What it validates like Telegram (400 "Bad Request: ..."): HTML parse mode (`tests.fakes.telegram_html`), text
1-4,096 and captions 0-1,024 UTF-16 units after entity parsing, callback_data 1-64 bytes (BUTTON_DATA_INVALID),
unknown chats, messages and callback queries, editing to the same content, a bot without rights in a channel, chat
actions. Like Telegram it finds @username mentions in what the bot sends (returned as "mention" entities: they
notify that user). 403 for a user who blocked the bot, was deactivated or never started it, and for a group the bot was
kicked from (`block`, `deactivate`, `kick`). 429 with ``parameters.retry_after`` from a scripted `Fault` or from a
`RatePolicy` (30 messages/s overall, 1/s per chat, 20/minute per group or channel; off unless given).

Tests drive the other side: `add_user`, `add_group`, `add_channel`, `open_private_chat`, `set_member_status`,
`block`, `deactivate`, `kick`, `unblock`, `set_rate_policy`, `inject_message` (commands get bot_command entities;
group messages are filtered by privacy mode unless the bot is an admin), `inject_anonymous_admin_message`,
`inject_channel_post`, `inject_automatic_forward`, `inject_document`,
`press_button`; and read what the bot did: `sent`, `wait_for_sent`, `wait_until`, `chat_actions`,
`callback_answers`, `callback_answered`, `calls`, `commands`, `webhook_deliveries`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.parser
import email.policy
import hashlib
import itertools
import json
import math
import re
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Literal
from urllib.parse import parse_qs, unquote, urlsplit

from tests.fakes.loopback import LoopbackFake
from tests.fakes.telegram_html import EntityParseError, parse_html, utf16_length

TEST_TOKEN = "123456789:AAFakePaperscoutTestToken0123456789ab"
# the user Telegram puts in `from` of a message an anonymous group admin sends on behalf of the group
GROUP_ANONYMOUS_BOT = {"id": 1087968824, "is_bot": True, "first_name": "Group", "username": "GroupAnonymousBot"}
# the user Telegram puts in `from` of a channel's post it copies into the channel's linked discussion group
TELEGRAM_SERVICE = {"id": 777000, "is_bot": False, "first_name": "Telegram"}

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_CALLBACK_DATA = 64
MAX_CALLBACK_ANSWER = 200
MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024
MAX_POLL_SECONDS = 50.0
CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
# Telegram's default when a bot never named allowed_updates.
DEFAULT_UPDATE_KINDS = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "callback_query",
        "my_chat_member",
        "inline_query",
        "chosen_inline_result",
    }
)
SENDING_METHODS = frozenset({"sendMessage", "sendDocument"})
_COMMAND = re.compile(r"(?<![\w/])/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?")
_BOT_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")
_MENTION = re.compile(r"(?<![\w@])@[A-Za-z][A-Za-z0-9_]{3,31}\b")

FaultKind = Literal["error", "html_error", "delay", "disconnect", "malformed"]
ChatKind = Literal["private", "group", "supergroup", "channel"]


# --- faults and rate limits ---


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour of the fake. Build with the class methods; narrow to a method with `on`."""

    kind: FaultKind
    status: int = 500
    description: str = ""
    retry_after: int | None = None
    seconds: float = 0.0
    endpoint: str | None = None  # a Bot API method name, e.g. "sendMessage"

    @classmethod
    def rate_limit(cls, retry_after: int = 1) -> Fault:
        """429 "Too Many Requests: retry after N" with ``parameters.retry_after`` (PTB raises RetryAfter)."""
        return cls(
            "error", status=429, description=f"Too Many Requests: retry after {retry_after}", retry_after=retry_after
        )

    @classmethod
    def bad_request(cls, description: str) -> Fault:
        """400 with "Bad Request: <description>"."""
        return cls("error", status=400, description=f"Bad Request: {description}")

    @classmethod
    def forbidden(cls, description: str = "bot was blocked by the user") -> Fault:
        """403 with "Forbidden: <description>"."""
        return cls("error", status=403, description=f"Forbidden: {description}")

    @classmethod
    def server_error(cls, status: int = 500, description: str = "Internal Server Error") -> Fault:
        """A 5xx in Telegram's JSON envelope."""
        return cls("error", status=status, description=description)

    @classmethod
    def bad_gateway(cls) -> Fault:
        """502 with an HTML page, as Telegram's front end answers when the API behind it is down."""
        return cls("html_error", status=502)

    @classmethod
    def delay(cls, seconds: float) -> Fault:
        """Answer normally after `seconds` (longer than the client's timeout to provoke one)."""
        return cls("delay", seconds=seconds)

    @classmethod
    def disconnect(cls) -> Fault:
        """Close the connection without answering."""
        return cls("disconnect")

    @classmethod
    def malformed(cls) -> Fault:
        """HTTP 200 whose body is not JSON."""
        return cls("malformed", status=200)

    def on(self, method: str) -> Fault:
        """The same fault, applied only to calls of one Bot API method (any capitalisation)."""
        return dataclasses.replace(self, endpoint=_canonical(method))


@dataclass(frozen=True)
class RatePolicy:
    """Telegram's flood limits on sent messages; None switches one off. Breaking one answers 429."""

    overall_per_second: int | None = 30
    per_chat_per_second: int | None = 1
    per_group_per_minute: int | None = 20

    @classmethod
    def telegram(cls) -> RatePolicy:
        """The documented limits: 30 messages/s overall, 1/s per chat, 20/minute per group or channel."""
        return cls()


class _RateMeter:
    """Sliding windows over successful sends; answers how long to wait when a new one would break a limit."""

    def __init__(self, policy: RatePolicy) -> None:
        self.policy = policy
        self._overall: deque[float] = deque()
        self._chat: dict[int, deque[float]] = {}
        self._group: dict[int, deque[float]] = {}

    def retry_after(self, chat_id: int, is_group: bool, now: float) -> int | None:
        waits = [
            _window_wait(self._overall, self.policy.overall_per_second, 1.0, now),
            _window_wait(self._chat.setdefault(chat_id, deque()), self.policy.per_chat_per_second, 1.0, now),
        ]
        if is_group:
            waits.append(
                _window_wait(self._group.setdefault(chat_id, deque()), self.policy.per_group_per_minute, 60.0, now)
            )
        longest = max((w for w in waits if w is not None), default=None)
        return None if longest is None else max(1, math.ceil(longest))

    def note(self, chat_id: int, is_group: bool, now: float) -> None:
        self._overall.append(now)
        self._chat.setdefault(chat_id, deque()).append(now)
        if is_group:
            self._group.setdefault(chat_id, deque()).append(now)


def _window_wait(times: deque[float], limit: int | None, window: float, now: float) -> float | None:
    if limit is None:
        return None
    while times and times[0] <= now - window:
        times.popleft()
    if len(times) < limit:
        return None
    return times[-limit] + window - now


# --- what tests read ---


@dataclass(frozen=True)
class ApiCall:
    """One Bot API request as the fake saw it and answered it."""

    method: str  # canonical name, e.g. "sendMessage"
    params: dict[str, Any]  # decoded: nested JSON parsed, uploads as (file name, size)
    status: int
    description: str  # the error description, "" on success
    fault: str | None
    at: float = field(repr=False)  # time.monotonic() on arrival

    @property
    def chat_id(self) -> int | str | None:
        """The chat the call was about, as sent."""
        value = self.params.get("chat_id")
        return _chat_ref(value) if value is not None else None


@dataclass(frozen=True)
class SentDocument:
    """A file the bot sent."""

    file_name: str
    content: bytes
    mime_type: str


@dataclass(frozen=True)
class SentMessage:
    """A message the bot sent, in its current state (after edits)."""

    chat_id: int
    message_id: int
    text: str  # what users see: entities parsed, caption for a document
    entities: tuple[dict[str, Any], ...]
    html: str | None  # the text as the bot sent it, when parse_mode was HTML
    reply_markup: dict[str, Any] | None
    reply_to_message_id: int | None
    document: SentDocument | None
    edits: int
    at: float = field(repr=False)

    @property
    def buttons(self) -> list[dict[str, Any]]:
        """Inline keyboard buttons, row by row."""
        rows = (self.reply_markup or {}).get("inline_keyboard") or []
        return [button for row in rows for button in row]

    @property
    def callback_data(self) -> list[str]:
        """The callback_data of every inline button that has one."""
        return [b["callback_data"] for b in self.buttons if "callback_data" in b]

    def entity_texts(self, kind: str) -> list[str]:
        """The text covered by each entity of one type (e.g. "bold", "text_link")."""
        units = self.text.encode("utf-16-le")
        return [
            units[2 * e["offset"] : 2 * (e["offset"] + e["length"])].decode("utf-16-le")
            for e in self.entities
            if e["type"] == kind
        ]


class ApiError(Exception):
    """An answer with ok=false; carries Telegram's status, description and parameters."""

    def __init__(self, status: int, description: str, parameters: dict[str, Any] | None = None) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters


def _bad(description: str) -> ApiError:
    return ApiError(400, f"Bad Request: {description}")


def _forbidden(description: str) -> ApiError:
    return ApiError(403, f"Forbidden: {description}")


# --- state ---


@dataclass
class _StoredFile:
    file_id: str
    file_unique_id: str
    file_path: str
    content: bytes
    file_name: str
    mime_type: str


@dataclass
class _Chat:
    info: dict[str, Any]  # the Chat object
    members: dict[int, str] = field(default_factory=dict)  # user id -> creator | administrator | member | ...
    bot_status: str = "member"  # member | administrator | left | kicked
    forbidden: str | None = None  # the 403 description sends get (blocked, deactivated, kicked)
    started: bool = True  # private chats: the user pressed Start (or wrote) once
    migrated_to: int | None = None  # a basic group upgraded to this supergroup id
    messages: dict[int, dict[str, Any]] = field(default_factory=dict)
    html: dict[int, str | None] = field(default_factory=dict)
    sent_at: dict[int, float] = field(default_factory=dict)
    edits: dict[int, int] = field(default_factory=dict)
    documents: dict[int, SentDocument] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)
    next_message_id: int = 1

    @property
    def kind(self) -> str:
        return str(self.info["type"])

    @property
    def is_group(self) -> bool:
        return self.kind in ("group", "supergroup", "channel")


@dataclass
class _Callback:
    query: dict[str, Any]
    answered: bool = False
    answer: dict[str, Any] | None = None


@dataclass
class _Webhook:
    url: str
    secret_token: str
    max_connections: int
    last_error: str = ""
    last_error_date: int = 0
    delivered: list[int] = field(default_factory=list)  # update ids the bot's server accepted


# --- the server ---


class FakeTelegram(LoopbackFake[Fault, ApiCall]):
    """The Bot API and its file downloads in a background thread on an ephemeral 127.0.0.1 port."""

    thread_name = "fake-telegram"

    def __init__(
        self,
        token: str = TEST_TOKEN,
        *,
        bot_username: str = "paperscout_test_bot",
        bot_name: str = "paperscout",
        privacy_mode: bool = True,
        rate_policy: RatePolicy | None = None,
        latency_seconds: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        """A bot `token` (its number is the bot's user id); `rate_policy` None sends without flood limits."""
        super().__init__(host, port)
        self.token = token
        self.privacy_mode = privacy_mode
        self.latency_seconds = latency_seconds
        self.bot_user = {
            "id": int(token.split(":", 1)[0]),
            "is_bot": True,
            "first_name": bot_name,
            "username": bot_username,
        }
        self._state = threading.Condition(threading.RLock())
        self._rates = _RateMeter(rate_policy) if rate_policy else None
        self._users: dict[int, dict[str, Any]] = {}
        self._chats: dict[int, _Chat] = {}
        self._files: dict[str, _StoredFile] = {}
        self._callbacks: dict[str, _Callback] = {}
        self._callback_answers: list[dict[str, Any]] = []
        self._updates: list[dict[str, Any]] = []
        self._delivered: set[int] = set()
        self._allowed_updates: frozenset[str] = DEFAULT_UPDATE_KINDS
        self._commands: dict[tuple[str, str], list[dict[str, str]]] = {}
        self._poll_generation = 0
        self._webhook: _Webhook | None = None
        self._webhook_thread: threading.Thread | None = None
        self._ids = itertools.count(1)
        self._next_update_id = 700000001

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _Handler

    @property
    def base_url(self) -> str:
        """What ``ApplicationBuilder().base_url`` takes (PTB appends the token)."""
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        """What ``ApplicationBuilder().base_file_url`` takes."""
        return f"{self.url}/file/bot"

    def set_rate_policy(self, policy: RatePolicy | None) -> None:
        """Start (or with None stop) enforcing flood limits; the windows start empty."""
        with self._state:
            self._rates = _RateMeter(policy) if policy else None

    # --- the world: users and chats ---

    def add_user(
        self,
        user_id: int,
        first_name: str,
        *,
        username: str | None = None,
        last_name: str | None = None,
        language_code: str | None = "en",
    ) -> dict[str, Any]:
        """A Telegram user (the User object); their private chat with the bot exists once they write to it."""
        user: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": first_name}
        if last_name:
            user["last_name"] = last_name
        if username:
            user["username"] = username
        if language_code:
            user["language_code"] = language_code
        with self._state:
            self._users[user_id] = user
        return user

    def add_group(
        self,
        chat_id: int,
        title: str,
        *,
        creator: int | None = None,
        admins: Iterable[int] = (),
        members: Iterable[int] = (),
        supergroup: bool = True,
        bot_admin: bool = False,
    ) -> dict[str, Any]:
        """A group (supergroup by default) with the bot in it; user ids must have been added with `add_user`."""
        if chat_id >= 0:
            raise ValueError("group chat ids are negative")
        info = {"id": chat_id, "type": "supergroup" if supergroup else "group", "title": title}
        return self._add_chat(info, creator, admins, members, "administrator" if bot_admin else "member")

    def add_channel(
        self,
        chat_id: int,
        title: str,
        *,
        username: str | None = None,
        creator: int | None = None,
        admins: Iterable[int] = (),
        bot_admin: bool = True,
    ) -> dict[str, Any]:
        """A channel; the bot must be an administrator to post (``bot_admin``)."""
        if chat_id >= 0:
            raise ValueError("channel chat ids are negative")
        info: dict[str, Any] = {"id": chat_id, "type": "channel", "title": title}
        if username:
            info["username"] = username
        return self._add_chat(info, creator, admins, (), "administrator" if bot_admin else "member")

    def _add_chat(
        self, info: dict[str, Any], creator: int | None, admins: Iterable[int], members: Iterable[int], bot: str
    ) -> dict[str, Any]:
        with self._state:
            roles = {uid: "member" for uid in members} | {uid: "administrator" for uid in admins}
            if creator is not None:
                roles[creator] = "creator"
            for uid in roles:
                self._user(uid)
            self._chats[info["id"]] = _Chat(info=info, members=roles, bot_status=bot)
        return info

    def migrate_group(self, chat_id: int, new_chat_id: int) -> dict[str, Any]:
        """A basic group is upgraded to a supergroup under `new_chat_id`, like Telegram: members and the bot move,
        a service message in each chat says so (`migrate_to_chat_id` / `migrate_from_chat_id`), and every method
        sent to the old id answers 400 with ``parameters.migrate_to_chat_id``. Returns the new Chat."""
        with self._state:
            old = self._chat(chat_id)
            if old.kind != "group":
                raise ValueError("only a basic group can be upgraded to a supergroup")
            info = {"id": new_chat_id, "type": "supergroup", "title": old.info["title"]}
            self._chats[new_chat_id] = _Chat(info=info, members=dict(old.members), bot_status=old.bot_status)
            old.migrated_to = new_chat_id
            actor = self._users.get(next(iter(old.members), 0), self.bot_user)
            for chat, field_name, other in (
                (old, "migrate_to_chat_id", new_chat_id),
                (self._chats[new_chat_id], "migrate_from_chat_id", chat_id),
            ):
                message = self._new_message(chat, actor, None)
                message[field_name] = other
                chat.messages[message["message_id"]] = message
                self._push("message", message)
            return info

    def open_private_chat(self, user_id: int) -> dict[str, Any]:
        """The user has pressed Start before (no update now): the bot may write to them; returns the Chat."""
        with self._state:
            chat = self._chats.get(user_id) or self._private_chat(self._user(user_id), started=True)
            chat.started = True
            return chat.info

    def set_member_status(self, chat_id: int, user_id: int, status: str) -> None:
        """Change a user's role in a group or channel: creator, administrator, member, left or kicked."""
        with self._state:
            self._chat(chat_id).members[user_id] = status

    def block(self, user_id: int) -> None:
        """The user blocks the bot: sends to them get 403 "bot was blocked by the user"."""
        self._set_forbidden(user_id, "bot was blocked by the user", "kicked")

    def deactivate(self, user_id: int) -> None:
        """The user deletes their account: 403 "user is deactivated"."""
        self._set_forbidden(user_id, "user is deactivated", "kicked")

    def kick(self, chat_id: int) -> None:
        """The bot is removed from a group or channel: 403 "bot was kicked from the <kind> chat"."""
        with self._state:
            kind = self._chat(chat_id).kind
        self._set_forbidden(chat_id, f"bot was kicked from the {kind} chat", "kicked")

    def unblock(self, chat_id: int) -> None:
        """Undo `block`/`kick`: sending works again."""
        with self._state:
            chat = self._chat(chat_id)
            chat.forbidden = None
            self._set_bot_status(chat, "administrator" if chat.kind == "channel" else "member")

    def _set_forbidden(self, chat_id: int, description: str, status: str) -> None:
        with self._state:
            chat = self._chats.get(chat_id)
            if chat is None:  # a user who never wrote can still block the bot
                chat = self._private_chat(self._user(chat_id), started=False)
            chat.forbidden = description
            self._set_bot_status(chat, status)

    def _set_bot_status(self, chat: _Chat, status: str) -> None:
        old, chat.bot_status = chat.bot_status, status
        actor = chat.info["id"] if chat.kind == "private" else next(iter(chat.members), None)
        self._push(
            "my_chat_member",
            {
                "chat": chat.info,
                "from": self._users.get(actor or 0, self.bot_user),
                "date": int(time.time()),
                "old_chat_member": {"status": old, "user": self.bot_user, **_member_extras(old)},
                "new_chat_member": {"status": status, "user": self.bot_user, **_member_extras(status)},
            },
        )

    # --- updates from users ---

    def inject_message(
        self,
        chat_id: int,
        user_id: int,
        text: str,
        *,
        reply_to: int | None = None,
        entities: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """A user writes in a private chat (``chat_id == user_id``) or a group; returns the Message.

        Commands get bot_command entities like Telegram's. In a group with privacy mode on and the bot not an
        admin, the bot only receives commands, replies to its messages and mentions of it, like Telegram.
        """
        with self._state:
            user = self._user(user_id)
            chat = self._chat_for_user_message(chat_id, user)
            return self._said(chat, self._new_message(chat, user, reply_to), text, entities)

    def _said(
        self, chat: _Chat, message: dict[str, Any], text: str, entities: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """`message` says `text` in `chat` (commands get bot_command entities, as Telegram gives them, unless
        `entities` are given): stored, and sent to the bot when it hears it there (`_bot_hears`); returns it."""
        message["text"] = text
        found = entities if entities is not None else _command_entities(text)
        if found:
            message["entities"] = found
        chat.messages[message["message_id"]] = message
        if self._bot_hears(chat, message):
            self._push("message", message)
        return message

    def inject_anonymous_admin_message(
        self, chat_id: int, admin_id: int, text: str, *, author_signature: str | None = None
    ) -> dict[str, Any]:
        """An admin of a group who stays anonymous writes: Telegram sends it on behalf of the group (``sender_chat``
        is the group, ``from`` is @GroupAnonymousBot) and never says who wrote it; returns the Message."""
        with self._state:
            chat = self._chat(chat_id)
            if chat.kind == "private" or chat.kind == "channel":
                raise ValueError(f"chat {chat_id} is not a group")
            if chat.members.get(admin_id) not in ("creator", "administrator"):
                raise ValueError(f"user {admin_id} is no admin of chat {chat_id}: only admins can be anonymous")
            message = self._new_message(chat, dict(GROUP_ANONYMOUS_BOT), None)
            message["sender_chat"] = chat.info
            if author_signature:
                message["author_signature"] = author_signature
            return self._said(chat, message, text)

    def inject_document(
        self,
        chat_id: int,
        user_id: int,
        file_name: str,
        content: bytes,
        *,
        mime_type: str = "application/octet-stream",
        caption: str | None = None,
        reply_to: int | None = None,
    ) -> dict[str, Any]:
        """A user sends a file (fetchable with getFile and the download route); returns the Message."""
        with self._state:
            user = self._user(user_id)
            chat = self._chat_for_user_message(chat_id, user)
            stored = self._store_file(content, file_name, mime_type)
            message = self._new_message(chat, user, reply_to)
            message["document"] = _document_object(stored)
            if caption:
                message["caption"] = caption
                found = _command_entities(caption)
                if found:
                    message["caption_entities"] = found
            chat.messages[message["message_id"]] = message
            if self._bot_hears(chat, message):
                self._push("message", message)
            return message

    def inject_channel_post(self, chat_id: int, text: str, *, author_signature: str | None = None) -> dict[str, Any]:
        """A post in a channel (no sender user, like Telegram's channel_post); returns the Message."""
        with self._state:
            chat = self._chat(chat_id)
            if chat.kind != "channel":
                raise ValueError(f"chat {chat_id} is not a channel")
            message = {
                "message_id": self._take_message_id(chat),
                "sender_chat": chat.info,
                "chat": chat.info,
                "date": int(time.time()),
                "text": text,
            }
            if author_signature:
                message["author_signature"] = author_signature
            found = _command_entities(text)
            if found:
                message["entities"] = found
            chat.messages[message["message_id"]] = message
            if chat.bot_status == "administrator":
                self._push("channel_post", message)
            return message

    def inject_automatic_forward(self, group_id: int, channel_id: int, text: str) -> dict[str, Any]:
        """A post in a channel as Telegram copies it into the channel's linked discussion group: sent on behalf of the
        channel (``sender_chat``), ``from`` the Telegram service account (777000, no bot), ``is_automatic_forward``;
        returns the group's Message."""
        with self._state:
            group, channel = self._chat(group_id), self._chat(channel_id)
            if group.kind == "private" or group.kind == "channel" or channel.kind != "channel":
                raise ValueError(f"chat {group_id} is no group, or chat {channel_id} no channel")
            origin = {"type": "channel", "chat": channel.info, "message_id": self._take_message_id(channel)}
            message = self._new_message(group, dict(TELEGRAM_SERVICE), None)
            origin["date"] = message["date"]
            message.update(sender_chat=channel.info, is_automatic_forward=True, forward_origin=origin)
            return self._said(group, message, text)

    def press_button(self, chat_id: int, message_id: int, user_id: int, data: str, *, forged: bool = False) -> str:
        """A user presses an inline button of a bot message; returns the callback query id.

        `data` must be one of the message's buttons unless `forged` (a modified client can send anything).
        """
        with self._state:
            user = self._user(user_id)
            chat = self._chat(chat_id)
            message = chat.messages.get(message_id)
            if message is None:
                raise KeyError(f"no message {message_id} in chat {chat_id}")
            buttons = [b for row in (message.get("reply_markup") or {}).get("inline_keyboard", []) for b in row]
            if not forged and data not in [b.get("callback_data") for b in buttons]:
                raise ValueError(f"message {message_id} has no button with callback_data {data!r}")
            query_id = str(4_000_000_000_000 + next(self._ids))
            query = {
                "id": query_id,
                "from": user,
                "message": message,
                "chat_instance": str(abs(chat_id) * 7 + 3),
                "data": data,
            }
            self._callbacks[query_id] = _Callback(query)
            self._push("callback_query", query)
            return query_id

    # --- what the bot did ---

    def sent(self, chat_id: int | None = None) -> list[SentMessage]:
        """Messages the bot sent (to one chat, or to all in send order), as they are now."""
        with self._state:
            chats = [self._chat(chat_id)] if chat_id is not None else list(self._chats.values())
            found = [self._view(chat, mid) for chat in chats for mid in chat.html]
        return sorted(found, key=lambda m: m.at)

    async def wait_for_sent(
        self, chat_id: int | None = None, count: int = 1, within: float = 10.0
    ) -> list[SentMessage]:
        """Wait (without blocking the event loop) until the bot has sent at least `count` messages there."""
        await self.wait_until(lambda: len(self.sent(chat_id)) >= count, within, f"{count} message(s) to {chat_id}")
        return self.sent(chat_id)

    async def wait_until(self, condition: Callable[[], bool], within: float = 10.0, what: str = "condition") -> None:
        """Poll `condition` every 20 ms until true; AssertionError after `within` seconds."""
        deadline = time.monotonic() + within
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {within} s waiting for {what}")
            await asyncio.sleep(0.02)

    def chat_actions(self, chat_id: int) -> list[str]:
        """Chat actions (e.g. "typing") the bot sent to a chat, in order."""
        with self._state:
            return list(self._chat(chat_id).actions)

    @property
    def callback_answers(self) -> list[dict[str, Any]]:
        """answerCallbackQuery calls that succeeded: callback_query_id, text, show_alert."""
        with self._state:
            return list(self._callback_answers)

    def callback_answered(self, query_id: str) -> bool:
        """Whether the bot answered a callback query (Telegram clients spin until it does)."""
        with self._state:
            return self._callbacks[query_id].answered

    def calls(self, method: str | None = None) -> list[ApiCall]:
        """Bot API calls in arrival order, optionally of one method."""
        wanted = _canonical(method) if method else None
        return [c for c in sorted(self.requests, key=lambda c: c.at) if wanted is None or c.method == wanted]

    def commands(self, scope: str = "default", language_code: str = "") -> list[dict[str, str]]:
        """The command list set with setMyCommands for a scope type."""
        with self._state:
            return list(self._commands.get((scope, language_code), []))

    def pending_updates(self) -> int:
        """Updates not confirmed by the bot yet (an offset past them)."""
        with self._state:
            return len(self._updates)

    def file_content(self, file_id: str) -> bytes:
        """The bytes behind a file_id (uploaded by the bot or injected)."""
        with self._state:
            return self._files[file_id].content

    # --- internals: state (call with self._state held) ---

    def _user(self, user_id: int) -> dict[str, Any]:
        user = self._users.get(user_id)
        if user is None:
            raise KeyError(f"unknown user {user_id}: add_user first")
        return user

    def _chat(self, chat_id: int) -> _Chat:
        chat = self._chats.get(chat_id)
        if chat is None:
            raise KeyError(f"unknown chat {chat_id}")
        return chat

    def _private_chat(self, user: dict[str, Any], *, started: bool) -> _Chat:
        info = {"id": user["id"], "type": "private", "first_name": user["first_name"]}
        for key in ("last_name", "username"):
            if key in user:
                info[key] = user[key]
        chat = _Chat(info=info, members={user["id"]: "member"}, started=started)
        self._chats[user["id"]] = chat
        return chat

    def _chat_for_user_message(self, chat_id: int, user: dict[str, Any]) -> _Chat:
        if chat_id == user["id"]:
            chat = self._chats.get(chat_id) or self._private_chat(user, started=True)
            if chat.forbidden == "user is deactivated":
                raise ValueError(f"user {chat_id} is deactivated")
            if chat.forbidden is not None:  # writing to the bot again means the user unblocked it
                chat.forbidden = None
                self._set_bot_status(chat, "member")
            chat.started = True
            return chat
        chat = self._chat(chat_id)
        if chat.kind == "channel":
            raise ValueError("users do not send messages to channels: use inject_channel_post")
        if chat.members.get(user["id"]) in (None, "left", "kicked"):
            raise ValueError(f"user {user['id']} is not a member of chat {chat_id}")
        return chat

    def _new_message(self, chat: _Chat, user: dict[str, Any], reply_to: int | None) -> dict[str, Any]:
        message: dict[str, Any] = {
            "message_id": self._take_message_id(chat),
            "from": user,
            "chat": chat.info,
            "date": int(time.time()),
        }
        if reply_to is not None:
            message["reply_to_message"] = _without_reply(self._message(chat, reply_to, "message to reply to"))
        return message

    def _take_message_id(self, chat: _Chat) -> int:
        message_id = chat.next_message_id
        chat.next_message_id += 1
        return message_id

    def _message(self, chat: _Chat, message_id: int, what: str) -> dict[str, Any]:
        message = chat.messages.get(message_id)
        if message is None:
            raise KeyError(f"no {what} {message_id} in chat {chat.info['id']}")
        return message

    def _bot_hears(self, chat: _Chat, message: dict[str, Any]) -> bool:
        if chat.kind == "private" or not self.privacy_mode or chat.bot_status == "administrator":
            return chat.bot_status not in ("left", "kicked")
        if chat.bot_status in ("left", "kicked"):
            return False
        text = message.get("text") or message.get("caption") or ""
        entities = message.get("entities") or message.get("caption_entities") or []
        mention = f"@{self.bot_user['username']}".lower()
        for entity in entities:
            if entity["type"] == "bot_command":
                command = _utf16_slice(text, entity["offset"], entity["length"])
                if "@" not in command or command.lower().endswith(mention):
                    return True
        replied = message.get("reply_to_message") or {}
        return (replied.get("from") or {}).get("id") == self.bot_user["id"] or mention in text.lower()

    def _push(self, kind: str, payload: dict[str, Any]) -> None:
        with self._state:
            update = {"update_id": self._next_update_id, kind: payload}
            self._next_update_id += 1
            self._updates.append(update)
            self._state.notify_all()

    def _store_file(self, content: bytes, file_name: str, mime_type: str) -> _StoredFile:
        number = next(self._ids)
        unique = hashlib.sha1(content + str(number).encode()).hexdigest()[:16]
        folder = "photos" if mime_type.startswith("image/") else "documents"
        suffix = file_name.rsplit(".", 1)[-1] if "." in file_name else "bin"
        stored = _StoredFile(
            file_id=f"BQACAgQAAx{unique}{number:06d}",
            file_unique_id=f"AgAD{unique[:8]}",
            file_path=f"{folder}/file_{number}.{suffix}",
            content=content,
            file_name=file_name,
            mime_type=mime_type,
        )
        self._files[stored.file_id] = stored
        return stored

    def _view(self, chat: _Chat, message_id: int) -> SentMessage:
        message = chat.messages[message_id]
        document = chat.documents.get(message_id)
        return SentMessage(
            chat_id=chat.info["id"],
            message_id=message_id,
            text=message.get("text", message.get("caption", "")),
            entities=tuple(message.get("entities", message.get("caption_entities", []))),
            html=chat.html[message_id],
            reply_markup=message.get("reply_markup"),
            reply_to_message_id=(message.get("reply_to_message") or {}).get("message_id"),
            document=document,
            edits=chat.edits.get(message_id, 0),
            at=chat.sent_at[message_id],
        )

    # --- internals: getUpdates ---

    def _poll(self, offset: int | None, limit: int, timeout: float, allowed: Iterable[str] | None) -> list[Any]:
        deadline = time.monotonic() + min(timeout, MAX_POLL_SECONDS)
        with self._state:
            self._poll_generation += 1
            generation = self._poll_generation
            self._state.notify_all()  # an older waiting call ends with 409
            if allowed is not None:
                self._allowed_updates = frozenset(allowed) or DEFAULT_UPDATE_KINDS
            if offset is not None:
                if offset < 0:
                    self._updates = self._updates[offset:]
                else:
                    self._updates = [u for u in self._updates if u["update_id"] >= offset]
            while True:
                if self._poll_generation != generation:
                    raise ApiError(
                        409,
                        "Conflict: terminated by other getUpdates request; "
                        "make sure that only one bot instance is running",
                    )
                # Kinds the bot did not ask for are never delivered, like Telegram's.
                self._updates = [u for u in self._updates if _update_kind(u) in self._allowed_updates]
                ready = self._updates[:limit]
                remaining = deadline - time.monotonic()
                if ready or remaining <= 0 or self._stopping.is_set():
                    self._delivered.update(u["update_id"] for u in ready)
                    return ready
                self._state.wait(min(remaining, 0.1))

    # --- internals: the methods ---

    def _call(self, method: str, params: dict[str, Any]) -> Any:
        handler = _METHODS.get(method)
        if handler is None:
            raise ApiError(404, "Not Found")
        return handler(self, params)

    def _target(self, params: Mapping[str, Any], *, sending: bool) -> _Chat:
        """The chat a method addresses, with Telegram's 400/403 answers."""
        if params.get("chat_id") in (None, ""):
            raise _bad("chat_id is empty")
        ref = _chat_ref(params["chat_id"])
        chat: _Chat | None
        if isinstance(ref, str):
            chat = next((c for c in self._chats.values() if f"@{c.info.get('username', '')}" == ref), None)
        else:
            chat = self._chats.get(ref)
        if chat is None and ref in self._users:
            raise _forbidden("bot can't initiate conversation with a user")
        if chat is None:
            raise _bad("chat not found")
        if chat.migrated_to is not None:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to},
            )
        if chat.forbidden is not None:
            raise _forbidden(chat.forbidden)
        if chat.kind == "private" and not chat.started:
            raise _forbidden("bot can't initiate conversation with a user")
        if chat.bot_status == "left":
            raise _forbidden(f"bot is not a member of the {chat.kind} chat")
        if sending and chat.kind == "channel" and chat.bot_status != "administrator":
            raise _bad("need administrator rights in the channel chat")
        return chat

    def _check_rate(self, chat: _Chat) -> None:
        if self._rates is None:
            return
        now = time.monotonic()
        wait = self._rates.retry_after(chat.info["id"], chat.is_group, now)
        if wait is not None:
            raise ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})

    def _note_send(self, chat: _Chat) -> None:
        if self._rates is not None:
            self._rates.note(chat.info["id"], chat.is_group, time.monotonic())

    def _record_sent(
        self, chat: _Chat, message: dict[str, Any], html: str | None, document: SentDocument | None = None
    ) -> None:
        message_id = message["message_id"]
        chat.messages[message_id] = message
        chat.html[message_id] = html
        chat.sent_at[message_id] = time.monotonic()
        if document is not None:
            chat.documents[message_id] = document

    def _bot_message(self, chat: _Chat, params: Mapping[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"message_id": self._take_message_id(chat), "date": int(time.time())}
        if chat.kind == "channel":
            message["sender_chat"] = chat.info
        else:
            message["from"] = self.bot_user
        message["chat"] = chat.info
        reply_to = _reply_target(params)
        if reply_to is not None:
            replied = chat.messages.get(reply_to)
            if replied is not None:
                message["reply_to_message"] = _without_reply(replied)
            elif not _reply_may_be_missing(params):
                raise _bad("message to be replied not found")
        return message

    def _send_message(self, params: dict[str, Any]) -> dict[str, Any]:
        with self._state:
            chat = self._target(params, sending=True)
            text, entities, html = _formatted(params, "text", MAX_TEXT)
            markup = _reply_markup(params)
            self._check_rate(chat)
            message = self._bot_message(chat, params)
            message["text"] = text
            if entities:
                message["entities"] = entities
            if markup is not None:
                message["reply_markup"] = markup
            self._record_sent(chat, message, html)
            self._note_send(chat)
            return message

    def _send_document(self, params: dict[str, Any]) -> dict[str, Any]:
        with self._state:
            chat = self._target(params, sending=True)
            upload = params.get("document")
            if isinstance(upload, _Upload):
                stored = self._store_file(upload.content, upload.file_name, upload.mime_type)
            elif isinstance(upload, str) and upload in self._files:
                stored = self._files[upload]
            else:
                raise _bad("wrong remote file identifier specified: can't unserialize it. Wrong last symbol")
            caption, entities, html = _formatted(params, "caption", MAX_CAPTION, optional=True)
            markup = _reply_markup(params)
            self._check_rate(chat)
            message = self._bot_message(chat, params)
            message["document"] = _document_object(stored)
            if caption:
                message["caption"] = caption
            if entities:
                message["caption_entities"] = entities
            if markup is not None:
                message["reply_markup"] = markup
            document = SentDocument(stored.file_name, stored.content, stored.mime_type)
            self._record_sent(chat, message, html, document)
            self._note_send(chat)
            return message

    def _edited_message(self, params: dict[str, Any]) -> tuple[_Chat, dict[str, Any]]:
        if params.get("inline_message_id"):
            raise _bad("inline messages are not supported by the fake")
        chat = self._target(params, sending=False)
        message_id = _int(params, "message_id")
        message = chat.messages.get(message_id)
        if message is None:
            raise _bad("message to edit not found")
        if message_id not in chat.html:
            raise _bad("message can't be edited")
        return chat, message

    def _edit_text(self, params: dict[str, Any]) -> dict[str, Any]:
        with self._state:
            chat, message = self._edited_message(params)
            if "document" in message:
                raise _bad("there is no text in the message to edit")
            text, entities, html = _formatted(params, "text", MAX_TEXT)
            markup = _reply_markup(params)
            if (
                text == message.get("text")
                and entities == message.get("entities", [])
                and markup == message.get("reply_markup")
            ):
                raise _bad(
                    "message is not modified: specified new message content and reply markup are exactly the "
                    "same as a current content and reply markup of the message"
                )
            edited = {k: v for k, v in message.items() if k not in ("entities", "reply_markup")}
            edited.update(text=text, edit_date=int(time.time()))
            if entities:
                edited["entities"] = entities
            if markup is not None:
                edited["reply_markup"] = markup
            return self._store_edit(chat, edited, html)

    def _edit_markup(self, params: dict[str, Any]) -> dict[str, Any]:
        with self._state:
            chat, message = self._edited_message(params)
            markup = _reply_markup(params)
            if markup == message.get("reply_markup"):
                raise _bad(
                    "message is not modified: specified new message content and reply markup are exactly the "
                    "same as a current content and reply markup of the message"
                )
            edited = {k: v for k, v in message.items() if k != "reply_markup"}
            edited["edit_date"] = int(time.time())
            if markup is not None:
                edited["reply_markup"] = markup
            return self._store_edit(chat, edited, chat.html[message["message_id"]])

    def _store_edit(self, chat: _Chat, edited: dict[str, Any], html: str | None) -> dict[str, Any]:
        message_id = edited["message_id"]
        chat.messages[message_id] = edited
        chat.html[message_id] = html
        chat.edits[message_id] = chat.edits.get(message_id, 0) + 1
        return edited

    def _answer_callback(self, params: dict[str, Any]) -> bool:
        with self._state:
            query_id = str(params.get("callback_query_id") or "")
            callback = self._callbacks.get(query_id)
            if callback is None or callback.answered:
                raise _bad("query is too old and response timeout expired or query ID is invalid")
            text = str(params.get("text") or "")
            if len(text) > MAX_CALLBACK_ANSWER:
                raise _bad("MESSAGE_TOO_LONG")
            answer = {"callback_query_id": query_id, "text": text, "show_alert": _bool(params, "show_alert")}
            callback.answered = True
            callback.answer = answer
            self._callback_answers.append(answer)
            return True

    def _chat_action(self, params: dict[str, Any]) -> bool:
        with self._state:
            chat = self._target(params, sending=False)
            action = str(params.get("action") or "")
            if action not in CHAT_ACTIONS:
                raise _bad("wrong parameter action in request")
            chat.actions.append(action)
            return True

    def _member(self, chat: _Chat, user_id: int) -> dict[str, Any]:
        if user_id == self.bot_user["id"]:
            return {"status": chat.bot_status, "user": self.bot_user, **_member_extras(chat.bot_status)}
        user = self._users.get(user_id)
        if user is None:
            raise _bad("PARTICIPANT_ID_INVALID")
        status = chat.members.get(user_id, "left")
        return {"status": status, "user": user, **_member_extras(status)}

    def _get_chat_member(self, params: dict[str, Any]) -> dict[str, Any]:
        with self._state:
            chat = self._target(params, sending=False)
            return self._member(chat, _int(params, "user_id"))

    def _get_admins(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        with self._state:
            chat = self._target(params, sending=False)
            if chat.kind == "private":
                raise _bad("there are no administrators in the private chat")
            admins = [self._member(chat, uid) for uid, s in chat.members.items() if s in ("creator", "administrator")]
            if chat.bot_status == "administrator":
                admins.append(self._member(chat, self.bot_user["id"]))
            return admins

    def _get_file(self, params: dict[str, Any]) -> dict[str, Any]:
        with self._state:
            stored = self._files.get(str(params.get("file_id") or ""))
            if stored is None:
                raise _bad("invalid file_id")
            if len(stored.content) > MAX_DOWNLOAD_BYTES:
                raise _bad("file is too big")
            return {
                "file_id": stored.file_id,
                "file_unique_id": stored.file_unique_id,
                "file_size": len(stored.content),
                "file_path": stored.file_path,
            }

    def _file_by_path(self, path: str) -> _StoredFile | None:
        with self._state:
            return next((f for f in self._files.values() if f.file_path == path), None)

    def _set_commands(self, params: dict[str, Any]) -> bool:
        commands = _json(params, "commands", "commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise _bad("commands must be a list of at most 100 BotCommand")
        for command in commands:
            if not isinstance(command, dict) or not _BOT_COMMAND_NAME.match(str(command.get("command", ""))):
                raise _bad("BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", ""))) <= 256:
                raise _bad("BOT_COMMAND_DESCRIPTION_INVALID")
        with self._state:
            self._commands[_scope_key(params)] = [
                {"command": c["command"], "description": c["description"]} for c in commands
            ]
        return True

    def _get_commands(self, params: dict[str, Any]) -> list[dict[str, str]]:
        with self._state:
            return list(self._commands.get(_scope_key(params), []))

    def _delete_commands(self, params: dict[str, Any]) -> bool:
        with self._state:
            self._commands.pop(_scope_key(params), None)
        return True

    def _delete_webhook(self, params: dict[str, Any]) -> bool:
        with self._state:
            if _bool(params, "drop_pending_updates"):
                self._updates.clear()
            self._webhook = None
            self._state.notify_all()
        return True

    def _set_webhook(self, params: dict[str, Any]) -> bool:
        url = str(params.get("url") or "")
        if not url:
            return self._delete_webhook(params)
        parts = urlsplit(url)
        loopback = parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1")
        if parts.scheme != "https" and not loopback:
            raise _bad("bad webhook: An HTTPS URL must be provided for webhook")
        secret = str(params.get("secret_token") or "")
        if secret and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
            raise _bad("secret token contains unallowed characters")
        allowed = _json(params, "allowed_updates", "allowed_updates") if params.get("allowed_updates") else None
        with self._state:
            if _bool(params, "drop_pending_updates"):
                self._updates.clear()
            if allowed is not None:
                self._allowed_updates = frozenset(allowed) or DEFAULT_UPDATE_KINDS
            maximum = _int(params, "max_connections") if params.get("max_connections") else 40
            self._webhook = _Webhook(url, secret, maximum)
            self._poll_generation += 1  # a long poll in progress ends with 409
            self._state.notify_all()
            if self._webhook_thread is None or not self._webhook_thread.is_alive():
                self._webhook_thread = threading.Thread(target=self._push_to_webhook, name="fake-telegram-webhook")
                self._webhook_thread.daemon = True
                self._webhook_thread.start()
        return True

    def _webhook_info(self, params: dict[str, Any]) -> dict[str, Any]:
        with self._state:
            hook = self._webhook
            info: dict[str, Any] = {
                "url": hook.url if hook else "",
                "has_custom_certificate": False,
                "pending_update_count": len(self._updates),
            }
            if hook is not None:
                info["max_connections"] = hook.max_connections
                info["allowed_updates"] = sorted(self._allowed_updates)
                if hook.last_error:
                    info.update(last_error_date=hook.last_error_date, last_error_message=hook.last_error)
            return info

    def _push_to_webhook(self) -> None:
        """Telegram's side of webhook mode: POST each update in order, retrying with back-off until accepted."""
        backoff = 0.1
        while not self._stopping.is_set():
            with self._state:
                self._updates = [u for u in self._updates if _update_kind(u) in self._allowed_updates]
                hook = self._webhook
                if hook is None or not self._updates:
                    self._state.wait(0.1)
                    continue
                update = self._updates[0]
            error = _post_update(hook, update)
            with self._state:
                if error is None:
                    hook.delivered.append(update["update_id"])
                    self._delivered.add(update["update_id"])
                    self._updates = [u for u in self._updates if u["update_id"] != update["update_id"]]
                    backoff = 0.1
                    continue
                hook.last_error, hook.last_error_date = error, int(time.time())
            self._stopping.wait(backoff)
            backoff = min(backoff * 2, 2.0)

    @property
    def webhook_deliveries(self) -> list[int]:
        """Update ids the bot's webhook server accepted (2xx), in order."""
        with self._state:
            return list(self._webhook.delivered) if self._webhook else []

    def _get_updates(self, params: dict[str, Any]) -> list[Any]:
        with self._state:
            if self._webhook is not None:
                raise ApiError(
                    409,
                    "Conflict: can't use getUpdates method while webhook is active; "
                    "use deleteWebhook to delete the webhook first",
                )
        offset = _int(params, "offset") if params.get("offset") not in (None, "") else None
        limit = _int(params, "limit") if params.get("limit") not in (None, "") else 100
        timeout = float(params.get("timeout") or 0)
        allowed = _json(params, "allowed_updates", "allowed_updates") if params.get("allowed_updates") else None
        return self._poll(offset, max(1, min(limit, 100)), max(0.0, timeout), allowed)

    def _get_me(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            **self.bot_user,
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }


_METHODS: dict[str, Callable[[FakeTelegram, dict[str, Any]], Any]] = {
    "getMe": FakeTelegram._get_me,
    "getUpdates": FakeTelegram._get_updates,
    "deleteWebhook": FakeTelegram._delete_webhook,
    "getWebhookInfo": FakeTelegram._webhook_info,
    "setWebhook": FakeTelegram._set_webhook,
    "sendMessage": FakeTelegram._send_message,
    "sendDocument": FakeTelegram._send_document,
    "editMessageText": FakeTelegram._edit_text,
    "editMessageReplyMarkup": FakeTelegram._edit_markup,
    "answerCallbackQuery": FakeTelegram._answer_callback,
    "sendChatAction": FakeTelegram._chat_action,
    "getChatMember": FakeTelegram._get_chat_member,
    "getChatAdministrators": FakeTelegram._get_admins,
    "getFile": FakeTelegram._get_file,
    "setMyCommands": FakeTelegram._set_commands,
    "getMyCommands": FakeTelegram._get_commands,
    "deleteMyCommands": FakeTelegram._delete_commands,
}
_CANONICAL = {name.lower(): name for name in _METHODS}


def _canonical(method: str) -> str:
    return _CANONICAL.get(method.lower(), method)


# --- parameter decoding and validation ---


@dataclass(frozen=True)
class _Upload:
    file_name: str
    content: bytes
    mime_type: str


def _chat_ref(value: Any) -> int | str:
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text if text.startswith("@") else f"@{text}"


def _int(params: Mapping[str, Any], name: str) -> int:
    value = params.get(name)
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise _bad(f"invalid {name} specified") from None


def _bool(params: Mapping[str, Any], name: str) -> bool:
    value = params.get(name)
    if isinstance(value, str):
        return value.lower() in ("true", "1")
    return bool(value)


def _json(params: Mapping[str, Any], name: str, what: str) -> Any:
    value = params.get(name)
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            raise _bad(f"can't parse {what} JSON object") from None
    return value


def _formatted(
    params: Mapping[str, Any], name: str, limit: int, *, optional: bool = False
) -> tuple[str, list[dict[str, Any]], str | None]:
    """The text (or caption) of a call after parse mode, its entities and the HTML source if HTML was used."""
    raw = params.get(name)
    source = "" if raw is None else str(raw)
    mode = str(params.get("parse_mode") or "")
    html: str | None = None
    if mode.upper() == "HTML":
        html = source
        try:
            text, entities = parse_html(source)
        except EntityParseError as error:
            raise _bad(f"can't parse entities: {error}") from None
    elif mode:
        raise _bad(f"unsupported parse_mode {mode!r} in the fake (it validates HTML only)")
    else:
        text = source.strip()
        entities = list(_json(params, "entities" if name == "text" else "caption_entities", "entities") or [])
    if not text and not optional:
        raise _bad("message text is empty")
    if utf16_length(text) > limit:
        raise _bad("message is too long" if name == "text" else "message caption is too long")
    return text, entities + _mention_entities(text, entities), html


def _mention_entities(text: str, entities: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """@username mentions Telegram finds in a sent text by itself (they notify that user) outside code and links."""
    covered = [(e["offset"], e["offset"] + e["length"]) for e in entities if e["type"] in ("code", "pre", "text_link")]
    found = []
    for match in _MENTION.finditer(text):
        start = utf16_length(text[: match.start()])
        if not any(low <= start < high for low, high in covered):
            found.append({"type": "mention", "offset": start, "length": utf16_length(match.group())})
    return found


def _reply_markup(params: Mapping[str, Any]) -> dict[str, Any] | None:
    if params.get("reply_markup") in (None, ""):
        return None
    markup = _json(params, "reply_markup", "reply keyboard markup")
    if not isinstance(markup, dict):
        raise _bad("can't parse reply keyboard markup JSON object")
    rows = markup.get("inline_keyboard")
    if rows is None:
        return markup  # reply keyboards, ForceReply, ReplyKeyboardRemove: passed through
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise _bad('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays')
    for row in rows:
        for button in row:
            _check_button(button)
    return markup


def _check_button(button: Any) -> None:
    if not isinstance(button, dict) or not str(button.get("text") or "").strip():
        raise _bad("BUTTON_TEXT_INVALID")
    if "callback_data" in button:
        size = len(str(button["callback_data"]).encode("utf-8"))
        if not 1 <= size <= MAX_CALLBACK_DATA:
            raise _bad("BUTTON_DATA_INVALID")
    elif "url" in button:
        url = str(button["url"])
        if not re.match(r"^(https?|tg)://\S+$", url):
            raise _bad(f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL")
    elif not any(k in button for k in ("switch_inline_query", "switch_inline_query_current_chat", "copy_text")):
        raise _bad('can\'t find field "callback_data"')


def _reply_target(params: Mapping[str, Any]) -> int | None:
    if params.get("reply_parameters") not in (None, ""):
        reply = _json(params, "reply_parameters", "reply parameters")
        if isinstance(reply, dict) and "message_id" in reply:
            return int(reply["message_id"])
    if params.get("reply_to_message_id") not in (None, ""):
        return _int(params, "reply_to_message_id")
    return None


def _reply_may_be_missing(params: Mapping[str, Any]) -> bool:
    reply = _json(params, "reply_parameters", "reply parameters") if params.get("reply_parameters") else {}
    return bool(isinstance(reply, dict) and reply.get("allow_sending_without_reply")) or _bool(
        params, "allow_sending_without_reply"
    )


def _scope_key(params: Mapping[str, Any]) -> tuple[str, str]:
    scope = _json(params, "scope", "scope") if params.get("scope") else None
    kind = scope.get("type", "default") if isinstance(scope, dict) else "default"
    return str(kind), str(params.get("language_code") or "")


def _command_entities(text: str) -> list[dict[str, Any]]:
    return [
        {"type": "bot_command", "offset": utf16_length(text[: m.start()]), "length": utf16_length(m.group())}
        for m in _COMMAND.finditer(text)
    ]


def _utf16_slice(text: str, offset: int, length: int) -> str:
    return text.encode("utf-16-le")[2 * offset : 2 * (offset + length)].decode("utf-16-le")


def _document_object(stored: _StoredFile) -> dict[str, Any]:
    return {
        "file_id": stored.file_id,
        "file_unique_id": stored.file_unique_id,
        "file_name": stored.file_name,
        "mime_type": stored.mime_type,
        "file_size": len(stored.content),
    }


def _without_reply(message: dict[str, Any]) -> dict[str, Any]:
    """Telegram nests one level of reply_to_message only."""
    return {k: v for k, v in message.items() if k != "reply_to_message"}


def _update_kind(update: dict[str, Any]) -> str:
    return next(k for k in update if k != "update_id")


def _member_extras(status: str) -> dict[str, Any]:
    """The fields PTB requires for each ChatMember status."""
    if status == "creator":
        return {"is_anonymous": False}
    if status == "administrator":
        rights = (
            "can_manage_chat can_delete_messages can_manage_video_chats can_restrict_members can_promote_members "
            "can_change_info can_invite_users can_post_stories can_edit_stories can_delete_stories "
            "can_post_messages can_edit_messages can_pin_messages"
        ).split()
        return {"can_be_edited": False, "is_anonymous": False, **dict.fromkeys(rights, True)}
    if status == "kicked":
        return {"until_date": 0}
    return {}


def _parse_multipart(content_type: str, body: bytes) -> dict[str, Any]:
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    params: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not name:
            continue
        payload = part.get_payload(decode=True) or b""
        file_name = part.get_filename()
        if file_name is not None:
            params[str(name)] = _Upload(file_name, payload, part.get_content_type())
        else:
            params[str(name)] = payload.decode("utf-8")
    return params


# --- HTTP ---


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as httpx pools expect
    server_version = "paperscout-fake-telegram/1"
    timeout = 120

    @property
    def fake(self) -> FakeTelegram:
        return self.server.fake  # type: ignore[attr-defined]

    def setup(self) -> None:
        super().setup()
        self.fake._track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.fake._track(self.connection, False)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet test output

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _serve(self) -> None:
        arrived = time.monotonic()
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        body = self._read_body()
        file_prefix = f"/file/bot{self.fake.token}/"
        if path.startswith(file_prefix):
            self._download(path[len(file_prefix) :])
            return
        match = re.fullmatch(r"/bot([^/]+)/([A-Za-z]+)/?", path)
        if match is None:
            self._answer_error(ApiError(404, "Not Found"))
            return
        method = _canonical(match.group(2))
        try:
            params = self._params(parts.query, body)
        except ApiError as error:
            self._answer_error(error)
            return
        fault = self.fake._next_fault(method)

        def record(status: int, description: str = "") -> None:
            self.fake._record(
                ApiCall(method, _loggable(params), status, description, fault.kind if fault else None, arrived)
            )

        if self.fake.latency_seconds:
            self.fake._sleep(self.fake.latency_seconds)
        if match.group(1) != self.fake.token:
            record(401, "Unauthorized")
            self._answer_error(ApiError(401, "Unauthorized"))
            return
        if fault is not None:
            if fault.kind == "delay":
                self.fake._sleep(fault.seconds)
            elif fault.kind == "disconnect":
                record(0, "disconnected")
                self.close_connection = True
                return
            elif fault.kind == "malformed":
                record(200, "malformed")
                self._send(200, b'{"ok": true, "result": ', "application/json")
                return
            elif fault.kind == "html_error":
                record(fault.status, "Bad Gateway")
                page = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
                self._send(fault.status, page, "text/html")
                return
            else:
                parameters = {"retry_after": fault.retry_after} if fault.retry_after is not None else None
                record(fault.status, fault.description)
                self._answer_error(ApiError(fault.status, fault.description, parameters))
                return
        try:
            result = self.fake._call(method, params)
        except ApiError as error:
            record(error.status, error.description)
            self._answer_error(error)
            return
        record(200)
        self._send(200, json.dumps({"ok": True, "result": result}).encode(), "application/json")

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _params(self, query: str, body: bytes) -> dict[str, Any]:
        params: dict[str, Any] = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        content_type = self.headers.get("Content-Type", "")
        if not body:
            return params
        if content_type.startswith("application/json"):
            try:
                decoded = json.loads(body)
            except json.JSONDecodeError:
                raise _bad("can't parse JSON encoded request body") from None
            if not isinstance(decoded, dict):
                raise _bad("request body must be a JSON object")
            params.update(decoded)
        elif content_type.startswith("multipart/form-data"):
            params.update(_parse_multipart(content_type, body))
        else:
            params.update({k: v[-1] for k, v in parse_qs(body.decode("utf-8"), keep_blank_values=True).items()})
        return params

    def _download(self, file_path: str) -> None:
        stored = self.fake._file_by_path(file_path)
        if stored is None:
            self._answer_error(ApiError(404, "Not Found"))
            return
        self._send(200, stored.content, "application/octet-stream")

    def _answer_error(self, error: ApiError) -> None:
        payload: dict[str, Any] = {"ok": False, "error_code": error.status, "description": error.description}
        if error.parameters:
            payload["parameters"] = error.parameters
        self._send(error.status, json.dumps(payload).encode(), "application/json")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # a loopback webhook never via a proxy


def _post_update(hook: _Webhook, update: dict[str, Any]) -> str | None:
    """POST one update to the bot's webhook; None when accepted, else the error Telegram would report."""
    headers = {"Content-Type": "application/json"}
    if hook.secret_token:
        headers["X-Telegram-Bot-Api-Secret-Token"] = hook.secret_token
    request = urllib.request.Request(hook.url, json.dumps(update).encode(), headers, method="POST")
    try:
        with _NO_PROXY.open(request, timeout=10) as response:
            response.read()
        return None
    except urllib.error.HTTPError as error:
        return f"Wrong response from the webhook: {error.code} {error.reason}"
    except (OSError, ValueError) as error:
        return f"Connection failed: {error}"


def _loggable(params: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters for the request log: nested JSON decoded, uploads as (file name, size)."""
    logged: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, _Upload):
            logged[name] = (value.file_name, len(value.content))
        elif isinstance(value, str) and value[:1] in "[{":
            try:
                logged[name] = json.loads(value)
            except json.JSONDecodeError:
                logged[name] = value
        else:
            logged[name] = value
    return logged
