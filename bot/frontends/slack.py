"""Slack front end: slack-bolt's `AsyncApp` in Socket Mode (no public URL) driving `bot.chat`, and the digest poster.

``/paperscout <command> <args>`` runs any command of the chat table (what only the runner should see comes back
through its response_url). A DM is onboarding, then questions; ``@paperscout question`` is /ask, answered in its
thread, where a reply follows up; an admin's plain messages answer their setup. Replies and digests are the core's
layout (`bot.views.layout`) as Block Kit: a section per block, the core's buttons (action_id and value: the core's
button value); a press answers only the presser (outside a DM). Outside text is escaped for mrkdwn (``& < >``) in
``verbatim`` text objects, so nothing pings or links; `Mrkdwn` gives the packer Slack's limits (50 blocks, 3,000
characters a section, `MESSAGE_BUDGET` in all). A channel digest is one message in the channel: the messages after
its header are replies in the header's thread (``thread_ts``, the driver's `digest_threads`), or messages in the
channel where Slack refuses the thread. Posts to a channel are paced, a 429 waits its Retry-After, and a gone channel,
or one Slack lets the bot not post in (``restricted_action``), is a permanent failure (the core's delivery policy
retires its digest).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot import chat
from bot.chat.answering import Posts, Privately
from bot.chat.driver import ChatDriver
from bot.chat.refusals import Failure, Kind, refusal
from bot.config import Settings
from bot.core import Core
from bot.digests.delivery import DeliveryError
from bot.digests.pacing import ChatPacer
from bot.errors import ConfigError
from bot.frontend import Expiring, FrontEnd, starting
from bot.text.safetext import clean_text
from bot.views.layout import Page, Style, clip, pages

if TYPE_CHECKING:  # slack-bolt and slack_sdk are imported when the bot starts, not when the module is read
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
    from slack_bolt.app.async_app import AsyncApp
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.ops.doctor import Finding

log = logging.getLogger(__name__)

PLATFORM = "slack"
COMMAND = "/paperscout"
MAX_BLOCKS = 50
MAX_SECTION = 3000
MESSAGE_BUDGET = 11_000  # characters of text a message carries; Slack refuses ~13k as msg_blocks_too_long
FALLBACK_CHARS = 300  # the notification text of a message
BUTTON_LABEL = 75
RESPONSE_URL_POSTS = 5  # Slack accepts five posts to one response_url
# the bot token's scopes (the manifest in the README); im:read came later: conversations.info on a DM, to find whose
# personal digest to retire when the DM refuses the bot
BOT_SCOPES = (
    "chat:write", "commands", "users:read", "im:read", "app_mentions:read", "im:history", "channels:history",
    "groups:history",
)  # fmt: skip
# what Slack's error codes mean for a post (`refusal`: else a 429 waits its Retry-After, anything else is transient)
GONE = ("channel_not_found", "not_in_channel", "is_archived", "user_disabled", "user_not_found")
REFUSED = ("invalid_blocks", "msg_too_long", "msg_blocks_too_long", "invalid_blocks_format")
# a reply in a thread refused: the channel takes none, the thread is locked, or its header is gone
UNTHREADED = (
    "restricted_action_non_threadable_channel", "restricted_action_thread_locked", "thread_locked",
    "invalid_thread_ts", "thread_not_found", "cannot_reply_to_message",
)  # fmt: skip
DENIED: dict[object, tuple[Kind, str]] = {  # who may post there is the admin's to change (channel or workspace)
    "restricted_action": ("denied", "I can't post in {where}"),
    "restricted_action_read_only_channel": ("denied", "I can't post in {where}, which is read-only"),
    "restricted_action_thread_only_channel": ("denied", "I can't start a message in {where}, which takes only replies"),
}
CODES: dict[object, tuple[Kind, str]] = (
    dict.fromkeys(GONE, ("gone", "")) | dict.fromkeys(REFUSED, ("markup", ""))
    | dict.fromkeys(UNTHREADED, ("unthreaded", "")) | DENIED
)  # fmt: skip
TOKEN_REFUSALS = frozenset(
    {"invalid_auth", "not_authed", "account_inactive", "token_revoked", "not_allowed_token_type"}
)
FILES_NOT_SENT = "Files are not sent on Slack yet; `paperscout users export` on the server writes it."
ADMIN_CACHE_SECONDS = 60.0
STOP_GRACE_SECONDS = 20.0
_MENTION = re.compile(r"<@[A-Z0-9]+>")


# --- mrkdwn and Block Kit ---


def escape(text: str) -> str:
    """Outside text as inert mrkdwn: cleaned, and ``& < >`` as entities, so no mention, link or command resolves."""
    return clean_text(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Mrkdwn(Style):
    """The core's layout as mrkdwn sections: escaped text, ``*bold*``, ``_italic_``, ``<url|label>`` links; 3,000
    characters a section, 50 blocks (a row of buttons is an actions block) and `MESSAGE_BUDGET` a message."""

    message_limit = MESSAGE_BUDGET
    block_limit = MAX_SECTION
    block_overhead = 80  # what a block costs beside its text
    blocks_per_message = MAX_BLOCKS
    rows_are_blocks = True
    buttons_per_row = choices_per_row = 25  # an actions block's elements
    label_limit = BUTTON_LABEL

    def escape(self, text: str) -> str:
        """``& < >`` as entities."""
        return escape(text)

    def bold(self, markup: str) -> str:
        """*bold*."""
        return f"*{markup}*"

    def italic(self, markup: str) -> str:
        """_italic_."""
        return f"_{markup}_"

    def link(self, markup: str, url: str) -> str:
        """A link; a URL with ``| < >`` or spaces is shown as its label alone, never as markup."""
        if re.search(r"[\s|<>]", url) or not url.startswith(("https://", "http://")):
            return markup
        return f"<{url.replace('&', '&amp;')}|{markup}>"


MRKDWN = Mrkdwn()


@dataclass
class SlackMessage:
    """One message: its Block Kit blocks and the plain notification text."""

    text: str
    blocks: list[dict[str, Any]] = field(default_factory=list)


def page_blocks(page: Page) -> list[dict[str, Any]]:
    """A packed page as Block Kit: a section per block of the layout, then its buttons in actions blocks."""
    blocks: list[dict[str, Any]] = []
    for block in page.blocks:
        if block.title or block.lines:
            blocks.append(
                {"type": "section", "text": {"type": "mrkdwn", "text": MRKDWN.block(block), "verbatim": True}}
            )
        for row in MRKDWN.rows(block):
            elements = [
                {"type": "button", "text": {"type": "plain_text", "text": MRKDWN.label(b)},
                 "action_id": b.value, "value": b.value}
                for b in row
            ]  # fmt: skip
            blocks.append({"type": "actions", "elements": elements})
    return blocks


def message(page: Page) -> SlackMessage:
    """A packed page as a message; its first block's text is the notification."""
    fallback = escape(clip(Style().block(page.blocks[0]), FALLBACK_CHARS)) if page.blocks else ""
    return SlackMessage(fallback or "paperscout", page_blocks(page))


def render(reply: chat.Reply) -> list[object]:
    """Any reply of the controller as Slack messages (a file as a note: uploads need files:write, not asked)."""
    if isinstance(reply, chat.FileReply):
        reply = chat.TextReply(f"{reply.caption}\n{FILES_NOT_SENT}")
    return pages(chat.layout(reply), MRKDWN, message)


# --- events in ---


class SlackFrontEnd(ChatDriver):
    """The running Slack bot: bolt listeners around one `ChatController`, the digest poster, and `stop`. Posts go
    through chat.postMessage paced per channel (replies and digests share one spacing); Slack's refusals are mapped
    by `failure` (`bot.chat.driver` applies the core's policy)."""

    platform, title, style = PLATFORM, "Slack", MRKDWN
    sends_files, threaded, digest_threads = False, True, True  # a channel digest: its header, the rest in its thread

    def __init__(
        self, core: Core, controller: chat.ChatController, client: AsyncWebClient, interval: float, bot_user: str
    ) -> None:
        super().__init__(core, controller)
        self.client, self.channels, self.bot_user = client, ChatPacer(interval, overall_per_second=0), bot_user
        self.token_refused = ""  # once Slack refuses the token itself, nothing more is sent until a restart
        # until Slack has accepted one post, posts go one at a time: a fan-out that sends every prepared digest at
        # once then meets a refused token once, not once per channel
        self._token_accepted, self._first_posts = False, asyncio.Lock()
        self.handler: AsyncSocketModeHandler | None = None
        self._speakers: Expiring[str, tuple[str, bool]] = Expiring(ADMIN_CACHE_SECONDS)
        self._busy, self.idle = 0, asyncio.Event()  # idle: set while no event is being answered
        self.idle.set()

    def message(self, page: Page) -> SlackMessage:
        """A packed page as a Slack message."""
        return message(page)

    def render(self, reply: chat.Reply) -> list[object]:
        """Any reply as Slack messages (`render`)."""
        return render(reply)

    async def post(self, channel: str, message: object, *, reply_to: str = "", plain: bool = False) -> str:
        """chat.postMessage (as text alone when `plain`) in the channel's turn, into thread `reply_to`; its ts."""
        if self._token_accepted:
            return await self._post(channel, message, reply_to, plain)
        async with self._first_posts:
            ts = await self._post(channel, message, reply_to, plain)
        self._token_accepted = True
        return ts

    async def _post(self, channel: str, message: object, thread_ts: str, plain: bool) -> str:
        if self.token_refused:
            raise DeliveryError(f"Slack refused the bot token ({self.token_refused}): fix PAPERSCOUT_SLACK_BOT_TOKEN")
        assert isinstance(message, SlackMessage)
        async with self.channels.turn(channel):
            sent = await self.client.chat_postMessage(
                channel=channel, text=message.text, blocks=None if plain else message.blocks or None,
                thread_ts=thread_ts or None, unfurl_links=False, unfurl_media=False,
            )  # fmt: skip
        return str(sent["ts"])

    def failure(self, error: Exception) -> Failure | None:
        """A 429 waits its Retry-After; a gone channel, refused blocks, a refused token (nothing more is posted)."""
        from slack_sdk.errors import SlackApiError

        if not isinstance(error, SlackApiError):
            return None
        status, code = error.response.status_code, str(error.response.get("error", ""))
        if code in TOKEN_REFUSALS:  # the operator's to fix, not the channel's: no channel is retired for it
            self.token_refused = code
            log.error("Slack refused the bot token (%s): nothing more is posted until a restart with a good one", code)
        said = f"{code} {error.response.get('errors') or ''}".strip() if code else str(status)
        # Slack names a channel's trouble in its codes; a bare HTTP status (404 unknown_method, a proxy's 403) is not it
        return refusal(status, code, said, CODES, error.response.headers.get("Retry-After"), status_says=False)

    async def dm_user(self, chat: str) -> str:
        """The member a DM is with (conversations.info's `user`): a DM's channel id ('D…') is not its member's (what
        Slack raises when it cannot say, e.g. a token without im:read, is the driver's to log)."""
        if not chat.startswith("D"):
            return await super().dm_user(chat)
        found = (await self.client.conversations_info(channel=chat))["channel"]
        return str(found["user"]) if found.get("is_im") and found.get("user") else ""

    def register(self, app: AsyncApp) -> None:
        """The slash command, button presses, mentions, and DMs and channel messages."""
        app.command(COMMAND)(self._counted(self.on_command))
        app.action(re.compile(r"^ps:"))(self._counted(self.on_button))
        app.event("app_mention")(self._counted(self.on_mention))
        app.event("message")(self._counted(self.on_message))

    def _counted(self, listener: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        @functools.wraps(listener)  # bolt passes arguments by the names it reads from the signature
        async def counted(**kwargs: Any) -> None:
            self._busy += 1
            self.idle.clear()
            try:
                await listener(**kwargs)
            finally:
                self._busy -= 1
                if not self._busy:
                    self.idle.set()

        return counted

    async def stop(self) -> None:
        """Close the Socket Mode connection, then let the events in hand finish (for up to `STOP_GRACE_SECONDS`)."""
        if self.handler is not None:
            await self.handler.close_async()
        try:
            await asyncio.wait_for(self.idle.wait(), STOP_GRACE_SECONDS)
        except TimeoutError:
            log.warning("stopped Slack with events still being answered")

    async def speaker(self, user_id: str, place: chat.Place) -> chat.Speaker:
        """Who spoke; a workspace admin or owner administers every channel (users.info, cached for a minute)."""
        from slack_sdk.errors import SlackApiError

        cached = self._speakers.get(user_id)
        if cached is None:
            try:
                user = (await self.client.users_info(user=user_id))["user"]
                admin = bool(user.get("is_admin") or user.get("is_owner"))
                cached = self._speakers.put(user_id, (str(user.get("real_name") or user_id), admin))
            except SlackApiError as error:
                log.warning("users.info for %s failed: %s", user_id, error.response.get("error"))
                cached = (user_id, False)
        return self.as_speaker(user_id, clean_text(cached[0], 80), is_admin=cached[1] and not place.is_dm)

    def privately(self, respond: Any, place: chat.Place) -> Privately:
        """Showing a message to the one member who ran a command or pressed a button: an ephemeral post to the
        event's response_url (`RESPONSE_URL_POSTS` at most; False past them)."""
        posts = 0

        async def post(message: object) -> bool:
            nonlocal posts
            if posts == RESPONSE_URL_POSTS:
                log.warning("reply to %s cut short: a response_url takes %d posts", place.chat_id, posts)
                return False
            assert isinstance(message, SlackMessage)
            posts += 1
            await respond(text=message.text, blocks=message.blocks, replace_original=False)  # ephemeral
            return True

        return post

    async def on_command(self, ack: Any, body: dict[str, Any], respond: Any) -> None:
        """``/paperscout sub args``: acknowledged at once, then `ChatDriver.command` (what only the runner should see,
        a failure too, through the response_url; a command that works only in a DM answered in the member's DM)."""
        await ack()
        channel, is_dm = str(body.get("channel_id", "")), str(body.get("channel_id", "")).startswith("D")
        place = self.as_place(channel, is_dm, "" if is_dm else f"#{body.get('channel_name', '')}")
        answering = Posts(self, place, privately=self.privately(respond, place))
        async with self.reporting(place, "command", answering=answering):
            speaker = await self.speaker(str(body.get("user_id", "")), place)
            msg = chat.Incoming.from_text(speaker, place, "/" + (str(body.get("text", "")).strip() or "help"))
            await self.command(msg, answering)

    async def on_button(self, ack: Any, body: dict[str, Any], action: dict[str, Any], respond: Any) -> None:
        """A pressed button (`ChatDriver.press`): its answer only the presser sees outside a DM."""
        await ack()
        channel = str((body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id", ""))
        place = self.as_place(channel, channel.startswith("D"))
        privately = self.privately(respond, place)
        async with self.reporting(place, "button", privately=privately):
            speaker = await self.speaker(str(body.get("user", {}).get("id", "")), place)
            msg = chat.Incoming(speaker, place, button=str(action.get("value") or action.get("action_id", "")))
            await self.press(msg, Posts(self, place, privately=privately))

    async def on_mention(self, event: dict[str, Any]) -> None:
        """``@paperscout question`` in a channel: /ask, answered in the thread."""
        question = _MENTION.sub(" ", str(event.get("text", ""))).strip()
        place, thread = self.as_place(event.get("channel", ""), False), str(event.get("thread_ts") or event["ts"])
        async with self.reporting(place, "mention", thread):
            speaker = await self.speaker(str(event.get("user", "")), place)
            msg = chat.Incoming(speaker, place, text=question, command="ask" if question else "help", args=question)
            await self.hear(msg, thread)

    async def on_message(self, event: dict[str, Any]) -> None:
        """A DM (onboarding, questions, a typed '/command') or a channel message (a setup answer, a follow-up in our
        thread)."""
        text = str(event.get("text", ""))
        if event.get("subtype") or event.get("bot_id") or not text.strip() or f"<@{self.bot_user}>" in text:
            return  # edits, joins and bots are not ours; a mention comes as app_mention too
        place = self.as_place(event.get("channel", ""), event.get("channel_type") == "im")
        thread = str(event.get("thread_ts", ""))
        # any thread's reply carries its thread_ts: only in a thread the bot answered in is it a reply to the bot;
        # chatter elsewhere is nobody's message to it, and a failure with it is only logged
        replied = await self.controller.replied(place, thread)
        spoken_to = place.is_dm or replied.ours
        async with self.reporting(place, "message", thread, quiet=not spoken_to):
            speaker = await self.speaker(str(event.get("user", "")), place)
            reply_to = thread if replied.ours else ""
            said = chat.Incoming(speaker, place, text=text, reply_to=reply_to, replied=replied)
            if spoken_to:  # a typed '/command' said to the bot is a command: the driver's one route (`hear`)
                said = chat.typed(speaker, place, text, reply_to=reply_to, replied=replied)
            await self.hear(said, thread)


# --- lifecycle ---


async def start_slack(
    core: Core, settings: Settings | None = None, *, controller: chat.ChatController | None = None
) -> SlackFrontEnd:
    """Check the bot token (a `SlackApiError` if Slack refuses it, `SourceUnavailable` in one line when Slack cannot
    be reached), connect Socket Mode; the handle posts and stops."""
    import aiohttp
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
    from slack_bolt.app.async_app import AsyncApp
    from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
    from slack_sdk.web.async_client import AsyncWebClient

    settings = settings or core.settings
    if settings.slack_bot_token is None or settings.slack_app_token is None:
        raise ConfigError("Slack needs both PAPERSCOUT_SLACK_BOT_TOKEN and PAPERSCOUT_SLACK_APP_TOKEN")
    client = AsyncWebClient(token=settings.slack_bot_token.get_secret_value(), base_url=settings.slack_api_url)
    client.retry_handlers.append(AsyncRateLimitErrorRetryHandler(max_retry_count=1))
    async with starting("Slack", settings.slack_api_url, (aiohttp.ClientError, OSError, TimeoutError)):
        me = await client.auth_test()
    controller = controller or chat.ChatController(core)
    front_end = SlackFrontEnd(core, controller, client, settings.slack_channel_interval_seconds, str(me["user_id"]))
    app = AsyncApp(client=client, logger=log)
    front_end.register(app)
    front_end.handler = AsyncSocketModeHandler(app, settings.slack_app_token.get_secret_value())
    await front_end.handler.connect_async()
    log.info("Slack bot %s connected to %s over Socket Mode", me.get("user"), me.get("team"))
    return front_end


def _app_token_finding(settings: Settings) -> Finding | None:
    """The doctor's failure when the app-level token Socket Mode needs is missing or another kind of token."""
    from bot.ops.doctor import Finding

    app_token = settings.slack_app_token.get_secret_value() if settings.slack_app_token else ""
    if app_token.startswith("xapp-"):
        return None
    problem = "is not an app-level token" if app_token else "is not set"
    where = "Socket Mode needs an app-level token (xapp-...): Basic Information > App-Level Tokens, connections:write"
    return Finding("Slack", "fail", f"PAPERSCOUT_SLACK_APP_TOKEN {problem}", where)


async def check_slack(settings: Settings, offline: bool) -> Finding:
    """Doctor's check: Slack accepts the bot token (auth.test) and an app-level token for Socket Mode is set."""
    from bot.ops.doctor import Finding, cannot_tell, response_json, who_am_i
    from bot.ops.logs import public_url

    url = settings.slack_api_url.rstrip("/") + "/auth.test"
    fix = "copy the Bot User OAuth Token (xoxb-...) again from your app's OAuth & Permissions page"
    answer = await who_am_i(
        settings, "Slack", settings.slack_bot_token, settings.slack_api_url, "PAPERSCOUT_SLACK_API_URL",
        lambda token: (url, {"Authorization": f"Bearer {token}"}), fix, offline=offline,
        setting="PAPERSCOUT_SLACK_BOT_TOKEN",
    )  # fmt: skip
    app_token_missing = _app_token_finding(settings)
    if isinstance(answer, Finding):  # --offline too: a missing app token is known without asking Slack
        return app_token_missing if answer.status == "skipped" and app_token_missing else answer
    me = response_json(answer)
    error = str(me.get("error", ""))[:60]
    if error in TOKEN_REFUSALS:
        return Finding("Slack", "fail", f"Slack refused PAPERSCOUT_SLACK_BOT_TOKEN ({error})", fix)
    if unsure := cannot_tell(answer, "Slack", settings.slack_api_url):
        return unsure
    if answer.status_code != 200 or not me.get("ok"):
        return Finding("Slack", "fail", f"{public_url(url)} answered HTTP {answer.status_code} {error}", "try later")
    granted = answer.headers.get("x-oauth-scopes")  # the bot token's scopes, on every answer Slack gives it
    missing = [scope for scope in BOT_SCOPES if granted is not None and scope not in granted.split(",")]
    if missing:
        return Finding(
            "Slack", "fail", f"the bot token lacks the scope{'s' if len(missing) > 1 else ''} {', '.join(missing)}",
            "add it to the app's manifest (README, Slack) and reinstall the app: OAuth & Permissions > Reinstall",
        )  # fmt: skip
    if app_token_missing:
        return app_token_missing
    accepted = f"token accepted: {me.get('user', '?')} in {me.get('team', '?')}"
    if granted is None:  # a proxy may drop the header: nothing says a scope is missing, nor that none is
        return Finding(
            "Slack", "warn", f"{accepted}, but Slack's answer did not name its scopes: cannot tell whether it has "
            f"the {len(BOT_SCOPES)} paperscout needs", "compare OAuth & Permissions > Bot Token Scopes with the "
            "README's manifest",
        )  # fmt: skip
    return Finding("Slack", "ok", accepted)


FRONT_END = FrontEnd(
    platform=PLATFORM,
    title="Slack",
    start=start_slack,
    enabled=lambda settings: settings.slack_bot_token is not None,
    check=check_slack,
    prefix=f"{COMMAND} ",
    admin_words="the workspace's admins",
)
