"""The Telegram bot inside `paperscout run`: a PTB `Application` started in the running event loop.

`start_telegram(core, settings)` builds the application (`AIORateLimiter` with retries, no PTB job queue or
persistence: the schedule and the conversation state are ours), registers the handlers, publishes the command
lists, and starts receiving updates with ``initialize``, ``start`` and ``updater.start_polling`` (or
``updater.start_webhook`` when `Settings.telegram_webhook_url` is set); never ``run_polling``, which would take
over the loop the scheduler and Discord share. It returns the front end (`TelegramFrontEnd`, a
`bot.chat.driver.ChatDriver`): the digest poster the scheduler posts with, and its `stop` does the reverse.
"""

from __future__ import annotations

import logging
import secrets
from urllib.parse import urlsplit

from telegram import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats
from telegram.error import NetworkError
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder

from bot.chat.commands import menu
from bot.chat.controller import ChatController
from bot.config import Settings
from bot.core import Core
from bot.digests.pacing import ChatPacer
from bot.errors import ConfigError
from bot.frontend import starting
from bot.frontends.telegram.handlers import TelegramFrontEnd

log = logging.getLogger(__name__)

ALLOWED_UPDATES = ("message", "channel_post", "callback_query", "my_chat_member")


def build_application(settings: Settings) -> Application:
    """The PTB application for `settings` (token and Bot API server), not started."""
    if settings.telegram_token is None:
        raise ConfigError("PAPERSCOUT_TELEGRAM_TOKEN is not set")
    root = settings.telegram_base_url.rstrip("/")
    return (
        ApplicationBuilder()
        .token(settings.telegram_token.get_secret_value())
        .base_url(f"{root}/bot")
        .base_file_url(f"{root}/file/bot")
        .rate_limiter(AIORateLimiter(max_retries=settings.telegram_max_retries))
        .concurrent_updates(True)  # one slow answer must not hold up everyone; the controller locks per user
        .job_queue(None)
        .build()
    )


async def start_telegram(
    core: Core, settings: Settings | None = None, *, controller: ChatController | None = None
) -> TelegramFrontEnd:
    """Build, start and begin receiving updates inside the running loop; returns the front end to post with and
    stop.

    Raises `telegram.error.InvalidToken` at once for a token Telegram refuses, `SourceUnavailable` (one line) when
    Telegram cannot be reached.
    """
    settings = settings or core.settings
    app = build_application(settings)
    controller = controller or ChatController(core)
    pacer = ChatPacer(
        settings.telegram_chat_interval_seconds,
        settings.telegram_group_per_minute,
        settings.telegram_overall_per_second,
        is_group=lambda chat: isinstance(chat, int) and chat < 0,  # groups and channels have negative ids
    )

    front_end = TelegramFrontEnd(core, controller, app, pacer)
    front_end.register()
    async with starting("Telegram", settings.telegram_base_url, (NetworkError,), front_end.stop):
        await app.initialize()
        for in_dm, scope in ((True, BotCommandScopeAllPrivateChats()), (False, BotCommandScopeAllGroupChats())):
            await app.bot.set_my_commands([BotCommand(name, text[:256]) for name, text in menu(in_dm)], scope=scope)
        await app.start()
        front_end.open_a_dm = f"Open a chat with @{app.bot.username} and press Start to see this."
        await _start_updates(app, settings)
    return front_end


async def _start_updates(app: Application, settings: Settings) -> None:
    """Long polling by default; a webhook server (and setWebhook) when a public webhook URL is configured."""
    assert app.updater is not None
    if not settings.telegram_webhook_url:
        await app.updater.start_polling(
            timeout=settings.telegram_poll_timeout_seconds,
            allowed_updates=list(ALLOWED_UPDATES),
            drop_pending_updates=False,
        )
        log.info("Telegram bot @%s polling", app.bot.username)
        return
    # A fresh secret per start: Telegram sends it with every update, PTB's server refuses requests without it.
    await app.updater.start_webhook(
        listen=settings.telegram_webhook_listen,
        port=settings.telegram_webhook_port,
        url_path=urlsplit(settings.telegram_webhook_url).path.lstrip("/"),
        webhook_url=settings.telegram_webhook_url,
        secret_token=secrets.token_urlsafe(32),
        allowed_updates=list(ALLOWED_UPDATES),
        drop_pending_updates=False,
    )
    log.info(
        "Telegram bot @%s receiving updates on %s:%s",
        app.bot.username,
        settings.telegram_webhook_listen,
        settings.telegram_webhook_port,
    )


__all__ = ["TelegramFrontEnd", "build_application", "start_telegram"]
