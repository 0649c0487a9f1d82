"""Autocomplete for the Discord slash commands: arXiv ids of recent papers, arXiv categories, time zones.

Discord shows at most 25 choices, each named in 1-100 characters; every function here stays within that.
"""

from __future__ import annotations

import datetime as dt
import time
import zoneinfo
from functools import cache

from discord import app_commands

from bot.core import Core
from bot.ingest.taxonomy import CATEGORIES
from bot.models import Paper
from bot.views.layout import clip

MAX_CHOICES = 25
CHOICE_NAME_MAX = 100
RECENT_DAYS = 6  # the week of papers id autocomplete offers
RECENT_PAPERS_SECONDS = 300.0

Choices = list[app_commands.Choice[str]]


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

    async def choices(self, current: str) -> Choices:
        """Papers for an id option: by id prefix when digits are typed, else by title words."""
        text = current.strip().lower()
        papers = await self.papers()
        if text and text[0].isdigit():
            hits = [p for p in papers if p.id.startswith(text)]
        else:
            words = text.split()
            hits = [p for p in papers if all(w in p.title.lower() for w in words)]
        return [
            app_commands.Choice(name=clip(" ".join(f"{p.id} {p.title}".split()), CHOICE_NAME_MAX), value=p.id)
            for p in hits[:MAX_CHOICES]
        ]


def category_choices(current: str) -> Choices:
    """Completes the last of comma-separated category codes, by code prefix or name words ('machine')."""
    head, _, last = current.rpartition(",")
    typed = last.strip().lower()
    prefix = f"{head.strip()}, " if head.strip() else ""
    found = [
        code for code, name in CATEGORIES.items() if code.lower().startswith(typed) or (typed and typed in name.lower())
    ]
    return [
        app_commands.Choice(
            name=clip(f"{prefix}{code} ({CATEGORIES[code]})", CHOICE_NAME_MAX),
            value=f"{prefix}{code}"[:CHOICE_NAME_MAX],
        )
        for code in found[:MAX_CHOICES]
    ]


@cache
def _zones() -> tuple[str, ...]:
    return tuple(sorted(zoneinfo.available_timezones()))


def timezone_choices(current: str) -> Choices:
    """IANA time zones containing what was typed ('berl' -> Europe/Berlin)."""
    typed = current.strip().lower().replace(" ", "_")
    found = [zone for zone in _zones() if typed in zone.lower()]
    return [app_commands.Choice(name=zone, value=zone) for zone in found[:MAX_CHOICES]]
