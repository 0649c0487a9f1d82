"""Paper search: the question-answering retrieval (dense + BM25, topic evidence) and its relevance cut-off.

A search lists every matching paper in one order: its first page (the strongest: the query's words in the title, or
in an abstract close to it in meaning) and the rest (the first page's overflow, the papers naming the query in a
passing mention, then papers only close in meaning), which /search in chat
offers with /more and the CLI with --page; it says how many matched in total.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core import Core
from bot.models import Paper
from bot.questions.asked_authors import find_named_authors
from bot.questions.coverage import vector_gap_note
from bot.questions.filters import Filters
from bot.questions.rag import MAX_QUESTION
from bot.questions.retrieval import FLOOR, MAX_MORE, Retrieved, as_told, cut_at_most, retrieve
from bot.questions.spelling import corrected
from bot.questions.timewords import TimeWindow
from bot.questions.topics import FILLER, META, topic_of
from bot.ranking.contribution import paper_kinds
from bot.ranking.contribution_words import KINDS, asked_kind
from bot.text.safetext import straight_quotes


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A paper found by search: its relevance (similarity plus topic evidence) and the dense similarity alone."""

    paper: Paper
    score: float
    dense: float
    embedded: bool = True  # False: found by its words alone, its vector missing
    by_words: bool = True  # False: only close in meaning, the query's words are in neither title nor abstract


@dataclass(frozen=True, slots=True)
class SearchResults:
    """What a search found: its first page and the other matching papers after it, in one order."""

    hits: list[SearchHit]
    more: list[SearchHit]
    query: str = ""  # the words searched for, typos corrected (without the authors' names)
    authors: tuple[str, ...] = ()  # the stored authors the query names ("Lichao Sun"): their papers are listed

    @property
    def total(self) -> int:
        """How many papers are listed (all that matched, unless the rest was cut at MAX_MORE: see `matched`)."""
        return len(self.hits) + len(self.more)

    @property
    def cut(self) -> bool:
        """Whether the rest was cut at MAX_MORE: more papers may match than are listed (the last ones listed, those
        only close in meaning unless none is)."""
        return cut_at_most(len(self.more))

    @property
    def matched(self) -> str:
        """How many papers matched, as a reader is told: 'at least N' when the rest was cut at MAX_MORE, since
        more papers may match than are listed."""
        return as_told(self.total, 0, self.cut)[0]

    @property
    def meaning(self) -> int:
        """How many of them are only close in meaning (counted apart from those carrying the query's words)."""
        return sum(1 for h in (*self.hits, *self.more) if not h.by_words)

    def counted(self, query: str = "") -> str:
        """How many papers matched, as a reader is told: those carrying the query's words apart from those only close
        in meaning, "12 stored papers match 'MoE'; 13 more are close in meaning" ("at least" before the last number
        when the list was cut at MAX_MORE). The numbers add up to what the pages list."""
        meaning = self.meaning
        words, quoted = self.total - meaning, f" '{query}'" if query else ""
        told_words, told_meaning = as_told(words, meaning, self.cut)
        are = "is" if meaning == 1 else "are"
        if not words:
            return f"No stored paper carries the words{quoted}; {told_meaning} {are} close in meaning"
        counted = f"{told_words} stored {'paper matches' if words == 1 else 'papers match'}{quoted}"
        return counted + (f"; {told_meaning} more {are} close in meaning" if meaning else "")

    def page(self, number: int, size: int) -> list[SearchHit]:
        """Page `number` (1 the first page; each later one the next `size` of the rest, as /more pages them)."""
        if number <= 1:
            return self.hits
        return self.more[(number - 2) * size : (number - 1) * size]


async def search_papers(
    core: Core,
    query: str,
    *,
    since: dt.date | None = None,
    until: dt.date | None = None,
    categories: Sequence[str] = (),
    limit: int = 10,
    cut: bool = True,
) -> SearchResults:
    """The stored papers matching `query` inside the window, most relevant first: a first page of at most `limit`
    and the rest.

    The query is read as a question's topic is (`topic_of`: "papers on X", "any new work about X?" search X), and
    a stored author's name in it as a question's is ("Lichao Sun", "papers by Lichao Sun on agents": that author's
    papers, on the rest of the query if anything is left).
    Only the papers that pass the question-answering relevance cut-off are listed (a query with two good matches
    lists two): /search in chat, the CLI `search` and the demo share this ranking and cut-off. `cut=False` (for
    benchmarks) gives the `limit` nearest whatever their relevance, and no rest.
    """
    query = straight_quotes(query).strip()[:MAX_QUESTION]
    if not any(c.isalnum() for c in query):
        return SearchResults([], [])
    # always a window ending on a stored day: /search in chat (until its "today"), the CLI and the demo then find
    # their candidates in one way and rank them alike (an open window read the whole collection's approximate
    # nearest neighbours instead, another candidate pool and so another fused order)
    until = until or await core.repo.latest_day(until=dt.datetime.now(dt.UTC).date()) or dt.date.max
    window = TimeWindow(since or dt.date.min, until, "")
    # names before typos: the spelling corrector knows the papers' words, not their authors' names
    # without "papers by" or "et al.", only a name spelled as stored: one word is more often a topic ("Mamba")
    named = await find_named_authors(core, query, since, until, FILLER | META, as_stored=True)
    if named.authors:
        query = named.rest if topic_of(named.rest) else ""
    kind, about = "", ""
    if query:
        query = await corrected(core, query)
        # "survey papers", "position papers arguing X", "surveys on X": a kind of paper, read before the request's
        # words are stripped ("position papers" would lose "papers") and after ("recent surveys about X")
        kind, about = asked_kind(query, FILLER | META)
        query = topic_of(query) or query  # "papers on X", "any new work about X?": the request's words are no topic
        if not kind:
            kind, about = asked_kind(query, FILLER | META)
    filters = Filters(topic=query, window=window, authors=named.authors, categories=tuple(categories))
    first, rest = await retrieve(core, filters, limit=limit, cut=cut)
    by_name = bool(named.authors)
    if kind and cut and not by_name:
        return await _of_kind(core, kind, topic_of(about) or about, filters, first, rest, limit, query)
    return SearchResults([_hit(r, by_name) for r in first], [_hit(r, by_name) for r in rest], query, named.authors)


async def _of_kind(
    core: Core,
    kind: str,
    about: str,
    filters: Filters,
    first: list[Retrieved],
    rest: list[Retrieved],
    limit: int,
    query: str,
) -> SearchResults:
    """A search asking for a kind of paper ("survey papers", "position papers arguing X", "surveys on X"): the papers
    of that kind in the window (`paper_kinds`: by their title or their statement of contribution) first, ranked by
    what they should be about, then the search's other matches (`first`, `rest`: the query's own list, nothing of it
    dropped). With a topic, the papers of the kind naming it or close to it in meaning; when none is, the topic
    describes the kind ("arguing the community should change course" of position papers) and all of them are.
    Filters without a window mean every stored day."""
    window = filters.window
    words = KINDS[kind]
    # without a window, every stored day: as `retrieve` reads filters that name none
    start, end = (window.start, window.end) if window else (dt.date.min, dt.date.max)
    stored = await core.repo.papers_between(start, end, filters.categories or None)
    if window:
        stored = [p for p in stored if window.contains(p.announced)]  # a list of days holds only those days
    # a kind's words first (a substring test), the reading of the paper's statements only where one occurs
    named = [p for p in stored if any(w in f"{p.title} {p.abstract}".lower() for w in words)]
    ids = tuple(p.id for p in named if kind in paper_kinds(p.title, p.abstract))
    if not ids:
        return SearchResults([_hit(r, False) for r in first], [_hit(r, False) for r in rest], query)
    ranking = Filters(topic=about or kind, window=window, restrict_to=ids)
    shown, more = await retrieve(core, ranking, limit=len(ids))
    kinds = [*shown, *more]
    if about:
        naming = [r for r in kinds if r.in_title or r.in_abstract or r.every_part or r.dense >= FLOOR]
        kinds = naming or kinds
    taken = {r.paper.id for r in kinds}
    others = [r for r in [*first, *rest] if r.paper.id not in taken]
    page = min(len(kinds), limit)
    hits = [SearchHit(r.paper, r.relevance, r.dense, r.embedded, True) for r in kinds]
    listed = [*hits, *(_hit(r, False) for r in others)]
    return SearchResults(listed[:page], listed[page:][:MAX_MORE], query)


def _hit(r: Retrieved, by_name: bool) -> SearchHit:
    """`by_name`: the query names the paper's author, which matches it as its words would."""
    return SearchHit(r.paper, r.relevance, r.dense, r.embedded, by_name or r.in_title or r.in_abstract)


async def search_note(core: Core, found: SearchResults) -> str:
    """What is wrong when search could not use every paper's vector ('' when nothing is)."""
    hits = [*found.hits, *found.more]
    if hits and all(h.embedded for h in hits):
        return ""
    return await vector_gap_note(core)
