"""What a member is typing, completed (for a platform that offers completion as they type): recent papers by id
prefix or title words, arXiv categories by code or name, IANA time zones. Each completion is (label, value)."""

from __future__ import annotations

import datetime as dt
import time
import zoneinfo
from functools import cache
from typing import TYPE_CHECKING

from bot.ingest.taxonomy import CATEGORIES

if TYPE_CHECKING:
    from bot.core import Core
    from bot.models import Paper

RECENT_DAYS = 6  # the week of papers id completion offers
RECENT_PAPERS_SECONDS = 300.0

Completion = tuple[str, str]


class RecentPapers:
    """The last week's stored papers, newest first, re-read from the archive every few minutes."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self._read: tuple[float, list[Paper]] | None = None

    async def papers(self) -> list[Paper]:
        """The papers, from the cache while it is fresh."""
        now = time.monotonic()
        if self._read is None or now - self._read[0] > RECENT_PAPERS_SECONDS:
            latest = await self.core.repo.latest_day()
            papers: list[Paper] = []
            if latest is not None:
                papers = await self.core.repo.papers_between(latest - dt.timedelta(days=RECENT_DAYS), latest)
            papers.sort(key=lambda p: (p.announced, p.id), reverse=True)
            self._read = (now, papers)
        return self._read[1]

    async def complete(self, typed: str, limit: int) -> list[Completion]:
        """Papers for an id: by id prefix when digits are typed, else by title words; labelled 'ID title'."""
        text = typed.strip().lower()
        papers = await self.papers()
        if text and text[0].isdigit():
            hits = [p for p in papers if p.id.startswith(text)]
        else:
            words = text.split()
            hits = [p for p in papers if all(w in p.title.lower() for w in words)]
        return [(" ".join(f"{p.id} {p.title}".split()), p.id) for p in hits[:limit]]


def categories(typed: str, limit: int) -> list[Completion]:
    """The last of comma-separated category codes completed, by code prefix or name words ('machine')."""
    head, _, last = typed.rpartition(",")
    word = last.strip().lower()
    prefix = f"{head.strip()}, " if head.strip() else ""
    found = [
        code for code, name in CATEGORIES.items() if code.lower().startswith(word) or (word and word in name.lower())
    ]
    return [(f"{prefix}{code} ({CATEGORIES[code]})", f"{prefix}{code}") for code in found[:limit]]


@cache
def _zones() -> tuple[str, ...]:
    return tuple(sorted(zoneinfo.available_timezones()))


def timezones(typed: str, limit: int) -> list[Completion]:
    """IANA time zones containing what was typed ('berl' -> Europe/Berlin)."""
    word = typed.strip().lower().replace(" ", "_")
    return [(zone, zone) for zone in _zones() if word in zone.lower()][:limit]


class Completer:
    """Completion for every kind of field a command's form completes (`bot.chat.commands.Argument.completion`):
    'papers' (the last week's), 'categories', 'timezones'."""

    def __init__(self, core: Core) -> None:
        self.papers = RecentPapers(core)

    async def __call__(self, kind: str, typed: str, limit: int) -> list[Completion]:
        """What `typed` completes to in a field of `kind`, at most `limit`."""
        if kind == "papers":
            return await self.papers.complete(typed, limit)
        return categories(typed, limit) if kind == "categories" else timezones(typed, limit)
