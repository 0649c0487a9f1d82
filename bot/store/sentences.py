"""Each paper's sentence vectors, kept in SQLite beside the paper: its title, then every abstract sentence, embedded
apart at ingest (`bot.ingest.vectors`), so a short query is matched by the sentence that states it
(`best_sentence_similarity_of`).

MiniLM reads only the first 256 word pieces of a text and averages what it reads into one vector; a one-line interest
or a question is short, and one sentence of the abstract states it wherever it stands (docs/BENCHMARKS.md,
interests, "After (4)" and "Sentence vectors stored").

One row per paper, the matrix as float16 (~8.6 sentences and ~6.6 KB a paper): a week's papers load in one read
of a few MB, and an ingest chunk is written in one transaction, so a crash leaves whole rows or none. A row counts
only while it was made from the paper's current text by the current recipe and model (`Paper.sentence_key`);
anything else is treated as missing and embedded again by the next ingest or `paperscout db --refresh-vectors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from bot.models import SENTENCE_RECIPE, Paper, sentence_key_of

if TYPE_CHECKING:  # the scoring helper below is imported by ranking and questions without the storage behind it
    from bot.embeddings.embedder import Embedder
    from bot.store.repos import Repository, VectorCopyRow

STORED_DTYPE = np.float16  # half the disk and memory of float32; cosines move by about 1e-3


def encode(matrix: np.ndarray) -> bytes:
    """A sentence matrix as stored: float16, row-major."""
    return np.ascontiguousarray(matrix, dtype=STORED_DTYPE).tobytes()


def best_sentence_similarity_of(query_vectors: np.ndarray, matrices: Sequence[np.ndarray | None]) -> np.ndarray:
    """(papers x queries): each query's highest cosine over paper i's sentence vectors `matrices[i]`.

    Rows and queries are unit vectors; a paper whose matrix is None or empty gets NaN in its row (no sentence
    vectors stored: the caller decides what stands in for them). One matrix product for all papers.
    """
    queries = np.asarray(query_vectors, dtype=np.float32).reshape(-1, np.shape(query_vectors)[-1])
    out = np.full((len(matrices), len(queries)), np.nan, dtype=np.float32)
    held = [i for i, m in enumerate(matrices) if m is not None and len(m)]
    if not held or not len(queries):
        return out
    stacked = np.concatenate([np.asarray(matrices[i], dtype=np.float32) for i in held])
    starts = np.cumsum([0] + [len(matrices[i]) for i in held[:-1]])  # type: ignore[arg-type]
    out[held] = np.maximum.reduceat(stacked @ queries.T, starts, axis=0)
    return out


class SentenceVectors:
    """The sentence vectors of stored papers: written at ingest, read by paper id."""

    def __init__(self, repo: Repository, embedder: Embedder) -> None:
        self.repo = repo
        self.embedder = embedder

    async def save(
        self, papers: Sequence[Paper], matrices: Sequence[np.ndarray], copies: Sequence[VectorCopyRow] = ()
    ) -> None:
        """Store each paper's sentence matrix (row 0 its title) and the vector `copies` (`bot.store.vector_copies`),
        all in one transaction."""
        from bot.store.repos import SentenceRow

        rows = [
            SentenceRow(p.id, p.sentence_key, self.embedder.name, len(m), encode(m))
            for p, m in zip(papers, matrices, strict=True)
        ]
        await self.repo.save_vector_rows(rows, copies)

    async def current(self, ids: Sequence[str]) -> set[str]:
        """The ids among `ids` whose stored sentence vectors are current and readable (the rest need embedding)."""
        return set(await self.matrices(ids))

    async def coverage(self) -> tuple[int, int]:
        """(stored papers, papers with current sentence vectors): what `paperscout db` and `doctor` report."""
        return await self.repo.sentence_coverage(SENTENCE_RECIPE, self.embedder.name)

    async def matrices(self, paper_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The current sentence matrices among `paper_ids` (float32, sentences x dim, row 0 the title), by id.

        Papers without current ones (not embedded yet, or made from an older text, recipe or model) are absent.
        """
        size = self.embedder.dim * np.dtype(STORED_DTYPE).itemsize
        rows = [
            row
            for row, content_hash in await self.repo.sentence_rows(paper_ids)
            if row.made_from == sentence_key_of(content_hash)
            and row.model == self.embedder.name
            and row.sentences > 0
            and len(row.vectors) == row.sentences * size
        ]
        if not rows:
            return {}
        # one conversion for all rows: a week of papers is ~25,000 sentences, and per-row numpy calls cost more
        every = np.frombuffer(b"".join(r.vectors for r in rows), dtype=STORED_DTYPE).astype(np.float32)
        every = every.reshape(-1, self.embedder.dim)
        ends = np.cumsum([r.sentences for r in rows])
        whole = np.isfinite(every).all(axis=1)
        found: dict[str, np.ndarray] = {}
        for row, end in zip(rows, ends, strict=True):
            start = int(end) - row.sentences
            if whole[start:end].all():
                found[row.paper_id] = every[start:end]
        return found

    async def best_sentence_similarity(self, query_vectors: np.ndarray, paper_keys: Sequence[str]) -> np.ndarray:
        """(papers x queries): each query's highest cosine over paper `paper_keys[i]`'s sentences (title included).

        `query_vectors` are unit vectors of this embedder, one per row (a single vector is one query). A paper
        with no current sentence vectors gets NaN in its row.
        """
        by_id = await self.matrices(paper_keys)
        return best_sentence_similarity_of(query_vectors, [by_id.get(key) for key in paper_keys])
