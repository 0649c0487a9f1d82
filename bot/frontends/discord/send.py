"""Sending rendered `Outgoing` messages through discord.py: as interaction responses and followups, or to a
channel; button rows become persistent `PaperButton`s.

`PaperButton` is a `discord.ui.DynamicItem` whose custom_id is the controller's button value (``ps:up:2505.17639``,
``ps:c:STEP:N``): registered once with ``client.add_dynamic_items``, a press on any message ever posted, before any
restart, reaches the client as a ``paperscout_button`` event (the feedback cog handles it). A view made only of
dynamic items is not kept in discord.py's view store, so posting thousands of digests holds no memory.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any

import discord

from bot.chat.messages import is_paperscout_button
from bot.frontends.discord.render import Button, Outgoing

BUTTON_EVENT = "paperscout_button"


class PaperButton(discord.ui.DynamicItem[discord.ui.Button], template=re.compile(r"ps:[!-~]{1,97}")):
    """A paperscout button on any message; a press is dispatched as ``paperscout_button(interaction, value)``."""

    def __init__(self, value: str, label: str = "", style: discord.ButtonStyle = discord.ButtonStyle.secondary):
        super().__init__(discord.ui.Button(label=label or None, custom_id=value, style=style))
        self.value = value

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PaperButton:
        """Rebuild the button from a press on a message this process may never have seen."""
        label = item.label if isinstance(item, discord.ui.Button) else None
        return cls(match.group(0), label or "")

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Only values the controller can read (at most 64 bytes) are taken."""
        return is_paperscout_button(self.value)

    async def callback(self, interaction: discord.Interaction) -> None:
        """Hand the press to whoever listens for ``paperscout_button`` (the feedback cog)."""
        interaction.client.dispatch(BUTTON_EVENT, interaction, self.value)


def view_for(rows: Sequence[Sequence[Button]]) -> discord.ui.View | None:
    """A view laying out the rows (None when there are none)."""
    if not rows:
        return None
    view = discord.ui.View(timeout=None)
    for number, row in enumerate(rows):
        for button in row:
            item = PaperButton(button.custom_id, button.label, button.style)
            item.row = number
            view.add_item(item)
    return view


def _file(message: Outgoing) -> discord.File | None:
    if message.file is None:
        return None
    return discord.File(io.BytesIO(message.file.data), filename=message.file.name)


def _kwargs(message: Outgoing) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"allowed_mentions": discord.AllowedMentions.none()}
    if message.content:
        kwargs["content"] = message.content
    if message.embeds:
        kwargs["embeds"] = message.embeds
    view = view_for(message.rows)
    if view is not None:
        kwargs["view"] = view
    file = _file(message)
    if file is not None:
        kwargs["file"] = file
    return kwargs


async def send_to_interaction(
    interaction: discord.Interaction, messages: Sequence[Outgoing], *, ephemeral: bool | None = None
) -> list[tuple[Outgoing, int]]:
    """Send `messages` as the interaction's response, then followups; returns each with its message id.

    A deferred "thinking" response is filled by the first message (which is then as ephemeral as the defer was);
    `ephemeral` overrides every message's own wish when given.
    """
    sent: list[tuple[Outgoing, int]] = []
    for message in messages:
        hidden = message.ephemeral if ephemeral is None else ephemeral
        kwargs = _kwargs(message)
        if not interaction.response.is_done():
            response = await interaction.response.send_message(ephemeral=hidden, **kwargs)
            message_id = response.message_id if response is not None else None
        else:
            posted = await interaction.followup.send(ephemeral=hidden, wait=True, **kwargs)
            message_id = posted.id
        sent.append((message, int(message_id or 0)))
    return sent


async def send_to_channel(
    channel: discord.abc.Messageable, message: Outgoing, *, reply_to: discord.PartialMessage | None = None
) -> discord.Message:
    """Post `message` in a channel (as a reply to `reply_to` if given). Its `nonce` makes Discord hand back the
    message it already has with that nonce instead of posting it twice."""
    kwargs = _kwargs(message)
    if reply_to is not None:
        kwargs["reference"] = reply_to.to_reference(fail_if_not_exists=False)
    if message.nonce:
        kwargs["nonce"] = message.nonce
    return await channel.send(**kwargs)
