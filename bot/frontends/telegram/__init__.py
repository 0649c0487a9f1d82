"""Telegram front end: a python-telegram-bot Application that drives `bot.chat` and posts digests.

`start_telegram(core, settings)` (in `app`) runs it inside `paperscout run`; the rest of the package styles the
core's layout of the controller's replies as Telegram HTML (`render`) and translates updates (`handlers`: a
`bot.chat.driver.ChatDriver`, which sends replies and digests with the core's policy over Telegram's
primitives). `FRONT_END` registers it (see `bot.frontend`); python-telegram-bot is imported only when it starts.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from bot.frontend import FrontEnd

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.core import Core
    from bot.frontends.telegram.handlers import TelegramFrontEnd
    from bot.ops.doctor import Finding


async def start(core: Core, settings: Settings) -> TelegramFrontEnd:
    """Build, start and begin receiving updates (`bot.frontends.telegram.app.start_telegram`)."""
    from bot.frontends.telegram.app import start_telegram

    return await start_telegram(core, settings)


TOKEN_SHAPE = re.compile(r"\d+:[A-Za-z0-9_-]+")  # what @BotFather hands out: 123456789:AAE...


def _local_problem(settings: Settings) -> Finding | None:
    """What is wrong with the token's shape or the webhook URL without asking Telegram (None when nothing is)."""
    from bot.ops.doctor import Finding

    token = settings.telegram_token.get_secret_value() if settings.telegram_token else ""
    if token and not TOKEN_SHAPE.fullmatch(token):
        return Finding(
            "Telegram",
            "fail",
            "PAPERSCOUT_TELEGRAM_TOKEN does not look like a bot token (123456789:AAE...)",
            "copy the token again from @BotFather (/mybots > your bot > API Token)",
        )
    url = settings.telegram_webhook_url
    if url:
        parts = urlsplit(url)
        loopback = parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1")
        if not parts.hostname or (parts.scheme != "https" and not loopback):
            return Finding(
                "Telegram",
                "fail",
                f"PAPERSCOUT_TELEGRAM_WEBHOOK_URL is {url!r}: Telegram posts only to an https:// URL",
                "give the public https:// URL your reverse proxy serves, or unset it for long polling",
            )
    return None


async def check(settings: Settings, offline: bool) -> Finding:
    """Telegram accepts the bot token (getMe); the token's shape and the webhook URL are checked offline too."""
    from bot.ops.doctor import Finding, cannot_tell, response_json, who_am_i
    from bot.ops.logs import public_url

    base = settings.telegram_base_url.rstrip("/")
    answer = await who_am_i(
        settings,
        "Telegram",
        settings.telegram_token,
        settings.telegram_base_url,
        "PAPERSCOUT_TELEGRAM_BASE_URL",
        lambda token: (f"{base}/bot{token}/getMe", {}),
        "copy the token again from @BotFather (/mybots > your bot > API Token)",
        offline=offline,
    )
    if isinstance(answer, Finding):
        return (_local_problem(settings) or answer) if answer.status == "skipped" else answer
    api = public_url(settings.telegram_base_url)
    if answer.status_code == 404:
        return Finding(
            "Telegram",
            "fail",
            f"{api} answered HTTP 404 to getMe: PAPERSCOUT_TELEGRAM_TOKEN is malformed or the base URL is wrong",
            "a token looks like 123456789:AAE...; PAPERSCOUT_TELEGRAM_BASE_URL is the server root",
        )
    if unsure := cannot_tell(answer, "Telegram", settings.telegram_base_url):
        return unsure
    me = response_json(answer).get("result") or {}
    if answer.status_code != 200 or not me:
        return Finding("Telegram", "fail", f"{api} answered HTTP {answer.status_code} to getMe", "try again later")
    return _local_problem(settings) or Finding(
        "Telegram", "ok", f"token accepted: @{me.get('username', '?')} (id {me.get('id', '?')})"
    )


FRONT_END = FrontEnd(
    platform="telegram",
    title="Telegram",
    start=start,
    enabled=lambda settings: settings.telegram_token is not None,
    check=check,
    admin_words="the group's admins",
    written_as_place=(
        "You wrote anonymously, as the chat itself, and Telegram does not let me send a direct message to an anonymous"
        " admin: run {command} again without anonymity, or in a direct message with me."
    ),
)
