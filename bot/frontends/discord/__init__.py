"""Discord front end: a thin adapter over the core's `bot.chat.driver.ChatDriver`. A discord.py bot around the core
(`app`: events and interactions in, each answered by the driver), the core's layout styled and shaped as Discord
messages (`render`), the persistent buttons on them, whose presses reach the client after any restart (`buttons`),
the driver's primitives with Discord's errors, threads, nonces, permissions and interaction responses (`poster`), and
the slash commands made from the command table, /setup's form included (`commands`). Its cogs live in the top-level
`cogs/` package, one per feature (`cogs.messages`: DMs, replies and mentions, and the owner's ``@paperscout sync``).

`FRONT_END` registers it (see `bot.frontend`); discord.py is imported only when it starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.frontend import FrontEnd

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.core import Core
    from bot.frontends.discord.poster import DiscordPoster
    from bot.ops.doctor import Finding


async def start(core: Core, settings: Settings) -> DiscordPoster:
    """Log in and connect (`bot.frontends.discord.app.start_discord`)."""
    from bot.frontends.discord.app import start_discord

    return await start_discord(core, settings)


async def check(settings: Settings, offline: bool) -> Finding:
    """Discord accepts the bot token (GET /users/@me) and it is a bot's."""
    from bot.ops.doctor import Finding, token_accepted, who_am_i

    def identity(me: dict[str, Any]) -> str | Finding:
        if me.get("bot"):
            return f"bot {me.get('username', '?')} (id {me.get('id', '?')})"
        user_token = "PAPERSCOUT_DISCORD_TOKEN belongs to a user account, not a bot"
        return Finding("Discord", "fail", user_token, "use the token of your application's bot")

    base = settings.discord_api_url.rstrip("/")
    answer = await who_am_i(
        settings, "Discord", settings.discord_token, settings.discord_api_url, "PAPERSCOUT_DISCORD_API_URL",
        lambda token: (f"{base}/users/@me", {"Authorization": f"Bot {token}"}),
        "copy the bot token again from the Developer Portal (your application > Bot > Reset Token)", offline=offline,
    )  # fmt: skip
    return token_accepted(answer, "Discord", settings.discord_api_url, identity)


FRONT_END = FrontEnd(
    platform="discord",
    title="Discord",
    start=start,
    enabled=lambda settings: settings.discord_token is not None,
    check=check,
    # Discord's slash commands where they differ from the command table's names (typed in a DM, or as a reply to a
    # question in a channel, every command of the table works too)
    names={
        "start": "/interests",
        "more": "/similar",
        "pause": "/digest pause",
        "resume": "/digest resume",
    },
    admin_words="the server's admins (Manage Server)",
    setup_hint="(Answer by replying to this message; /setup with options sets everything at once.)",
    forms=True,
)
