"""Telegram HTML built from plain pieces: every piece of outside text escaped (and its @mentions defused), the
visible text kept alongside.

`Markup` writes the same content twice: as Telegram HTML (only ``b i a`` tags, text escaped) and as the plain text
a reader sees. The plain form measures a message the way Telegram counts it (after entity parsing, in UTF-16
units) and is the fallback sent without a parse mode if Telegram ever refuses our HTML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Self

from bot.text.safetext import clean_text

ELLIPSIS = "…"
WORD_JOINER = "\u2060"
_MENTION = re.compile(r"@(?=\w)")


_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
_SPECIAL = re.compile(r'[&<>"]')


def escape_html(text: str) -> str:
    """Already clean text for Telegram's HTML parse mode: ``< > & "`` as the four named entities it supports."""
    return _SPECIAL.sub(lambda m: _ENTITIES[m.group(0)], text)


def escape_telegram_html(text: str) -> str:
    """Outside text for Telegram's HTML parse mode: cleaned, then the four named entities."""
    return escape_html(clean_text(text))


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


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending in an ellipsis when cut."""
    text = text.strip()
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + ELLIPSIS


@dataclass
class Markup:
    """Telegram HTML and its visible plain text, built together."""

    html_parts: list[str] = field(default_factory=list)
    plain_parts: list[str] = field(default_factory=list)

    def text(self, raw: str) -> Self:
        """Outside or literal text, escaped, its @mentions defused."""
        raw = defuse_mentions(raw)
        self.html_parts.append(escape_html(raw))
        self.plain_parts.append(raw)
        return self

    def bold(self, raw: str) -> Self:
        """Bold text."""
        return self._wrap("b", raw)

    def italic(self, raw: str) -> Self:
        """Italic text."""
        return self._wrap("i", raw)

    def link(self, raw: str, url: str, *, bold: bool = False) -> Self:
        """Text linking to `url`; the plain form shows the URL after the text."""
        raw = defuse_mentions(raw)
        inner = f"<b>{escape_html(raw)}</b>" if bold else escape_html(raw)
        self.html_parts.append(f'<a href="{escape_html(url)}">{inner}</a>')
        self.plain_parts.append(f"{raw} ({url})")
        return self

    def line(self) -> Self:
        """A line break."""
        return self.text("\n")

    def _wrap(self, tag: str, raw: str) -> Self:
        raw = defuse_mentions(raw)
        self.html_parts.append(f"<{tag}>{escape_html(raw)}</{tag}>")
        self.plain_parts.append(raw)
        return self

    @property
    def html(self) -> str:
        """The Telegram HTML."""
        return "".join(self.html_parts)

    @property
    def plain(self) -> str:
        """What a reader sees (and the plain-text fallback)."""
        return "".join(self.plain_parts)

    @property
    def length(self) -> int:
        """Length of the plain fallback in UTF-16 units; never less than the visible text of the HTML form."""
        return utf16_length(self.plain)

    def __bool__(self) -> bool:
        return any(self.plain_parts)
