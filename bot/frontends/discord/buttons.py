"""Discord's persistent buttons: every button paperscout posts is a `PaperButton`, a `discord.ui.DynamicItem` whose
custom_id is the controller's button value (``ps:up:2505.17639``, ``ps:c:STEP:N``), registered once with
``client.add_dynamic_items``, so a press on any message ever posted, before any restart, reaches the client's `press`;
a view made only of dynamic items is not kept in discord.py's view store, so posting thousands of digests holds no
memory. Which buttons a message has, and their labels and colours, are `render`'s.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.chat.messages import BUTTON_PREFIX
from bot.views.model import MAX_BUTTON_BYTES

# a paperscout button value (`bot.views.model.is_paperscout_button`): the prefix, then printable ASCII to 64 bytes
BUTTON_VALUE = re.compile(rf"{BUTTON_PREFIX}[!-~]{{1,{MAX_BUTTON_BYTES - len(BUTTON_PREFIX)}}}")


class PaperButton(discord.ui.DynamicItem[discord.ui.Button], template=BUTTON_VALUE):
    """A paperscout button on any message; a press goes to the client's `press` (`PaperscoutBot.press`). Only values
    the controller can read (`BUTTON_VALUE`, the whole custom_id) are taken."""

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

    async def callback(self, interaction: discord.Interaction) -> None:
        """Hand the press to the client."""
        await interaction.client.press(interaction, self.value)  # type: ignore[attr-defined]
