"""Size bounds and clean-up applied to every paper from outside, whatever the source."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace

from bot.models import Paper

MAX_TITLE = 500
MAX_ABSTRACT = 6000
MAX_AUTHORS = 300
MAX_AUTHOR_NAME = 200
MAX_COMMENT = 1000
MAX_CATEGORIES = 20

_SPACE = re.compile(r"\s+")
_CONTROL = dict.fromkeys(c for c in range(32) if c not in (9, 10, 13))


def clean_text(text: str, limit: int) -> str:
    """Normalise Unicode, drop control characters, fold white space and cap the length."""
    text = unicodedata.normalize("NFC", text).translate(_CONTROL)
    text = _SPACE.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def clean_paper(paper: Paper) -> Paper:
    """A copy of `paper` with every field within bounds."""
    return replace(
        paper,
        title=clean_text(paper.title, MAX_TITLE),
        abstract=clean_text(paper.abstract, MAX_ABSTRACT),
        authors=tuple(clean_text(a, MAX_AUTHOR_NAME) for a in paper.authors[:MAX_AUTHORS] if a.strip()),
        categories=tuple(clean_text(c, 40) for c in paper.categories[:MAX_CATEGORIES] if c.strip()),
        comment=clean_text(paper.comment, MAX_COMMENT),
    )
