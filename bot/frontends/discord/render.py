"""The controller's replies as Discord messages: the core's layout (`bot.views.layout`) styled as Discord markdown.

Discord's part is only the style and the shape of a message: outside text escaped for Discord markdown (a title
with ``**``, backticks, ``[x](javascript:...)``, ``@everyone``, ``<@&123>`` or LaTeX shows as written and links or
mentions nothing), ``**bold**``, ``*italic*`` and ``[text](url)``; text as a message's content (2,000 characters);
a digest, an answer and paper cards as one embed per block, a paper's title linking the embed (10 embeds and 6,000
characters a message, 4,096 a description, 256 a title); 5 rows of 5 buttons, labels of 80. Sending is `send`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import discord

from bot.chat.messages import AnswerReply, DigestReply, FileReply, Reply, layout
from bot.text.safetext import clean_text
from bot.views.layout import (
    Block,
    Page,
    Span,
    Style,
    answer_blocks,
    choice_block,
    digest_blocks,
    pack,
    paper_block,
    text_block,
)
from bot.views.model import DigestView

CONTENT_MAX = 2000
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
COLOUR = discord.Colour(0xB31B1B)  # arXiv red
SOURCES = (Span("Sources"),)  # the title of an answer's sources
BUTTON_STYLES = {"up": discord.ButtonStyle.success, "down": discord.ButtonStyle.danger}
primary, grey = discord.ButtonStyle.primary, discord.ButtonStyle.secondary

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
    """Discord markdown in embeds, one a block."""

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
    thread: str = ""  # a digest message after the first: the name of the thread under the header it goes into
    header: str = ""  # that header's id, once it is sent
    nonce: str = ""  # the same for the same digest message across restarts


def _rows(page: Page, style: Style) -> list[list[Button]]:
    """The page's buttons in rows: a choice is primary, a thumbs up green, a thumbs down red."""
    return [
        [
            Button(
                style.label(b),
                b.value,
                primary if block.kind == "choices" else BUTTON_STYLES.get(b.value.split(":")[1], grey),
            )
            for b in row
        ]
        for block in page.blocks
        for row in style.rows(block)
    ]


def _embeds(page: Page) -> list[discord.Embed]:
    """A block an embed (its title the embed's, linked); a block with no title joins the embed before it."""
    embeds: list[discord.Embed] = []
    for block in page.blocks:
        text = EMBEDS.line_break.join(EMBEDS.line(line) for line in block.lines)
        plain = tuple(Span(span.text) for span in block.title) or (
            (Span("Sources"),) if block.kind == "sources" else ()
        )
        last = embeds[-1] if embeds else None
        if not plain and last is not None and len(last.description or "") + len(text) + 2 <= DESCRIPTION_MAX:
            last.description = f"{last.description}{block.separator}{text}" if last.description else text
        elif plain or text:
            title = EMBEDS.fit(plain, TITLE_MAX) or None
            embeds.append(discord.Embed(title=title, url=block.url or None, description=text or None, colour=COLOUR))
    return embeds


def _once(blocks: Iterable[Block]) -> list[Block]:
    """Discord refuses a message whose buttons repeat a custom_id: a paper is shown once."""
    seen: set[str] = set()
    kept = []
    for block in blocks:
        values = {b.value for b in block.buttons}
        if not (block.kind == "paper" and values & seen):
            kept.append(block)
            seen |= values
    return kept


def page_message(page: Page, *, embeds: bool) -> Outgoing:
    """A packed page as a message: as embeds, or as content (with "Choose:" when it holds only buttons)."""
    return Outgoing(
        content="" if embeds else (CONTENT.page(page) or "Choose:"),
        embeds=_embeds(page) if embeds else [],
        rows=_rows(page, EMBEDS if embeds else CONTENT),
    )


def messages(blocks: Iterable[Block], *, embeds: bool) -> list[Outgoing]:
    """Blocks packed into messages (`page_message`)."""
    return [page_message(page, embeds=embeds) for page in pack(_once(blocks), EMBEDS if embeds else CONTENT)]


def digest_messages(view: DigestView) -> list[Outgoing]:
    """A digest: the header, each paper (or each topic) in order, the notes last, in as few messages as fit."""
    return messages(digest_blocks(view), embeds=True)


def answer_messages(reply: AnswerReply) -> list[Outgoing]:
    """An answer: its text, its sources, the papers' window and the LLM's cost."""
    window = f"Papers from {reply.window[0].isoformat()} to {reply.window[1].isoformat()}"
    follow = "Reply to this message to ask a follow-up." if reply.context_id else ""
    blocks = answer_blocks(reply.text, reply.citations, usage=reply.usage_line, notes=[window, follow])
    return messages(blocks, embeds=True)


def render_reply(reply: Reply) -> list[Outgoing]:
    """One controller reply as Discord messages (text as content, paper cards as embeds joining its last)."""
    if isinstance(reply, DigestReply):
        return digest_messages(reply.digest)
    if isinstance(reply, AnswerReply):
        return answer_messages(reply)
    if isinstance(reply, FileReply):
        return [Outgoing(content=CONTENT.fit((Span(reply.caption),), CONTENT_MAX), file=reply)]
    if not reply.cards:
        return messages(layout(reply), embeds=False)
    text = messages(text_block(reply.text), embeds=False)
    cards = [*(paper_block(card) for card in reply.cards), *choice_block(reply.choices)]
    packed = messages(cards, embeds=True)
    if text and packed:
        text[-1].embeds, text[-1].rows = packed[0].embeds, packed[0].rows
        packed = packed[1:]
    return text + packed
