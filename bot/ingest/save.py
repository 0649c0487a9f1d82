"""Storing fetched papers: SQLite rows, extractive TL;DRs and vectors, each paper embedded once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.core import Core
from bot.embeddings.embedder import paper_vectors
from bot.ingest.limits import clean_paper
from bot.models import Paper
from bot.text.tldr import extractive_tldr

log = logging.getLogger(__name__)

EMBED_CHUNK = 128  # papers embedded and written per step, so an interrupted ingest keeps what it finished

Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class IngestReport:
    """What one ingest did."""

    received: int
    inserted: int
    updated: int
    unchanged: int
    embedded: int

    def line(self) -> str:
        """A one-line summary for logs and the CLI."""
        return (
            f"{self.received} papers: {self.inserted} new, {self.updated} updated, {self.unchanged} unchanged; "
            f"{self.embedded} embedded"
        )


async def ensure_vectors(core: Core, papers: Sequence[Paper], progress: Progress | None = None) -> int:
    """Embed and store vectors for the papers whose current text has none yet; returns how many were embedded."""
    stored = await core.vectors.stored_hashes([p.id for p in papers])
    # similar lengths in one batch waste less padding: sort by text length before chunking
    todo = sorted((p for p in papers if stored.get(p.id) != p.vector_key), key=lambda p: len(p.text))
    if not todo:
        return 0
    tldrs = await core.repo.tldrs([p.id for p in todo])
    done = 0
    for start in range(0, len(todo), EMBED_CHUNK):
        chunk = todo[start : start + EMBED_CHUNK]
        vectors = await asyncio.to_thread(paper_vectors, core.embedder.embed, chunk)
        await core.vectors.upsert(chunk, vectors, [tldrs.get(p.id, "") for p in chunk])
        done += len(chunk)
        if progress:
            progress(done, len(todo))
    return done


async def store_papers(core: Core, papers: Sequence[Paper], progress: Progress | None = None) -> IngestReport:
    """Upsert `papers` (one transaction), give new ones an extractive TL;DR, and embed what has no vector."""
    cleaned = [clean_paper(p) for p in papers]
    counts = await core.repo.upsert_papers(cleaned)
    have = await core.repo.tldrs([p.id for p in cleaned])
    missing = {p.id: extractive_tldr(p) for p in cleaned if p.id not in have}
    await core.repo.set_tldrs(missing, "extractive")
    embedded = await ensure_vectors(core, cleaned, progress)
    report = IngestReport(len(cleaned), counts.inserted, counts.updated, counts.unchanged, embedded)
    log.info("ingest: %s", report.line())
    return report


async def refresh_vectors(core: Core, progress: Progress | None = None) -> tuple[int, int]:
    """Bring every stored paper's vector up to date (missing, or made from an older text or recipe), day by day.

    Returns (papers looked at, papers embedded). Interrupting it loses nothing: a later run continues.
    """
    seen = embedded = 0
    for day in await core.repo.announcement_days():
        papers = await core.repo.papers_on(day)
        seen += len(papers)
        embedded += await ensure_vectors(core, papers, progress)
    return seen, embedded
