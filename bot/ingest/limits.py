"""Size bounds and clean-up applied to every paper from outside, whatever the source."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace

from bot.models import Paper
from bot.text.safetext import clean_text as clean_for_display

MAX_TITLE = 500
MAX_ABSTRACT = 6000
MAX_AUTHORS = 300
MAX_AUTHOR_NAME = 200
MAX_COMMENT = 1000
MAX_CATEGORIES = 20
MAX_LINE = 1_000_000  # bytes in one JSONL line; a real record is a few kilobytes
MAX_FILE = 2_000_000_000  # bytes in one JSONL file; a year of every arXiv category is well under a gigabyte
FIRST_ANNOUNCED = dt.date(1991, 8, 14)  # arXiv's first day; nothing is announced before it
MAX_CATEGORY = 40
# The shape of an arXiv category ("cs.LG", "hep-th", "math.CT"); anything else (ACM/MSC classes such as "I.2.7",
# Markdown, mentions) is not one, whatever the source, and is never stored or shown.
ARXIV_CATEGORY = re.compile(r"[a-z][a-z\-]*(\.[A-Za-z][A-Za-z\-]*)?")


def announced_in_range(day: dt.date, today: dt.date | None = None) -> bool:
    """True when `day` is between arXiv's first day and tomorrow (a later date would be "today" for every digest)."""
    today = today or dt.date.today()
    return FIRST_ANNOUNCED <= day <= today + dt.timedelta(days=1)


_SPACE = re.compile(r"\s+")


def clean_text(text: str, limit: int) -> str:
    """The one cleaning (`bot.text.safetext.clean_text`), white space folded, capped at `limit` characters."""
    text = _SPACE.sub(" ", clean_for_display(text)).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def is_arxiv_category(text: str) -> bool:
    """True when `text` has the shape of an arXiv category (the one rule for every source)."""
    return len(text) <= MAX_CATEGORY and ARXIV_CATEGORY.fullmatch(text) is not None


def clean_paper(paper: Paper) -> Paper:
    """A copy of `paper` with every field within bounds and only arXiv-shaped categories (possibly none)."""
    return replace(
        paper,
        title=clean_text(paper.title, MAX_TITLE),
        abstract=clean_text(paper.abstract, MAX_ABSTRACT),
        authors=tuple(clean_text(a, MAX_AUTHOR_NAME) for a in paper.authors[:MAX_AUTHORS] if a.strip()),
        categories=tuple(
            dict.fromkeys(c.strip() for c in paper.categories[:MAX_CATEGORIES] if is_arxiv_category(c.strip()))
        ),
        comment=clean_text(paper.comment, MAX_COMMENT),
    )
