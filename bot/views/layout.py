"""The one chat layout of a digest, a paper, an answer and a list: which fields show, in what order, how long each
may be, and how a reply is split into messages under a limit. Front ends only style it.

A reply is laid out as `Block`s (a header, one block per paper with its buttons, a topic, text, sources, notes, a
row of choices); a block is lines of `Span`s (plain, bold or italic text, maybe a link). Every field is cleaned and
bounded here, before any escaping, so an escape is never cut in two. A front end supplies a `Style`: its escape,
its bold/italic/link markup, how it counts length, and its limits (characters per message and per block, blocks,
button rows and papers per message, buttons per row); `pack` then splits the blocks into `Page`s (one message each)
that keep every limit, cutting a block only when it alone is too long (at paragraphs, then lines, then words), and
`pages` turns each into the platform's message.
The core's button values are checked once here (`button`): a value a platform would refuse never reaches one, and a
message never repeats one. `clip` bounds outside text; `Style.fit` bounds a styled line (a card's title) by cutting
its text before styling.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from bot.text.safetext import clean_text, fit_items
from bot.views.model import Choice, DigestView, PaperView, TopicGroup, is_paperscout_button, usage_line
from bot.views.render import authors_line, judgement_line

log = logging.getLogger(__name__)

ELLIPSIS = "…"
TITLE_CHARS = 300
AUTHORS_SHOWN = 4
CATEGORIES_SHOWN = 4
TLDR_CHARS = 700
ABSTRACT_CHARS = 1300  # a card's abstract comes bounded (bot.views.model); this guards the message
REASONS_CHARS = 400
COMMENT_CHARS = 300
NOTE_CHARS = 500
TOPIC_LINE_CHARS = 240  # a paper's TL;DR on its one line under a topic heading
NO_PAPERS = "No papers matched this profile."


def clip(text: str, limit: int) -> str:
    """Outside text cleaned (`clean_text`), trimmed and cut to at most `limit` characters, '…' when cut."""
    text = clean_text(text).strip()
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + ELLIPSIS


# --- the document ---


@dataclass(frozen=True, slots=True)
class Span:
    """A run of plain text (never markup): `emphasis` '' (none), 'bold' or 'italic'; `url` makes it a link."""

    text: str
    emphasis: str = ""
    url: str = ""


Line = tuple[Span, ...]


@dataclass(frozen=True, slots=True)
class Button:
    """A button: what it shows and the core's value it sends back (at most 64 bytes, see `button`)."""

    label: str
    value: str


@dataclass(frozen=True, slots=True)
class Block:
    """One unit of a reply that a message never cuts unless it alone is too long.

    `title` is shown first (a platform with titled cards may make it the card's title); `lines` follow. `kind` says
    what it is: 'heading' (a digest's header), 'paper', 'topic', 'text', 'sources', 'note' or 'choices' (buttons
    only). `papers` counts the papers it carries with their buttons (a topic's lines have none); `separator` goes
    before it when it follows another block in one message. A 'topic' cut in two repeats its title, '(continued)'.
    """

    kind: str
    lines: tuple[Line, ...] = ()
    title: Line = ()
    buttons: tuple[Button, ...] = ()
    papers: int = 0
    separator: str = "\n\n"

    @property
    def url(self) -> str:
        """What the title links to ('' when it links nowhere): a platform with titled cards links the card."""
        return next((span.url for span in self.title if span.url), "")

    @property
    def repeats_title(self) -> bool:
        """Whether a piece of this block after the first shows the title again."""
        return self.kind == "topic"


@dataclass(frozen=True, slots=True)
class Page:
    """The blocks of one message, in order."""

    blocks: tuple[Block, ...]

    @property
    def buttons(self) -> tuple[Button, ...]:
        """Every button of the message, in order."""
        return tuple(b for block in self.blocks for b in block.buttons)


def button(label: str, value: str) -> Button | None:
    """A button, or None (logged) when its value is not one of ours or is past 64 bytes (Telegram's limit)."""
    if not is_paperscout_button(value):
        log.warning("dropping a button whose value a platform would refuse: %r", value[:80])
        return None
    return Button(clean_text(label).strip() or ELLIPSIS, value)


def _buttons(pairs: Iterable[tuple[str, str]]) -> tuple[Button, ...]:
    return tuple(b for b in (button(label, value) for label, value in pairs) if b is not None)


def text_lines(text: str) -> tuple[Line, ...]:
    """Plain text as lines (a blank line between paragraphs stays an empty line)."""
    return tuple((Span(line),) if line.strip() else () for line in clean_text(text).strip().split("\n"))


def text_block(text: str) -> list[Block]:
    """Text as one block (none when it is empty); `pack` cuts it at paragraphs, lines or words if it is too long."""
    return [Block("text", text_lines(text))] if text.strip() else []


def paper_block(item: PaperView) -> Block:
    """One paper: numbered linked title; authors, categories and day; arXiv comment and TL;DR; abstract (a card);
    the ranker's standing, author watch, the LLM's comment and the reasons; its buttons, labelled with its number."""
    number = f"{item.number}. " if item.number else ""
    title = (Span(number, "bold"), Span(clip(item.title, TITLE_CHARS), "bold", item.url))
    byline = authors_line(item.authors, AUTHORS_SHOWN)
    if item.categories:
        byline += " · " + ", ".join(item.categories[:CATEGORIES_SHOWN])
    lines: list[Line] = [(Span(clip(byline, TITLE_CHARS) + " · " + item.announced.isoformat()),)]
    if item.arxiv_comment:
        lines.append((Span("arXiv comment: " + clip(item.arxiv_comment, COMMENT_CHARS)),))
    if item.tldr:
        lines.append((Span("TL;DR ", "italic"), Span(clip(item.tldr, TLDR_CHARS))))
    if item.abstract:
        lines.append((Span("Abstract ", "italic"), Span(clip(item.abstract, ABSTRACT_CHARS))))
    labelled = (
        ("", judgement_line(item)),
        ("Author watch: ", clip(", ".join(item.author_hits), COMMENT_CHARS)),
        ("Comment: ", clip(item.comment, COMMENT_CHARS)),
        ("Why: ", fit_items([clean_text(r) for r in item.reasons], REASONS_CHARS)),
    )
    lines += [(Span(label + value),) for label, value in labelled if value]
    prefix = f"{item.number} " if item.number else ""
    buttons = _buttons((prefix + action.label, action.value) for action in item.actions)
    return Block("paper", tuple(lines), title=tuple(s for s in title if s.text), buttons=buttons, papers=1)


def _topic_line(item: PaperView) -> Line:
    line = (Span(f"{item.number}. ", "bold"), Span(clip(item.title, TITLE_CHARS), url=item.url))
    if item.tldr:
        line += (Span(" — "), Span(clip(item.tldr, TOPIC_LINE_CHARS), "italic"))
    return line


def topic_blocks(groups: Sequence[TopicGroup]) -> list[Block]:
    """A digest grouped as a topic tree: one block per top-level topic (its heading; subtopic headings, notes and
    one line per paper, no buttons: '/up 3' names a paper by its number). A topic too long for one message is cut
    between its lines (`pack`), its heading repeated."""
    topics: list[list[TopicGroup]] = []
    for group in groups:
        if group.level == 1 or not topics:
            topics.append([])
        topics[-1].append(group)
    blocks = []
    for topic in topics:
        lines: list[Line] = []
        for group in topic:
            if group.level > 1:
                lines.append((Span(f"▸ {clip(group.heading, TITLE_CHARS)}", "bold"),))
            if group.note:
                lines.append((Span(clip(group.note, TOPIC_LINE_CHARS), "italic"),))
            lines += [_topic_line(item) for item in group.items]
        title = (Span(f"■ {clip(topic[0].heading, TITLE_CHARS)}", "bold"),)
        blocks.append(Block("topic", tuple(lines), title=title))
    return blocks


def digest_blocks(view: DigestView) -> list[Block]:
    """A digest (or a list of papers): the header (title, what was scanned, the LLM's cost), each paper (or each
    topic of a topic tree) in order, the notes last."""
    header: list[Line] = [(Span(clean_text(view.summary)),)]
    cost = usage_line(view.usage)
    if cost:
        header.append((Span(cost, "italic"),))
    blocks = [Block("heading", tuple(header), title=(Span(clip(view.title, TITLE_CHARS), "bold"),))]
    if not view.items:
        blocks.append(Block("text", ((Span(NO_PAPERS),),)))
    groups = view.topic_groups()
    blocks += topic_blocks(groups) if groups else [paper_block(item) for item in view.items]
    blocks += [Block("note", ((Span(clip(note, NOTE_CHARS), "italic"),),), separator="\n") for note in view.notes]
    return blocks


def answer_blocks(
    text: str, citations: Sequence[PaperView], *, usage: str = "", notes: Sequence[str] = ()
) -> list[Block]:
    """An answer citing [n]: its text, its numbered sources as links (only 'arXiv:ID' links when the text already
    lists the titles, as the extractive answer does), then `notes` and the LLM's cost, in italics."""
    listed = bool(citations) and all(f"[{n}] {paper.title}" in text for n, paper in enumerate(citations, 1))
    sources: list[Line] = []
    for n, paper in enumerate(citations, 1):
        if listed:
            sources.append((Span(f"[{n}] "), Span(f"arXiv:{paper.id}", url=paper.url)))
        else:
            link = Span(clip(paper.title, TITLE_CHARS), url=paper.url)
            sources.append((Span(f"[{n}] "), link, Span(f" ({paper.announced.isoformat()})")))
    blocks = text_block(text)
    if sources:
        blocks.append(Block("sources", tuple(sources)))
    footer = [(Span(clip(line, NOTE_CHARS), "italic"),) for line in [*notes, usage] if line.strip()]
    if footer:
        blocks.append(Block("note", tuple(footer)))
    return blocks


def choice_block(choices: Sequence[Choice]) -> list[Block]:
    """Choices as a row of buttons (none when there are none)."""
    buttons = _buttons((choice.label, choice.value) for choice in choices)
    return [Block("choices", buttons=buttons)] if buttons else []


def text_reply_blocks(
    text: str, cards: Sequence[PaperView] = (), choices: Sequence[Choice] = (), *, after: str = ""
) -> list[Block]:
    """A text reply: the text, then each paper's card with its buttons, then `after`, then the choices."""
    return [*text_block(text), *(paper_block(card) for card in cards), *text_block(after), *choice_block(choices)]


# --- styling ---


class Style:
    """How one platform writes the layout: escaping, emphasis and link markup, how it counts length, its limits.

    The defaults are plain text. A limit of 0 means none. `block_limit` bounds one block (a Slack section);
    `block_overhead` is what each block costs beside its text; `rows_are_blocks` counts each row of buttons as a
    block (a Slack actions block). Choices go `choices_per_row` to a row, or one to a row when any label is longer
    than `wide_label`.
    """

    message_limit = 4000
    block_limit = 0
    block_overhead = 0
    blocks_per_message = 0
    rows_per_message = 0
    rows_are_blocks = False
    papers_per_message = 0
    buttons_per_row = 5
    choices_per_row = 5
    wide_label = 0
    label_limit = 40
    line_break = "\n"

    def escape(self, text: str) -> str:
        """Plain text as inert markup."""
        return text

    def bold(self, markup: str) -> str:
        """Markup shown bold."""
        return markup

    def italic(self, markup: str) -> str:
        """Markup shown in italics."""
        return markup

    def link(self, markup: str, url: str) -> str:
        """Markup linking to `url`."""
        return f"{markup} ({url})"

    def size(self, markup: str) -> int:
        """Length as the platform counts it."""
        return len(markup)

    def span(self, span: Span) -> str:
        """One span without its emphasis (`line` adds that around a run of spans)."""
        markup = self.escape(span.text)
        return self.link(markup, span.url) if span.url and markup else markup

    def line(self, line: Line) -> str:
        """One line: each run of spans of one emphasis wrapped once, its outer spaces left outside the markup."""
        runs = itertools.groupby(line, key=lambda span: span.emphasis)
        return "".join(self._emphasised("".join(self.span(s) for s in run), emphasis) for emphasis, run in runs)

    def _emphasised(self, markup: str, emphasis: str) -> str:
        core = markup.strip()
        if not core or not emphasis:
            return markup
        wrapped = self.bold(core) if emphasis == "bold" else self.italic(core)
        return markup[: len(markup) - len(markup.lstrip())] + wrapped + markup[len(markup.rstrip()) :]

    def lines(self, block: Block) -> list[str]:
        """A block's title (when it has one) and lines, styled."""
        return ([self.line(block.title)] if block.title else []) + [self.line(line) for line in block.lines]

    def block(self, block: Block) -> str:
        """A block's title and lines, one per line."""
        return self.line_break.join(self.lines(block))

    def page(self, page: Page) -> str:
        """A whole message: its blocks joined by their separators (a block of buttons alone shows no text)."""
        shown = [(block.separator, text) for block in page.blocks if (text := self.block(block))]
        return "".join((separator if n else "") + text for n, (separator, text) in enumerate(shown))

    def measure_line(self, line: Line) -> int:
        """A styled line's length."""
        return self.size(self.line(line))

    def fit(self, line: Line, limit: int) -> str:
        """A line styled within `limit` (as the platform counts): its text cut before styling, ending in '…', so no
        escape or markup is cut in two (a card's title, a footer)."""
        if self.measure_line(line) <= limit:
            return self.line(line)
        low, high = 0, sum(len(span.text) for span in line)
        while low < high:
            middle = (low + high + 1) // 2
            if self.measure_line(_kept(line, middle)) <= limit:
                low = middle
            else:
                high = middle - 1
        return self.line(_kept(line, low))

    def measure(self, block: Block) -> int:
        """A styled block's length (title and lines)."""
        parts = ([block.title] if block.title else []) + list(block.lines)
        return sum(self.measure_line(line) for line in parts) + self.size(self.line_break) * max(0, len(parts) - 1)

    def label(self, button: Button) -> str:
        """A button's label within the platform's length."""
        return clip(button.label, self.label_limit) or ELLIPSIS

    def rows(self, block: Block) -> list[tuple[Button, ...]]:
        """A block's buttons in rows."""
        per_row = self.choices_per_row if block.kind == "choices" else self.buttons_per_row
        if block.kind == "choices" and self.wide_label and any(len(b.label) > self.wide_label for b in block.buttons):
            per_row = 1
        return [block.buttons[i : i + per_row] for i in range(0, len(block.buttons), max(1, per_row))]


def _kept(line: Line, characters: int) -> Line:
    """The first `characters` of a line's text, then '…'."""
    kept: list[Span] = []
    for span in line:
        if characters <= 0:
            break
        kept.append(replace(span, text=span.text[:characters]))
        characters -= len(span.text)
    last = kept[-1] if kept else Span("")
    return (*kept[:-1], replace(last, text=last.text.rstrip() + ELLIPSIS))


# --- packing ---


def pack(blocks: Iterable[Block], style: Style) -> list[Page]:
    """Blocks in as few messages as `style`'s limits allow, in order; a block is cut only when it alone is too
    long (its buttons stay with its last piece). A block whose button is already in a message opens the next."""
    packed: list[list[Block]] = []
    size = papers = slots = rows = 0
    values: set[str] = set()  # a message never repeats a button value (Discord and Slack refuse a repeated id)
    for block in blocks:
        for piece in split_block(block, style):
            cost = style.measure(piece) + style.block_overhead
            piece_rows = len(style.rows(piece))
            piece_slots = (1 if piece.title or piece.lines else 0) + (piece_rows if style.rows_are_blocks else 0)
            if not packed or not (
                size + style.size(piece.separator) + cost <= style.message_limit
                and _within(papers, piece.papers, style.papers_per_message)
                and _within(slots, piece_slots, style.blocks_per_message)
                and _within(rows, piece_rows, style.rows_per_message)
                and values.isdisjoint(b.value for b in piece.buttons)
            ):
                packed.append([])
                size = papers = slots = rows = 0
                values = set()
            else:
                size += style.size(piece.separator)
            packed[-1].append(piece)
            values.update(b.value for b in piece.buttons)
            size, papers, slots, rows = size + cost, papers + piece.papers, slots + piece_slots, rows + piece_rows
    return [Page(tuple(page)) for page in packed]


def pages(blocks: Iterable[Block], style: Style, message: Callable[[Page], object]) -> list[object]:
    """The layout's blocks packed under `style`'s limits (`pack`), each page as a platform's message (`message`)."""
    return [message(page) for page in pack(blocks, style)]


def _within(count: int, added: int, limit: int) -> bool:
    return not limit or not added or count + added <= limit


def split_block(block: Block, style: Style) -> list[Block]:
    """`block` in pieces that each fit one block and one message of `style`: cut at paragraphs, then lines, then
    words (then characters). Only the first piece has the title (a topic repeats it, '(continued)'); the last has
    the buttons."""
    room = min(filter(None, (style.block_limit, style.message_limit))) - style.block_overhead
    if style.measure(block) <= room:
        return [block]
    gap = style.size(style.line_break)
    more = _continued(block.title) if block.repeats_title else ()
    title_size = max(style.measure_line(block.title), style.measure_line(more)) + gap if block.title else 0
    groups = _split_lines(list(block.lines), max(1, room - title_size), style)
    pieces = []
    for n, lines in enumerate(groups):
        first, last = n == 0, n == len(groups) - 1
        kept = (block.buttons if last else (), block.papers if first else 0, block.separator if first else "\n")
        pieces.append(Block(block.kind, tuple(lines), block.title if first else more, *kept))
    return pieces or [replace(block, lines=())]


def _continued(title: Line) -> Line:
    return (*title[:-1], replace(title[-1], text=title[-1].text + " (continued)")) if title else ()


def _size(lines: Sequence[Line], style: Style) -> int:
    return sum(style.measure_line(line) for line in lines) + style.size(style.line_break) * max(0, len(lines) - 1)


def _split_lines(lines: list[Line], room: int, style: Style) -> list[list[Line]]:
    """Lines grouped under `room`: whole paragraphs where they fit, else whole lines, else a line cut at words."""
    if _size(lines, style) <= room:
        return [lines]
    paragraphs: list[list[Line]] = [[]]
    for line in lines:
        if line:
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    paragraphs = [p for p in paragraphs if p]
    if len(paragraphs) > 1:
        return _regroup(paragraphs, [()], room, style)
    lines = paragraphs[0] if paragraphs else []
    if len(lines) > 1:
        return _regroup([[line] for line in lines], [], room, style)
    return [[line] for line in _split_line(lines[0], room, style)] if lines else []


def _regroup(parts: list[list[Line]], joiner: list[Line], room: int, style: Style) -> list[list[Line]]:
    join_cost = _size(joiner, style) + style.size(style.line_break) * (len(joiner) + 1)
    groups: list[list[Line]] = []
    current: list[Line] = []
    size = 0
    for part in parts:
        part_size = _size(part, style)
        if current and size + join_cost + part_size <= room:
            current, size = [*current, *joiner, *part], size + join_cost + part_size
            continue
        if current:
            groups.append(current)
        *whole, current = _split_lines(part, room, style) if part_size > room else [part]
        groups += whole
        size = _size(current, style)
    return [*groups, current] if current else groups


def _split_line(line: Line, room: int, style: Style) -> list[Line]:
    """One line too long for `room` as several, cut after spaces (a word longer than `room` cut where it fits)."""
    words = [Span(w, s.emphasis, s.url) for s in line for w in re.split(r"(?<=\s)", s.text) if w]
    out: list[Line] = []
    current: Line = ()
    for word in words:
        if style.measure_line((*current, word)) <= room:
            current = (*current, word)
            continue
        if current:
            out.append(current)
        current = (word,)
        while style.measure_line(current) > room and len(word.text) > 1:
            cut = _longest_fit(word, room, style)
            out.append((replace(word, text=word.text[:cut]),))
            word = replace(word, text=word.text[cut:])
            current = (word,)
    return [*out, current] if current else out


def _longest_fit(word: Span, room: int, style: Style) -> int:
    low, high = 1, len(word.text) - 1  # at least one character a piece, so the cutting ends
    while low < high:
        middle = (low + high + 1) // 2
        if style.measure_line((replace(word, text=word.text[:middle]),)) <= room:
            low = middle
        else:
            high = middle - 1
    return low
