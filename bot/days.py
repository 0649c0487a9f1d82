"""One meaning of "today" for every front end (CLI, console, chat): the latest announcement day stored at or
before now. A bot asked on a Saturday about "today" means Thursday's announcement; one whose archive ends last
week means the last stored day, and says which days it holds when a question's window is empty."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.core import Core


def utc_date(now: dt.datetime | None = None) -> dt.date:
    """The current date in UTC (arXiv's announcement dates are UTC dates)."""
    return (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC).date()


async def stored_today(core: Core, now: dt.datetime | None = None) -> dt.date | None:
    """The latest announcement day stored at or before now (None when nothing is stored)."""
    return await core.repo.latest_day(until=utc_date(now))


async def stored_days_note(core: Core) -> str:
    """'Stored: 4 announcement days, 2025-05-26 to 2025-05-30.' (or that nothing is stored)."""
    days = await core.repo.announcement_days()
    if not days:
        return "No papers are stored yet."
    if len(days) == 1:
        return f"Stored: one announcement day, {days[0].isoformat()}."
    return f"Stored: {len(days)} announcement days, {days[0].isoformat()} to {days[-1].isoformat()}."
