"""A channel's admin commands: /setup (the conversation is `bot.chat.setup`), /settings, /pause and /resume."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.chat import setup as channel_setup
from bot.chat.flows import Flow
from bot.chat.messages import TextReply
from bot.chat.turns import Turn, text_reply
from bot.frontend import front_end

if TYPE_CHECKING:
    from bot.chat.messages import Place, Reply
    from bot.core import Core

NO_DIGEST = "This channel has no digest yet; /setup makes one."
CANT_POST_YET = "I can't post in {where} yet"


async def setup(turn: Turn) -> list[Reply]:
    """/setup: start (or restart) the channel's digest setup, with any answers given at once; for the admin alone,
    the platform's hint when it goes step by step, and what the bot lacks to post there."""
    msg, place = turn.msg, turn.place
    options = msg.options or channel_setup.inline_options(turn.args)
    replies: list[Reply] = [await channel_setup.begin(turn.core, turn.user, place, options, msg.attachment)]
    hint = front_end(place.platform).setup_hint
    if hint and await channel_setup.load(turn.core, turn.user, place) is not None:
        replies.append(TextReply(hint, ephemeral=True))
    if turn.poster is not None and turn.poster.missing_permissions(place.chat_id):  # the line a refused post gets
        replies.append(TextReply(turn.poster.permission_problem(place.chat_id, CANT_POST_YET), ephemeral=True))
    return replies


async def settings(turn: Turn) -> list[Reply]:
    """/settings: the channel's digest settings."""
    described = await channel_setup.describe_target(turn.core, turn.place)
    return text_reply(described or NO_DIGEST)


async def _set_paused(turn: Turn, paused: bool) -> list[Reply]:
    found = await turn.core.repo.target_at(turn.place.platform, turn.place.chat_id)
    if found is None or found[0].id is None:
        return text_reply(NO_DIGEST, ephemeral=True)
    target = found[0]
    if target.paused == paused:
        return text_reply("The digest is already " + ("paused." if paused else "running."), ephemeral=True)
    await turn.core.repo.set_target_paused(target.id, paused)
    if paused:
        return text_reply("Paused: no digest is posted here until /resume.")
    return text_reply(f"Resumed: the next digest comes at {target.post_time} ({target.timezone}).")


async def pause(turn: Turn) -> list[Reply]:
    """/pause: no channel digest until /resume."""
    return await _set_paused(turn, True)


async def resume(turn: Turn) -> list[Reply]:
    """/resume: the channel digest runs again."""
    return await _set_paused(turn, False)


class ChannelSetup(Flow):
    """A step-by-step /setup, open in its channel for the admin who started it."""

    kind = channel_setup.KIND

    def takes(self, place: Place) -> bool:
        """Its state is kept per place, so it is only ever open where it was started."""
        return True

    def scope(self, place: Place) -> str:
        """One setup per admin and channel."""
        return place.key

    async def is_open(self, core: Core, user: str, place: Place) -> bool:
        """An unfinished setup of `place` by this admin."""
        return await channel_setup.load(core, user, place) is not None

    async def answer(self, turn: Turn) -> list[Reply]:
        """The answer to the current setup question (text or an attached profile)."""
        return [await channel_setup.answer(turn.core, turn.user, turn.place, turn.args, turn.msg.attachment)]

    async def command(self, turn: Turn, name: str) -> list[Reply]:
        """/skip keeps the current value, /back goes to the previous question."""
        return [await channel_setup.answer(turn.core, turn.user, turn.place, f"/{name}", turn.msg.attachment)]

    async def cancel(self, turn: Turn) -> list[Reply]:
        """Nothing is saved before the last answer."""
        await channel_setup.cancel(turn.core, turn.user, turn.place)
        return text_reply("Setup cancelled; nothing was changed.")

    def owns_step(self, step: str) -> bool:
        """The buttons of a setup question."""
        return step.startswith("setup-")

    async def choose(self, turn: Turn, step: str, number: str) -> list[Reply]:
        """A choice of the current setup question; a stale one is named as such."""
        draft = await channel_setup.load(turn.core, turn.user, turn.place)
        if draft is None or f"setup-{draft.step}" != step:
            return text_reply("That button belongs to an earlier question.", ephemeral=True)
        return [await channel_setup.answer(turn.core, turn.user, turn.place, number, None)]
