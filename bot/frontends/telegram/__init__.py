"""Telegram front end: a python-telegram-bot Application that drives `bot.chat` and posts digests.

`start_telegram(core, settings)` (in `bot.frontends.telegram.app`) runs it inside `paperscout run`; the rest of the
package
renders the controller's replies as Telegram HTML (`render`, `markup`), sends them with pacing and Telegram's
errors mapped (`sending`, `pacing`), posts digests (`poster`) and translates updates (`handlers`).
"""
