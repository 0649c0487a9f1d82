"""Input hygiene for what people type: control characters out, items split, sizes bounded."""

from __future__ import annotations

import re

from bot.text.safetext import clean_input, strip_controls

MAX_INPUT = 2000  # characters per answer; a 5,000-character paste is an accident, not an answer

_HAS_WORD = re.compile(r"[^\W_]")

_ITEM_SPLIT = re.compile(r"[\n;]+")

_BULLET = re.compile(r"^\s*(?:[-*•·]|\d+[.)])\s+")

__all__ = ["clean_input", "strip_controls"]  # the one cleaning lives in bot.text.safetext


def has_words(text: str) -> bool:
    """True when `text` has a letter or digit (emoji and punctuation alone are not an answer)."""
    return bool(_HAS_WORD.search(text))


def one_line(text: str, limit: int) -> str:
    """`text` on one line, cut with an ellipsis past `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def split_items(text: str, limit: int) -> list[str]:
    """Items one per line or separated by ';' (bullets and numbering removed), without repeats."""
    items: list[str] = []
    for raw in _ITEM_SPLIT.split(text):
        item = one_line(_BULLET.sub("", raw), MAX_INPUT)
        if item and has_words(item) and item.lower() not in (i.lower() for i in items):
            items.append(item)
    return items[:limit]
