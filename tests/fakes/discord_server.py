"""A Discord fake on 127.0.0.1: the REST routes and the gateway websocket discord.py uses, over real HTTP.

The unmodified discord.py client talks to it once its two class attributes point here::

    with DiscordFake() as fake, pointed_at(fake):      # Route.BASE and DiscordWebSocket.DEFAULT_GATEWAY
        async with running(bot, fake):                  # login, gateway, READY (tests/fakes/discord_client.py)
            interaction = fake.slash("ask", {"question": "MoE this week?"}, user=fake.member_id)
            state = await fake.wait_for_response(interaction)

It serves aiohttp in a daemon thread with its own event loop, so the client under test runs on the test's loop.
The gateway sends HELLO, answers heartbeats, and after IDENTIFY sends READY and one GUILD_CREATE (roles, members,
channels); tests then inject INTERACTION_CREATE (`slash`, `press`, `autocomplete`) and MESSAGE_CREATE (`say`, `dm`).
Events are filtered by the identified intents as Discord does (message content only with the privileged intent,
except in DMs and when the bot is mentioned).

It rejects what Discord rejects, with Discord's error shapes: message and embed limits (50035 Invalid Form Body
with the nested ``errors``), empty messages (50006), an interaction answered twice (40060) or after 3 s (10062),
DMs to a member who closed them (50007), missing permissions (50013), unknown channels (10003), a locked thread
(50083). Every stored
message carries the mentions Discord would resolve for it (``mentions``, ``mention_roles``, ``mention_everyone``)
given its ``allowed_mentions``, and every request is recorded with its response.

Faults (one-shot, in order; `endpoint` narrows one to a route name such as ``"send_message"`` or ``"callback"``):
`Fault.rate_limit` is a 429 as Discord sends it (``retry_after`` in the body, ``Via`` and ``X-RateLimit-*``
headers, ``global``); `Fault.cloudflare_ban` a 429 without them, which discord.py does not retry;
`Fault.disconnect` closes the connection without an answer (the request is not carried out), as a network that
fails mid-request does.

Scripting the world: `add_user`, `add_member`, `add_channel`, `add_attachment`, `close_dms`, `deny_bot`,
`deny_threads`, `deny_thread_posts`, `lock_thread`.
Driving the bot: `slash` (with `options`, `channel_option`, `attachment_option`), `autocomplete`, `press`, `say`,
`dm`, `dispatch`, `disconnect_gateway`. Misbehaving: `enqueue`, `always`, `storm`, `global_rate_limit`,
`interaction_deadline`, `hold_answers` (a request carried out but its answer held back, as when a client dies
between the two; `held`, `release`).
Reading: `requests`, `requests_to`, `message_requests`, `channel_messages`, `message`,
`threads_of`, `interaction`, `response_messages`, `wait_for`, `wait_for_response`, `wait_for_followups`,
`pinging_messages`, `dm_channel_of`, `identifies`, `invalid_requests`, `connected`, `global_commands`.

From a shell: ``python -m tests.fakes.discord_server --port 8090`` serves until Ctrl-C and prints the settings.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Self, TypeVar
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from tests.fakes.loopback import ScriptedFake

T = TypeVar("T")

# Limits as Discord documents them (kept here independently of the bot's own copy, so a wrong copy is caught).
CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
ROWS_MAX = 5
ROW_ITEMS_MAX = 5
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
CHOICES_MAX = 25
THREAD_NAME_MAX = 100
NONCE_MAX = 25
NONCE_WINDOW_SECONDS = 300
INTERACTION_DEADLINE = 3.0
INTERACTION_TOKEN_LIFETIME = 15 * 60

EPHEMERAL = 1 << 6
LOADING = 1 << 7  # a deferred interaction response not yet filled in
DISCORD_EPOCH_MS = 1420070400000

# Gateway intents (discord.Intents values).
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

# Permission bits used by the fake's guild.
PERM_ADMINISTRATOR = 1 << 3
PERM_MANAGE_GUILD = 1 << 5
PERM_VIEW_CHANNEL = 1 << 10
PERM_SEND_MESSAGES = 1 << 11
PERM_EMBED_LINKS = 1 << 14
PERM_ATTACH_FILES = 1 << 15
PERM_READ_HISTORY = 1 << 16
PERM_USE_COMMANDS = 1 << 31
PERM_CREATE_PUBLIC_THREADS = 1 << 35
PERM_SEND_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 50) - 1
MEMBER_PERMISSIONS = (
    PERM_VIEW_CHANNEL | PERM_SEND_MESSAGES | PERM_READ_HISTORY | PERM_USE_COMMANDS | PERM_SEND_IN_THREADS
)
BOT_PERMISSIONS = MEMBER_PERMISSIONS | PERM_EMBED_LINKS | PERM_ATTACH_FILES | PERM_CREATE_PUBLIC_THREADS

_USER_MENTION = re.compile(r"<@!?(\d{1,20})>")
_ROLE_MENTION = re.compile(r"<@&(\d{1,20})>")
_EVERYONE = re.compile(r"(?<!\\)@(everyone|here)\b")


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour. Build with the class methods; `endpoint` limits it to one route name."""

    kind: Literal["rate_limit", "cloudflare_ban", "status", "disconnect"]
    endpoint: str | None = None
    status: int = 500
    retry_after: float = 0.0
    is_global: bool = False
    code: int = 0
    message: str = ""

    @classmethod
    def rate_limit(cls, retry_after: float = 0.05, *, endpoint: str | None = None, is_global: bool = False) -> Fault:
        """A 429 as Discord sends it: JSON body with retry_after and global, Via and X-RateLimit-* headers."""
        return cls("rate_limit", endpoint=endpoint, status=429, retry_after=retry_after, is_global=is_global)

    @classmethod
    def cloudflare_ban(cls, *, endpoint: str | None = None) -> Fault:
        """A 429 from Cloudflare (HTML, no Via header): discord.py raises instead of retrying."""
        return cls("cloudflare_ban", endpoint=endpoint, status=429)

    @classmethod
    def disconnect(cls, *, endpoint: str | None = None) -> Fault:
        """The connection closed before any answer (the client's library raises a connection error)."""
        return cls("disconnect", endpoint=endpoint, status=0)

    @classmethod
    def server_error(cls, status: int = 500, *, endpoint: str | None = None) -> Fault:
        """A 5xx with Discord's JSON error body (discord.py retries 500, 502, 504 after 1 s, 3 s, ...)."""
        return cls("status", endpoint=endpoint, status=status, message=f"{status}: Internal Server Error")

    @classmethod
    def error(cls, status: int, code: int, message: str, *, endpoint: str | None = None) -> Fault:
        """Any Discord JSON error, e.g. ``Fault.error(403, 50013, "Missing Permissions")``."""
        return cls("status", endpoint=endpoint, status=status, code=code, message=message)


@dataclass(frozen=True)
class RecordedRequest:
    """One request and the fake's answer. The Authorization value is never kept, only whether it was right."""

    method: str
    path: str
    endpoint: str
    query: dict[str, str]
    body: Any
    files: tuple[tuple[str, bytes], ...]
    authorized: bool
    status: int
    response: Any
    at: float = field(repr=False)

    @property
    def message_payload(self) -> dict[str, Any] | None:
        """The message this request creates or edits (interaction callbacks carry it in ``data``), else None."""
        if not isinstance(self.body, dict):
            return None
        if self.endpoint == "callback":
            return self.body.get("data") if self.body.get("type") in (4, 7) else None
        if self.endpoint in _MESSAGE_ENDPOINTS:
            return self.body
        return None

    @property
    def mentions_suppressed(self) -> bool:
        """Whether the message was sent with ``allowed_mentions`` ``{"parse": []}`` (nothing may ping)."""
        payload = self.message_payload
        return payload is not None and payload.get("allowed_mentions") == {"parse": []}


_MESSAGE_ENDPOINTS = {"send_message", "edit_message", "followup", "edit_webhook_message"}


@dataclass
class InteractionState:
    """What became of one injected interaction."""

    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    created_at: float
    message_id: int | None = None  # the message a component sat on
    responses: list[dict[str, Any]] = field(default_factory=list)  # accepted callback bodies
    original_id: int | None = None  # the response message (type 4 or 5)
    followup_ids: list[int] = field(default_factory=list)

    @property
    def acknowledged(self) -> bool:
        """Whether a callback was accepted."""
        return bool(self.responses)

    @property
    def response_type(self) -> int | None:
        """The accepted callback's type: 4 message, 5 deferred, 6 deferred update, 7 update, 8 autocomplete."""
        return self.responses[0]["type"] if self.responses else None


@dataclass(frozen=True)
class SentInteraction:
    """An interaction the test injected through the gateway."""

    id: int
    token: str
    payload: dict[str, Any]


class FormErrors:
    """Collects Invalid Form Body errors in Discord's nested shape."""

    def __init__(self) -> None:
        self.tree: dict[str, Any] = {}

    def add(self, path: Iterable[str | int], code: str, message: str) -> None:
        """Record an error at a JSON path, e.g. ``("embeds", 0, "title")``."""
        node = self.tree
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def max_length(self, path: Iterable[str | int], limit: int) -> None:
        """A string or list longer than `limit`."""
        self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")

    def __bool__(self) -> bool:
        return bool(self.tree)

    def body(self) -> dict[str, Any]:
        """The 400 body Discord sends."""
        return {"code": 50035, "errors": self.tree, "message": "Invalid Form Body"}


class DiscordError(Exception):
    """An error answer: status and Discord's JSON body."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body

    @classmethod
    def of(cls, status: int, code: int, message: str) -> DiscordError:
        """``{"message": ..., "code": ...}`` as Discord sends for non-form errors."""
        return cls(status, {"message": message, "code": code})


def _check_url(errors: FormErrors, path: tuple[str | int, ...], url: Any) -> None:
    if url is None:
        return
    scheme = urlsplit(str(url)).scheme
    if scheme not in ("http", "https", "attachment"):
        errors.add(
            path,
            "URL_TYPE_INVALID_PROTOCOL",
            f"Scheme \"{scheme}\" is not supported. Scheme must be one of ('http', 'https').",
        )


def _embed_errors(errors: FormErrors, embeds: list[Any]) -> None:
    if len(embeds) > EMBEDS_MAX:
        errors.max_length(("embeds",), EMBEDS_MAX)
    total = 0
    for index, embed in enumerate(embeds):
        where: tuple[str | int, ...] = ("embeds", index)
        title = embed.get("title") or ""
        description = embed.get("description") or ""
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        if len(title) > EMBED_TITLE_MAX:
            errors.max_length((*where, "title"), EMBED_TITLE_MAX)
        if len(description) > EMBED_DESCRIPTION_MAX:
            errors.max_length((*where, "description"), EMBED_DESCRIPTION_MAX)
        if len(footer) > EMBED_FOOTER_MAX:
            errors.max_length((*where, "footer", "text"), EMBED_FOOTER_MAX)
        if len(author) > EMBED_AUTHOR_MAX:
            errors.max_length((*where, "author", "name"), EMBED_AUTHOR_MAX)
        total += len(title) + len(description) + len(footer) + len(author)
        fields = embed.get("fields") or []
        if len(fields) > EMBED_FIELDS_MAX:
            errors.max_length((*where, "fields"), EMBED_FIELDS_MAX)
        for number, item in enumerate(fields):
            name, value = item.get("name") or "", item.get("value") or ""
            for key, text, limit in (("name", name, EMBED_FIELD_NAME_MAX), ("value", value, EMBED_FIELD_VALUE_MAX)):
                if not text.strip():
                    errors.add((*where, "fields", number, key), "BASE_TYPE_REQUIRED", "This field is required")
                elif len(text) > limit:
                    errors.max_length((*where, "fields", number, key), limit)
            total += len(name) + len(value)
        _check_url(errors, (*where, "url"), embed.get("url"))
        _check_url(errors, (*where, "author", "url"), (embed.get("author") or {}).get("url"))
        for part in ("image", "thumbnail"):
            _check_url(errors, (*where, part, "url"), (embed.get(part) or {}).get("url"))
    if total > EMBED_TOTAL_MAX:
        errors.add(("embeds",), "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}")


def _component_errors(errors: FormErrors, rows: list[Any]) -> None:
    if len(rows) > ROWS_MAX:
        errors.max_length(("components",), ROWS_MAX)
    seen: set[str] = set()
    for row_index, row in enumerate(rows):
        if row.get("type") != 1:
            errors.add(("components", row_index, "type"), "UNION_TYPE_CHOICES", 'Value of field "type" must be 1.')
            continue
        children = row.get("components") or []
        if not children:
            errors.add(("components", row_index, "components"), "BASE_TYPE_REQUIRED", "This field is required")
        if len(children) > ROW_ITEMS_MAX:
            errors.max_length(("components", row_index, "components"), ROW_ITEMS_MAX)
        for index, item in enumerate(children):
            where = ("components", row_index, "components", index)
            if item.get("type") == 2 and item.get("style") == 5:
                if not item.get("url"):
                    errors.add((*where, "url"), "BASE_TYPE_REQUIRED", "This field is required")
                _check_url(errors, (*where, "url"), item.get("url"))
                continue
            custom_id = item.get("custom_id")
            if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= CUSTOM_ID_MAX:
                errors.add(
                    (*where, "custom_id"), "BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {CUSTOM_ID_MAX} in length."
                )
            elif custom_id in seen:
                errors.add(
                    (*where, "custom_id"), "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated"
                )
            else:
                seen.add(custom_id)
            if len(item.get("label") or "") > BUTTON_LABEL_MAX:
                errors.max_length((*where, "label"), BUTTON_LABEL_MAX)


def check_message(payload: dict[str, Any], *, files: int = 0, edit: bool = False) -> None:
    """Raise `DiscordError` for a message body Discord would refuse (limits, empty message)."""
    errors = FormErrors()
    content = payload.get("content")
    if content is not None and len(str(content)) > CONTENT_MAX:
        errors.max_length(("content",), CONTENT_MAX)
    embeds = payload.get("embeds") or []
    _embed_errors(errors, embeds)
    components = payload.get("components") or []
    _component_errors(errors, components)
    if errors:
        raise DiscordError(400, errors.body())
    keep_attachments = bool(payload.get("attachments"))
    if not edit and not (content or embeds or components or files or keep_attachments or payload.get("sticker_ids")):
        raise DiscordError.of(400, 50006, "Cannot send an empty message")


def _snowflake_time_ms(snowflake: int) -> int:
    return (snowflake >> 22) + DISCORD_EPOCH_MS


def _iso(ms: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + f".{int(ms % 1000):03d}000+00:00"


class DiscordFake(ScriptedFake[Fault, RecordedRequest]):
    """Discord's REST API and gateway for one bot in one guild, in a daemon thread. See the module docstring."""

    token = "fake-bot-token.paperscout.0123456789"
    application_id = 900000000000000001
    bot_id = 900000000000000002
    guild_id = 900000000000000010
    everyone_role_id = guild_id  # Discord gives @everyone the guild's id
    admin_role_id = 900000000000000011
    channel_id = 900000000000000020  # #papers
    other_channel_id = 900000000000000021  # #general
    owner_id = 900000000000000030  # guild owner, has the admin role
    member_id = 900000000000000031  # a plain member

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, global_rate_limit: int | None = None) -> None:
        super().__init__()
        self._address = (host, port)
        self.global_rate_limit = global_rate_limit  # requests per second before a global 429, None: unlimited
        self.interaction_deadline = INTERACTION_DEADLINE
        self.heartbeat_interval_ms = 41250
        self._state_lock = threading.RLock()
        self._ids = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._sockets: list[_GatewayConnection] = []
        self._sessions: dict[str, int] = {}  # session id -> intents, for RESUME
        self._recent: deque[float] = deque()
        self._storm: tuple[float, float, str, random.Random] | None = None
        self.invalid_requests = 0  # answers with 401, 403 or 429, which Discord counts toward a temporary ban
        self.identifies: list[dict[str, Any]] = []
        self.users: dict[int, dict[str, Any]] = {}
        self.member_roles: dict[int, list[int]] = {}
        self.roles: dict[int, dict[str, Any]] = {}
        self.channels: dict[int, dict[str, Any]] = {}
        self.messages: dict[int, dict[str, Any]] = {}
        self.attachments: dict[int, tuple[str, bytes, str]] = {}
        self.interactions: dict[int, InteractionState] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.closed_dms: set[int] = set()
        self.dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self.bot_denied_channels: set[int] = set()
        self.threads_denied: set[int] = set()
        self.thread_posts_denied: set[int] = set()
        self._hold: tuple[str, int] | None = None  # (endpoint, answers still given before holding)
        self.held = 0  # answers held back so far
        self._released = threading.Event()
        self._seed()

    # --- the world ---

    def _seed(self) -> None:
        self.add_user(self.bot_id, "paperscout", bot=True)
        self.roles[self.everyone_role_id] = self._role(self.everyone_role_id, "@everyone", MEMBER_PERMISSIONS, 0)
        self.roles[self.admin_role_id] = self._role(self.admin_role_id, "Admin", PERM_MANAGE_GUILD, 1)
        bot_role = 900000000000000012
        self.roles[bot_role] = self._role(bot_role, "paperscout", BOT_PERMISSIONS, 2, managed=True)
        self.member_roles[self.bot_id] = [bot_role]
        self.add_member(self.owner_id, "ada", roles=[self.admin_role_id])
        self.add_member(self.member_id, "grace")
        self.add_channel("papers", self.channel_id)
        self.add_channel("general", self.other_channel_id)

    def add_channel(self, name: str, channel_id: int | None = None) -> int:
        """A text channel in the guild; returns its id. Channels added after READY reach the bot on its next
        connection (or through `get_channel`'s REST fallback, `fetch_channel`)."""
        channel_id = channel_id or self.new_id()
        with self._state_lock:
            position = sum(1 for c in self.channels.values() if c["type"] == 0)
            self.channels[channel_id] = {
                "id": str(channel_id),
                "type": 0,
                "guild_id": str(self.guild_id),
                "name": name,
                "position": position,
                "permission_overwrites": [],
                "nsfw": False,
                "topic": None,
                "last_message_id": None,
                "parent_id": None,
                "rate_limit_per_user": 0,
            }
        return channel_id

    @staticmethod
    def _role(role_id: int, name: str, permissions: int, position: int, managed: bool = False) -> dict[str, Any]:
        return {
            "id": str(role_id),
            "name": name,
            "color": 0,
            "colors": {"primary_color": 0},
            "hoist": False,
            "position": position,
            "permissions": str(permissions),
            "managed": managed,
            "mentionable": False,
            "flags": 0,
        }

    def add_user(self, user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
        """A Discord user (not necessarily in the guild)."""
        user = {
            "id": str(user_id),
            "username": name,
            "discriminator": "0",
            "global_name": name.title(),
            "avatar": None,
            "bot": bot,
            "public_flags": 0,
            "flags": 0,
        }
        with self._state_lock:
            self.users[user_id] = user
        return user

    def add_member(self, user_id: int, name: str, *, roles: Iterable[int] = ()) -> dict[str, Any]:
        """A user in the guild with these roles (besides @everyone)."""
        user = self.add_user(user_id, name)
        with self._state_lock:
            self.member_roles[user_id] = list(roles)
        return user

    def close_dms(self, user_id: int) -> None:
        """The user no longer accepts DMs from the bot: sending one answers 403 code 50007."""
        with self._state_lock:
            self.closed_dms.add(user_id)

    def delete_message(self, message_id: int) -> None:
        """Someone deleted a message (a moderator, its header gone before a digest's thread was made): it is Unknown
        Message (404 code 10008) from now on."""
        with self._state_lock:
            self.messages.pop(message_id, None)

    def deny_threads(self, channel_id: int) -> None:
        """The bot may post in this channel but not start threads there (403 code 50013 on thread creation)."""
        with self._state_lock:
            self.threads_denied.add(channel_id)

    def lock_thread(self, thread_id: int) -> None:
        """A moderator locks (and so archives) a thread: a bot without Manage Threads may no longer post in it, which
        Discord answers with 400 code 50083 "Thread is archived"; THREAD_UPDATE tells a connected bot."""
        with self._state_lock:
            thread = self.channels[thread_id]
            thread["thread_metadata"] = {**thread["thread_metadata"], "archived": True, "locked": True}
            payload = dict(thread)
        self.dispatch("THREAD_UPDATE", payload)

    def deny_thread_posts(self, channel_id: int) -> None:
        """The bot may post in this channel and start threads there, but not post in them (an overwrite denying it
        Send Messages in Threads, told by CHANNEL_UPDATE): a post in a thread of it is 403 code 50013."""
        with self._state_lock:
            self.thread_posts_denied.add(channel_id)
            channel = self.channels[channel_id]
            channel["permission_overwrites"] = [
                *channel["permission_overwrites"],
                {"id": str(self.bot_id), "type": 1, "allow": "0", "deny": str(PERM_SEND_IN_THREADS)},
            ]
            payload = dict(channel)
        self.dispatch("CHANNEL_UPDATE", payload)

    def deny_bot(self, channel_id: int) -> None:
        """The bot may no longer send in this channel (403 code 50013): an overwrite denying it Send Messages, which
        a connected bot learns from CHANNEL_UPDATE as Discord tells it."""
        with self._state_lock:
            self.bot_denied_channels.add(channel_id)
            channel = self.channels[channel_id]
            channel["permission_overwrites"] = [
                *channel["permission_overwrites"],
                {"id": str(self.bot_id), "type": 1, "allow": "0", "deny": str(PERM_SEND_MESSAGES)},
            ]
            payload = dict(channel)
        self.dispatch("CHANNEL_UPDATE", payload)

    def permissions_of(self, user_id: int) -> int:
        """Guild permissions of a member: @everyone's and their roles', everything for the owner or an admin."""
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        with self._state_lock:
            value = int(self.roles[self.everyone_role_id]["permissions"])
            for role_id in self.member_roles.get(user_id, []):
                value |= int(self.roles[role_id]["permissions"])
        return ALL_PERMISSIONS if value & PERM_ADMINISTRATOR else value

    def member_payload(self, user_id: int) -> dict[str, Any]:
        """A guild member object as Discord sends it (``flags`` included: discord.py requires it)."""
        with self._state_lock:
            return {
                "user": dict(self.users[user_id]),
                "roles": [str(r) for r in self.member_roles.get(user_id, [])],
                "nick": None,
                "avatar": None,
                "joined_at": _iso(time.time() * 1000 - 86_400_000),
                "deaf": False,
                "mute": False,
                "flags": 0,
                "pending": False,
                "premium_since": None,
            }

    def add_attachment(self, filename: str, data: bytes, content_type: str = "text/plain") -> dict[str, Any]:
        """An uploaded file the fake serves, as the attachment object a slash command option resolves to."""
        attachment_id = self.new_id()
        with self._state_lock:
            self.attachments[attachment_id] = (filename, data, content_type)
        return self._attachment_payload(attachment_id)

    def _attachment_payload(self, attachment_id: int) -> dict[str, Any]:
        filename, data, content_type = self.attachments[attachment_id]
        url = f"{self.url}/attachments/{attachment_id}/{filename}"
        return {
            "id": str(attachment_id),
            "filename": filename,
            "size": len(data),
            "url": url,
            "proxy_url": url,
            "content_type": content_type,
        }

    def new_id(self) -> int:
        """A fresh snowflake whose timestamp is now (discord.py reads creation times from ids)."""
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        return (ms << 22) | (next(self._ids) & 0x3FFFFF)

    # --- lifecycle ---

    def start(self) -> Self:
        """Serve in a daemon thread with its own event loop; returns self."""
        if self._thread is not None:
            return self
        self._stopping.clear()
        ready = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._serve())
            except BaseException as exc:  # reported to start()
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._shutdown())
            loop.close()

        self._thread = threading.Thread(target=serve, name="fake-discord", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            self._thread = None
            raise failure[0]
        return self

    async def _serve(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._address[0], self._address[1])
        await site.start()
        server = site._server
        assert server is not None
        self._port = int(server.sockets[0].getsockname()[1])  # type: ignore[union-attr]

    async def _shutdown(self) -> None:
        for conn in list(self._sockets):
            with contextlib.suppress(Exception):
                await conn.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def stop(self) -> None:
        """Close the websockets and the server; afterwards the port refuses connections."""
        self._stopping.set()
        self._released.set()
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        self._thread = None
        self._loop = None
        self._port = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound port (after `start`)."""
        if self._port is None:
            raise RuntimeError("DiscordFake is not running")
        return self._port

    @property
    def url(self) -> str:
        """Server root, e.g. ``http://127.0.0.1:54321``."""
        return f"http://{self._address[0]}:{self.port}"

    @property
    def api_base(self) -> str:
        """What `discord.http.Route.BASE` must be."""
        return f"{self.url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """What `discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY` must be (as a ``yarl.URL``)."""
        return f"ws://{self._address[0]}:{self.port}/gateway"

    def _run(self, coro: Any) -> Any:
        if self._loop is None:
            raise RuntimeError("DiscordFake is not running")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    # --- reading what happened ---

    def channel_messages(self, channel_id: int) -> list[dict[str, Any]]:
        """Messages in a channel or thread, oldest first (ephemeral ones are not in any channel)."""
        with self._state_lock:
            return [
                dict(m)
                for m in self.messages.values()
                if int(m["channel_id"]) == channel_id and not int(m.get("flags", 0)) & EPHEMERAL
            ]

    def message(self, message_id: int) -> dict[str, Any]:
        """One stored message (ephemeral ones included)."""
        with self._state_lock:
            return dict(self.messages[message_id])

    def threads_of(self, channel_id: int) -> list[dict[str, Any]]:
        """Threads created under a channel."""
        with self._state_lock:
            return [dict(c) for c in self.channels.values() if c.get("parent_id") == str(channel_id)]

    def interaction(self, sent: SentInteraction | int) -> InteractionState:
        """The state of an injected interaction."""
        key = sent.id if isinstance(sent, SentInteraction) else sent
        with self._state_lock:
            return self.interactions[key]

    def dm_channel_of(self, user_id: int) -> int | None:
        """The DM channel the bot opened (or the user wrote in) with this user."""
        with self._state_lock:
            return self.dm_channels.get(user_id)

    def pinging_messages(self) -> list[dict[str, Any]]:
        """Stored messages that resolved any mention (a user, a role, @everyone/@here)."""
        with self._state_lock:
            return [
                dict(m)
                for m in self.messages.values()
                if int(m["author"]["id"]) == self.bot_id
                and (m["mention_everyone"] or m["mentions"] or m["mention_roles"])
            ]

    def requests_to(self, endpoint: str) -> list[RecordedRequest]:
        """Recorded requests of one route name."""
        return [r for r in self.requests if r.endpoint == endpoint]

    def message_requests(self) -> list[RecordedRequest]:
        """Every request that created or edited a message, accepted or not."""
        return [r for r in self.requests if r.message_payload is not None]

    async def wait_for(self, check: Callable[[], T], within: float = 30.0) -> T:
        """Poll `check` on the caller's loop until it returns something truthy; TimeoutError after `within` s."""
        deadline = time.monotonic() + within
        while True:
            value = check()
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing after {within} s")
            await asyncio.sleep(0.01)

    async def wait_for_response(self, sent: SentInteraction, within: float = 30.0) -> InteractionState:
        """Wait until the interaction has an accepted callback."""
        return await self.wait_for(
            lambda: self.interaction(sent) if self.interaction(sent).acknowledged else None, within
        )

    async def wait_for_followups(
        self, sent: SentInteraction, count: int = 1, within: float = 30.0
    ) -> list[dict[str, Any]]:
        """Wait for `count` followup messages and return them (an edited deferred original counts as one)."""

        def ready() -> list[dict[str, Any]] | None:
            state = self.interaction(sent)
            with self._state_lock:
                found = [self.messages[i] for i in state.followup_ids]
                original = self.messages.get(state.original_id or 0)
                if original is not None and (original.get("content") or original.get("embeds")):
                    found.insert(0, original)
                return [dict(m) for m in found] if len(found) >= count else None

        return await self.wait_for(ready, within)

    def response_messages(self, sent: SentInteraction) -> list[dict[str, Any]]:
        """The interaction's original response message (once it has content) and its followups, in order."""
        state = self.interaction(sent)
        with self._state_lock:
            found = [self.messages[i] for i in ([state.original_id] if state.original_id else []) + state.followup_ids]
        return [dict(m) for m in found]

    # --- driving the bot through the gateway ---

    def _channel_payload_for(self, channel_id: int) -> dict[str, Any]:
        with self._state_lock:
            channel = dict(self.channels[channel_id])
        if channel["type"] != 1:
            channel["permissions"] = str(ALL_PERMISSIONS)
        return channel

    def _interaction_payload(
        self, kind: int, data: dict[str, Any], *, user: int, channel: int | None, message: dict[str, Any] | None
    ) -> SentInteraction:
        interaction_id = self.new_id()
        token = "aW50ZXJhY3Rpb24." + secrets.token_urlsafe(24)
        in_dm = channel is None
        channel_id = self._ensure_dm(user) if in_dm else channel
        assert channel_id is not None
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": kind,
            "data": data,
            "token": token,
            "version": 1,
            "locale": "en-US",
            "attachment_size_limit": 10 * 1024 * 1024,
            "app_permissions": str(BOT_PERMISSIONS),
            "entitlements": [],
            "channel_id": str(channel_id),
            "channel": self._channel_payload_for(channel_id),
            "authorizing_integration_owners": {"0": str(self.guild_id)} if not in_dm else {"1": str(user)},
            "context": 1 if in_dm else 0,
        }
        if in_dm:
            with self._state_lock:
                payload["user"] = dict(self.users[user])
        else:
            member = self.member_payload(user)
            member["permissions"] = str(self.permissions_of(user))
            payload.update(
                guild_id=str(self.guild_id),
                guild_locale="en-US",
                member=member,
                guild={"id": str(self.guild_id), "locale": "en-US", "features": []},
            )
        if message is not None:
            payload["message"] = message
        state = InteractionState(
            id=interaction_id,
            token=token,
            type=kind,
            user_id=user,
            channel_id=channel_id,
            created_at=time.monotonic(),
            message_id=int(message["id"]) if message else None,
        )
        with self._state_lock:
            self.interactions[interaction_id] = state
        self.dispatch("INTERACTION_CREATE", payload)
        return SentInteraction(interaction_id, token, payload)

    def _command_data(self, name: str, options: list[dict[str, Any]], kind: int = 1) -> dict[str, Any]:
        with self._state_lock:
            guild_cmds = self.guild_commands.get(self.guild_id, [])
            registered = [(c, True) for c in guild_cmds] + [(c, False) for c in self.global_commands]
        match = next(((c, g) for c, g in registered if c["name"] == name and c.get("type", 1) == kind), None)
        if registered and match is None:
            raise ValueError(f"/{name} is not registered with Discord: users cannot invoke it")
        data: dict[str, Any] = {"name": name, "type": kind, "options": options}
        data["id"] = match[0]["id"] if match else str(self.new_id())
        if match and match[1]:
            data["guild_id"] = str(self.guild_id)
        resolved = self._resolve_options(options)
        if resolved:
            data["resolved"] = resolved
        return data

    def _resolve_options(self, options: list[dict[str, Any]]) -> dict[str, Any]:
        resolved: dict[str, dict[str, Any]] = {}
        for option in options:
            if option.get("type") in (1, 2):
                for key, values in self._resolve_options(option.get("options", [])).items():
                    resolved.setdefault(key, {}).update(values)
            elif option.get("type") == 7:
                channel = self._channel_payload_for(int(option["value"]))
                resolved.setdefault("channels", {})[option["value"]] = channel
            elif option.get("type") == 11:
                with self._state_lock:
                    attachment = self._attachment_payload(int(option["value"]))
                resolved.setdefault("attachments", {})[option["value"]] = attachment
            elif option.get("type") == 6:
                user_id = int(option["value"])
                with self._state_lock:
                    resolved.setdefault("users", {})[option["value"]] = dict(self.users[user_id])
        return resolved

    @staticmethod
    def options(
        values: dict[str, Any] | None = None, *, subcommand: str | None = None, focused: str | None = None
    ) -> list[dict[str, Any]]:
        """Command options from plain values (str, int, bool, float), optionally under a subcommand.

        Use `channel_option` / `attachment_option` for those kinds; `focused` marks the option being typed.
        """
        built: list[dict[str, Any]] = []
        for name, value in (values or {}).items():
            if isinstance(value, dict):
                built.append({"name": name, **value})
                continue
            kind = (
                5 if isinstance(value, bool) else 4 if isinstance(value, int) else 10 if isinstance(value, float) else 3
            )
            option: dict[str, Any] = {"name": name, "type": kind, "value": value}
            if focused == name:
                option["focused"] = True
            built.append(option)
        if subcommand is not None:
            return [{"name": subcommand, "type": 1, "options": built}]
        return built

    @staticmethod
    def channel_option(channel_id: int) -> dict[str, Any]:
        """A channel option value for `options`."""
        return {"type": 7, "value": str(channel_id)}

    @staticmethod
    def attachment_option(attachment: dict[str, Any]) -> dict[str, Any]:
        """An attachment option value for `options` (from `add_attachment`)."""
        return {"type": 11, "value": attachment["id"]}

    def slash(
        self,
        name: str,
        options: dict[str, Any] | list[dict[str, Any]] | None = None,
        *,
        user: int | None = None,
        channel: int | None = -1,
        subcommand: str | None = None,
    ) -> SentInteraction:
        """A member runs a slash command (in #papers by default; ``channel=None`` for a DM)."""
        built = options if isinstance(options, list) else self.options(options, subcommand=subcommand)
        return self._interaction_payload(
            2,
            self._command_data(name, built),
            user=user or self.member_id,
            channel=self.channel_id if channel == -1 else channel,
            message=None,
        )

    def autocomplete(
        self,
        name: str,
        options: dict[str, Any],
        focused: str,
        *,
        user: int | None = None,
        subcommand: str | None = None,
    ) -> SentInteraction:
        """A member types into option `focused` of a slash command."""
        built = self.options(options, subcommand=subcommand, focused=focused)
        return self._interaction_payload(
            4, self._command_data(name, built), user=user or self.member_id, channel=self.channel_id, message=None
        )

    def press(self, message_id: int, custom_id: str, *, user: int | None = None) -> SentInteraction:
        """A member presses a button on a stored message; the interaction carries the message and its components.

        Raises ValueError if the message has no such button (Discord could not have sent this press).
        """
        message = self.message(message_id)
        buttons = [c for row in message.get("components", []) for c in row.get("components", [])]
        if not any(b.get("custom_id") == custom_id for b in buttons):
            raise ValueError(f"message {message_id} has no button {custom_id!r}")
        channel_id = int(message["channel_id"])
        with self._state_lock:
            in_dm = self.channels[channel_id]["type"] == 1
        user_id = user or self.member_id
        if in_dm:
            self.dm_channels.setdefault(user_id, channel_id)
        return self._interaction_payload(
            3,
            {"custom_id": custom_id, "component_type": 2},
            user=user_id,
            channel=None if in_dm else channel_id,
            message=message,
        )

    def say(
        self,
        channel_id: int,
        content: str,
        *,
        user: int | None = None,
        reply_to: int | None = None,
        attachments: Iterable[dict[str, Any]] = (),
    ) -> dict[str, Any]:
        """A user posts a message (MESSAGE_CREATE, filtered by the bot's intents). Returns the stored message."""
        user_id = user or self.member_id
        with self._state_lock:
            channel = self.channels[channel_id]
            author = dict(self.users[user_id])
        message = self._new_message(
            channel_id,
            {"content": content, "attachments": list(attachments)},
            author=author,
            reference=reply_to,
        )
        event = dict(message)
        if channel["type"] != 1:
            event["guild_id"] = str(self.guild_id)
            event["member"] = {k: v for k, v in self.member_payload(user_id).items() if k != "user"}
        self.dispatch("MESSAGE_CREATE", event)
        return message

    def open_dm(self, user_id: int) -> int:
        """The DM channel between the bot and this user, opened if need be; returns its id."""
        return self._ensure_dm(user_id)

    def dm(
        self, user_id: int, content: str, *, reply_to: int | None = None, attachments: Iterable[dict[str, Any]] = ()
    ) -> dict[str, Any]:
        """A user writes to the bot in their DM channel."""
        return self.say(self._ensure_dm(user_id), content, user=user_id, reply_to=reply_to, attachments=attachments)

    def dispatch(self, event: str, data: dict[str, Any]) -> int:
        """Send a DISPATCH event to every identified connection whose intents cover it; returns how many got it."""
        return int(self._run(self._dispatch(event, data)))

    async def _dispatch(self, event: str, data: dict[str, Any]) -> int:
        sent = 0
        for conn in list(self._sockets):
            if not conn.identified or conn.ws.closed:
                continue
            payload = self._filter_for_intents(event, data, conn.intents)
            if payload is None:
                continue
            await conn.send_dispatch(event, payload)
            sent += 1
        return sent

    def _filter_for_intents(self, event: str, data: dict[str, Any], intents: int) -> dict[str, Any] | None:
        if event not in ("MESSAGE_CREATE", "MESSAGE_UPDATE"):
            return data
        in_guild = "guild_id" in data
        if not intents & (INTENT_GUILD_MESSAGES if in_guild else INTENT_DIRECT_MESSAGES):
            return None
        mentioned = any(int(u["id"]) == self.bot_id for u in data.get("mentions", []))
        if (
            in_guild
            and not intents & INTENT_MESSAGE_CONTENT
            and not mentioned
            and int(data["author"]["id"]) != self.bot_id
        ):
            return {**data, "content": "", "embeds": [], "attachments": [], "components": []}
        return data

    def disconnect_gateway(self, code: int = 4000) -> None:
        """Close every gateway connection with `code` (4000 lets discord.py reconnect and resume)."""

        async def close_all() -> None:
            for conn in list(self._sockets):
                await conn.ws.close(code=code)

        self._run(close_all())

    @property
    def connected(self) -> int:
        """Identified gateway connections still open."""
        return sum(1 for c in self._sockets if c.identified and not c.ws.closed)

    # --- messages ---

    def _ensure_dm(self, user_id: int) -> int:
        with self._state_lock:
            channel_id = self.dm_channels.get(user_id)
            if channel_id is None:
                channel_id = self.new_id()
                self.dm_channels[user_id] = channel_id
                self.channels[channel_id] = {
                    "id": str(channel_id),
                    "type": 1,
                    "last_message_id": None,
                    "flags": 0,
                    "recipients": [dict(self.users[user_id])],
                }
            return channel_id

    def _resolve_mentions(
        self, payload: dict[str, Any], reference: dict[str, Any] | None
    ) -> tuple[list[dict[str, Any]], list[str], bool]:
        """The users, roles and @everyone Discord would ping for this content and allowed_mentions."""
        content = str(payload.get("content") or "")
        allowed = payload.get("allowed_mentions")
        parse = set(allowed.get("parse", [])) if isinstance(allowed, dict) else {"users", "roles", "everyone"}
        allowed_users = {int(u) for u in (allowed or {}).get("users", [])}
        allowed_roles = {int(r) for r in (allowed or {}).get("roles", [])}
        with self._state_lock:
            users = [
                dict(self.users[uid])
                for uid in dict.fromkeys(int(m) for m in _USER_MENTION.findall(content))
                if uid in self.users and ("users" in parse or uid in allowed_users)
            ]
            roles = [
                str(rid)
                for rid in dict.fromkeys(int(m) for m in _ROLE_MENTION.findall(content))
                if rid in self.roles and ("roles" in parse or rid in allowed_roles)
            ]
            if reference is not None:
                replied_user = not isinstance(allowed, dict) or bool(allowed.get("replied_user"))
                author = reference["author"]
                if replied_user and all(u["id"] != author["id"] for u in users):
                    users.append(dict(author))
        everyone = "everyone" in parse and bool(_EVERYONE.search(content))
        return users, roles, everyone

    def _new_message(
        self,
        channel_id: int,
        payload: dict[str, Any],
        *,
        author: dict[str, Any],
        reference: int | None = None,
        files: Iterable[tuple[str, bytes]] = (),
        flags: int = 0,
        interaction: InteractionState | None = None,
        webhook: bool = False,
    ) -> dict[str, Any]:
        message_id = self.new_id()
        with self._state_lock:
            referenced = self.messages.get(reference) if reference is not None else None
        users, roles, everyone = self._resolve_mentions(payload, referenced)
        attachments = list(payload.get("attachments") or []) if not files else []
        for filename, data in files:
            attachment = self.add_attachment(filename, data, "application/octet-stream")
            attachments.append(attachment)
        message: dict[str, Any] = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "type": 19 if referenced else 0,
            "content": str(payload.get("content") or ""),
            "author": author,
            "timestamp": _iso(time.time() * 1000),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": everyone,
            "mentions": users,
            "mention_roles": roles,
            "attachments": attachments,
            "embeds": list(payload.get("embeds") or []),
            "components": list(payload.get("components") or []),
            "pinned": False,
            "flags": int(payload.get("flags") or 0) | flags,
            "allowed_mentions": payload.get("allowed_mentions"),
        }
        if payload.get("nonce") is not None:
            message["nonce"] = str(payload["nonce"])
        if webhook:
            message["webhook_id"] = str(self.application_id)
            message["application_id"] = str(self.application_id)
        if referenced is not None:
            message["message_reference"] = {
                "message_id": referenced["id"],
                "channel_id": referenced["channel_id"],
                "type": 0,
            }
            message["referenced_message"] = {k: v for k, v in referenced.items() if k != "referenced_message"}
        if interaction is not None:
            message["interaction_metadata"] = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": dict(self.users[interaction.user_id]),
                "authorizing_integration_owners": {},
            }
        with self._state_lock:
            self.messages[message_id] = message
            self.channels[channel_id]["last_message_id"] = str(message_id)
        return dict(message)

    def _edit_message(
        self, message_id: int, payload: dict[str, Any], files: Iterable[tuple[str, bytes]] = ()
    ) -> dict[str, Any]:
        uploaded = [self.add_attachment(name, data, "application/octet-stream") for name, data in files]
        with self._state_lock:
            message = self.messages[message_id]
            for key in ("content", "embeds", "components", "flags", "allowed_mentions"):
                if key in payload and payload[key] is not None:
                    message[key] = payload[key]
            if uploaded:
                message["attachments"] = uploaded
            message["flags"] = int(message.get("flags", 0)) & ~LOADING  # a deferred response is filled in
            if "content" in payload:
                users, roles, everyone = self._resolve_mentions(message, None)
                message.update(mentions=users, mention_roles=roles, mention_everyone=everyone)
            message["edited_timestamp"] = _iso(time.time() * 1000)
            return dict(message)

    # --- REST ---

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        body, files = await _read_body(request)
        endpoint, handler, params = self._route(request.method, path)
        authorized = request.headers.get("Authorization") == f"Bot {self.token}"
        status, response, headers = 200, None, {}
        try:
            fault = self._next_fault(endpoint) or self._random_rate_limit(endpoint)
            if fault is not None:
                raise _FaultAnswer(fault)
            if endpoint != "callback" and self.global_rate_limit is not None:
                self._count_for_global_limit()
            if handler is None:
                raise DiscordError.of(404, 0, "404: Not Found")
            if endpoint not in _UNAUTHENTICATED and not authorized:
                raise DiscordError.of(401, 0, "401: Unauthorized")
            result = handler(request, body, files, **params)
            status, response = (204, None) if result is None else (200, result)
        except DiscordError as exc:
            status, response = exc.status, exc.body
        except _FaultAnswer as fault_answer:
            if fault_answer.fault.kind == "disconnect":
                return self._hang_up(request, endpoint, body, files, authorized)
            status, response, headers = fault_answer.answer()
        if status in (401, 403, 429):
            self.invalid_requests += 1
        self._record(
            RecordedRequest(
                method=request.method,
                path=path,
                endpoint=endpoint,
                query=dict(request.query),
                body=body,
                files=tuple(files),
                authorized=authorized,
                status=status,
                response=response,
                at=time.monotonic(),
            )
        )
        if status < 300 and self._holds(endpoint):
            await asyncio.to_thread(self._released.wait, 300)
        if isinstance(response, bytes):
            return web.Response(status=status, body=response, headers=headers)
        if response is None:
            return web.Response(status=status, headers=headers)
        # Exactly "application/json": discord.py compares the header verbatim, a charset makes it read text.
        return web.Response(
            status=status, body=json.dumps(response).encode(), headers={"Content-Type": "application/json", **headers}
        )

    def _hang_up(
        self, request: web.Request, endpoint: str, body: Any, files: list[tuple[str, bytes]], authorized: bool
    ) -> web.StreamResponse:
        """Record the request as unanswered (status 0) and close its connection: the client reads no answer."""
        self._record(
            RecordedRequest(
                method=request.method,
                path=request.path,
                endpoint=endpoint,
                query=dict(request.query),
                body=body,
                files=tuple(files),
                authorized=authorized,
                status=0,
                response=None,
                at=time.monotonic(),
            )
        )
        if request.transport is not None:
            request.transport.close()
        return web.Response(status=204)  # never reaches the client: its connection is closed

    def hold_answers(self, endpoint: str = "send_message", *, after: int = 0) -> None:
        """Carry out the requests to `endpoint` but, after `after` more answers, hold every answer back until
        `release` (the client sees a request that never ends, the fake has done what it asked)."""
        with self._state_lock:
            self._hold, self.held = (endpoint, after), 0
            self._released.clear()

    def release(self) -> None:
        """Answer the held requests (to whoever still listens) and hold no more."""
        with self._state_lock:
            self._hold = None
        self._released.set()

    def _holds(self, endpoint: str | None) -> bool:
        with self._state_lock:
            if self._hold is None or self._hold[0] != endpoint:
                return False
            if self._hold[1] > 0:
                self._hold = (endpoint, self._hold[1] - 1)
                return False
            self.held += 1
            return True

    def storm(self, share: float, retry_after: float = 0.1, *, endpoint: str = "send_message", seed: int = 0) -> None:
        """Answer about `share` of the requests to `endpoint` with a 429 (seeded, so a run repeats); 0 stops it."""
        with self._state_lock:
            self._storm = (share, retry_after, endpoint, random.Random(seed)) if share > 0 else None

    def _random_rate_limit(self, endpoint: str) -> Fault | None:
        with self._state_lock:
            if self._storm is None:
                return None
            share, retry_after, storm_endpoint, rng = self._storm
            if endpoint != storm_endpoint or rng.random() >= share:
                return None
        return Fault.rate_limit(retry_after, endpoint=endpoint)

    def _count_for_global_limit(self) -> None:
        now = time.monotonic()
        with self._state_lock:
            while self._recent and now - self._recent[0] > 1.0:
                self._recent.popleft()
            if self.global_rate_limit is not None and len(self._recent) >= self.global_rate_limit:
                retry_after = max(0.01, 1.0 - (now - self._recent[0]))
                raise _FaultAnswer(Fault.rate_limit(retry_after, is_global=True))
            self._recent.append(now)

    def _route(self, method: str, path: str) -> tuple[str, Callable[..., Any] | None, dict[str, str]]:
        if path.startswith("/attachments/"):
            match = re.fullmatch(r"/attachments/(\d+)/[^/]+", path)
            return (
                "attachment",
                self._get_attachment if match and method == "GET" else None,
                ({"attachment_id": match.group(1)} if match else {}),
            )
        if not path.startswith("/api/v10/"):
            return "unknown", None, {}
        rest = path[len("/api/v10") :]
        for route_method, pattern, endpoint, handler in self._routes():
            match = re.fullmatch(pattern, rest)
            if match and route_method == method:
                return endpoint, handler, match.groupdict()
        return "unknown", None, {}

    def _routes(self) -> list[tuple[str, str, str, Callable[..., Any]]]:
        app = r"(?P<app_id>\d+)"
        token = r"(?P<token>[^/]+)"
        return [
            ("GET", r"/users/@me", "login", lambda *a: dict(self.users[self.bot_id])),
            ("GET", r"/oauth2/applications/@me", "application", self._application),
            ("GET", r"/gateway/bot", "gateway", self._gateway_bot),
            ("GET", r"/gateway", "gateway", self._gateway_bot),
            ("PUT", rf"/applications/{app}/commands", "sync_commands", self._put_commands),
            ("PUT", rf"/applications/{app}/guilds/(?P<guild_id>\d+)/commands", "sync_commands", self._put_commands),
            ("GET", rf"/applications/{app}/commands", "commands", self._get_commands),
            ("GET", rf"/applications/{app}/guilds/(?P<guild_id>\d+)/commands", "commands", self._get_commands),
            ("POST", r"/channels/(?P<channel_id>\d+)/messages", "send_message", self._send_message),
            ("GET", r"/channels/(?P<channel_id>\d+)/messages/(?P<message_id>\d+)", "get_message", self._get_message),
            (
                "PATCH",
                r"/channels/(?P<channel_id>\d+)/messages/(?P<message_id>\d+)",
                "edit_message",
                self._patch_message,
            ),
            (
                "POST",
                r"/channels/(?P<channel_id>\d+)/messages/(?P<message_id>\d+)/threads",
                "create_thread",
                self._create_thread,
            ),
            ("POST", r"/channels/(?P<channel_id>\d+)/typing", "typing", lambda *a, **k: None),
            ("GET", r"/channels/(?P<channel_id>\d+)", "get_channel", self._get_channel),
            ("POST", r"/users/@me/channels", "dm_channel", self._open_dm),
            ("GET", r"/users/(?P<user_id>\d+)", "get_user", self._get_user),
            ("GET", r"/guilds/(?P<guild_id>\d+)/members/(?P<user_id>\d+)", "get_member", self._get_member),
            ("POST", r"/interactions/(?P<interaction_id>\d+)/(?P<token>[^/]+)/callback", "callback", self._callback),
            ("POST", rf"/webhooks/{app}/{token}", "followup", self._followup),
            (
                "PATCH",
                rf"/webhooks/{app}/{token}/messages/(?P<message_id>@original|\d+)",
                "edit_webhook_message",
                self._edit_webhook_message,
            ),
            (
                "GET",
                rf"/webhooks/{app}/{token}/messages/(?P<message_id>@original|\d+)",
                "get_webhook_message",
                self._get_webhook_message,
            ),
            (
                "DELETE",
                rf"/webhooks/{app}/{token}/messages/(?P<message_id>@original|\d+)",
                "delete_webhook_message",
                self._delete_webhook_message,
            ),
        ]

    def _application(self, *_: Any) -> dict[str, Any]:
        with self._state_lock:
            owner = dict(self.users[self.owner_id])
        return {
            "id": str(self.application_id),
            "name": "paperscout",
            "description": "",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": owner,
            "verify_key": "0" * 64,
            "flags": 0,
            "team": None,
            "summary": "",
        }

    def _gateway_bot(self, *_: Any) -> dict[str, Any]:
        return {
            "url": self.gateway_url,
            "shards": 1,
            "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1},
        }

    def _put_commands(
        self, request: web.Request, body: Any, files: Any, app_id: str, guild_id: str | None = None
    ) -> list[dict[str, Any]]:
        if int(app_id) != self.application_id:
            raise DiscordError.of(403, 50001, "Missing Access")
        errors = FormErrors()
        if not isinstance(body, list):
            raise DiscordError(
                400,
                {
                    "code": 50035,
                    "message": "Invalid Form Body",
                    "errors": {"_errors": [{"code": "BASE_TYPE_ARRAY", "message": "Must be an array."}]},
                },
            )
        if len(body) > 100:
            errors.max_length((), 100)
        stored = []
        for index, command in enumerate(body):
            name = str(command.get("name", ""))
            kind = command.get("type", 1)
            if (kind == 1 and not re.fullmatch(r"[-_\w]{1,32}", name)) or name != name.lower():
                errors.add((index, "name"), "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
            if kind == 1 and not 1 <= len(command.get("description", "")) <= 100:
                errors.add((index, "description"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
            if len(command.get("options", [])) > 25:
                errors.max_length((index, "options"), 25)
            stored.append(
                {
                    **command,
                    "id": str(self.new_id()),
                    "application_id": app_id,
                    "type": kind,
                    "version": "1",
                    "default_member_permissions": command.get("default_member_permissions"),
                    **({"guild_id": guild_id} if guild_id else {}),
                }
            )
        if errors:
            raise DiscordError(400, errors.body())
        with self._state_lock:
            if guild_id is None:
                self.global_commands = stored
            else:
                self.guild_commands[int(guild_id)] = stored
        return stored

    def _get_commands(
        self, request: web.Request, body: Any, files: Any, app_id: str, guild_id: str | None = None
    ) -> list[dict[str, Any]]:
        with self._state_lock:
            return list(self.global_commands if guild_id is None else self.guild_commands.get(int(guild_id), []))

    def _channel(self, channel_id: str | int) -> dict[str, Any]:
        with self._state_lock:
            channel = self.channels.get(int(channel_id))
        if channel is None:
            raise DiscordError.of(404, 10003, "Unknown Channel")
        return channel

    def _send_message(
        self, request: web.Request, body: Any, files: list[tuple[str, bytes]], channel_id: str
    ) -> dict[str, Any]:
        channel = self._channel(channel_id)
        payload = body if isinstance(body, dict) else {}
        check_message(payload, files=len(files))
        if channel["type"] == 1:
            recipient = int(channel["recipients"][0]["id"])
            if recipient in self.closed_dms:
                raise DiscordError.of(403, 50007, "Cannot send messages to this user")
        else:
            parent = int(channel.get("parent_id") or channel["id"]) if channel["type"] == 11 else int(channel["id"])
            if parent in self.bot_denied_channels or int(channel["id"]) in self.bot_denied_channels:
                raise DiscordError.of(403, 50013, "Missing Permissions")
            if channel["type"] == 11 and parent in self.thread_posts_denied:
                raise DiscordError.of(403, 50013, "Missing Permissions")
            if channel.get("thread_metadata", {}).get("locked"):
                raise DiscordError.of(400, 50083, "Thread is archived")
        nonce = payload.get("nonce")
        if nonce is not None and len(str(nonce)) > NONCE_MAX:
            errors = FormErrors()
            errors.max_length(("nonce",), NONCE_MAX)
            raise DiscordError(400, errors.body())
        if nonce is not None and payload.get("enforce_nonce"):
            # Discord hands back the message this author already sent with this nonce in the last few minutes.
            with self._state_lock:
                earlier = [
                    m
                    for m in self.messages.values()
                    if m["channel_id"] == channel_id
                    and m.get("nonce") == str(nonce)
                    and int(m["author"]["id"]) == self.bot_id
                    and time.time() * 1000 - _snowflake_time_ms(int(m["id"])) < NONCE_WINDOW_SECONDS * 1000
                ]
            if earlier:
                return dict(earlier[-1])
        reference = (payload.get("message_reference") or {}).get("message_id")
        with self._state_lock:
            author = dict(self.users[self.bot_id])
        message = self._new_message(
            int(channel_id), payload, author=author, files=files, reference=int(reference) if reference else None
        )
        event = dict(message)
        if channel["type"] != 1:
            event["guild_id"] = str(self.guild_id)
        self._schedule_dispatch("MESSAGE_CREATE", event)
        return message

    def _schedule_dispatch(self, event: str, data: dict[str, Any]) -> None:
        # Called inside a request handler on the fake's loop: the event follows the response, as on Discord.
        if self._loop is not None:
            self._loop.call_soon(lambda: asyncio.ensure_future(self._dispatch(event, data)))

    def _get_message(
        self, request: web.Request, body: Any, files: Any, channel_id: str, message_id: str
    ) -> dict[str, Any]:
        with self._state_lock:
            message = self.messages.get(int(message_id))
        if message is None or message["channel_id"] != channel_id:
            raise DiscordError.of(404, 10008, "Unknown Message")
        return dict(message)

    def _patch_message(
        self, request: web.Request, body: Any, files: Any, channel_id: str, message_id: str
    ) -> dict[str, Any]:
        message = self._get_message(request, body, files, channel_id, message_id)
        if int(message["author"]["id"]) != self.bot_id:
            raise DiscordError.of(403, 50005, "Cannot edit a message authored by another user")
        payload = body if isinstance(body, dict) else {}
        check_message(payload, edit=True)
        return self._edit_message(int(message_id), payload)

    def _create_thread(
        self, request: web.Request, body: Any, files: Any, channel_id: str, message_id: str
    ) -> dict[str, Any]:
        self._channel(channel_id)
        self._get_message(request, body, files, channel_id, message_id)
        name = str((body or {}).get("name") or "")
        if not 1 <= len(name) <= THREAD_NAME_MAX:
            errors = FormErrors()
            errors.add(("name",), "BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {THREAD_NAME_MAX} in length.")
            raise DiscordError(400, errors.body())
        if int(channel_id) in self.bot_denied_channels or int(channel_id) in self.threads_denied:
            raise DiscordError.of(403, 50013, "Missing Permissions")
        with self._state_lock:
            if int(message_id) in self.channels:
                raise DiscordError.of(400, 160004, "A thread has already been created for this message")
            # A thread started from a message takes the message's id.
            thread = {
                "id": message_id,
                "type": 11,
                "guild_id": str(self.guild_id),
                "parent_id": channel_id,
                "owner_id": str(self.bot_id),
                "name": name,
                "last_message_id": None,
                "message_count": 0,
                "member_count": 1,
                "rate_limit_per_user": 0,
                "flags": 0,
                "total_message_sent": 0,
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": int((body or {}).get("auto_archive_duration", 1440)),
                    "archive_timestamp": _iso(time.time() * 1000),
                    "locked": False,
                },
            }
            self.channels[int(message_id)] = thread
            self.messages[int(message_id)]["thread"] = dict(thread)
        self._schedule_dispatch("THREAD_CREATE", {**thread, "newly_created": True})
        return dict(thread)

    def _get_channel(self, request: web.Request, body: Any, files: Any, channel_id: str) -> dict[str, Any]:
        return dict(self._channel(channel_id))

    def _open_dm(self, request: web.Request, body: Any, files: Any) -> dict[str, Any]:
        recipient = int((body or {}).get("recipient_id", 0))
        if recipient not in self.users:
            raise DiscordError.of(404, 10013, "Unknown User")
        return dict(self._channel(self._ensure_dm(recipient)))

    def _get_user(self, request: web.Request, body: Any, files: Any, user_id: str) -> dict[str, Any]:
        with self._state_lock:
            user = self.users.get(int(user_id))
        if user is None:
            raise DiscordError.of(404, 10013, "Unknown User")
        return dict(user)

    def _get_member(self, request: web.Request, body: Any, files: Any, guild_id: str, user_id: str) -> dict[str, Any]:
        if int(user_id) not in self.member_roles:
            raise DiscordError.of(404, 10007, "Unknown Member")
        return self.member_payload(int(user_id))

    def _get_attachment(self, request: web.Request, body: Any, files: Any, attachment_id: str) -> bytes:
        with self._state_lock:
            stored = self.attachments.get(int(attachment_id))
        if stored is None:
            raise DiscordError.of(404, 0, "404: Not Found")
        return stored[1]

    # --- interactions ---

    def _interaction_by_token(self, token: str) -> InteractionState:
        with self._state_lock:
            state = next((s for s in self.interactions.values() if s.token == token), None)
        if state is None or time.monotonic() - state.created_at > INTERACTION_TOKEN_LIFETIME:
            raise DiscordError.of(404, 10015, "Unknown Webhook")
        return state

    def _callback(
        self, request: web.Request, body: Any, files: list[tuple[str, bytes]], interaction_id: str, token: str
    ) -> dict[str, Any] | None:
        with self._state_lock:
            state = self.interactions.get(int(interaction_id))
        if state is None or state.token != token:
            raise DiscordError.of(404, 10062, "Unknown interaction")
        if time.monotonic() - state.created_at > self.interaction_deadline:
            raise DiscordError.of(404, 10062, "Unknown interaction")
        if state.acknowledged:
            raise DiscordError.of(400, 40060, "Interaction has already been acknowledged.")
        payload = body if isinstance(body, dict) else {}
        kind = payload.get("type")
        data = payload.get("data") or {}
        allowed = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}[state.type]
        if kind not in allowed:
            errors = FormErrors()
            errors.add(("type",), "INTERACTION_RESPONSE_TYPE_INVALID", "Interaction response type is invalid")
            raise DiscordError(400, errors.body())
        resource: dict[str, Any] | None = None
        if kind == 8:
            choices = data.get("choices") or []
            errors = FormErrors()
            if len(choices) > CHOICES_MAX:
                errors.max_length(("data", "choices"), CHOICES_MAX)
            for index, choice in enumerate(choices):
                if not 1 <= len(str(choice.get("name", ""))) <= 100:
                    errors.add(
                        ("data", "choices", index, "name"),
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 100 in length.",
                    )
                if len(str(choice.get("value", ""))) > 100:
                    errors.max_length(("data", "choices", index, "value"), 100)
            if errors:
                raise DiscordError(400, errors.body())
        elif kind == 4:
            check_message(data, files=len(files))
            message = self._new_message(
                state.channel_id,
                data,
                author=dict(self.users[self.bot_id]),
                files=files,
                interaction=state,
                webhook=True,
            )
            state.original_id = int(message["id"])
            resource = {"type": 4, "message": message}
        elif kind == 5:
            message = self._new_message(
                state.channel_id,
                {"content": "", "flags": data.get("flags", 0)},
                author=dict(self.users[self.bot_id]),
                flags=LOADING,
                interaction=state,
                webhook=True,
            )
            state.original_id = int(message["id"])
            resource = {"type": 5, "message": message}
        elif kind == 7:
            check_message(data, edit=True)
            assert state.message_id is not None
            resource = {"type": 7, "message": self._edit_message(state.message_id, data)}
        with self._state_lock:
            state.responses.append(payload)
        if request.query.get("with_response") not in ("1", "true", "True"):
            return None
        original = self.messages.get(state.original_id or 0, {})
        return {
            "interaction": {
                "id": str(state.id),
                "type": state.type,
                "activity_instance_id": None,
                "response_message_id": str(state.original_id) if state.original_id else None,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(int(original.get("flags", 0)) & EPHEMERAL),
            },
            **({"resource": resource} if resource is not None else {}),
        }

    def _followup(
        self, request: web.Request, body: Any, files: list[tuple[str, bytes]], app_id: str, token: str
    ) -> dict[str, Any]:
        state = self._interaction_by_token(token)
        if int(app_id) != self.application_id:
            raise DiscordError.of(404, 10015, "Unknown Webhook")
        if not state.acknowledged:
            raise DiscordError.of(404, 10015, "Unknown Webhook")
        payload = body if isinstance(body, dict) else {}
        check_message(payload, files=len(files))
        with self._state_lock:
            original = self.messages.get(state.original_id or 0)
            loading = original is not None and bool(int(original.get("flags", 0)) & LOADING)
        if loading:
            # The first followup after a deferred response replaces the "thinking" message; its ephemerality
            # was decided by the defer, not by this request's flags.
            assert state.original_id is not None
            kept = int(original["flags"]) & EPHEMERAL  # type: ignore[index]
            return self._edit_message(state.original_id, {**payload, "flags": kept}, files)
        message = self._new_message(
            state.channel_id,
            payload,
            author=dict(self.users[self.bot_id]),
            files=files,
            interaction=state,
            webhook=True,
        )
        with self._state_lock:
            state.followup_ids.append(int(message["id"]))
        return message

    def _webhook_message_id(self, state: InteractionState, message_id: str) -> int:
        if message_id == "@original":
            if state.original_id is None:
                raise DiscordError.of(404, 10008, "Unknown Message")
            return state.original_id
        if int(message_id) not in [state.original_id, *state.followup_ids]:
            raise DiscordError.of(404, 10008, "Unknown Message")
        return int(message_id)

    def _edit_webhook_message(
        self, request: web.Request, body: Any, files: list[tuple[str, bytes]], app_id: str, token: str, message_id: str
    ) -> dict[str, Any]:
        state = self._interaction_by_token(token)
        target = self._webhook_message_id(state, message_id)
        payload = body if isinstance(body, dict) else {}
        check_message(payload, files=len(files), edit=True)
        edited = self._edit_message(target, payload, files)
        check_message(edited)  # a deferred response edited into nothing is still an empty message
        return edited

    def _get_webhook_message(
        self, request: web.Request, body: Any, files: Any, app_id: str, token: str, message_id: str
    ) -> dict[str, Any]:
        state = self._interaction_by_token(token)
        return self.message(self._webhook_message_id(state, message_id))

    def _delete_webhook_message(
        self, request: web.Request, body: Any, files: Any, app_id: str, token: str, message_id: str
    ) -> None:
        state = self._interaction_by_token(token)
        target = self._webhook_message_id(state, message_id)
        with self._state_lock:
            self.messages.pop(target, None)
            if state.original_id == target:
                state.original_id = None
            if target in state.followup_ids:
                state.followup_ids.remove(target)
        return None

    # --- gateway ---

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        conn = _GatewayConnection(ws)
        self._sockets.append(conn)
        try:
            await conn.send({"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}, "s": None, "t": None})
            async for raw in ws:
                if raw.type is not WSMsgType.TEXT:
                    continue
                message = json.loads(raw.data)
                await self._gateway_op(conn, message.get("op"), message.get("d"))
        finally:
            self._sockets.remove(conn)
        return ws

    async def _gateway_op(self, conn: _GatewayConnection, op: int | None, data: Any) -> None:
        if op == 1:
            await conn.send({"op": 11, "d": None, "s": None, "t": None})
        elif op == 2:
            if data.get("token") != self.token:
                await conn.ws.close(code=4004, message=b"Authentication failed.")
                return
            conn.intents = int(data.get("intents", 0))
            self.identifies.append({k: v for k, v in data.items() if k != "token"})
            conn.session_id = secrets.token_hex(16)
            self._sessions[conn.session_id] = conn.intents
            conn.identified = True
            await conn.send_dispatch(
                "READY",
                {
                    "v": 10,
                    "user": dict(self.users[self.bot_id]),
                    "guilds": [{"id": str(self.guild_id), "unavailable": True}],
                    "session_id": conn.session_id,
                    "resume_gateway_url": self.gateway_url,
                    "application": {"id": str(self.application_id), "flags": 0},
                    "private_channels": [],
                    # a sharded IDENTIFY gets its [shard_id, num_shards] back (Discord's Ready event)
                    **({"shard": list(data["shard"])} if data.get("shard") else {}),
                },
            )
            if conn.intents & INTENT_GUILDS:
                await conn.send_dispatch("GUILD_CREATE", self._guild_payload(conn.intents))
        elif op == 6:
            session = self._sessions.get(str(data.get("session_id")))
            if session is None:
                await conn.send({"op": 9, "d": False, "s": None, "t": None})  # invalid session: identify again
                return
            conn.session_id, conn.intents, conn.identified = str(data["session_id"]), session, True
            await conn.send_dispatch("RESUMED", {})
        elif op == 8:
            members = [self.member_payload(uid) for uid in list(self.member_roles)]
            await conn.send_dispatch(
                "GUILD_MEMBERS_CHUNK",
                {
                    "guild_id": str(self.guild_id),
                    "members": members,
                    "chunk_index": 0,
                    "chunk_count": 1,
                    "nonce": data.get("nonce"),
                },
            )

    def _guild_payload(self, intents: int) -> dict[str, Any]:
        with self._state_lock:
            member_ids = list(self.member_roles) if intents & INTENT_GUILD_MEMBERS else [self.bot_id]
            channels = [dict(c) for c in self.channels.values() if c["type"] == 0]
            threads = [dict(c) for c in self.channels.values() if c["type"] == 11]
            roles = [dict(r) for r in self.roles.values()]
        return {
            "id": str(self.guild_id),
            "name": "Reading group",
            "icon": None,
            "owner_id": str(self.owner_id),
            "roles": roles,
            "emojis": [],
            "stickers": [],
            "features": [],
            "member_count": len(self.member_roles),
            "members": [self.member_payload(uid) for uid in member_ids],
            "channels": channels,
            "threads": threads,
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "large": False,
            "unavailable": False,
            "joined_at": _iso(time.time() * 1000),
            "preferred_locale": "en-US",
            "premium_tier": 0,
            "system_channel_id": None,
            "afk_channel_id": None,
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "application_id": None,
            "description": None,
            "banner": None,
            "splash": None,
            "discovery_splash": None,
            "vanity_url_code": None,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "max_members": 500000,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "safety_alerts_channel_id": None,
            "incidents_data": None,
        }


_UNAUTHENTICATED = {
    "callback",
    "followup",
    "edit_webhook_message",
    "get_webhook_message",
    "delete_webhook_message",
    "attachment",
}


class _FaultAnswer(Exception):
    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.kind)
        self.fault = fault

    def answer(self) -> tuple[int, Any, dict[str, str]]:
        fault = self.fault
        if fault.kind == "cloudflare_ban":
            return 429, b"<html><body>error code: 1015</body></html>", {"Content-Type": "text/html"}
        if fault.kind == "rate_limit":
            headers = {
                "Via": "1.1 google",
                "Retry-After": str(max(1, int(fault.retry_after + 0.999))),
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{time.time() + fault.retry_after:.3f}",
                "X-RateLimit-Reset-After": f"{fault.retry_after:.3f}",
                "X-RateLimit-Bucket": "fakebucket",
                "X-RateLimit-Scope": "global" if fault.is_global else "user",
            }
            if fault.is_global:
                headers["X-RateLimit-Global"] = "true"
            body = {
                "message": "You are being rate limited.",
                "retry_after": fault.retry_after,
                "global": fault.is_global,
                "code": 0,
            }
            return 429, body, headers
        return fault.status, {"message": fault.message or f"{fault.status}", "code": fault.code}, {}


class _GatewayConnection:
    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.seq = 0
        self.intents = 0
        self.identified = False
        self.session_id: str | None = None
        self._send_lock = asyncio.Lock()

    async def send(self, payload: dict[str, Any]) -> None:
        async with self._send_lock:
            if not self.ws.closed:
                await self.ws.send_str(json.dumps(payload))

    async def send_dispatch(self, event: str, data: dict[str, Any]) -> None:
        async with self._send_lock:
            if self.ws.closed:
                return
            self.seq += 1
            await self.ws.send_str(json.dumps({"op": 0, "t": event, "s": self.seq, "d": data}))


async def _read_body(request: web.Request) -> tuple[Any, list[tuple[str, bytes]]]:
    """JSON body, or multipart ``payload_json`` plus ``files[n]`` as discord.py sends uploads."""
    if request.content_type.startswith("multipart/"):
        payload: Any = None
        files: list[tuple[str, bytes]] = []
        reader = await request.multipart()
        async for part in reader:
            if part is None:
                break
            name = getattr(part, "name", None)
            data = await part.read()  # type: ignore[union-attr]
            if name == "payload_json":
                payload = json.loads(bytes(data).decode())
            elif name and name.startswith("files["):
                files.append((getattr(part, "filename", None) or name, bytes(data)))
        return payload, files
    raw = await request.read()
    if not raw:
        return None, []
    try:
        return json.loads(raw), []
    except ValueError:
        return raw.decode(errors="replace"), []


def main() -> None:
    """Serve the fake until Ctrl-C and print the settings that point paperscout at it."""
    import argparse

    parser = argparse.ArgumentParser(description="A Discord REST API and gateway fake on 127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    with DiscordFake(port=args.port) as fake:
        print(f"PAPERSCOUT_DISCORD_TOKEN={fake.token}")
        print(f"PAPERSCOUT_DISCORD_API_URL={fake.api_base}")
        print(f"PAPERSCOUT_DISCORD_GATEWAY_URL={fake.gateway_url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
