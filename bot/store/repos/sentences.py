"""The vectors SQLite keeps beside each paper: its sentence vectors (`bot.store.sentences` encodes and decodes them)
and a copy of its paper vector (`bot.store.vector_copies`), one row each per paper, written together in one
transaction per ingest chunk, read back with what the paper they belong to is now."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.store.repos.base import RepositoryBase, chunks, placeholders


@dataclass(frozen=True, slots=True)
class SentenceRow:
    """One paper's stored sentence vectors, as bytes, with what they were made from."""

    paper_id: str
    made_from: str  # `Paper.sentence_key` when they were embedded
    model: str
    sentences: int
    vectors: bytes


@dataclass(frozen=True, slots=True)
class VectorCopyRow:
    """One paper's copy of its vector, as bytes, with what it was made from."""

    paper_id: str
    made_from: str  # `Paper.vector_key` when it was embedded
    model: str
    vector: bytes


@dataclass(frozen=True, slots=True)
class WindowVectorRow:
    """A paper of a window with its copied vector as stored (None when it has none) and what it is now."""

    paper_id: str
    announced: int  # yyyymmdd
    categories: str  # JSON list, as the papers table stores it
    content_hash: str  # `Paper.content_hash` of its current text
    made_from: str | None
    model: str | None
    vector: bytes | None


class SentencesRepo(RepositoryBase):
    """Sentence vectors and vector copies keyed by paper id (deleted with the paper)."""

    async def save_sentence_rows(self, rows: Sequence[SentenceRow]) -> None:
        """Insert or replace `rows` in one transaction: all of them are stored, or none."""
        await self.save_vector_rows(rows, ())

    async def save_vector_rows(self, sentences: Sequence[SentenceRow], copies: Sequence[VectorCopyRow]) -> None:
        """Insert or replace sentence rows and vector copies in one transaction: all of them are stored, or none."""
        if not sentences and not copies:
            return
        async with self.transaction() as conn:
            await conn.executemany(
                "INSERT OR REPLACE INTO sentence_vectors (paper_id, made_from, model, sentences, vectors)"
                " VALUES (?,?,?,?,?)",
                [(r.paper_id, r.made_from, r.model, r.sentences, r.vectors) for r in sentences],
            )
            # a copy only of a stored paper: papers ranked without being stored (an evaluation's) have a vector to
            # rank by but no row for their copy to belong to
            await conn.executemany(
                "INSERT OR REPLACE INTO paper_vectors (paper_id, made_from, model, vector)"
                " SELECT ?,?,?,? WHERE EXISTS (SELECT 1 FROM papers WHERE id = ?)",
                [(r.paper_id, r.made_from, r.model, r.vector, r.paper_id) for r in copies],
            )

    async def delete_vector_copies(self, ids: Sequence[str]) -> None:
        """Forget the vector copies of `ids` (their vectors are being made again)."""
        async with self.transaction() as conn:
            for chunk in chunks(list(ids)):
                await conn.execute(f"DELETE FROM paper_vectors WHERE paper_id IN ({placeholders(len(chunk))})", chunk)

    async def vector_copy_rows(self, ids: Sequence[str]) -> list[tuple[VectorCopyRow, str]]:
        """The stored vector copies among `ids`, each with its paper's current text hash (`Paper.content_hash`)."""
        rows = await self._rows_with_hash("paper_vectors", "x.paper_id, x.made_from, x.model, x.vector", ids)
        return [(VectorCopyRow(r[0], r[1], r[2], bytes(r[3])), r[4]) for r in rows]

    async def window_vector_rows(self, low: int | None, high: int | None) -> list[WindowVectorRow]:
        """Every paper announced in [low, high] (yyyymmdd, None an open end) with its vector copy, if any."""
        async with self.conn.execute(
            "SELECT p.id, p.announced, p.categories, p.content_hash, v.made_from, v.model, v.vector"
            " FROM papers p LEFT JOIN paper_vectors v ON v.paper_id = p.id"
            " WHERE p.announced >= ? AND p.announced <= ?",
            (-(10**9) if low is None else low, 10**9 if high is None else high),
        ) as cursor:
            rows = await cursor.fetchall()  # one hop to the database thread, not one per row
        return [
            WindowVectorRow(r[0], r[1], r[2], r[3], r[4], r[5], None if r[6] is None else bytes(r[6])) for r in rows
        ]

    async def vector_copy_coverage(self, recipe: str, model: str) -> tuple[int, int]:
        """(stored papers, papers whose vector copy was made from their current text by `recipe` and `model`)."""
        return await self._coverage("paper_vectors", recipe, model)

    async def _coverage(self, table: str, recipe: str, model: str) -> tuple[int, int]:
        """(stored papers, papers whose row in `table` was made from their current text by `recipe` and `model`)."""
        async with self.conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(x.made_from = p.content_hash || '/' || ? AND x.model = ?), 0)"
            f" FROM papers p LEFT JOIN {table} x ON x.paper_id = p.id",
            (recipe, model),
        ) as cursor:
            row = await cursor.fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    async def _rows_with_hash(self, table: str, columns: str, ids: Sequence[str]) -> list[tuple[Any, ...]]:
        """`columns` of the rows of `table` among `ids`, each followed by its paper's current text hash."""
        found: list[tuple[Any, ...]] = []
        for chunk in chunks(list(ids)):
            async with self.conn.execute(
                f"SELECT {columns}, p.content_hash FROM {table} x JOIN papers p ON p.id = x.paper_id"
                f" WHERE x.paper_id IN ({placeholders(len(chunk))})",
                chunk,
            ) as cursor:
                found.extend(tuple(r) for r in await cursor.fetchall())  # one hop to the database thread
        return found

    async def sentence_rows(self, ids: Sequence[str]) -> list[tuple[SentenceRow, str]]:
        """The stored rows among `ids`, each with its paper's current text hash (`Paper.content_hash`)."""
        columns = "x.paper_id, x.made_from, x.model, x.sentences, x.vectors"
        rows = await self._rows_with_hash("sentence_vectors", columns, ids)
        return [(SentenceRow(r[0], r[1], r[2], r[3], bytes(r[4])), r[5]) for r in rows]

    async def sentence_coverage(self, recipe: str, model: str) -> tuple[int, int]:
        """(stored papers, papers whose sentence vectors were made from their current text by `recipe` and `model`)."""
        return await self._coverage("sentence_vectors", recipe, model)
