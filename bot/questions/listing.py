"""A question asking for the papers of a day or a period and nothing else ("summarize Monday", "what came out
today?", "anything new this week?", "what's new?"): every paper of that window, ranked for whoever asks as their
digest ranks them (`DayOrder`, which the chat gives: a channel's digest where the channel has one, else the member's
own), else in the store's order; the answer says which, how many papers there are, and offers the rest (/more).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from bot.core import Core
from bot.models import Paper, day_to_int
from bot.questions.filters import Filters
from bot.questions.request import names_documents
from bot.questions.retrieval import without_excluded

STORE_ORDER = "in the store's order (by day, then arXiv id)"
# A listing loads, ranks and keeps (for /more) every paper of its window: a week of a busy feed is some 2,000 (the
# shared days: ~400 a day over cs.LG/CL/CV/AI); a year of it, 100,000, would be all of that for one question
MAX_LISTED = 5000
# what is new, or how papers come out: with no day named, these ask for the latest day's papers ("what's new?",
# "anything recent?", "what came out?"); a greeting or a bare "why?" asks for none
_NEWS = re.compile(
    r"\b(?:new|newest|latest|recent|recently|lately|came\s+out|come\s+out|published|announced|released|posted|"
    r"uploaded|appeared)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class DayOrder:
    """How a day's (or a period's) papers are ranked for whoever asks: by the ranking of a digest (`rank`, best
    first), over that digest's candidates (the papers in any of `categories`; all when empty)."""

    whose: str  # how the answer names the ranking: "this channel's digest", "your digest"
    categories: tuple[str, ...]
    rank: Callable[[Sequence[Paper]], Awaitable[list[Paper]]]


def lists_window(filters: Filters) -> bool:
    """Whether `filters` ask for the papers of a window and nothing else: no topic, author, contribution type,
    constraint or previous papers (categories and exclusions only narrow the window's papers). Without a window
    named, the window is the latest stored day ("what's new?")."""
    return not (filters.topic or filters.authors or filters.contribution or filters.restrict_to or filters.constraints)


def asks_for_papers(question: str, filters: Filters) -> bool:
    """Whether a question that names no day still asks for papers: it names them ("papers?"), or categories of
    them, or asks what is new. Otherwise it asks for nothing the latest day's papers answer ("hello", "why?")."""
    return bool(filters.categories) or names_documents(question) or bool(_NEWS.search(question))


async def stored_in_window(core: Core, filters: Filters) -> int:
    """How many papers are stored from the start to the end of the window of `filters`, in its categories (any
    category when none): what a listing of it would load, before its exclusions."""
    window = filters.window
    assert window is not None, "a window's papers need the window"
    found = await core.repo.categories_between(day_to_int(window.start), day_to_int(window.end))
    wanted = set(filters.categories)
    return sum(1 for categories in found.values() if not wanted or wanted.intersection(categories))


async def window_papers(core: Core, filters: Filters, order: DayOrder | None) -> tuple[list[Paper], str]:
    """Every paper of the window of `filters` (in its categories, about none of its exclusions), best first for
    `order` (its digest's candidates ranked as the digest ranks them, then the others in the store's order), or in
    the store's order; and how they are ordered, as the answer says it."""
    window = filters.window
    assert window is not None, "a window's papers need the window"
    papers = await core.repo.papers_between(window.start, window.end, list(filters.categories) or None)
    papers = await without_excluded(core, filters, [p for p in papers if window.contains(p.announced)])
    if order is None or not papers:
        return papers, STORE_ORDER
    wanted = set(order.categories)
    candidates = [p for p in papers if not wanted or wanted.intersection(p.categories)]
    ranked = await order.rank(candidates) if candidates else []
    taken = {p.id for p in ranked}
    rest = [p for p in papers if p.id not in taken]
    how = f"as {order.whose} ranks them"
    if rest and ranked:
        how += f", then the {len(rest)} outside its categories {STORE_ORDER}"
    elif rest:
        how = f"{STORE_ORDER} (none is in the categories {order.whose} ranks)"
    return [*ranked, *rest], how


def listing_head(filters: Filters, count: int, shown: int, when: str, how: str) -> str:
    """The first line of the answer listing a window's papers: how many there are (in the categories asked for,
    about none of the exclusions), then which come first and why ('444 papers were announced on Monday 2025-05-26;
    the first 15 as your digest ranks them:')."""
    noun = "paper" if count == 1 else "papers"
    which = [f"in {', '.join(filters.categories)}"] if filters.categories else []
    which += [f"not about {' or '.join(filters.excluded)}"] if filters.excluded else []
    said = " ".join([f"{count} {noun}", ", ".join(which)]).strip()
    first = f"the first {shown}" if shown < count else ("it" if count == 1 else "all of them")
    return f"{said} {'was' if count == 1 else 'were'} announced {when}; {first} {how}:"
