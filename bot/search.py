"""Paper search: the question-answering retrieval (dense + BM25, topic evidence) without the relevance cut."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.core import Core
from bot.models import Paper, day_to_int
from bot.rag import MAX_QUESTION, Filters, retrieve
from bot.timewords import TimeWindow
from bot.vectors import category_key


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A paper found by search: its relevance (similarity plus topic evidence) and the dense similarity alone."""

    paper: Paper
    score: float
    dense: float


def window_filter(
    since: dt.date | None, until: dt.date | None, categories: Sequence[str] = ()
) -> dict[str, Any] | None:
    """A Chroma `where` clause for an announcement-date window and any of `categories`."""
    clauses: list[dict[str, Any]] = []
    if since:
        clauses.append({"announced": {"$gte": day_to_int(since)}})
    if until:
        clauses.append({"announced": {"$lte": day_to_int(until)}})
    if categories:
        flags: list[dict[str, Any]] = [{category_key(c): True} for c in categories]
        clauses.append(flags[0] if len(flags) == 1 else {"$or": flags})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


async def search_papers(
    core: Core,
    query: str,
    *,
    since: dt.date | None = None,
    until: dt.date | None = None,
    categories: Sequence[str] = (),
    limit: int = 10,
) -> list[SearchHit]:
    """The `limit` stored papers best matching `query` inside the window, most relevant first."""
    query = query.strip()[:MAX_QUESTION]
    if not query:
        return []
    window = TimeWindow(since or dt.date.min, until or dt.date.max, "") if since or until else None
    found = await retrieve(
        core, Filters(topic=query, window=window, categories=tuple(categories)), limit=limit, cut=False
    )
    return [SearchHit(r.paper, r.relevance, r.dense) for r in found]
