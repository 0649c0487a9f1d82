"""Papers and their vectors -> a `TopicTree`: group (`grouping`) by research areas (`areas`) at the top and by vectors
and words (`words`) below, name each group (`naming`), and give every paper its one line."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from bot.embeddings.embedder import combine_vectors
from bot.errors import InputError
from bot.models import Paper
from bot.text.extractive import extractive_tldr

from .areas import Areas, area_profiles, bundled_areas, known_to
from .grouping import joined_features, two_levels
from .naming import PhraseCounts, choose_headings, shorten
from .tree import PaperText, Topic, TopicPaper, TopicTree
from .words import background_counts, bundled_background, phrase_sets, surface_forms, word_matrix

MAX_PAPERS = 5000  # Ward's method keeps every pairwise distance: 5,000 papers take ~100 MB
OTHER = "Other papers"


def build_topic_tree(
    papers: Sequence[PaperText],
    vectors: np.ndarray,
    background: Sequence[tuple[str, str]] = (),
    areas: Areas | bool = True,
    model: str = "",
) -> TopicTree:
    """Group `papers` (with one vector per paper, in order) into a two-level tree of named topics.

    `background` (title, abstract pairs) joins the bundled arXiv day as the corpus that words are weighed against:
    pass the rest of the week, so a heading says what sets a group apart from it. The top level is cut by research
    area (`areas`: True for the shipped ones, False for none, or others) when the areas know these papers and were
    learnt with `model`, the embedding model of `vectors` ('' when unknown). Nothing is stored or fetched.
    """
    if len(papers) > MAX_PAPERS:
        raise InputError(f"{len(papers)} papers is too many to group at once; the limit is {MAX_PAPERS}")
    if len(vectors) != len(papers):
        raise InputError(f"{len(papers)} papers but {len(vectors)} vectors")
    if not papers:
        return TopicTree()
    extra = tuple(background)
    # one BLAS thread: on a busy two-core machine, OpenBLAS's threads made the SVD eight times slower, not faster
    with threadpool_limits(limits=1):
        features = joined_features(vectors, word_matrix(papers, bundled_background() + extra))
        placed = bundled_areas() if areas is True else None if areas is False else areas
        top = area_profiles(vectors, placed) if placed is not None and known_to(vectors, placed, model) else None
        groups = two_levels(features, top) if len(papers) >= 4 else [[list(range(len(papers)))]]
    known = background_counts(extra)
    counts = PhraseCounts([phrase_sets(p.title, p.abstract) for p in papers], known.counts, known.size, known.modifiers)
    everyone = list(range(len(papers)))
    top_keys = choose_headings(counts, [[i for sub in topic for i in sub] for topic in groups], everyone)
    sub_keys = [
        choose_headings(counts, topic, [i for sub in topic for i in sub], frozenset({key} if key else ()))
        if len(topic) > 1
        else [None]
        for topic, key in zip(groups, top_keys, strict=True)
    ]
    wanted = {k for k in top_keys if k} | {k for keys in sub_keys for k in keys if k}
    forms = surface_forms(papers, wanted)
    shown = [_paper(p) for p in papers]
    topics = []
    for topic, key, keys in zip(groups, top_keys, sub_keys, strict=True):
        name = shorten(forms.get(key or "", OTHER))
        if len(topic) == 1:
            topics.append(Topic(name, papers=tuple(shown[i] for i in topic[0])))
            continue
        subtopics = tuple(
            Topic(shorten(forms.get(sub_key or "", OTHER)), papers=tuple(shown[i] for i in members))
            for members, sub_key in zip(topic, keys, strict=True)
        )
        topics.append(Topic(name, subtopics=subtopics))
    return TopicTree(tuple(topics))


def paper_text_vectors(embed: Callable[[list[str]], np.ndarray], papers: Sequence[PaperText]) -> np.ndarray:
    """The vectors papers are stored by (`bot.embeddings.embedder.paper_vectors`: title and abstract plus title), for
    papers that are not stored."""
    if not papers:
        return np.zeros((0, 0), dtype=np.float32)
    vectors = np.asarray(embed([f"{p.title}. {p.abstract}" for p in papers] + [p.title for p in papers]))
    return combine_vectors(vectors[: len(papers)], vectors[len(papers) :])


def _paper(paper: PaperText) -> TopicPaper:
    line = paper.line or extractive_tldr(as_paper(paper))
    return TopicPaper(paper.id, paper.title, line, paper.url)


def as_paper(paper: PaperText) -> Paper:
    """A `PaperText` as the `Paper` the TL;DR functions read (title and abstract; nothing else is known)."""
    return Paper(paper.id, paper.title, (), paper.abstract, (), dt.date.min)
