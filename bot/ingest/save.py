"""Storing fetched papers: SQLite rows, extractive TL;DRs and vectors, each paper embedded once."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core import Core
from bot.ingest.limits import clean_paper
from bot.ingest.vectors import Embedded, Progress, ensure_vectors
from bot.models import Paper
from bot.text.extractive import extractive_tldr

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IngestReport:
    """What one ingest did."""

    received: int
    inserted: int
    updated: int
    unchanged: int
    embedded: int  # papers given their vector (and sentence vectors) anew
    sentences_only: int = 0  # papers whose vector was current, given only their missing sentence vectors

    def line(self) -> str:
        """A one-line summary for logs and the CLI."""
        return (
            f"{self.received} papers: {self.inserted} new, {self.updated} updated, {self.unchanged} unchanged; "
            + Embedded(self.embedded, self.sentences_only).phrase()
        )


async def store_papers(core: Core, papers: Sequence[Paper], progress: Progress | None = None) -> IngestReport:
    """Upsert `papers` (one transaction), give new ones an extractive TL;DR, and embed what has no vector."""
    cleaned = [clean_paper(p) for p in papers]
    counts = await core.repo.upsert_papers(cleaned)
    have = await core.repo.tldrs([p.id for p in cleaned])
    missing = {p.id: extractive_tldr(p) for p in cleaned if p.id not in have}
    await core.repo.set_tldrs(missing, "extractive")
    # the papers as stored: a replacement listed on a later day keeps its first day, and a new version keeps nothing
    # of the old one's categories; its vector's labels must say the same
    stored = await core.repo.get_papers(list(dict.fromkeys(p.id for p in cleaned)))
    embedded = await ensure_vectors(core, stored, progress, sentences=True)
    report = IngestReport(
        len(cleaned), counts.inserted, counts.updated, counts.unchanged, embedded.papers, embedded.sentences_only
    )
    log.info("ingest: %s", report.line())
    return report
