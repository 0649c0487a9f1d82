"""Checking the vector store against SQLite, and rebuilding what disagrees (`paperscout db`, `db --repair`).

SQLite is the archive's truth; Chroma holds one vector per stored paper, made from its text by the current recipe
(`Paper.vector_key`). Two processes writing one embedded store (before the writer lock) left it listing vectors it
cannot return, and re-ingests trusted the stored hashes, so nothing repaired it. The check compares ids, counts and
the recipe of every vector, reads every vector back and asks the index for all of them, and compares each paper's
vector copy in SQLite (`bot.store.vector_copies`) with the vector Chroma returns; the repair deletes orphans,
unreadable vectors and copies that differ, embeds again what is missing or stale, copies the store's vectors again,
and rebuilds the whole collection from SQLite when that is not enough (or the store cannot even be listed).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from bot.core import Core
from bot.embeddings.embedder import paper_vectors
from bot.errors import thread_refused
from bot.ingest.vectors import Embedded, Progress, ensure_vectors, refresh_vectors
from bot.store.vector_copies import VectorCopies
from bot.store.vectors import CHECK_PAGE

log = logging.getLogger(__name__)

SPOT_CHECK = 16  # papers embedded again by --repair to verify that stored vectors really are what they claim
SPOT_MIN_COSINE = 0.99  # the same text through the same model on another run differs only in rounding


@dataclass(frozen=True, slots=True)
class StoreCheck:
    """What the vector store holds compared with SQLite's papers."""

    papers: int
    vectors: int
    missing: tuple[str, ...] = ()  # papers without a vector
    orphans: tuple[str, ...] = ()  # vectors without a paper
    stale: tuple[str, ...] = ()  # vectors made from another text or recipe than the paper's
    unreadable: tuple[str, ...] = ()  # vectors listed but not readable back or not returned by a search
    copies_differ: tuple[str, ...] = ()  # papers whose vector copy in SQLite is not the vector Chroma holds
    broken: str = ""  # the error when the store cannot be read at all

    @property
    def consistent(self) -> bool:
        """True when every paper has exactly one readable, current vector, every current copy of one in SQLite is
        that vector, and nothing else is stored."""
        problems = self.broken or self.missing or self.orphans or self.stale or self.unreadable or self.copies_differ
        return not problems and self.papers == self.vectors

    def problems(self) -> list[str]:
        """One phrase per kind of disagreement, e.g. '3 papers without a vector (first: 2505.17639)'."""
        if self.broken:
            return [f"the vector store cannot be read: {self.broken}"]
        found = []
        for ids, what in (
            (self.missing, "papers without a vector"),
            (self.orphans, "vectors of papers that are not stored"),
            (self.stale, "vectors made from another text or recipe"),
            (self.unreadable, "vectors that cannot be read back or searched"),
            (self.copies_differ, "vector copies in SQLite that differ from the vector store"),
        ):
            if ids:
                found.append(f"{len(ids)} {what} (first: {ids[0]})")
        if not found and self.papers != self.vectors:
            found.append(f"{self.papers} papers but {self.vectors} vectors")
        return found


async def check_store(core: Core) -> StoreCheck:
    """Compare the vector store with SQLite: ids both ways, counts, recipe per paper, every vector read back."""
    expected: dict[str, str] = {}
    for day in await core.repo.announcement_days():
        expected.update((p.id, p.vector_key) for p in await core.repo.papers_on(day))
    try:
        stored = await core.vectors.listing()
        count = await core.vectors.count()
        listed = sorted(stored)
        unreadable = set(await core.vectors.unreadable(listed))
        unreadable.update(await core.vectors.unsearchable(listed))
        differ = await _copies_differing(core, sorted(expected.keys() & stored.keys() - unreadable))
    except Exception as exc:  # chromadb raises its own errors (InternalError) and assorted others for a damaged store
        refused = thread_refused(exc)
        if refused is not None:  # the system's limit, not a damaged store: `db --repair` would not help
            raise refused from exc
        log.info("vector store check failed", exc_info=True)
        return StoreCheck(papers=len(expected), vectors=0, broken=f"{exc.__class__.__name__}: {exc}")
    both = sorted(expected.keys() & stored.keys())
    return StoreCheck(
        papers=len(expected),
        vectors=count,
        missing=tuple(sorted(expected.keys() - stored.keys())),
        orphans=tuple(sorted(stored.keys() - expected.keys())),
        stale=tuple(i for i in both if stored[i] != expected[i] and i not in unreadable),
        unreadable=tuple(sorted(unreadable)),
        copies_differ=tuple(differ),
    )


async def _copies_differing(core: Core, ids: Sequence[str]) -> list[str]:
    """The ids among `ids` whose current vector copy in SQLite (`bot.store.vector_copies`) is not, bit for bit, the
    vector the store returns: a window read from SQLite would rank by other vectors than one read from Chroma."""
    copies = VectorCopies(core.repo, core.embedder)
    differ: list[str] = []
    for start in range(0, len(ids), CHECK_PAGE):
        held = await copies.found(ids[start : start + CHECK_PAGE])
        stored = await core.vectors.found_vectors(sorted(held))
        differ += [i for i in sorted(held) if i not in stored or not np.array_equal(held[i], stored[i])]
    return differ


async def spot_check(core: Core, sample: int = SPOT_CHECK) -> list[str]:
    """Ids of a random sample of papers whose stored vector is not what embedding their text gives now."""
    ids = sorted((await core.vectors.listing()).keys())
    chosen = random.Random(len(ids)).sample(ids, min(sample, len(ids)))
    papers = await core.repo.get_papers(chosen)
    if not papers:
        return []
    stored = await core.vectors.found_vectors([p.id for p in papers])
    fresh = paper_vectors(core.embedder.embed, papers)
    return [
        p.id for p, vector in zip(papers, fresh, strict=True) if float(np.dot(stored[p.id], vector)) < SPOT_MIN_COSINE
    ]


@dataclass(frozen=True, slots=True)
class RepairReport:
    """What `db --repair` found and did."""

    before: StoreCheck
    after: StoreCheck
    deleted: int
    embedded: Embedded
    rebuilt: str  # why the whole collection was rebuilt, or ""

    def lines(self) -> list[str]:
        """A few lines for the CLI."""
        if self.before.consistent and not self.rebuilt:
            return [f"vector store consistent: {self.after.papers} papers, {self.after.vectors} vectors; nothing to do"]
        lines = [f"found: {problem}" for problem in self.before.problems()]
        if self.rebuilt:
            lines.append(f"rebuilt the vector store from SQLite ({self.rebuilt})")
        lines.append(f"repaired: {self.deleted} vectors deleted, {self.embedded.phrase('papers embedded again')}")
        lines.append(
            f"now: {self.after.papers} papers, {self.after.vectors} vectors, "
            + ("consistent" if self.after.consistent else "still inconsistent: " + "; ".join(self.after.problems()))
        )
        return lines


async def _per_id_fix(core: Core, check: StoreCheck, progress: Progress | None) -> tuple[int, Embedded]:
    drop = sorted(set(check.orphans) | set(check.unreadable))
    await core.vectors.delete(drop)
    # copies that differ are forgotten; `ensure_vectors` copies the store's vectors again (every paper's, below)
    await core.repo.delete_vector_copies(check.copies_differ)
    redo = sorted(
        set(check.missing) | set(check.stale) | (set(check.unreadable) - set(check.orphans)) | set(check.copies_differ)
    )
    papers = await core.repo.get_papers(redo)
    return len(drop), await ensure_vectors(core, papers, progress, sentences=True)


async def repair_store(core: Core, progress: Progress | None = None) -> RepairReport:
    """Make the vector store agree with SQLite: per-id fixes first, a rebuild from SQLite when they do not suffice.

    The caller holds the archive's writer lock.
    """
    before = await check_store(core)
    deleted, embedded = 0, Embedded()
    rebuilt = ""
    if core.settings.chroma_url and before.orphans:
        # A server's collection may be shared with another archive: its vectors are not ours to delete.
        log.warning("vectors of papers not stored here are left on the Chroma server; repairing the rest only")
        before = replace(before, orphans=())
        deleted, embedded = await _per_id_fix(core, before, progress)
        return RepairReport(before, await check_store(core), deleted, embedded, "")
    if before.broken:
        rebuilt = "it could not be read"
    else:
        try:
            deleted, embedded = await _per_id_fix(core, before, progress)
            after = await check_store(core)
            if not after.consistent:
                rebuilt = "fixing single vectors was not enough: " + "; ".join(after.problems())
            elif wrong := await spot_check(core):
                rebuilt = f"{len(wrong)} of {SPOT_CHECK} vectors checked differ from their paper's text"
        except Exception as exc:  # a damaged store fails in chromadb's own ways; the rebuild below handles them all
            log.info("per-id repair failed", exc_info=True)
            rebuilt = f"fixing single vectors failed: {exc.__class__.__name__}: {exc}"
    if rebuilt:
        log.warning("rebuilding the vector store: %s", rebuilt)
        await core.vectors.rebuild()
        _, embedded = await refresh_vectors(core, progress)
    return RepairReport(before, await check_store(core), deleted, embedded, rebuilt)
