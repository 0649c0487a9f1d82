"""A copy of each paper's vector in SQLite, beside its sentence vectors, for reading a window's vectors quickly.

Chroma stays the vector store: every vector is written there first, and nearest-neighbour searches over the whole
archive, the `db` checks and repairs read it. But a question nearly always names a window ("this week"), and all it
needs from the store is the window's vectors (`bot.store.window_index`); importing and opening Chroma for that is
about half of a cold `paperscout ask` (1.1-1.3 s of CPU, docs/BENCHMARKS.md). The same vectors read from SQLite cost
a few milliseconds and no import.

The copy is float32, exactly the vector Chroma holds (1.5 KB a paper, a quarter of its sentence vectors), so an
answer read from it is the same answer. It is written in the transaction that stores the chunk's sentence vectors,
right after the chunk's vectors went into Chroma; a copy counts only while it was made from the paper's current text
by the current recipe and model (`Paper.vector_key`), and a window is read from SQLite only when every paper in it has
such a copy: otherwise from Chroma, as before. `paperscout db --refresh-vectors` fills copies from Chroma without
embedding anything, `db` compares them with Chroma and `db --repair` rewrites the ones that differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bot.models import VECTOR_RECIPE, Paper, vector_key_of
from bot.store.repos.base import stored_strings

if TYPE_CHECKING:
    from bot.embeddings.embedder import Embedder
    from bot.store.repos import Repository, VectorCopyRow

STORED_DTYPE = np.dtype("<f4")  # what Chroma returns; a copy in float16 would move cosines and so answers


@dataclass(frozen=True, slots=True)
class WindowVectors:
    """Every paper of a window with its vector: what the window index is loaded with."""

    ids: list[str]
    days: list[int]  # yyyymmdd
    vectors: np.ndarray  # float32, one row per id
    categories: list[tuple[str, ...]]


class VectorCopies:
    """The SQLite copies of the stored papers' vectors: written with their sentence vectors, read by window."""

    def __init__(self, repo: Repository, embedder: Embedder) -> None:
        self.repo = repo
        self.embedder = embedder

    def rows(self, papers: Sequence[Paper], vectors: np.ndarray) -> list[VectorCopyRow]:
        """The rows that store row i of `vectors` as papers[i]'s copy (written by `SentenceVectors.save`)."""
        from bot.store.repos import VectorCopyRow

        return [
            VectorCopyRow(p.id, p.vector_key, self.embedder.name, np.ascontiguousarray(v, dtype=STORED_DTYPE).tobytes())
            for p, v in zip(papers, vectors, strict=True)
        ]

    def _readable(self, made_from: str | None, model: str | None, vector: bytes | None, content_hash: str) -> bool:
        return (
            vector is not None
            and made_from == vector_key_of(content_hash)
            and model == self.embedder.name
            and len(vector) == self.embedder.dim * STORED_DTYPE.itemsize
        )

    async def found(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The current copies among `ids` (made from the paper's current text, recipe and model), by id."""
        return {
            row.paper_id: np.frombuffer(row.vector, dtype=STORED_DTYPE).astype(np.float32)
            for row, content_hash in await self.repo.vector_copy_rows(ids)
            if self._readable(row.made_from, row.model, row.vector, content_hash)
        }

    async def coverage(self) -> tuple[int, int]:
        """(stored papers, papers with a current copy): what `paperscout db` and `doctor` report."""
        return await self.repo.vector_copy_coverage(VECTOR_RECIPE, self.embedder.name)

    async def listed(self, low: int | None, high: int | None) -> dict[str, tuple[str, ...]]:
        """The categories every paper announced in [low, high] is listed in now, by id: what a window filters on,
        read from these copies or from Chroma (whose metadata keeps the categories of the paper's last embedding,
        and a new version of the same text, cross-listed since, is not embedded again)."""
        return await self.repo.categories_between(low, high)

    async def window(self, low: int | None, high: int | None) -> WindowVectors | None:
        """Every paper announced in [low, high] (yyyymmdd, None an open end) with its copied vector, or None when
        one of them has no current copy or none is stored (the window is then read from Chroma)."""
        rows = await self.repo.window_vector_rows(low, high)
        if not rows or not all(self._readable(r.made_from, r.model, r.vector, r.content_hash) for r in rows):
            return None
        # filled row by row: joining the rows' bytes and converting them would hold the window's vectors three times
        vectors = np.empty((len(rows), self.embedder.dim), dtype=np.float32)
        for i, row in enumerate(rows):
            vectors[i] = np.frombuffer(row.vector or b"", dtype=STORED_DTYPE)
        return WindowVectors(
            ids=[r.paper_id for r in rows],
            days=[r.announced for r in rows],
            vectors=vectors,
            categories=[stored_strings(r.categories, f"categories of paper {r.paper_id}") for r in rows],
        )
