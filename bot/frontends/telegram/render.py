"""The controller's replies as Telegram messages: the core's layout (`bot.views.layout`) styled as Telegram HTML.

Telegram's part is only the style: outside text escaped with the four named entities its HTML accepts and its
@mentions defused, ``b i a`` markup, length counted in UTF-16 units on the plain-text fallback (what Telegram
counts after parsing, and what is sent without a parse mode if it ever refuses our HTML), 4,000 of Telegram's
4,096, at most eight papers (eight rows of three buttons) to a message. Button data is the core's own value
(``ps:up:2505.17639``): no server-side state, so a button pressed months later, after restarts, still works.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.chat.messages import DigestView, Reply, layout
from bot.text.safetext import clean_text
from bot.views.layout import Button, Line, Page, Style, clip, digest_blocks, pages

MAX_CAPTION = 1024
WORD_JOINER = "\u2060"
_MENTION = re.compile(r"@(?=\w)")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
_SPECIAL = re.compile(r'[&<>"]')


def escape_html(text: str) -> str:
    """Already clean text for Telegram's HTML parse mode: ``< > & "`` as the four named entities it supports."""
    return _SPECIAL.sub(lambda m: _ENTITIES[m.group(0)], text)


def defuse_mentions(text: str) -> str:
    """Text whose ``@name``s Telegram will not turn into mentions (which notify that user): a word joiner after @.

    Telegram has no switch like Discord's allowed mentions; an invisible character is the way to show a title
    containing "@alice" without pinging Alice in every group the digest reaches.
    """
    # Cleaned first: the cleaning removes zero-width characters, so it must not run after the joiner is in.
    return _MENTION.sub("@" + WORD_JOINER, clean_text(text))


def utf16_length(text: str) -> int:
    """Length as Telegram counts message text: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


class PlainStyle(Style):
    """What a reader sees, and the fallback sent without a parse mode: links show their URL after the text."""

    def escape(self, text: str) -> str:
        """Mentions defused; nothing else is markup without a parse mode."""
        return defuse_mentions(text)

    def size(self, markup: str) -> int:
        """UTF-16 units."""
        return utf16_length(markup)


class HtmlStyle(PlainStyle):
    """Telegram HTML, measured on the plain fallback (never shorter than the text the HTML shows)."""

    message_limit = 4000  # of Telegram's 4,096, leaving room for its own counting
    papers_per_message = 8  # 8 rows of 3 buttons: a keyboard a reader can still use
    buttons_per_row = 3
    choices_per_row = 2
    wide_label = 18

    def escape(self, text: str) -> str:
        """Mentions defused, then the four named entities."""
        return escape_html(defuse_mentions(text))

    def bold(self, markup: str) -> str:
        """<b>."""
        return f"<b>{markup}</b>"

    def italic(self, markup: str) -> str:
        """<i>."""
        return f"<i>{markup}</i>"

    def link(self, markup: str, url: str) -> str:
        """<a href>."""
        return f'<a href="{escape_html(url)}">{markup}</a>'

    def measure_line(self, line: Line) -> int:
        """The plain fallback's length."""
        return PLAIN.measure_line(line)


PLAIN, HTML = PlainStyle(), HtmlStyle()


@dataclass(frozen=True, slots=True)
class TgMessage:
    """One Telegram message: its HTML, the plain-text fallback, and its inline keyboard."""

    html: str
    plain: str
    keyboard: tuple[tuple[Button, ...], ...] = ()


def message(page: Page) -> TgMessage:
    """One packed page as a message ('…' when it only carries buttons: Telegram needs some text)."""
    rows = tuple(tuple(row) for block in page.blocks for row in HTML.rows(block))
    keyboard = tuple(tuple(Button(HTML.label(b), b.value) for b in row) for row in rows)
    return TgMessage(HTML.page(page) or "…", PLAIN.page(page) or "…", keyboard)


def render(reply: Reply) -> list[object]:
    """Any reply of the controller (a file's caption, for a file) as Telegram messages."""
    return pages(layout(reply), HTML, message)


def render_digest(view: DigestView) -> list[object]:
    """A digest as messages: header first, papers in order, notes last; no paper split across messages."""
    return pages(digest_blocks(view), HTML, message)


def caption_html(caption: str) -> str:
    """A file's caption as HTML (at most Telegram's 1,024 characters)."""
    return HTML.escape(clip(caption, MAX_CAPTION - 24))
