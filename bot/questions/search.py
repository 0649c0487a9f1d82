"""Paper search: the question-answering retrieval (dense + BM25, topic evidence) and its relevance cut-off."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core import Core
from bot.models import Paper
from bot.questions.coverage import vector_gap_note
from bot.questions.filters import Filters
from bot.questions.rag import MAX_QUESTION
from bot.questions.retrieval import retrieve
from bot.questions.spelling import corrected
from bot.questions.timewords import TimeWindow


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A paper found by search: its relevance (similarity plus topic evidence) and the dense similarity alone."""

    paper: Paper
    score: float
    dense: float
    embedded: bool = True  # False: found by its words alone, its vector missing


async def search_papers(
    core: Core,
    query: str,
    *,
    since: dt.date | None = None,
    until: dt.date | None = None,
    categories: Sequence[str] = (),
    limit: int = 10,
    cut: bool = True,
) -> list[SearchHit]:
    """At most `limit` stored papers matching `query` inside the window, most relevant first.

    Only the papers that pass the question-answering relevance cut-off are returned (a query with two good matches
    returns two): /search in chat, the CLI `search` and the demo share this ranking and cut-off. `cut=False` (for
    benchmarks) returns the `limit` nearest whatever their relevance.
    """
    query = query.strip()[:MAX_QUESTION]
    if not any(c.isalnum() for c in query):
        return []
    query = await corrected(core, query)
    window = TimeWindow(since or dt.date.min, until or dt.date.max, "") if since or until else None
    found = await retrieve(
        core, Filters(topic=query, window=window, categories=tuple(categories)), limit=limit, cut=cut
    )
    return [SearchHit(r.paper, r.relevance, r.dense, r.embedded) for r in found]


async def search_note(core: Core, hits: Sequence[SearchHit]) -> str:
    """What is wrong when search could not use every paper's vector ('' when nothing is)."""
    if hits and all(h.embedded for h in hits):
        return ""
    return await vector_gap_note(core)
