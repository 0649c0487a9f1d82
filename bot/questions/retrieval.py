"""Retrieval for questions and search: the candidate papers of a question's filters, ranked and cut.

Retrieval is hybrid: dense similarity in Chroma and BM25 in SQLite, restricted to the window, then every candidate is
scored by one formula (dense similarity plus lexical evidence) and cut where relevance drops. Exact names typed as a
paper writes them ("YAQA", "R2R") weigh most. `select` splits the ranking into the papers an answer shows first and
the other matching ones it offers (recall first: a paper carrying the topic is offered, never dropped).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

import numpy as np

from bot.core import Core
from bot.models import Paper, Profile
from bot.questions.authors import same_person
from bot.questions.filters import Filters
from bot.questions.request import introduces_benchmark
from bot.questions.timewords import TimeWindow
from bot.questions.topics import (
    COVERED,
    QuestionTopic,
    anchored,
    evidence,
    expand_terms,
    full_text_groups,
    is_term_spelling,
    topic_alternatives,
)
from bot.ranking.for_profile import profile_model
from bot.ranking.rank import rank_for_profile

MAX_CITATIONS = 15
MAX_MORE = 100  # further matching papers an answer offers with /more
POOL = 120  # candidates taken from the dense list
LEXICAL_POOL = 400  # and from the lexical one: every paper carrying the topic's words is a candidate (recall first)

# Relevance = cosine(question topic, paper) + lexical evidence. A topic phrase in the title is the strongest
# sign a paper is about it; in the abstract it is weaker (often a passing mention).
TITLE_BONUS = 0.15
ABSTRACT_BONUS = 0.06
PROFILE_WEIGHT = 0.10
NAME_IN_TITLE = 0.5  # a method or model name typed as written, found in the title
NAME_IN_ABSTRACT = 0.2
# A paper is cited when its relevance is within MARGIN of the best one and above FLOOR.
MARGIN = 0.16
FLOOR = 0.30
SPREAD = 0.2  # a paper an answer shows first is at most this far below the best one (the rest are offered)
ENOUGH_EVIDENCED = 3  # with this many papers carrying the topic's words, only very close others join them
CONTRIBUTION_NEAR = 0.35  # among papers introducing a benchmark, the similarity at which one is offered
NEAR = 0.45  # similarity at which a paper is offered with the rest even without the topic's words


@dataclass(frozen=True, slots=True)
class Retrieved:
    """A candidate paper with its relevance and the evidence behind it."""

    paper: Paper
    relevance: float
    dense: float
    in_title: bool
    in_abstract: bool
    embedded: bool = True  # False: found by its words while its vector is missing (the store missing or rebuilt)


async def topic_evidence(core: Core, topic: str) -> QuestionTopic:
    """Each alternative's units weighted by rarity in the archive (see `bot.questions.topics`)."""
    alternatives = topic_alternatives(topic)
    found = [await evidence(core, a.text, a.exact) for a in alternatives]
    if alternatives and alternatives[0].exact:  # "X like A, B": A and B are read as examples of X
        pairs = zip(alternatives[1:], found[1:], strict=True)
        found = [found[0], *(anchored(e, found[0]) if a.example_of else e for a, e in pairs)]
    return QuestionTopic(tuple(found))


def lexical_groups(topic: str) -> list[list[str]]:
    """Full-text alternatives for a topic: each alternative's content words, with named terms spelled any way."""
    return [g for a in topic_alternatives(topic) for g in full_text_groups(a.text)]


async def _candidates(core: Core, filters: Filters, query_vector: np.ndarray | None) -> list[Paper]:
    start = filters.window.start if filters.window else None
    end = filters.window.end if filters.window else None
    if filters.restrict_to:
        papers = await core.repo.get_papers(list(filters.restrict_to))
    elif filters.authors:
        papers = []
        for n, author in enumerate(filters.authors):  # "by X and Y": the papers they wrote together
            tokens = [t for t in re.findall(r"[\w\-']+", author) if len(t) > 1]
            theirs = await core.repo.papers_by_author(tokens, start, end)
            theirs = [p for p in theirs if any(same_person(author, name) for name in p.authors)]
            ids = {p.id for p in theirs}
            papers = theirs if n == 0 else [p for p in papers if p.id in ids]
    elif filters.contribution and start and end:
        # "new benchmarks for X": every paper of the window that introduces one is a candidate, ranked by the topic
        papers = [p for p in await core.repo.papers_between(start, end) if introduces_benchmark(p.title, p.abstract)]
    else:
        assert query_vector is not None, "a topic search needs the topic's vector"
        dense, lexical = await asyncio.gather(
            core.vectors.search_window(query_vector, POOL, start, end, filters.categories),
            core.repo.lexical_search(lexical_groups(filters.topic), start, end, LEXICAL_POOL),
        )
        ids = list(dict.fromkeys([i for i, _ in dense] + [i for i, _ in lexical]))
        papers = await core.repo.get_papers(ids)
    if filters.window:
        papers = [p for p in papers if filters.window.contains(p.announced)]
    if filters.categories:
        wanted = set(filters.categories)
        papers = [p for p in papers if wanted.intersection(p.categories)]
    return papers


_NAME = re.compile(r"(?<![\w-])(?=[\w-]*(?:[A-Z][\w-]*[A-Z]|[A-Za-z][\w-]*\d|\d[\w-]*[A-Za-z]))[A-Za-z0-9][\w-]*")


def exact_names(topic: str) -> list[re.Pattern[str]]:
    """Patterns for the names in a topic typed as a method or model is named ("YAQA", "R2R", "DeepONet",
    "SWE-bench", "Trinity-RFT"), matched case-sensitively as whole words; a named term of the topic vocabulary
    ("LLM", "MoE") is a topic, not a name."""
    found = []
    for match in _NAME.finditer(topic):
        name = match.group(0).strip("-")
        if len(name) < 3 or is_term_spelling(name) or name.isdigit():
            continue
        found.append(re.compile(rf"(?<![\w-]){re.escape(name)}(?:s|es)?(?![\w])"))
    return found


def _searches_window_index(filters: Filters) -> bool:
    """Whether the candidates come from the in-memory window index (a topic search with a window or categories)."""
    return not filters.restrict_to and not filters.authors and bool(filters.window or filters.categories)


async def _open_vectors(core: Core, filters: Filters) -> None:
    """Open what the candidate search reads: the window's part of the window index for a windowed topic search
    (all of it for categories alone), else the collection."""
    if _searches_window_index(filters):
        window = filters.window
        await core.vectors.window_index(window.start if window else None, window.end if window else None)
    else:
        await core.vectors.collection()


async def window_holds_papers(core: Core, window: TimeWindow | None) -> bool:
    """Whether any paper is stored inside `window` (anywhere, without one)."""
    latest = await core.repo.latest_day(until=window.end if window else None)
    return latest is not None and (window is None or latest >= window.start)


async def ranked(
    core: Core, filters: Filters, *, profile: Profile | None = None
) -> tuple[list[Retrieved], QuestionTopic | None]:
    """Every candidate that answers `filters` (exclusions, a contribution type and a window applied), most relevant
    first, with the topic's evidence the ranking used."""
    if not filters.topic and not filters.authors and not filters.restrict_to:
        return [], None
    if not filters.restrict_to and not await window_holds_papers(core, filters.window):
        return [], None  # before the topic's vector: nothing to find needs no embedding model (seconds to load)
    query_vector = None  # an author alone: their papers newest first (or by profile); a name's vector says nothing
    if filters.topic:
        query_text = " ".join(expand_terms(filters.topic)) or filters.topic
        # cold, the model (torch) and the vector store (Chroma) each take a second or more to load: both at once
        embedded, _ = await asyncio.gather(
            asyncio.to_thread(core.embedder.embed, [query_text]), _open_vectors(core, filters)
        )
        query_vector = embedded[0]
    papers = await _candidates(core, filters, query_vector)
    papers = await _without_excluded(core, filters, papers)
    if filters.contribution:
        papers = [p for p in papers if introduces_benchmark(p.title, p.abstract)]
    # With a window the vectors come from the index the dense search read, one snapshot: asked again after another
    # process wrote, Chroma's metadata is ahead of the vectors this process loaded and it fails with "Error finding id"
    ids = [p.id for p in papers]
    if _searches_window_index(filters):
        found = await core.vectors.window_vectors(ids)
    else:
        found = await core.vectors.found_vectors(ids)
    # a paper found by its words may not be embedded yet (asked while an ingest runs): it waits for its vector. When
    # not one candidate has a vector, the store is missing or being rebuilt: the words alone rank them (a zero
    # vector leaves the topic evidence), and the answer says so (vector_gap_note)
    if found:
        papers = [p for p in papers if p.id in found]
    if not papers:
        return [], None
    dimensions = query_vector.shape[0] if query_vector is not None else 1
    vectors = np.stack([found.get(p.id, np.zeros(dimensions, dtype=np.float32)) for p in papers])
    dense = vectors @ query_vector if query_vector is not None else np.zeros(len(papers), dtype=np.float32)
    topic_words = await topic_evidence(core, filters.topic) if filters.topic else None
    if topic_words is not None and filters.narrows:
        topic_words = topic_words.discriminating([f"{p.title}\n{p.abstract}" for p in papers])
    relevance = dense.astype(np.float64).copy()
    evidence = []
    names = exact_names(filters.topic)
    for i, paper in enumerate(papers):
        title = topic_words.coverage(paper.title, paper.abstract) if topic_words else 0.0
        abstract = topic_words.coverage(paper.abstract) if topic_words else 0.0
        relevance[i] += TITLE_BONUS * title + ABSTRACT_BONUS * abstract
        named_in_title = any(n.search(paper.title) for n in names)
        named_in_abstract = named_in_title or any(n.search(paper.abstract) for n in names)
        # a name typed as the paper writes it ("YAQA", "R2R", "DeepONet") is the strongest sign there is
        relevance[i] += NAME_IN_TITLE * named_in_title + NAME_IN_ABSTRACT * named_in_abstract
        evidence.append((title >= COVERED or named_in_title, abstract >= COVERED or named_in_abstract))
    if profile is not None:
        ranking = rank_for_profile(papers, vectors, await profile_model(core, profile), len(papers))
        by_id = {r.paper.id: r.score for r in ranking}
        profile_scores = np.asarray([by_id[p.id] for p in papers])
        spread = np.ptp(profile_scores) or 1.0
        relevance += PROFILE_WEIGHT * (profile_scores - profile_scores.min()) / spread
    order = np.argsort(-relevance, kind="stable")
    results = [
        Retrieved(papers[i], float(relevance[i]), float(dense[i]), *evidence[i], embedded=papers[i].id in found)
        for i in order
    ]
    return results, topic_words


async def _without_excluded(core: Core, filters: Filters, papers: list[Paper]) -> list[Paper]:
    """The papers about none of the question's exclusions (`QuestionTopic.is_about`: by title, or named more than
    once in the abstract)."""
    if not filters.excluded:
        return papers
    excluded = [await topic_evidence(core, topic) for topic in filters.excluded]
    return [p for p in papers if not any(e.is_about(p.title, p.abstract) for e in excluded)]


def select(results: list[Retrieved], filters: Filters, spread: float = 0.0) -> tuple[list[Retrieved], list[Retrieved]]:
    """The papers an answer shows first (about the topic by title, by abstract when close enough, or close to the
    best) and the other papers that still carry the topic in title or abstract (offered, never dropped)."""
    if not results:
        return [], []
    if filters.authors and not filters.topic:
        return results, []
    if filters.restrict_to and not filters.narrows:
        return results, []  # "only the ones from Thursday": the previous papers inside the new window
    best = results[0].relevance
    if filters.restrict_to:
        # "which of those is about X": the papers that name X, or failing that the closest few
        named = [r for r in results if r.in_title or r.in_abstract]
        return (named or results[:3]), []
    # the first page: papers carrying the topic's words and not far below the best (the others are offered)
    evidenced = [r for r in results if r.in_title or (r.in_abstract and r.dense >= FLOOR)]
    if spread:
        evidenced = [r for r in evidenced if r.relevance >= best - spread]
    # papers that carry the topic's words come first; a paper only similar in meaning joins them when few do
    close = best - (MARGIN if len(evidenced) < ENOUGH_EVIDENCED else MARGIN / 2)
    shown = [r for r in results if r in evidenced or r.relevance >= max(FLOOR, close)]
    taken = {r.paper.id for r in shown}
    near = CONTRIBUTION_NEAR if filters.contribution else NEAR
    carrying = [r for r in results if r.paper.id not in taken and (r.in_title or r.in_abstract or r.dense >= near)]
    return shown, carrying


async def retrieve(
    core: Core, filters: Filters, *, profile: Profile | None = None, limit: int = MAX_CITATIONS, cut: bool = True
) -> list[Retrieved]:
    """The papers that answer `filters`, most relevant first, cut where relevance drops off (unless not `cut`): the
    ones an answer shows first, then the ones it offers (a search's list holds both, up to `limit`)."""
    results, _ = await ranked(core, filters, profile=profile)
    if not cut:
        return results[:limit]
    shown, carrying = select(results, filters)
    return [*shown, *(r for r in carrying if r.in_title or r.in_abstract)][:limit]


async def retrieve_all(
    core: Core, filters: Filters, *, profile: Profile | None = None, limit: int = MAX_CITATIONS
) -> tuple[list[Retrieved], list[Retrieved]]:
    """The papers to show (at most `limit`) and the rest of the matching ones to offer (at most MAX_MORE)."""
    results, _ = await ranked(core, filters, profile=profile)
    shown, carrying = select(results, filters, SPREAD)
    return shown[:limit], [*shown[limit:], *carrying][:MAX_MORE]
