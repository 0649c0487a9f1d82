"""A member's reactions in chat: the reply to a 👍/👎 (what it changed, with an Undo button), /reactions (the list,
`undo N`, `reset` after a confirmation), the Undo button, and the /why line about the member's own reactions.
What a reaction changed is measured and worded by `bot.members.reactions`."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace as dc_replace
from typing import TYPE_CHECKING

from bot.chat.flows import Flow
from bot.chat.messages import Choice, Place, Reply, TextReply, choice_button, paper_button
from bot.chat.turns import Turn, member_profile, paper_from_arg, text_reply
from bot.errors import InputError
from bot.members import reactions
from bot.models import InvalidPaperId, Paper, split_arxiv_id
from bot.ranking import learn

if TYPE_CHECKING:
    from bot.core import Core

RESET_KIND = "reactions-reset"
RESET_MINUTES = 10  # a /reactions reset confirmation older than this is not acted on
USAGE = "Use /reactions to list them, /reactions undo N to take one back, /reactions reset to delete them all."


async def react(turn: Turn, value: int) -> list[Reply]:
    """/up, /down and the 👍/👎 buttons: store the reaction and say what it changed, with an Undo button."""
    found = await paper_from_arg(turn.core, turn.user, turn.args)
    effect = await reactions.react(turn.core, turn.user, found, value)
    text = reactions.describe_effect(effect)
    if await member_profile(turn.core, turn.user) is None:
        text += " (/start sets up a profile that learns from it.)"
    changed = effect.value != effect.previous
    choices = (Choice("Undo", paper_button("undo", found.id)),) if changed else ()
    return [TextReply(text, choices=choices, ephemeral=True)]


async def undo_button(turn: Turn) -> list[Reply]:
    """The Undo button under a reaction's reply: take the member's reaction to that paper back."""
    try:
        paper_id = split_arxiv_id(turn.args)[0]  # a paper id, never a number of the list (which may have moved)
    except InvalidPaperId:
        return text_reply("That button is from an older version of paperscout; use /reactions.", ephemeral=True)
    effect = await reactions.undo(turn.core, turn.user, paper_id)
    # not a short acknowledgement (which a front end may show as a passing notice): what changed is to be read;
    # the button is only ever under a reply the presser alone sees
    return text_reply(reactions.describe_effect(effect))


async def reactions_command(turn: Turn) -> list[Reply]:
    """/reactions [undo N | reset]: the list, the latest first; undo one; delete all after a confirmation."""
    word, _, rest = turn.args.strip().partition(" ")
    word, rest = word.lower(), rest.strip()
    if word in ("", "list"):
        listed = reactions.describe_reactions(await reactions.reactions_of(turn.core, turn.user))
        return text_reply(listed, ephemeral=True)
    if word == "undo":
        if not rest:
            raise InputError("Which one? /reactions undo N, where N is its number in /reactions (1 is the latest).")
        effect = await reactions.undo(turn.core, turn.user, rest)
        return text_reply(reactions.describe_effect(effect), ephemeral=True)
    if word == "reset":
        return await _ask_reset(turn, confirmed=rest.lower() == "yes")
    return text_reply(USAGE, ephemeral=True)


async def _ask_reset(turn: Turn, *, confirmed: bool) -> list[Reply]:
    count = len(await reactions.reactions_of(turn.core, turn.user))
    if not count:
        return text_reply("You have no reactions to reset.", ephemeral=True)
    if confirmed:
        return await _reset_now(turn.core, turn.user)
    pending = {"at": dt.datetime.now(dt.UTC).isoformat(), "place": turn.place.key}
    await turn.core.repo.save_chat_state(turn.user, RESET_KIND, json.dumps(pending))
    plural = "" if count == 1 else "s"
    return text_reply(
        f"This deletes your {count} reaction{plural} and what your digest learned from them; your profile stays. "
        "Type yes to confirm, anything else keeps them.",
        choices=(
            Choice(f"Yes, delete {'it' if count == 1 else 'them'}", choice_button(RESET_KIND, 1)),
            Choice("No, keep them", choice_button(RESET_KIND, 2)),
        ),
    )


async def _reset_now(core: Core, user: str) -> list[Reply]:
    count = await reactions.reset(core, user)
    plural = "" if count == 1 else "s"
    return text_reply(f"Deleted your {count} reaction{plural}: your profile alone ranks your digest again.")


class ResetConfirmation(Flow):
    """The question /reactions reset asks: yes deletes every reaction, anything else (or /skip, /cancel) keeps."""

    kind = RESET_KIND
    commands = frozenset({"skip"})

    def takes(self, place: Place) -> bool:
        """Answered where it was asked (`is_open` checks the place)."""
        return True

    async def is_open(self, core: Core, user: str, place: Place) -> bool:
        """A pending confirmation asked at `place`."""
        stored = await core.repo.chat_state(user, RESET_KIND)
        pending = json.loads(stored) if stored else None
        return isinstance(pending, dict) and pending.get("place") == place.key

    async def answer(self, turn: Turn) -> list[Reply]:
        """Yes (or '1', the Yes choice typed), while fresh, deletes; anything else keeps."""
        stored = await turn.core.repo.chat_state(turn.user, RESET_KIND)
        await turn.core.repo.save_chat_state(turn.user, RESET_KIND, "")
        pending = json.loads(stored) if stored else {}
        at = dt.datetime.fromisoformat(pending.get("at", "2000-01-01T00:00:00+00:00"))
        if dt.datetime.now(dt.UTC) - at > dt.timedelta(minutes=RESET_MINUTES):
            return text_reply("That confirmation expired; send /reactions reset again if you still want it.")
        if turn.args.strip().lower() in {"yes", "y", "1", "/reactions reset yes"}:
            return await _reset_now(turn.core, turn.user)
        return text_reply("Kept your reactions.")

    async def command(self, turn: Turn, name: str) -> list[Reply]:
        """/skip keeps them."""
        return await self.cancel(turn)

    async def cancel(self, turn: Turn) -> list[Reply]:
        """Keeps them."""
        await turn.core.repo.save_chat_state(turn.user, RESET_KIND, "")
        return text_reply("Kept your reactions.")

    def owns_step(self, step: str) -> bool:
        """The Yes/No buttons."""
        return step == RESET_KIND

    async def choose(self, turn: Turn, step: str, number: str) -> list[Reply]:
        """Yes is choice 1; a button of a confirmation no longer pending changes nothing."""
        if not await self.is_open(turn.core, turn.user, turn.place):
            return text_reply("That confirmation is no longer pending; your reactions are as they were.")
        return await self.answer(dc_replace(turn, args="yes" if number == "1" else "no"))


async def why_line(core: Core, user: str, paper: Paper) -> str:
    """What the member's reactions do to `paper` for /why: their own reaction to it and what it changes, or how
    their reactions move it among its day's papers; '' when the learner is not in use for them."""
    rows = {row.paper_id: row for row in await reactions.reactions_of(core, user)}
    if paper.id in rows:
        effect = await reactions.effect_of(core, user, paper)
        if effect is not None:
            return reactions.describe_standing_reaction(effect, rows[paper.id].at)
    shift, used = await reactions.shift_on_its_day(core, user, paper)
    if not used:
        return ""
    way = "up" if shift > 0 else "down"
    how = "noticeably" if abs(shift) >= learn.REASON_MIN_SHIFT else "only a little"
    return f"Your {used} reactions move it {way} {how} among the papers of its day; /reactions lists them."
