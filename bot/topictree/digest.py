"""A digest's papers as a topic tree: the weekly digest's picks grouped from their stored vectors and their words,
reordered topic by topic, with the headings as `DigestSection`s every renderer lays out."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from bot.llm.usage import budget_today
from bot.models import DigestSection, ScoredPaper
from bot.views.model import PaperView

from .build import build_topic_tree
from .llm_names import llm_named_tree
from .tree import PaperText, TopicTree

if TYPE_CHECKING:
    from bot.core import Core

log = logging.getLogger(__name__)

MIN_PAPERS = 6  # fewer papers read better as a plain list


def tree_sections(tree: TopicTree) -> tuple[list[str], tuple[DigestSection, ...]]:
    """The paper ids in the tree's order and the headings over them."""
    order: list[str] = []
    sections: list[DigestSection] = []
    for topic in tree.topics:
        sections.append(DigestSection(topic.name, 1, len(topic.papers), topic.note))
        order += [p.id for p in topic.papers]
        for sub in topic.subtopics:
            sections.append(DigestSection(sub.name, 2, len(sub.papers), sub.note))
            order += [p.id for p in sub.papers]
    return order, tuple(sections)


async def grouped_views(
    core: Core, views: Sequence[PaperView]
) -> tuple[tuple[PaperView, ...], tuple[DigestSection, ...]]:
    """Paper views (a week of posted digests) reordered topic by topic and renumbered, with the headings; unchanged
    without headings when too few or a paper has no stored vector. Words: each paper's title and TL;DR."""
    ids = list(dict.fromkeys(v.id for v in views))
    by_id = {v.id: v for v in views}
    found = await core.vectors.found_vectors(ids) if len(ids) >= MIN_PAPERS else {}
    if len(ids) < MIN_PAPERS or len(found) < len(ids):
        return tuple(by_id[i] for i in ids), ()
    papers = [PaperText(i, by_id[i].title, by_id[i].tldr or by_id[i].title, line=by_id[i].tldr) for i in ids]
    vectors = np.asarray([found[i] for i in ids], dtype=np.float32)
    tree = await asyncio.to_thread(build_topic_tree, papers, vectors, model=core.embedder.name)
    order, sections = tree_sections(tree)
    return tuple(replace(by_id[i], number=n) for n, i in enumerate(order, 1)), sections


async def grouped_items(
    core: Core, items: Sequence[ScoredPaper]
) -> tuple[tuple[ScoredPaper, ...], tuple[DigestSection, ...]]:
    """`items` reordered topic by topic, with the topic headings; unchanged and without headings when there are too
    few papers or a paper has no stored vector (the digest is still sent, as a ranked list)."""
    if len(items) < MIN_PAPERS:
        return tuple(items), ()
    ids = [item.paper.id for item in items]
    found = await core.vectors.found_vectors(ids)
    if len(found) < len(ids):
        log.info("weekly digest not grouped: %d of %d papers have no stored vector", len(ids) - len(found), len(ids))
        return tuple(items), ()
    papers = [PaperText(i.paper.id, i.paper.title, i.paper.abstract, line=i.tldr) for i in items]
    vectors = np.asarray([found[i] for i in ids], dtype=np.float32)
    tree = await asyncio.to_thread(build_topic_tree, papers, vectors, model=core.embedder.name)
    if core.llm is not None:  # better headings and a note per topic, within the daily budget
        tree, note = await llm_named_tree(
            core.llm.client, core.llm.prompts.topics, tree, lambda: budget_today(core.repo, core.settings)
        )
        if note:
            log.info("weekly digest: %s", note)
    order, sections = tree_sections(tree)
    by_id = {item.paper.id: item for item in items}
    return tuple(by_id[i] for i in order), sections
