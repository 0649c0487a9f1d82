"""Every stored paper's vector made from its current text: embedded once, in chunks, and brought up to date."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from bot.embeddings.embedder import paper_vectors
from bot.models import Paper

if TYPE_CHECKING:
    from bot.core import Core

EMBED_CHUNK = 128  # papers embedded and written per step, so an interrupted ingest keeps what it finished

Progress = Callable[[int, int], None]


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
