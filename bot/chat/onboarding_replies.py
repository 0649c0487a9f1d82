"""An onboarding step's reply as a chat reply: shared by the member commands and by `/digest`, which asks an open
onboarding's question again, so neither imports the other."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.chat.messages import Choice, TextReply, choice_button

if TYPE_CHECKING:
    from bot.members import onboarding


def onboarding_reply(reply: onboarding.Reply) -> TextReply:
    """An onboarding step's reply as a chat reply, its choices as buttons."""
    choices = tuple(Choice(choice.label, choice_button(reply.step, n)) for n, choice in enumerate(reply.choices, 1))
    text = reply.text + ("\n\nTry /digest to see your personal digest." if reply.saved else "")
    return TextReply(text, cards=reply.cards, choices=choices)
