"""A fake Slack Web API and Socket Mode server on 127.0.0.1: real HTTP and websockets, Slack's JSON shapes and refusals.

Written from Slack's public API documentation (methods, Block Kit limits, Socket Mode envelopes). Point the unmodified
slack_sdk / slack-bolt at it::

    with SlackFake() as fake:
        fake.add_user("U0ADA", "ada")
        fake.add_channel("C0PAPERS", "papers", members=["U0ADA"])
        client = AsyncWebClient(token=fake.bot_token, base_url=fake.api_url)
        app = AsyncApp(client=client)
        handler = AsyncSocketModeHandler(app, fake.app_token)
        await handler.connect_async()          # apps.connections.open, then the websocket, then "hello"
        envelope = fake.slash_command("U0ADA", "C0PAPERS", "/paperscout", "help")
        await fake.wait_for_ack(envelope)

Web API (``POST`` or ``GET /api/<method>``; JSON, form-encoded or query arguments; the token as ``Authorization:
Bearer`` or a ``token`` argument): auth.test, apps.connections.open (app-level ``xapp-`` token only),
chat.postMessage, chat.update, chat.postEphemeral, conversations.open, conversations.info, users.info. Errors come
as Slack sends them: HTTP 200 with ``{"ok": false, "error": ...}`` (``not_authed``, ``invalid_auth``,
``account_inactive``, ``not_allowed_token_type``, ``channel_not_found``, ``not_in_channel``, ``is_archived``,
``user_not_in_channel``, ``user_disabled``, ``no_text``, ``msg_too_long``, ``msg_blocks_too_long``,
``invalid_blocks`` with ``errors`` pointing into the blocks, ``invalid_blocks_format``, ``invalid_json``,
``message_not_found``), HTTP 404 ``unknown_method``, HTTP 429 ``ratelimited`` with ``Retry-After`` (a scripted
`Fault`, or the per-channel pacing of `rate_per_channel_seconds`: about one message a second, off unless set), and
scripted 5xx answers, malformed bodies and delays.

Block Kit checks: at most 50 blocks; known block types only; section text 1-3,000 characters, fields at most 10 of
2,000; header plain_text at most 150; context at most 10 elements; actions at most 25 elements; buttons with
plain_text labels of at most 75, ``action_id`` at most 255 and unique in its block, ``value`` at most 2,000,
``url`` at most 3,000; ``block_id`` at most 255 and unique in the message. Top-level ``text`` over 40,000
characters is ``msg_too_long``.

Like Slack, the fake reads what the bot sends as mrkdwn: unescaped ``<!channel>``, ``<!here>``, ``<!everyone>``,
``<@U…>`` and ``<!subteam^…>`` are recorded as the message's ``pings`` (and a bare ``@here``, ``@channel`` or
``@everyone`` in a mrkdwn text object without ``verbatim: true``, which Slack parses too), and ``<url|label>`` as
its ``links``.

``response_url`` (``POST /response/<key>``): up to 5 posts within 30 minutes of the slash command or press
(``used_url``, ``expired_url`` after), ``response_type`` in_channel or ephemeral, ``replace_original``.

Socket Mode (``GET /link?ticket=…``): ``hello`` on connect, then envelopes the test sends with `slash_command`,
`message_event`, `mention_event` and `press_button`; every envelope must be acknowledged with
``{"envelope_id": …}`` (recorded, with the acknowledgement's payload, and whether it came within 3 seconds).
`request_refresh` sends a ``disconnect`` (refresh_requested), after which the client opens a new connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Self
from urllib.parse import parse_qsl

from aiohttp import WSMsgType, web

from tests.fakes.loopback import ScriptedFake

BOT_TOKEN = "xoxb-1111-2222-FakePaperscoutBotToken"
APP_TOKEN = "xapp-1-A0PAPERSCOUT-3333-FakePaperscoutAppToken"
TEAM_ID, TEAM_NAME = "T0FAKETEAM", "Fake Lab"
APP_ID, BOT_ID, BOT_USER = "A0PAPERSCOUT", "B0PAPERSCOUT", "U0PAPERBOT"

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_FIELD_TEXT = 2000
MAX_FIELDS = 10
MAX_HEADER_TEXT = 150
MAX_CONTEXT_ELEMENTS = 10
MAX_ACTION_ELEMENTS = 25
MAX_BUTTON_TEXT = 75
MAX_ACTION_ID = 255
MAX_BUTTON_VALUE = 2000
MAX_URL = 3000
MAX_BLOCK_ID = 255
MAX_TEXT = 40_000
MAX_BLOCKS_TEXT = 13_000  # undocumented: Slack refuses blocks far under 50 x 3,000 characters as msg_blocks_too_long
RESPONSE_URL_USES = 5
RESPONSE_URL_SECONDS = 30 * 60
ACK_SECONDS = 3.0
BLOCK_TYPES = frozenset(
    {"section", "divider", "header", "context", "actions", "image", "rich_text", "input", "file", "video", "markdown"}
)
PING = re.compile(r"<(![a-z]+(?:\^[^>|]*)?|@[UW][A-Z0-9]+)(?:\|[^>]*)?>")
BARE_PING = re.compile(r"(?<![\w&])@(channel|here|everyone)\b")
LINK = re.compile(r"<((?:https?|mailto):[^>|]+)(?:\|([^>]*))?>")
BOT_METHODS = frozenset(
    {"auth.test", "chat.postMessage", "chat.update", "chat.postEphemeral", "conversations.open"}
    | {"conversations.info", "users.info"}
)


GRANTED_SCOPES = (
    "chat:write", "commands", "users:read", "im:read", "app_mentions:read", "im:history", "channels:history",
    "groups:history",
)  # fmt: skip


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour, consumed by the next Web API call it applies to (`method` narrows it)."""

    kind: Literal["error", "ratelimited", "status", "malformed", "delay", "disconnect"]
    method: str | None = None
    error: str = ""
    status: int = 200
    retry_after: int = 1
    seconds: float = 0.0

    @property
    def endpoint(self) -> str | None:
        """The method this fault is limited to (ScriptedFake matches on `endpoint`)."""
        return self.method

    @classmethod
    def refuse(cls, error: str, *, method: str | None = None) -> Fault:
        """``{"ok": false, "error": error}`` with HTTP 200, as Slack answers most refusals."""
        return cls("error", method, error=error)

    @classmethod
    def rate_limited(cls, retry_after: int = 1, *, method: str | None = None) -> Fault:
        """HTTP 429, ``Retry-After: retry_after`` and ``{"ok": false, "error": "ratelimited"}``."""
        return cls("ratelimited", method, status=429, retry_after=retry_after)

    @classmethod
    def server_error(cls, status: int = 503, *, method: str | None = None) -> Fault:
        """A 5xx with Slack's JSON error body."""
        return cls("status", method, status=status, error="fatal_error" if status == 500 else "service_unavailable")

    @classmethod
    def malformed(cls, *, method: str | None = None) -> Fault:
        """HTTP 200 whose body is not JSON (a broken proxy)."""
        return cls("malformed", method)

    @classmethod
    def disconnect(cls, *, method: str | None = None) -> Fault:
        """The connection is closed without an answer (a network failure)."""
        return cls("disconnect", method)

    @classmethod
    def delay(cls, seconds: float, *, method: str | None = None) -> Fault:
        """Answer normally after `seconds`."""
        return cls("delay", method, seconds=seconds)


@dataclass(frozen=True)
class Call:
    """One Web API call: method, arguments (token removed), and the answer (HTTP status and body)."""

    method: str
    args: dict[str, Any]
    status: int
    answer: dict[str, Any]
    at: float

    @property
    def ok(self) -> bool:
        """Whether Slack accepted it."""
        return self.status == 200 and bool(self.answer.get("ok"))


@dataclass
class Message:
    """A message the bot posted (or a response_url post): where, its text and blocks, and what Slack read in it."""

    channel: str
    ts: str
    text: str
    blocks: list[dict[str, Any]]
    thread_ts: str = ""
    ephemeral_to: str = ""  # the one user who sees it
    via: str = "chat.postMessage"
    pings: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    edits: int = 0

    @property
    def buttons(self) -> list[dict[str, Any]]:
        """Every button of every actions block (and section accessory), in order."""
        found = []
        for block in self.blocks:
            elements = block.get("elements", []) if block.get("type") == "actions" else [block.get("accessory")]
            found += [e for e in elements if isinstance(e, dict) and e.get("type") == "button"]
        return found

    @property
    def visible_text(self) -> str:
        """All mrkdwn/plain text of the blocks (the fallback `text` when there are none), joined by newlines."""
        return "\n".join(_texts(self.blocks)) if self.blocks else self.text


@dataclass
class Envelope:
    """A Socket Mode envelope sent to the app, and its acknowledgement once it came."""

    envelope_id: str
    type: str
    payload: dict[str, Any]
    sent_at: float
    acked_at: float | None = None
    ack_payload: dict[str, Any] | None = None

    @property
    def acked_in_time(self) -> bool:
        """Acknowledged within Slack's 3 seconds."""
        return self.acked_at is not None and self.acked_at - self.sent_at <= ACK_SECONDS


class SlackError(Exception):
    """A refusal the handler turns into Slack's answer."""

    def __init__(self, error: str, status: int = 200, **extra: Any) -> None:
        super().__init__(error)
        self.error, self.status, self.extra = error, status, extra


class SlackFake(ScriptedFake[Fault, Call]):
    """The fake workspace, its Web API and its Socket Mode endpoint (see the module docstring)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__()
        self._address = (host, port)
        self._port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._state = threading.RLock()
        self._ids = itertools.count(1)
        self.bot_token, self.app_token = BOT_TOKEN, APP_TOKEN
        self.scopes = list(GRANTED_SCOPES)  # the bot token's, as installed from the README's manifest
        self.names_scopes = True  # False: answers lack x-oauth-scopes (a proxy that drops headers), as a client sees
        self.token_error = ""  # e.g. "account_inactive": every bot-token call is refused so
        self.rate_per_channel_seconds = 0.0
        self.users: dict[str, dict[str, Any]] = {}
        self.channels: dict[str, dict[str, Any]] = {}
        self.messages: list[Message] = []
        self.envelopes: dict[str, Envelope] = {}
        self._responses: dict[str, dict[str, Any]] = {}
        self._last_post: dict[str, float] = {}
        self._sockets: list[web.WebSocketResponse] = []
        self.connections = 0

    # --- the workspace ---

    def add_user(self, user_id: str, name: str, *, admin: bool = False, owner: bool = False) -> dict[str, Any]:
        """A member of the workspace (`admin`/`owner`: a workspace admin or owner)."""
        user = {"id": user_id, "team_id": TEAM_ID, "name": name, "real_name": name.title(), "deleted": False}
        user |= {"is_admin": admin or owner, "is_owner": owner, "is_bot": False, "profile": {"display_name": name}}
        with self._state:
            self.users[user_id] = user
        return user

    def add_channel(self, channel_id: str, name: str, *, members: list[str] = (), bot_in: bool = True) -> None:  # type: ignore[assignment]
        """A public channel with its members (the bot is one unless `bot_in` is False)."""
        with self._state:
            self.channels[channel_id] = {
                "id": channel_id, "name": name, "is_im": False, "is_archived": False,
                "members": set(members) | ({BOT_USER} if bot_in else set()), "user": "",
            }  # fmt: skip

    def im_of(self, user_id: str) -> str:
        """The id of the bot's DM with `user_id` (opened on first use, as conversations.open does)."""
        with self._state:
            for channel in self.channels.values():
                if channel["is_im"] and channel["user"] == user_id:
                    return str(channel["id"])
            channel_id = "D" + user_id[1:]
            self.channels[channel_id] = {
                "id": channel_id, "name": "", "is_im": True, "is_archived": False,
                "members": {user_id, BOT_USER}, "user": user_id,
            }  # fmt: skip
            return channel_id

    def remove_bot(self, channel_id: str) -> None:
        """The bot is removed from a channel: posts there get not_in_channel."""
        with self._state:
            self.channels[channel_id]["members"].discard(BOT_USER)

    def archive(self, channel_id: str) -> None:
        """The channel is archived: posts get is_archived."""
        with self._state:
            self.channels[channel_id]["is_archived"] = True

    def delete_channel(self, channel_id: str) -> None:
        """The channel is deleted: posts get channel_not_found."""
        with self._state:
            self.channels.pop(channel_id, None)

    def deactivate(self, user_id: str) -> None:
        """The member's account is deactivated: their DM refuses posts (user_disabled)."""
        with self._state:
            self.users[user_id]["deleted"] = True

    # --- reading what the bot did ---

    def posted(self, channel: str, *, user: str = "") -> list[Message]:
        """Messages in `channel` everyone sees, oldest first, or with `user`, the ones only that user sees."""
        with self._state:
            return [m for m in self.messages if m.channel == channel and m.ephemeral_to == user]

    def calls(self, method: str | None = None) -> list[Call]:
        """Web API calls so far (of `method`)."""
        return [c for c in self.requests if method is None or c.method == method]

    async def wait_until(self, predicate: Callable[[], object], *, within: float = 15.0, what: str = "it") -> None:
        """Wait (in the test's loop) until `predicate()` is true; AssertionError after `within` seconds."""
        deadline = time.monotonic() + within
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.02)

    async def wait_for_posted(self, channel: str, count: int, *, user: str = "") -> list[Message]:
        """Wait until `channel` holds `count` messages (seen by everyone, or only by `user`); returns them."""
        await self.wait_until(lambda: len(self.posted(channel, user=user)) >= count, what=f"{count} in {channel}")
        return self.posted(channel, user=user)

    async def wait_for_ack(self, envelope_id: str) -> Envelope:
        """Wait until the app acknowledged the envelope; returns it."""
        await self.wait_until(lambda: self.envelopes[envelope_id].acked_at is not None, what="the ack")
        return self.envelopes[envelope_id]

    # --- Socket Mode: what users do ---

    def slash_command(self, user_id: str, channel_id: str, command: str, text: str) -> str:
        """A user runs ``command text`` in a channel or DM; returns the envelope id."""
        channel = self.channels.get(channel_id, {})
        payload = {
            "token": "verification-token-unused", "team_id": TEAM_ID, "team_domain": "fakelab",
            "channel_id": channel_id, "channel_name": "directmessage" if channel.get("is_im") else channel.get("name"),
            "user_id": user_id, "user_name": self.users[user_id]["name"], "command": command, "text": text,
            "api_app_id": APP_ID, "is_enterprise_install": "false", "trigger_id": self._id("trigger"),
            "response_url": self._response_url(channel_id, user_id),
        }  # fmt: skip
        return self._send_envelope("slash_commands", payload, accepts_response_payload=True)

    def message_event(self, user_id: str, channel_id: str, text: str, *, thread_ts: str = "") -> str:
        """A user writes a message (in a DM: channel_type im); returns the envelope id."""
        is_im = bool(self.channels.get(channel_id, {}).get("is_im"))
        ts = self._ts()
        event = {"type": "message", "channel": channel_id, "user": user_id, "text": text, "ts": ts, "event_ts": ts}
        event |= {"channel_type": "im" if is_im else "channel", "team": TEAM_ID}
        if thread_ts:
            event["thread_ts"] = thread_ts
        return self._send_envelope("events_api", self._event_callback(event))

    def mention_event(self, user_id: str, channel_id: str, text: str, *, thread_ts: str = "") -> str:
        """The app_mention event Slack sends beside the message event when a message names the bot."""
        ts = self._ts()
        event = {"type": "app_mention", "channel": channel_id, "user": user_id, "text": text, "ts": ts}
        event |= {"event_ts": ts, "team": TEAM_ID} | ({"thread_ts": thread_ts} if thread_ts else {})
        return self._send_envelope("events_api", self._event_callback(event))

    def press_button(self, user_id: str, message: Message, action_id: str) -> str:
        """A user presses the button `action_id` of a bot message; returns the envelope id."""
        button = next((b for b in message.buttons if b.get("action_id") == action_id), None)
        if button is None:
            raise KeyError(f"no button {action_id!r} on message {message.ts}")
        block_id = next(b.get("block_id", "") for b in message.blocks if button in b.get("elements", [button]))
        user = self.users[user_id]
        payload = {
            "type": "block_actions", "team": {"id": TEAM_ID, "domain": "fakelab"}, "api_app_id": APP_ID,
            "user": {"id": user_id, "username": user["name"], "name": user["name"], "team_id": TEAM_ID},
            "container": {"type": "message", "message_ts": message.ts, "channel_id": message.channel,
                          "is_ephemeral": bool(message.ephemeral_to)},
            "channel": {"id": message.channel, "name": self.channels.get(message.channel, {}).get("name", "")},
            "message": {"type": "message", "ts": message.ts, "text": message.text, "blocks": message.blocks,
                        "user": BOT_USER, "bot_id": BOT_ID},
            "trigger_id": self._id("trigger"), "token": "verification-token-unused",
            "response_url": self._response_url(message.channel, user_id),
            "actions": [{"type": "button", "action_id": action_id, "block_id": block_id, "text": button["text"],
                         "value": button.get("value", ""), "action_ts": self._ts()}],
        }  # fmt: skip
        return self._send_envelope("interactive", payload)

    def request_refresh(self) -> None:
        """Slack's ``disconnect`` (refresh_requested): the client should open a new connection."""
        self._run(self._broadcast({"type": "disconnect", "reason": "refresh_requested", "debug_info": {}}))

    # --- lifecycle ---

    def start(self) -> Self:
        """Serve in a daemon thread with its own event loop; returns self."""
        if self._thread is not None:
            return self
        self._stopping.clear()
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            loop.run_until_complete(self._serve())
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._shutdown())
            loop.close()

        self._thread = threading.Thread(target=serve, name="fake-slack", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the Slack fake did not start")
        return self

    def stop(self) -> None:
        """Close the websockets and the server; afterwards the port refuses connections."""
        self._stopping.set()
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        self._thread = self._loop = self._port = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """Server root, e.g. ``http://127.0.0.1:54321``."""
        if self._port is None:
            raise RuntimeError("SlackFake is not running")
        return f"http://{self._address[0]}:{self._port}"

    @property
    def api_url(self) -> str:
        """What `AsyncWebClient(base_url=...)` must be (Slack's is ``https://slack.com/api/``)."""
        return f"{self.url}/api/"

    async def _serve(self) -> None:
        app = web.Application()
        app.router.add_get("/link", self._socket)
        app.router.add_post("/response/{key}", self._response)
        app.router.add_route("*", "/api/{method}", self._api)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._address[0], self._address[1])
        await site.start()
        self._port = int(site._server.sockets[0].getsockname()[1])  # type: ignore[union-attr]

    async def _shutdown(self) -> None:
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def _run(self, coro: Any) -> Any:
        if self._loop is None:
            raise RuntimeError("SlackFake is not running")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    # --- Socket Mode ---

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        with self._state:
            ticket = self._responses.pop("ticket:" + request.query.get("ticket", ""), None)
        if ticket is None:
            raise web.HTTPUnauthorized(text="invalid ticket")
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self._sockets.append(ws)
        self.connections += 1
        hello = {"type": "hello", "num_connections": len(self._sockets), "connection_info": {"app_id": APP_ID}}
        await ws.send_str(
            json.dumps(hello | {"debug_info": {"host": "fake-slack", "approximate_connection_time": 3600}})
        )
        try:
            async for frame in ws:
                if frame.type == WSMsgType.TEXT:
                    self._ack(frame.data)
        finally:
            self._sockets.remove(ws)
        return ws

    def _ack(self, raw: str) -> None:
        try:
            data = json.loads(raw)
        except ValueError:
            return
        with self._state:
            envelope = self.envelopes.get(str(data.get("envelope_id", "")))
            if envelope is not None and envelope.acked_at is None:
                envelope.acked_at, envelope.ack_payload = time.monotonic(), data.get("payload")

    def _send_envelope(self, kind: str, payload: dict[str, Any], *, accepts_response_payload: bool = False) -> str:
        envelope_id = str(uuid.uuid4())
        with self._state:
            self.envelopes[envelope_id] = Envelope(envelope_id, kind, payload, time.monotonic())
        frame = {"envelope_id": envelope_id, "type": kind, "payload": payload}
        frame["accepts_response_payload"] = accepts_response_payload
        if kind == "events_api":
            frame |= {"retry_attempt": 0, "retry_reason": ""}
        self._run(self._broadcast(frame, newest_only=True))
        return envelope_id

    async def _broadcast(self, frame: dict[str, Any], *, newest_only: bool = False) -> None:
        sockets = [s for s in self._sockets if not s.closed]
        if not sockets:
            raise AssertionError("no Socket Mode connection is open")
        for ws in sockets[-1:] if newest_only else sockets:
            await ws.send_str(json.dumps(frame))

    def _event_callback(self, event: dict[str, Any]) -> dict[str, Any]:
        return {
            "token": "verification-token-unused", "team_id": TEAM_ID, "api_app_id": APP_ID, "event": event,
            "type": "event_callback", "event_id": self._id("Ev"), "event_time": int(time.time()),
            "authorizations": [{"enterprise_id": None, "team_id": TEAM_ID, "user_id": BOT_USER, "is_bot": True,
                                "is_enterprise_install": False}],
            "is_ext_shared_channel": False, "event_context": self._id("ctx"),
        }  # fmt: skip

    # --- response_url ---

    def _response_url(self, channel_id: str, user_id: str) -> str:
        key = self._id("resp")
        with self._state:
            self._responses[key] = {"channel": channel_id, "user": user_id, "uses": 0, "at": time.monotonic()}
        return f"{self.url}/response/{key}"

    async def _response(self, request: web.Request) -> web.Response:
        try:
            body = json.loads(await request.read())
            if not isinstance(body, dict):
                raise ValueError("not an object")
        except ValueError:
            return web.json_response({"ok": False, "error": "invalid_payload"}, status=400)
        with self._state:
            slot = self._responses.get(request.match_info["key"])
            if slot is None or time.monotonic() - slot["at"] > RESPONSE_URL_SECONDS:
                return web.json_response({"ok": False, "error": "expired_url"}, status=404)
            if slot["uses"] >= RESPONSE_URL_USES:
                return web.json_response({"ok": False, "error": "used_url"}, status=404)
            slot["uses"] += 1
        try:
            text, blocks = _checked_message(body)
        except SlackError as refused:
            return web.json_response({"ok": False, "error": refused.error, **refused.extra}, status=400)
        ephemeral = body.get("response_type", "ephemeral") != "in_channel"
        message = _message(slot["channel"], self._ts(), text, blocks, via="response_url")
        message.ephemeral_to = slot["user"] if ephemeral else ""
        with self._state:
            self.messages.append(message)
        return web.json_response({"ok": True})

    # --- Web API ---

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        started = time.monotonic()
        try:
            args = await _arguments(request)
        except SlackError as refused:
            return self._answer(method, {}, refused.status, {"ok": False, "error": refused.error}, started)
        token = request.headers.get("Authorization", "").removeprefix("Bearer ").strip() or str(args.pop("token", ""))
        args.pop("token", None)
        fault = self._next_fault(method)
        headers: dict[str, str] = {}
        if fault is not None and fault.kind == "delay":
            await asyncio.sleep(fault.seconds)
        elif fault is not None and fault.kind == "disconnect":
            self._record(Call(method, args, 0, {"disconnected": True}, started))
            assert request.transport is not None
            request.transport.close()
            return web.Response()  # never reaches the client
        elif fault is not None and fault.kind == "malformed":
            self._record(Call(method, args, 200, {"malformed": True}, started))
            return web.Response(text="<html>upstream connect error</html>", content_type="text/html")
        elif fault is not None:
            answer = {"ok": False, "error": fault.error or "ratelimited"}
            if fault.kind == "ratelimited":
                headers["Retry-After"] = str(fault.retry_after)
            return self._answer(method, args, fault.status, answer, started, headers)
        try:
            result = self._method(method, token, args)
            status, answer = 200, {"ok": True, **result}
        except SlackError as refused:
            status, answer = refused.status, {"ok": False, "error": refused.error, **refused.extra}
            if refused.error == "ratelimited":
                headers["Retry-After"] = str(refused.extra.pop("retry_after"))
                answer.pop("retry_after", None)
        return self._answer(method, args, status, answer, started, headers)

    def _answer(
        self, method: str, args: dict[str, Any], status: int, answer: dict[str, Any], at: float,
        headers: dict[str, str] | None = None,
    ) -> web.Response:  # fmt: skip
        self._record(Call(method, args, status, answer, at))
        # Slack names the token's scopes on every answer to a bot token
        scopes = {"x-oauth-scopes": ",".join(self.scopes)} if method in BOT_METHODS and self.names_scopes else {}
        return web.json_response(answer, status=status, headers={**scopes, **(headers or {})})

    def _method(self, method: str, token: str, args: dict[str, Any]) -> dict[str, Any]:
        if method == "apps.connections.open":
            if not token:
                raise SlackError("not_authed")
            if token != self.app_token:
                raise SlackError("not_allowed_token_type" if token.startswith("xoxb-") else "invalid_auth")
            ticket = self._id("ticket")
            with self._state:
                self._responses["ticket:" + ticket] = {}
            return {"url": f"ws://{self._address[0]}:{self._port}/link?ticket={ticket}&app_id={APP_ID}"}
        if method not in BOT_METHODS:
            raise SlackError("unknown_method", 404)
        if not token:
            raise SlackError("not_authed")
        if token == self.app_token:
            raise SlackError("not_allowed_token_type")
        if token != self.bot_token:
            raise SlackError("invalid_auth")
        if self.token_error:
            raise SlackError(self.token_error)
        with self._state:
            return getattr(self, "_" + method.replace(".", "_"))(args)

    def _auth_test(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"url": "https://fakelab.slack.com/", "team": TEAM_NAME, "user": "paperscout", "team_id": TEAM_ID,
                "user_id": BOT_USER, "bot_id": BOT_ID, "is_enterprise_install": False}  # fmt: skip

    def _users_info(self, args: dict[str, Any]) -> dict[str, Any]:
        user = self.users.get(str(args.get("user", "")))
        if user is None:
            raise SlackError("user_not_found")
        return {"user": user}

    def _conversations_open(self, args: dict[str, Any]) -> dict[str, Any]:
        user_id = str(args.get("users", "")).split(",")[0]
        user = self.users.get(user_id)
        if user is None:
            raise SlackError("user_not_found")
        if user["deleted"]:
            raise SlackError("user_disabled")
        return {"channel": {"id": self.im_of(user_id)}}

    def _conversations_info(self, args: dict[str, Any]) -> dict[str, Any]:
        """A channel, or an im with its `user` (`is_user_deleted` once deactivated: reading it is not refused)."""
        channel = self.channels.get(str(args.get("channel", "")))
        if channel is None:
            raise SlackError("channel_not_found")
        if channel["is_im"] and "im:read" not in self.scopes:
            raise SlackError("missing_scope", needed="im:read", provided=",".join(self.scopes))
        shown = {k: v for k, v in channel.items() if k != "members"} | {"is_member": BOT_USER in channel["members"]}
        if channel["is_im"]:
            shown["is_user_deleted"] = bool(self.users.get(channel["user"], {}).get("deleted"))
        else:
            del shown["user"]
        return {"channel": shown}

    def _chat_postMessage(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args)
        text, blocks = _checked_message(args)
        self._pace(channel["id"])
        message = _message(channel["id"], self._ts(), text, blocks, thread_ts=str(args.get("thread_ts") or ""))
        self.messages.append(message)
        shown = {"type": "message", "ts": message.ts, "text": text, "blocks": blocks, "user": BOT_USER}
        return {"channel": channel["id"], "ts": message.ts, "message": shown | {"bot_id": BOT_ID}}

    def _chat_postEphemeral(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args)
        user_id = str(args.get("user", ""))
        if user_id not in channel["members"]:
            raise SlackError("user_not_in_channel")
        text, blocks = _checked_message(args)
        message = _message(channel["id"], self._ts(), text, blocks, via="chat.postEphemeral")
        message.ephemeral_to = user_id
        self.messages.append(message)
        return {"message_ts": message.ts}

    def _chat_update(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args)
        found = next((m for m in self.messages if m.channel == channel["id"] and m.ts == args.get("ts")), None)
        if found is None or found.ephemeral_to:
            raise SlackError("message_not_found")
        text, blocks = _checked_message(args)
        updated = _message(found.channel, found.ts, text, blocks, via=found.via)
        found.text, found.blocks, found.pings, found.links = text, blocks, updated.pings, updated.links
        found.edits += 1
        return {"channel": found.channel, "ts": found.ts, "text": text}

    def _channel(self, args: dict[str, Any]) -> dict[str, Any]:
        channel_id = str(args.get("channel", ""))
        if channel_id.startswith(("U", "W")) and channel_id in self.users:  # a user id posts to the app's DM
            if self.users[channel_id]["deleted"]:
                raise SlackError("user_disabled")
            channel_id = self.im_of(channel_id)
        channel = self.channels.get(channel_id)
        if channel is None:
            raise SlackError("channel_not_found")
        if channel["is_im"] and self.users.get(channel["user"], {}).get("deleted"):
            raise SlackError("user_disabled")
        if channel["is_archived"]:
            raise SlackError("is_archived")
        if BOT_USER not in channel["members"]:
            raise SlackError("not_in_channel")
        return channel

    def _pace(self, channel_id: str) -> None:
        """chat.postMessage's special tier: about one message per second per channel."""
        if self.rate_per_channel_seconds <= 0:
            return
        now = time.monotonic()
        wait = self._last_post.get(channel_id, -math.inf) + self.rate_per_channel_seconds - now
        if wait > 0:
            raise SlackError("ratelimited", 429, retry_after=max(1, math.ceil(wait)))
        self._last_post[channel_id] = now

    def _ts(self) -> str:
        return f"{int(time.time())}.{next(self._ids):06d}"

    def _id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):08d}"


# --- request bodies and Block Kit ---


async def _arguments(request: web.Request) -> dict[str, Any]:
    """Query, form or JSON arguments merged (JSON objects stay objects; form values are strings)."""
    args: dict[str, Any] = dict(request.query)
    raw = await request.read()
    if not raw:
        return args
    if request.content_type == "application/json":
        try:
            body = json.loads(raw)
        except ValueError:
            raise SlackError("invalid_json") from None
        if not isinstance(body, dict):
            raise SlackError("invalid_json")
        return args | body
    if request.content_type == "application/x-www-form-urlencoded":
        return args | dict(parse_qsl(raw.decode(errors="replace"), keep_blank_values=True))
    raise SlackError("invalid_form_data")


def _checked_message(args: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The message's text and blocks, or the SlackError Slack would answer."""
    text = str(args.get("text") or "")
    blocks: Any = args.get("blocks") or []
    if isinstance(blocks, str):
        try:
            blocks = json.loads(blocks)
        except ValueError:
            raise SlackError("invalid_blocks_format") from None
    if not isinstance(blocks, list):
        raise SlackError("invalid_blocks_format")
    if not text.strip() and not blocks:
        raise SlackError("no_text")
    if len(text) > MAX_TEXT:
        raise SlackError("msg_too_long")
    errors = _block_errors(blocks)
    if errors:
        raise SlackError(
            "invalid_blocks", errors=errors, response_metadata={"messages": [f"[ERROR] {e}" for e in errors]}
        )
    if sum(len(t) for t in _texts(blocks)) > MAX_BLOCKS_TEXT:
        raise SlackError("msg_blocks_too_long")
    return text, blocks


def _block_errors(blocks: list[Any]) -> list[str]:
    errors: list[str] = []
    if len(blocks) > MAX_BLOCKS:
        errors.append(f"no more than {MAX_BLOCKS} items allowed [json-pointer:/blocks]")
    block_ids: set[str] = set()
    for n, block in enumerate(blocks):
        where = f"/blocks/{n}"
        if not isinstance(block, dict) or block.get("type") not in BLOCK_TYPES:
            errors.append(
                f"unsupported type: {block.get('type') if isinstance(block, dict) else block!r} [json-pointer:{where}]"
            )
            continue
        block_id = block.get("block_id")
        if block_id is not None:
            if not isinstance(block_id, str) or not 0 < len(block_id) <= MAX_BLOCK_ID or block_id in block_ids:
                errors.append(f"invalid or duplicate block_id [json-pointer:{where}/block_id]")
            block_ids.add(str(block_id))
        errors += _one_block_errors(block, where)
    return errors


def _one_block_errors(block: dict[str, Any], where: str) -> list[str]:
    kind = block["type"]
    if kind == "section":
        errors = []
        if "text" not in block and "fields" not in block:
            errors.append(f"must provide text or fields [json-pointer:{where}]")
        if "text" in block:
            errors += _text_errors(block["text"], f"{where}/text", MAX_SECTION_TEXT)
        fields = block.get("fields", [])
        if not isinstance(fields, list) or len(fields) > MAX_FIELDS:
            errors.append(f"no more than {MAX_FIELDS} items allowed [json-pointer:{where}/fields]")
        else:
            for i, item in enumerate(fields):
                errors += _text_errors(item, f"{where}/fields/{i}", MAX_FIELD_TEXT)
        if "accessory" in block:
            errors += _element_errors(block["accessory"], f"{where}/accessory", set())
        return errors
    if kind == "header":
        return _text_errors(block.get("text"), f"{where}/text", MAX_HEADER_TEXT, plain_only=True)
    if kind == "divider":
        extra = set(block) - {"type", "block_id"}
        return [f"invalid additional property: {sorted(extra)[0]} [json-pointer:{where}]"] if extra else []
    if kind in ("context", "actions"):
        elements = block.get("elements")
        limit = MAX_CONTEXT_ELEMENTS if kind == "context" else MAX_ACTION_ELEMENTS
        if not isinstance(elements, list) or not 0 < len(elements) <= limit:
            return [f"must have 1 to {limit} items [json-pointer:{where}/elements]"]
        errors, action_ids = [], set()
        for i, element in enumerate(elements):
            if kind == "context":
                if not (isinstance(element, dict) and element.get("type") == "image"):
                    errors += _text_errors(element, f"{where}/elements/{i}", MAX_SECTION_TEXT)
            else:
                errors += _element_errors(element, f"{where}/elements/{i}", action_ids)
        return errors
    return []


def _text_errors(obj: Any, where: str, limit: int, *, plain_only: bool = False) -> list[str]:
    kinds = ("plain_text",) if plain_only else ("plain_text", "mrkdwn")
    if not isinstance(obj, dict) or obj.get("type") not in kinds:
        return [f"must be a text object of type {' or '.join(kinds)} [json-pointer:{where}]"]
    text = obj.get("text")
    if not isinstance(text, str) or not text:
        return [f"must be more than 0 characters [json-pointer:{where}/text]"]
    if len(text) > limit:
        return [f"must be less than {limit + 1} characters [json-pointer:{where}/text]"]
    return []


def _element_errors(element: Any, where: str, action_ids: set[str]) -> list[str]:
    if not isinstance(element, dict) or not isinstance(element.get("type"), str):
        return [f"must be an element object [json-pointer:{where}]"]
    if element["type"] != "button":
        return []
    errors = _text_errors(element.get("text"), f"{where}/text", MAX_BUTTON_TEXT, plain_only=True)
    action_id = element.get("action_id")
    if action_id is not None:
        if not isinstance(action_id, str) or not 0 < len(action_id) <= MAX_ACTION_ID:
            errors.append(f"must be less than {MAX_ACTION_ID + 1} characters [json-pointer:{where}/action_id]")
        elif action_id in action_ids:
            errors.append(f"duplicate action_id {action_id!r} [json-pointer:{where}/action_id]")
        action_ids.add(str(action_id))
    if len(str(element.get("value", ""))) > MAX_BUTTON_VALUE:
        errors.append(f"must be less than {MAX_BUTTON_VALUE + 1} characters [json-pointer:{where}/value]")
    if len(str(element.get("url", ""))) > MAX_URL:
        errors.append(f"must be less than {MAX_URL + 1} characters [json-pointer:{where}/url]")
    if element.get("style") not in (None, "primary", "danger"):
        errors.append(f"must be one of primary, danger [json-pointer:{where}/style]")
    return errors


def _texts(blocks: list[dict[str, Any]]) -> list[str]:
    """Every text string in the blocks (text objects, fields, context elements, button labels), in order."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") in ("mrkdwn", "plain_text") and isinstance(node.get("text"), str):
                found.append(node["text"])
                return
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(blocks)
    return found


def _mrkdwn_texts(blocks: list[dict[str, Any]], text: str) -> list[tuple[str, bool]]:
    """The strings Slack reads as mrkdwn (mrkdwn text objects, and the fallback text), each with whether Slack also
    parses bare ``@here``-style mentions in it (text objects without ``verbatim: true``)."""
    found = [(text, False)] if text else []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "mrkdwn" and isinstance(node.get("text"), str):
                found.append((node["text"], node.get("verbatim") is not True))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(blocks)
    return found


def _message(channel: str, ts: str, text: str, blocks: list[dict[str, Any]], **extra: Any) -> Message:
    read = _mrkdwn_texts(blocks, text)
    pings = [m.group(1) for piece, _ in read for m in PING.finditer(piece)]
    pings += ["!" + m.group(1) for piece, parsed in read if parsed for m in BARE_PING.finditer(piece)]
    links = [(m.group(1), m.group(2) or "") for piece, _ in read for m in LINK.finditer(piece)]
    return Message(channel, ts, text, blocks, pings=pings, links=links, **extra)
