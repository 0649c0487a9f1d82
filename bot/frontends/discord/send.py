"""Sending rendered `Outgoing` messages through discord.py: as an interaction's answer (`Followups`), or to a
channel; button rows become persistent `PaperButton`s.

`PaperButton` is a `discord.ui.DynamicItem` whose custom_id is the controller's button value (``ps:up:2505.17639``,
``ps:c:STEP:N``): registered once with ``client.add_dynamic_items``, a press on any message ever posted, before any
restart, reaches the client's `press`. A view made only of
dynamic items is not kept in discord.py's view store, so posting thousands of digests holds no memory.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Sequence
from typing import Any

import discord

from bot.chat.driver import Interaction
from bot.chat.messages import is_paperscout_button
from bot.frontends.discord.render import Button, Outgoing


class PaperButton(discord.ui.DynamicItem[discord.ui.Button], template=re.compile(r"ps:[!-~]{1,97}")):
    """A paperscout button on any message; a press goes to the client's `press` (`PaperscoutBot.press`)."""

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
        """Hand the press to the client."""
        await interaction.client.press(interaction, self.value)  # type: ignore[attr-defined]


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


def _kwargs(message: Outgoing) -> dict[str, Any]:
    """discord.py's arguments for sending `message`: only what it has, and never a ping."""
    file = discord.File(io.BytesIO(message.file.data), filename=message.file.name) if message.file else None
    given = {"content": message.content, "embeds": message.embeds, "view": view_for(message.rows), "file": file}
    return {"allowed_mentions": discord.AllowedMentions.none()} | {
        name: value for name, value in given.items() if value
    }


class Followups(Interaction):
    """The answer to one interaction, page by page (the driver's `Interaction`): a deferred "thinking…", then its
    response or followups. A page only the member may see first removes a public "thinking…": the first followup
    after a deferred response takes the defer's visibility, whatever it asks for."""

    def __init__(self, interaction: discord.Interaction) -> None:
        self.interaction, self.sent = interaction, 0

    async def defer(self, private: bool) -> None:
        """ "thinking…" (only for the member when `private`), unless the interaction was answered already."""
        if not self.interaction.response.is_done():
            await self.interaction.response.defer(ephemeral=private, thinking=True)

    async def __call__(self, message: Outgoing, private: bool) -> str:
        """Send one page (ephemeral when `private`); its message id."""
        if private and not self.sent:  # counted once sent: after a refused page, a note is still only the member's
            await unshare_thinking(self.interaction)
        if not self.interaction.response.is_done():
            response = await self.interaction.response.send_message(ephemeral=private, **_kwargs(message))
            ref = str(response.message_id or "") if response is not None else ""
        else:
            ref = str((await self.interaction.followup.send(ephemeral=private, wait=True, **_kwargs(message))).id)
        self.sent += 1
        return ref

    async def finish(self) -> None:
        """When nothing was said: "Done.", or the "thinking…" removed."""
        if self.sent:
            return
        if not self.interaction.response.is_done():
            await self.interaction.response.send_message("Done.", ephemeral=True)
        else:
            with contextlib.suppress(discord.HTTPException):
                await self.interaction.delete_original_response()


async def unshare_thinking(interaction: discord.Interaction) -> None:
    """Remove a public "thinking…" response still waiting for its first followup."""
    if not interaction.response.is_done() or interaction.guild is None:
        return
    try:
        original = await interaction.original_response()
    except discord.HTTPException:
        return
    if original.flags.loading and not original.flags.ephemeral:
        with contextlib.suppress(discord.HTTPException):
            await interaction.delete_original_response()


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
