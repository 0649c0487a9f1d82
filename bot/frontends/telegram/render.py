"""The controller's replies as Telegram messages: HTML under 4,096 characters, split at paper boundaries.

A digest becomes a header and one block per paper; blocks are packed into messages of at most `BUDGET` visible
characters and `PAPERS_PER_MESSAGE` papers, never cutting a paper in two, and each message carries an inline
keyboard with a row per paper (thumbs up, thumbs down, more like this). Button data is the controller's own value
(``ps:up:2505.17639``): it needs no server-side state, so a button pressed months later, after any number of
restarts, still works. Every field of a paper is bounded, so even a 2,000-character title leaves room.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from bot.chat.messages import AnswerReply, DigestView, FileReply, PaperView, TextReply, is_paperscout_button
from bot.frontends.telegram.markup import Markup, clip, utf16_length
from bot.text.safetext import fit_items
from bot.views.model import TopicGroup, usage_line
from bot.views.render import authors_line, judgement_line

log = logging.getLogger(__name__)

MAX_MESSAGE = 4096  # Telegram's limit on a message's text after entity parsing
BUDGET = 4000  # what we fill a message to, leaving room for Telegram's own counting
MAX_CAPTION = 1024
PAPERS_PER_MESSAGE = 8  # 8 rows of 3 buttons: a keyboard a reader can still use
TITLE_CHARS = 300
AUTHORS_SHOWN = 4
TLDR_CHARS = 700
ABSTRACT_CHARS = 1300  # a card's abstract comes bounded (bot.views.model); this guards the message
REASONS_CHARS = 400
COMMENT_CHARS = 300
NOTE_CHARS = 500
LABEL_CHARS = 40
TOPIC_LINE_CHARS = 240  # a paper's one line under a topic heading


@dataclass(frozen=True, slots=True)
class Button:
    """An inline keyboard button: what it shows and the callback data it sends back."""

    label: str
    data: str


Keyboard = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True, slots=True)
class TgMessage:
    """One Telegram message: its HTML, the plain-text fallback, and its inline keyboard."""

    html: str
    plain: str
    keyboard: Keyboard = ()


@dataclass
class _Block:
    markup: Markup
    rows: Keyboard = ()
    papers: int = 0
    separator: str = "\n\n"


# --- digests ---


def render_digest(view: DigestView) -> list[TgMessage]:
    """A digest as messages: header first, papers in order, notes last; no paper split across messages."""
    header = Markup().bold(clip(view.title, TITLE_CHARS)).line().text(view.summary)
    cost = usage_line(view.usage)
    if cost:
        header.line().italic(cost)
    blocks = [_Block(header)]
    if not view.items:
        blocks.append(_Block(Markup().text("No papers matched this profile.")))
    groups = view.topic_groups()
    blocks += topic_blocks(groups) if groups else [paper_block(item) for item in view.items]
    for note in view.notes:
        blocks.append(_Block(Markup().italic(clip(note, NOTE_CHARS)), separator="\n"))
    return pack(blocks)


def _topic_line(item: PaperView) -> Markup:
    markup = Markup().bold(f"{item.number}. ").link(clip(item.title, TITLE_CHARS), item.url)
    if item.tldr:
        markup.text(" — ").italic(clip(item.tldr, TOPIC_LINE_CHARS))
    return markup


def _joined(parts: Sequence[Markup]) -> Markup:
    joined = Markup()
    for n, part in enumerate(parts):
        if n:
            joined.line()
        joined.html_parts += part.html_parts
        joined.plain_parts += part.plain_parts
    return joined


def topic_blocks(groups: Sequence[TopicGroup]) -> list[_Block]:
    """A digest grouped as a topic tree: one block per top-level topic (its heading, subtopic headings and one line
    per paper, no buttons: '/up 3' names a paper by its number), so messages split at topic boundaries. A topic
    too long for one message is cut at its subtopics, then between papers, its heading repeated."""
    topics: list[list[TopicGroup]] = []
    for group in groups:
        if group.level == 1 or not topics:
            topics.append([])
        topics[-1].append(group)
    blocks = []
    for topic in topics:
        heading = clip(topic[0].heading, TITLE_CHARS)
        lines: list[Markup] = [Markup().bold(f"■ {heading}")]
        for group in topic:
            if group.level > 1:
                lines.append(Markup().bold(f"▸ {clip(group.heading, TITLE_CHARS)}"))
            if group.note:
                lines.append(Markup().italic(clip(group.note, TOPIC_LINE_CHARS)))
            lines += [_topic_line(item) for item in group.items]
        chunk: list[Markup] = []
        for line in lines:
            if chunk and sum(m.length + 1 for m in [*chunk, line]) > BUDGET:
                blocks.append(_Block(_joined(chunk)))
                chunk = [Markup().bold(f"■ {heading} (continued)")]
            chunk.append(line)
        blocks.append(_Block(_joined(chunk)))
    return blocks


def paper_block(item: PaperView) -> _Block:
    """One paper: numbered linked title, authors and categories, TL;DR, standing, reasons; its buttons."""
    markup = Markup()
    if item.number:
        markup.bold(f"{item.number}. ")
    markup.link(clip(item.title, TITLE_CHARS), item.url, bold=True)
    byline = authors_line(item.authors, AUTHORS_SHOWN)
    if item.categories:
        byline += " · " + ", ".join(item.categories[:4])
    markup.line().text(clip(byline, TITLE_CHARS) + " · " + item.announced.isoformat())
    if item.arxiv_comment:
        markup.line().text("arXiv comment: " + clip(item.arxiv_comment, COMMENT_CHARS))
    if item.tldr:
        markup.line().italic("TL;DR ").text(clip(item.tldr, TLDR_CHARS))
    if item.abstract:
        markup.line().italic("Abstract ").text(clip(item.abstract, ABSTRACT_CHARS))
    judged = judgement_line(item)
    if judged:
        markup.line().text(judged)
    if item.author_hits:
        markup.line().text("Author watch: " + clip(", ".join(item.author_hits), COMMENT_CHARS))
    if item.comment:
        markup.line().text("Comment: " + clip(item.comment, COMMENT_CHARS))
    if item.reasons:
        markup.line().text("Why: " + fit_items(item.reasons, REASONS_CHARS))
    prefix = f"{item.number} " if item.number else ""
    row = tuple(_button(prefix + action.label, action.value) for action in item.actions)
    rows: Keyboard = (tuple(b for b in row if b is not None),) if item.actions else ()
    return _Block(markup, tuple(r for r in rows if r), papers=1)


# --- other replies ---


def render_text(reply: TextReply) -> list[TgMessage]:
    """Text, then paper cards, then the choices as buttons under the last message."""
    blocks = text_blocks(reply.text)
    blocks += [paper_block(card) for card in reply.cards]
    return pack(blocks, trailing_rows=choice_rows(reply))


def render_answer(reply: AnswerReply) -> list[TgMessage]:
    """An answer, its numbered sources as links (only links when the text already lists the titles), its cost."""
    blocks = text_blocks(reply.text)
    listed = all(f"[{n}] {paper.title}" in reply.text for n, paper in enumerate(reply.citations, 1))
    for n, paper in enumerate(reply.citations, 1):
        source = Markup().text(f"[{n}] ")
        if listed:
            source.link(f"arXiv:{paper.id}", paper.url)
        else:
            source.link(clip(paper.title, TITLE_CHARS), paper.url).text(f" ({paper.announced.isoformat()})")
        blocks.append(_Block(source, separator="\n\n" if n == 1 else "\n"))
    if reply.usage_line:
        blocks.append(_Block(Markup().italic(reply.usage_line)))
    return pack(blocks)


def file_caption(reply: FileReply) -> Markup:
    """The caption of a file (at most Telegram's 1,024 characters)."""
    return Markup().text(clip(reply.caption, MAX_CAPTION - 24))


def choice_rows(reply: TextReply) -> Keyboard:
    """Choice buttons: two to a row when the labels are short, else one per row."""
    buttons = [b for b in (_button(c.label, c.value) for c in reply.choices) if b is not None]
    if not buttons:
        return ()
    if all(len(b.label) <= 18 for b in buttons):
        return tuple(tuple(buttons[i : i + 2]) for i in range(0, len(buttons), 2))
    return tuple((b,) for b in buttons)


def text_blocks(text: str) -> list[_Block]:
    """Plain text as blocks of whole paragraphs (a paragraph longer than a message is cut at lines, then words)."""
    return [_Block(Markup().text(piece)) for piece in split_text(text.strip(), BUDGET)] if text.strip() else []


def split_text(text: str, budget: int) -> list[str]:
    """`text` in pieces of at most `budget` UTF-16 units, cut at paragraph, then line, then word boundaries."""
    if utf16_length(text) <= budget:
        return [text]
    for separator in ("\n\n", "\n", " "):
        parts = text.split(separator)
        if len(parts) > 1:
            return _regroup(parts, separator, budget)
    cut = budget
    while utf16_length(text[:cut]) > budget:
        cut -= 1
    return [text[:cut], *split_text(text[cut:], budget)]


def _regroup(parts: list[str], separator: str, budget: int) -> list[str]:
    pieces: list[str] = []
    current = ""
    for part in parts:
        joined = f"{current}{separator}{part}" if current else part
        if utf16_length(joined) <= budget:
            current = joined
            continue
        if current:
            pieces.append(current)
        if utf16_length(part) > budget:
            *whole, current = split_text(part, budget)
            pieces += whole
        else:
            current = part
    if current:
        pieces.append(current)
    return [p for p in pieces if p.strip()]


# --- packing ---


def pack(blocks: Sequence[_Block], *, trailing_rows: Keyboard = ()) -> list[TgMessage]:
    """Blocks packed into messages under `BUDGET` with at most `PAPERS_PER_MESSAGE` papers each."""
    messages: list[TgMessage] = []
    current: _Block | None = None
    for block in blocks:
        if current is not None and _fits(current, block):
            current.markup.text(block.separator)
            current.markup.html_parts += block.markup.html_parts
            current.markup.plain_parts += block.markup.plain_parts
            current.rows += block.rows
            current.papers += block.papers
            continue
        if current is not None:
            messages.append(_message(current))
        current = _Block(
            Markup(list(block.markup.html_parts), list(block.markup.plain_parts)), block.rows, block.papers
        )
    if current is None:
        return [TgMessage("…", "…", trailing_rows)] if trailing_rows else []
    current.rows += trailing_rows
    messages.append(_message(current))
    return messages


def _fits(current: _Block, block: _Block) -> bool:
    if current.papers + block.papers > PAPERS_PER_MESSAGE:
        return False
    return current.markup.length + utf16_length(block.separator) + block.markup.length <= BUDGET


def _message(block: _Block) -> TgMessage:
    return TgMessage(block.markup.html, block.markup.plain, block.rows)


def _button(label: str, data: str) -> Button | None:
    if not is_paperscout_button(data):  # ours, and within the 64 bytes of callback_data (the core checks both)
        log.warning("dropping a button whose data Telegram would refuse: %r", data[:80])
        return None
    return Button(clip(label, LABEL_CHARS), data)
