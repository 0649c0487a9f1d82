"""The controller's replies as Discord messages: the core's layout (`bot.views.layout`) styled as Discord markdown.

Discord's part is only the style and the shape of a message: outside text escaped for Discord markdown (a title
with ``**``, backticks, ``[x](javascript:...)``, ``@everyone``, ``<@&123>`` or LaTeX shows as written and links or
mentions nothing), ``**bold**``, ``*italic*`` and ``[text](url)``; text as a message's content (2,000 characters);
a digest, an answer and paper cards as one embed per block, a paper's title linking the embed (10 embeds and 6,000
characters a message, 4,096 a description, 256 a title); 5 rows of 5 buttons, labels of 80, each a persistent
`PaperButton` (`buttons`) in its colour; discord.py's arguments for sending a message. Sending is the driver's
(`poster`).
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.chat.messages import FileReply, Reply, layout
from bot.frontends.discord.buttons import PaperButton
from bot.text.safetext import clean_text
from bot.views.layout import Page, Span, Style, pack

CONTENT_MAX = 2000
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
COLOUR = discord.Colour(0xB31B1B)  # arXiv red
BUTTON_STYLES = {"up": discord.ButtonStyle.success, "down": discord.ButtonStyle.danger}
primary, grey = discord.ButtonStyle.primary, discord.ButtonStyle.secondary
PLAIN_KINDS = ("text", "choices")  # blocks shown as a message's content; the others are embeds

_INLINE = re.compile(r"([\\*_~`|\[\]<@])")
_LINE_START = re.compile(r"^([ \t]*)([#>-])", re.MULTILINE)


def escape_discord(text: str) -> str:
    """Clean text that Discord shows as written: emphasis, code, spoilers, masked links, quotes, headings, lists,
    user/role/channel mentions, slash-command mentions, custom emoji and timestamps are all escaped, and
    ``@everyone``/``@here`` are escaped so they ping nobody even where allowed mentions are not set."""
    text = _INLINE.sub(r"\\\1", clean_text(text))  # "\@everyone" pings nobody
    return _LINE_START.sub(r"\1\\\2", text)


class ContentStyle(Style):
    """Discord markdown in a message's content."""

    message_limit = CONTENT_MAX
    rows_per_message = 5
    buttons_per_row = 5
    choices_per_row = 5
    label_limit = 80

    def escape(self, text: str) -> str:
        """Escaped as `escape_discord`."""
        return escape_discord(text)

    def bold(self, markup: str) -> str:
        """**bold**."""
        return f"**{markup}**"

    def italic(self, markup: str) -> str:
        """*italic*."""
        return f"*{markup}*"

    def link(self, markup: str, url: str) -> str:
        """A masked link."""
        return f"[{markup}]({url})"


class EmbedStyle(ContentStyle):
    """Discord markdown in embeds, one a block (the text a page begins with may be its content)."""

    message_limit = 6000
    block_limit = DESCRIPTION_MAX
    blocks_per_message = 10


CONTENT, EMBEDS = ContentStyle(), EmbedStyle()


@dataclass(frozen=True, slots=True)
class Button:
    """One button: a label and a paperscout custom_id (``ps:up:2505.17639``)."""

    label: str
    custom_id: str
    style: discord.ButtonStyle = discord.ButtonStyle.secondary


@dataclass
class Outgoing:
    """One Discord message to send: content, embeds, button rows, an optional file."""

    content: str = ""
    embeds: list[discord.Embed] = field(default_factory=list)
    rows: list[list[Button]] = field(default_factory=list)
    file: FileReply | None = None
    nonce: str = ""  # the same for the same digest message across restarts


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


def arguments(message: Outgoing) -> dict[str, Any]:
    """discord.py's arguments for sending `message`: only what it has, and never a ping."""
    file = discord.File(io.BytesIO(message.file.data), filename=message.file.name) if message.file else None
    given = {"content": message.content, "embeds": message.embeds, "view": view_for(message.rows), "file": file}
    return {"allowed_mentions": discord.AllowedMentions.none()} | {
        name: value for name, value in given.items() if value
    }


def _style(kind: str, value: str) -> discord.ButtonStyle:
    """A choice is primary, a thumbs up green, a thumbs down red, any other button grey."""
    return primary if kind == "choices" else BUTTON_STYLES.get(value.split(":")[1], grey)


def _rows(page: Page) -> list[list[Button]]:
    """The page's buttons in rows, each in its colour (`_style`)."""
    return [
        [Button(EMBEDS.label(b), b.value, _style(block.kind, b.value)) for b in row]
        for block in page.blocks
        for row in EMBEDS.rows(block)
    ]


def _embeds(page: Page) -> list[discord.Embed]:
    """A block an embed (its title the embed's, linked); a block with no title joins the embed before it."""
    embeds: list[discord.Embed] = []
    for block in page.blocks:
        text = EMBEDS.line_break.join(EMBEDS.line(line) for line in block.lines)
        title = block.title or ((Span("Sources"),) if block.kind == "sources" else ())
        plain = tuple(Span(span.text) for span in title)  # an embed's title shows no markup
        last = embeds[-1] if embeds else None
        if not plain and last is not None and len(last.description or "") + len(text) + 2 <= DESCRIPTION_MAX:
            last.description = f"{last.description}{block.separator}{text}" if last.description else text
        elif plain or text:
            shown = EMBEDS.fit(plain, TITLE_MAX) or None
            embeds.append(discord.Embed(title=shown, url=block.url or None, description=text or None, colour=COLOUR))
    return embeds


def message(page: Page) -> Outgoing:
    """A packed page as a message: the text it begins with as content when that fits, every other block an embed,
    its buttons in rows ("Choose:" when it holds only buttons)."""
    plain = tuple(itertools.takewhile(lambda block: block.kind in PLAIN_KINDS, page.blocks))
    content = CONTENT.page(Page(plain))
    if len(content) > CONTENT_MAX:
        plain, content = (), ""
    embeds = _embeds(Page(page.blocks[len(plain) :]))
    return Outgoing(content=content or ("" if embeds else "Choose:"), embeds=embeds, rows=_rows(page))


def render(reply: Reply) -> list[Outgoing]:
    """One controller reply as Discord messages: text alone as content (2,000 characters a message), anything with
    cards as embeds; a file as an attachment with its caption."""
    if isinstance(reply, FileReply):
        return [Outgoing(content=CONTENT.fit((Span(reply.caption),), CONTENT_MAX), file=reply)]
    blocks = layout(reply)
    plain = all(block.kind in PLAIN_KINDS for block in blocks)
    return [message(page) for page in pack(blocks, CONTENT if plain else EMBEDS)]
