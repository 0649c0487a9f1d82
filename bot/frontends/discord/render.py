"""Discord rendering of the chat controller's replies: escaped text, embeds and button rows within every limit.

Pure functions from `bot.chat` replies and `bot.views.model` views to `Outgoing` messages (content, embeds, button rows,
a file); sending them is the app's job. Every piece of text is escaped for Discord markdown (so a title with
``**``, backticks, ``[x](javascript:...)``, ``@everyone``, ``<@&123>`` or LaTeX shows as written and links or
mentions nothing), then clipped to the field's limit. Messages are packed so that none exceeds 2,000 characters of
content, 10 embeds, 6,000 characters across its embeds or 5 rows of at most 5 buttons.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import discord

from bot.chat.messages import AnswerReply, Choice, DigestReply, FileReply, Reply, TextReply
from bot.text.safetext import clean_text, fit_items
from bot.views.model import DigestView, PaperView, TopicGroup, usage_line
from bot.views.render import authors_line, judgement_line

# Discord's limits (https://discord.com/developers/docs/resources/message, .../components).
CONTENT_MAX = 2000
EMBEDS_PER_MESSAGE = 10
EMBED_TOTAL_MAX = 6000
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FOOTER_MAX = 2048
ROWS_PER_MESSAGE = 5
BUTTONS_PER_ROW = 5
CUSTOM_ID_MAX = 100
LABEL_MAX = 80

# One paper's embed stays under this, so a header and five papers (five rows of buttons) share one message.
PAPER_EMBED_MAX = 950
CARD_EMBED_MAX = 2400  # a paper's own card (/paper), with its abstract: one embed, well within a message's 6,000
HEADER_EMBED_MAX = 1200
TEXT_EMBED_MAX = DESCRIPTION_MAX
TOPIC_EMBED_MAX = 2800  # a topic's embed: two share a message (6,000 across its embeds)
TOPIC_TITLE_MAX = 200
TOPIC_LINE_MAX = 200
COLOUR = discord.Colour(0xB31B1B)  # arXiv red

_INLINE = re.compile(r"([\\*_~`|\[\]<@])")
_LINE_START = re.compile(r"^([ \t]*)([#>-])", re.MULTILINE)


def escape_discord(text: str) -> str:
    """Clean text that Discord shows as written: emphasis, code, spoilers, masked links, quotes, headings, lists,
    user/role/channel mentions, slash-command mentions, custom emoji and timestamps are all escaped, and
    ``@everyone``/``@here`` are escaped so they ping nobody even where allowed mentions are not set."""
    text = _INLINE.sub(r"\\\1", clean_text(text))  # "\@everyone" pings nobody
    return _LINE_START.sub(r"\1\\\2", text)


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters with an ellipsis, never leaving a dangling escape backslash."""
    if len(text) <= limit:
        return text
    cut = text[: max(0, limit - 1)]
    trailing = len(cut) - len(cut.rstrip("\\"))
    if trailing % 2:  # an odd run of backslashes ends in half an escape
        cut = cut[:-1]
    return cut + "…"


def safe(text: str, limit: int) -> str:
    """Outside text escaped for Discord and clipped to `limit`."""
    return clip(escape_discord(text), limit)


@dataclass(frozen=True, slots=True)
class Button:
    """One button: a label and a paperscout custom_id (``ps:up:2505.17639``), or a link."""

    label: str
    custom_id: str = ""
    style: discord.ButtonStyle = discord.ButtonStyle.secondary
    url: str = ""


@dataclass
class Outgoing:
    """One Discord message to send: content, embeds, button rows, an optional file; ephemeral where possible.

    `answer` is set on the message that carries an answer, so its id can be remembered for follow-up replies.
    """

    content: str = ""
    embeds: list[discord.Embed] = field(default_factory=list)
    rows: list[list[Button]] = field(default_factory=list)
    file: FileReply | None = None
    ephemeral: bool = False
    answer: AnswerReply | None = None
    thread: str = ""  # a digest message after the first: the name of the thread under the header it goes into


def embed_size(embed: discord.Embed) -> int:
    """Characters Discord counts toward the 6,000 of a message (title, description, fields, footer, author)."""
    return len(embed)


def _fits(message: Outgoing, embed: discord.Embed | None, rows: int) -> bool:
    embeds = message.embeds + ([embed] if embed is not None else [])
    return (
        len(embeds) <= EMBEDS_PER_MESSAGE
        and sum(embed_size(e) for e in embeds) <= EMBED_TOTAL_MAX
        and len(message.rows) + rows <= ROWS_PER_MESSAGE
    )


def pack(blocks: Iterable[tuple[discord.Embed, list[Button]]], *, ephemeral: bool = False) -> list[Outgoing]:
    """Embeds, each with its row of buttons (maybe none), packed in order into as few messages as the limits allow."""
    messages: list[Outgoing] = []
    for embed, row in blocks:
        rows = 1 if row else 0
        if not messages or not _fits(messages[-1], embed, rows):
            messages.append(Outgoing(ephemeral=ephemeral))
        messages[-1].embeds.append(embed)
        if row:
            messages[-1].rows.append(row[:BUTTONS_PER_ROW])
    return messages


def split_text(text: str, limit: int) -> list[str]:
    """`text` in pieces of at most `limit` characters, cut at paragraph, line or word breaks where possible."""
    pieces: list[str] = []
    rest = text.strip()
    while len(rest) > limit:
        window = rest[:limit]
        cut = max(window.rfind("\n\n"), window.rfind("\n"), window.rfind(" "))
        if cut < limit // 2:
            cut = limit
        # never split inside an escape: a piece ending in an odd run of backslashes gives its last one back
        head = rest[:cut]
        if (len(head) - len(head.rstrip("\\"))) % 2:
            head, cut = head[:-1], cut - 1
        pieces.append(head.rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        pieces.append(rest)
    return pieces


# --- papers and digests ---


def paper_buttons(item: PaperView) -> list[Button]:
    """The paper's action buttons (thumbs up, down, more like this), labelled with its number in the list."""
    number = f" #{item.number}" if item.number else ""
    buttons = []
    for action in item.actions[:BUTTONS_PER_ROW]:
        if not action.value or len(action.value) > CUSTOM_ID_MAX:
            continue
        style = {"up": discord.ButtonStyle.success, "down": discord.ButtonStyle.danger}.get(
            action.kind, discord.ButtonStyle.secondary
        )
        buttons.append(Button(clip(action.label + number, LABEL_MAX), action.value, style))
    return buttons


def paper_embed(item: PaperView, budget: int = PAPER_EMBED_MAX) -> discord.Embed:
    """One paper: numbered title linking to arXiv, authors, TL;DR, the ranker's standing and reasons (a paper's own
    card: its arXiv comment and abstract too); id, categories and day in the footer. Within `budget` characters."""
    prefix = f"{item.number}. " if item.number else ""
    title = prefix + safe(item.title, min(TITLE_MAX, 200) - len(prefix))
    footer = clip(f"arXiv:{item.id} · {', '.join(item.categories[:6])} · {item.announced.isoformat()}", 200)
    room = max(120, budget - len(title) - len(footer))
    lines = [safe(authors_line(item.authors, 4), 240)]
    extra = []
    judged = judgement_line(item)
    if judged:
        extra.append(safe(judged, 200))
    if item.author_hits:
        extra.append("Author watch: " + safe(", ".join(item.author_hits), 150))
    if item.comment:
        extra.append("Comment: " + safe(item.comment, 200))
    if item.reasons:
        extra.append("Why: " + escape_discord(fit_items(item.reasons, 180)))  # room for the escapes' backslashes
    fixed = sum(len(line) + 1 for line in lines + extra)
    if item.arxiv_comment:
        extra.append("arXiv comment: " + safe(item.arxiv_comment, 200))
        fixed += len(extra[-1]) + 1
    if item.tldr:
        left = room - fixed - len("**TL;DR** ")
        if left > 40:
            lines.append("**TL;DR** " + safe(item.tldr, left))
            fixed += len(lines[-1]) + 1
    if item.abstract:
        left = room - fixed - len("**Abstract** ")
        if left > 80:
            extra.append("**Abstract** " + safe(item.abstract, left))
    description = clip("\n".join(lines + extra), min(room, DESCRIPTION_MAX))
    embed = discord.Embed(title=title, url=item.url, description=description, colour=COLOUR)
    embed.set_footer(text=footer)
    return embed


def digest_header_embed(view: DigestView) -> discord.Embed:
    """The digest's header: its title (day, profile), papers scanned and picked, LLM tokens and cost if one ran."""
    lines = [safe(view.summary, 300)]
    usage = usage_line(view.usage)
    if usage:
        lines.append(escape_discord(usage))
    if not view.items:
        lines.append("No papers matched today.")
    notes = [safe(note, 300) for note in view.notes[:5]]
    if notes:
        lines.append("\n".join(f"*{note}*" for note in notes))
    description = clip("\n".join(lines), HEADER_EMBED_MAX - TITLE_MAX)
    return discord.Embed(title=safe(view.title, TITLE_MAX), description=description, colour=COLOUR)


def _unique_items(items: Sequence[PaperView]) -> list[PaperView]:
    # Discord refuses a message whose buttons repeat a custom_id, so one paper is shown once.
    seen: set[str] = set()
    unique = []
    for item in items:
        if item.id not in seen:
            seen.add(item.id)
            unique.append(item)
    return unique


def digest_messages(view: DigestView, *, ephemeral: bool = False) -> list[Outgoing]:
    """The digest as messages: the first holds the header and the first papers, the rest hold the others. A digest
    grouped as a topic tree gets one embed per top-level topic instead of one per paper."""
    blocks: list[tuple[discord.Embed, list[Button]]] = [(digest_header_embed(view), [])]
    groups = view.topic_groups()
    if groups:
        blocks += [(embed, []) for embed in topic_embeds(groups)]
    else:
        blocks += [(paper_embed(item), paper_buttons(item)) for item in _unique_items(view.items)]
    return pack(blocks, ephemeral=ephemeral)


def _topic_line(item: PaperView) -> str:
    line = f"**{item.number}.** [{safe(item.title, TOPIC_TITLE_MAX)}]({item.url})"
    if item.tldr:
        line += " — " + safe(item.tldr, TOPIC_LINE_MAX)
    return line


def topic_embeds(groups: Sequence[TopicGroup]) -> list[discord.Embed]:
    """One embed per top-level topic: its heading as the title, subtopic headings in bold and one line per paper (no
    buttons: '/up 3' names a paper by its number). A topic past `TOPIC_EMBED_MAX` continues in another embed."""
    topics: list[list[TopicGroup]] = []
    for group in groups:
        if group.level == 1 or not topics:
            topics.append([])
        topics[-1].append(group)
    embeds = []
    for topic in topics:
        title = safe(topic[0].heading, TITLE_MAX - 20)
        lines: list[str] = []
        for group in topic:
            if group.level > 1:
                lines.append(f"__**{safe(group.heading, TITLE_MAX)}**__")
            if group.note:
                lines.append(f"*{safe(group.note, TOPIC_LINE_MAX)}*")
            lines += [_topic_line(item) for item in group.items]
        chunk: list[str] = []
        for line in lines:
            if chunk and len("\n".join([*chunk, line])) > TOPIC_EMBED_MAX:
                embeds.append(discord.Embed(title=title, description="\n".join(chunk), colour=COLOUR))
                title = clip(f"{title} (continued)", TITLE_MAX)
                chunk = []
            chunk.append(line)
        embeds.append(discord.Embed(title=title, description="\n".join(chunk), colour=COLOUR))
    return embeds


# --- answers and text ---


def _sources(citations: Sequence[PaperView], listed: bool) -> list[str]:
    lines = []
    for number, paper in enumerate(citations, 1):
        if listed:  # the answer already names the titles (the extractive answer is the list)
            lines.append(f"\\[{number}\\] [arXiv:{paper.id}]({paper.url})")
        else:
            lines.append(f"\\[{number}\\] [{safe(paper.title, 180)}]({paper.url})")
    return lines


def answer_messages(reply: AnswerReply, *, ephemeral: bool = False) -> list[Outgoing]:
    """An answer: its text (split over embeds), then its numbered sources as links, then the LLM cost."""
    listed = bool(reply.citations) and all(
        f"[{n}] {paper.title}" in reply.text for n, paper in enumerate(reply.citations, 1)
    )
    pieces = split_text(escape_discord(reply.text), TEXT_EMBED_MAX) or ["(no answer)"]
    embeds = [discord.Embed(description=piece, colour=COLOUR) for piece in pieces]
    sources = _sources(reply.citations, listed)
    for chunk in split_text("\n".join(sources), TEXT_EMBED_MAX) if sources else []:
        embeds.append(discord.Embed(title="Sources", description=chunk, colour=COLOUR))
    footer = " · ".join(
        part
        for part in (
            f"Papers from {reply.window[0].isoformat()} to {reply.window[1].isoformat()}",
            reply.usage_line,
            "Reply to this message to ask a follow-up." if reply.context_id else "",
        )
        if part
    )
    embeds[-1].set_footer(text=clip(footer, FOOTER_MAX))
    messages = pack(((embed, []) for embed in embeds), ephemeral=ephemeral)
    messages[-1].answer = reply  # a reply to the message that ends the answer continues it
    return messages


def choice_rows(choices: Sequence[Choice]) -> list[list[Button]]:
    """Choice buttons, five to a row (at most 25)."""
    buttons = [
        Button(clip(choice.label, LABEL_MAX) or "…", choice.value, discord.ButtonStyle.primary)
        for choice in choices[: ROWS_PER_MESSAGE * BUTTONS_PER_ROW]
        if choice.value and len(choice.value) <= CUSTOM_ID_MAX
    ]
    return [buttons[i : i + BUTTONS_PER_ROW] for i in range(0, len(buttons), BUTTONS_PER_ROW)]


def text_messages(reply: TextReply) -> list[Outgoing]:
    """Plain text (escaped, split at 2,000), then its paper cards as embeds, the choice buttons on the last."""
    pieces = split_text(escape_discord(reply.text), CONTENT_MAX)
    messages = [Outgoing(content=piece, ephemeral=reply.ephemeral) for piece in pieces]
    if reply.cards:
        blocks = [
            (paper_embed(card, CARD_EMBED_MAX if card.abstract else PAPER_EMBED_MAX), paper_buttons(card))
            for card in _unique_items(reply.cards)
        ]
        packed = pack(blocks, ephemeral=reply.ephemeral)
        if messages:  # the first cards join the text's last message
            messages[-1].embeds, messages[-1].rows = packed[0].embeds, packed[0].rows
            packed = packed[1:]
        messages += packed
    if reply.choices:
        rows = choice_rows(reply.choices)
        if not messages or len(messages[-1].rows) + len(rows) > ROWS_PER_MESSAGE:
            messages.append(Outgoing(content="Choose:", ephemeral=reply.ephemeral))
        messages[-1].rows += rows
    return messages


def file_messages(reply: FileReply) -> list[Outgoing]:
    """A file with its caption, only for the person who asked."""
    return [Outgoing(content=safe(reply.caption, CONTENT_MAX), file=reply, ephemeral=True)]


def render_reply(reply: Reply) -> list[Outgoing]:
    """One controller reply as Discord messages."""
    if isinstance(reply, DigestReply):
        return digest_messages(reply.digest)
    if isinstance(reply, AnswerReply):
        return answer_messages(reply)
    if isinstance(reply, FileReply):
        return file_messages(reply)
    return text_messages(reply)


def render_replies(replies: Iterable[Reply]) -> list[Outgoing]:
    """Every reply of a controller turn, in order."""
    return [message for reply in replies for message in render_reply(reply)]
