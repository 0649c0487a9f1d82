"""Each paper's sentence vectors (`bot.store.sentences` encodes and decodes them): one row per paper, written in
one transaction per ingest chunk, read back with the text hash of the paper they belong to."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.store.repos.base import RepositoryBase, chunks, placeholders


@dataclass(frozen=True, slots=True)
class SentenceRow:
    """One paper's stored sentence vectors, as bytes, with what they were made from."""

    paper_id: str
    made_from: str  # `Paper.sentence_key` when they were embedded
    model: str
    sentences: int
    vectors: bytes


class SentencesRepo(RepositoryBase):
    """Sentence vectors keyed by paper id (deleted with the paper)."""

    async def save_sentence_rows(self, rows: Sequence[SentenceRow]) -> None:
        """Insert or replace `rows` in one transaction: all of them are stored, or none."""
        if not rows:
            return
        async with self.transaction() as conn:
            await conn.executemany(
                "INSERT OR REPLACE INTO sentence_vectors (paper_id, made_from, model, sentences, vectors)"
                " VALUES (?,?,?,?,?)",
                [(r.paper_id, r.made_from, r.model, r.sentences, r.vectors) for r in rows],
            )

    async def sentence_rows(self, ids: Sequence[str]) -> list[tuple[SentenceRow, str]]:
        """The stored rows among `ids`, each with its paper's current text hash (`Paper.content_hash`)."""
        found: list[tuple[SentenceRow, str]] = []
        for chunk in chunks(list(ids)):
            async with self.conn.execute(
                "SELECT s.paper_id, s.made_from, s.model, s.sentences, s.vectors, p.content_hash"
                " FROM sentence_vectors s JOIN papers p ON p.id = s.paper_id"
                f" WHERE s.paper_id IN ({placeholders(len(chunk))})",
                chunk,
            ) as cursor:
                rows = await cursor.fetchall()  # one hop to the database thread, not one per row
            found.extend((SentenceRow(r[0], r[1], r[2], r[3], bytes(r[4])), r[5]) for r in rows)
        return found

    async def sentence_coverage(self, recipe: str, model: str) -> tuple[int, int]:
        """(stored papers, papers whose sentence vectors were made from their current text by `recipe` and `model`)."""
        async with self.conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(s.made_from = p.content_hash || '/' || ? AND s.model = ?), 0)"
            " FROM papers p LEFT JOIN sentence_vectors s ON s.paper_id = p.id",
            (recipe, model),
        ) as cursor:
            row = await cursor.fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)
