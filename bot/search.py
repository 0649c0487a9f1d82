"""Hybrid paper search: dense similarity in Chroma fused with BM25 full-text matches in SQLite."""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.core import Core
from bot.models import Paper, day_to_int
from bot.vectors import category_key

RRF_K = 60  # reciprocal-rank fusion constant; large k keeps either list from dominating on its top hit
MAX_QUERY = 500

_TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*")
_STOPWORDS = frozenset(
    "a an and are about any as at be by do does for from has have how i in is it me of on or papers paper show "
    "tell that the this to was what which who with find new recent latest there".split()
)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A paper found by search, with the fused score and its two components."""

    paper: Paper
    score: float
    dense: float
    lexical: float


def query_terms(query: str) -> list[str]:
    """Content words of a query for full-text matching (stopwords dropped, order kept, no duplicates)."""
    seen: dict[str, None] = {}
    for term in _TERM.findall(query[:MAX_QUERY]):
        lowered = term.lower()
        if lowered not in _STOPWORDS and len(lowered) > 1:
            seen.setdefault(lowered, None)
    return list(seen)


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
    pool: int = 50,
) -> list[SearchHit]:
    """The papers best matching `query` inside the window, by reciprocal-rank fusion of dense and BM25 lists."""
    query = query.strip()[:MAX_QUERY]
    if not query:
        return []
    pool = max(pool, limit)
    vector = (await asyncio.to_thread(core.embedder.embed, [query]))[0]
    dense_hits, lexical_hits = await asyncio.gather(
        core.vectors.search_window(vector, pool, since, until, categories),
        core.repo.lexical_search([query_terms(query)], since, until, pool * 2),
    )
    fused: dict[str, float] = {}
    dense_sim = dict(dense_hits)
    lexical_score = dict(lexical_hits)
    for rank, (paper_id, _) in enumerate(dense_hits, 1):
        fused[paper_id] = fused.get(paper_id, 0.0) + 1.0 / (RRF_K + rank)
    for rank, (paper_id, _) in enumerate(lexical_hits, 1):
        fused[paper_id] = fused.get(paper_id, 0.0) + 1.0 / (RRF_K + rank)
    best = sorted(fused, key=fused.__getitem__, reverse=True)
    papers = {p.id: p for p in await core.repo.get_papers(best[: limit * 3])}
    if categories:
        wanted = set(categories)
        papers = {k: p for k, p in papers.items() if wanted.intersection(p.categories)}
    hits = [
        SearchHit(papers[i], fused[i], dense_sim.get(i, 0.0), lexical_score.get(i, 0.0)) for i in best if i in papers
    ]
    return hits[:limit]
