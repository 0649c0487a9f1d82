"""Breaking an archive's vector store the ways issue 17 found, from a separate process (as the damage happened).

    python -m tests.store_breaker race HOME TAG COUNT PAUSE
    python -m tests.store_breaker damage HOME

``race`` is a writer that ignores the writer lock, as every writer did before issue 17: it upserts COUNT made-up
papers (ids ``2401.TAG####``, random unit vectors) through paperscout's own `VectorStore`, in ingest-sized chunks
with PAUSE seconds between them (the time embedding a chunk takes). Two of these started a moment apart leave the
embedded Chroma store listing vectors it cannot return: filtered queries fail with ``InternalError: Error finding
id``. ``damage`` deletes the vectors of 3 stored papers, stores 2 vectors of papers that do not exist and marks
2 vectors as made from another text (what a half-finished upgrade or a lost write leaves).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import sys
from pathlib import Path

import numpy as np

from bot.config import Settings
from bot.core import open_core
from bot.ingest.vectors import EMBED_CHUNK
from bot.models import Paper
from bot.store.vectors import VectorStore

DIM = 384


class NoModel:
    """Enough of an `Embedder` for a store that is only given vectors."""

    name = "all-MiniLM-L6-v2"
    dim = DIM

    def embed(self, texts: list[str]) -> np.ndarray:
        raise AssertionError("the store breaker brings its own vectors")


def made_up(tag: int, numbers: range) -> list[Paper]:
    """Papers that are not in the archive, with ids no real paper of the test data has."""
    day = dt.date(2024, 1, 2)
    return [Paper(f"2401.{tag}{n:04d}", f"Made-up paper {n}", ("A",), "Text.", ("cs.LG",), day) for n in numbers]


def random_vectors(rng: np.random.Generator, count: int) -> np.ndarray:
    vectors = rng.normal(size=(count, DIM)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


async def race(home: Path, tag: int, count: int, pause: float) -> None:
    store = VectorStore(Settings(home=home), NoModel())  # type: ignore[arg-type]
    rng = np.random.default_rng(tag)
    for start in range(0, count, EMBED_CHUNK):
        await asyncio.sleep(pause)
        papers = made_up(tag, range(start, min(count, start + EMBED_CHUNK)))
        await store.upsert(papers, random_vectors(rng, len(papers)))


async def damage(home: Path) -> None:
    async with open_core(Settings(home=home), NoModel()) as core:  # type: ignore[arg-type]
        days = await core.repo.announcement_days()
        ids = sorted([p.id for day in days for p in await core.repo.papers_on(day)])
        await core.vectors.delete(ids[:3])
        orphans = made_up(9, range(2))
        await core.vectors.upsert(orphans, random_vectors(np.random.default_rng(9), 2))
        await core.vectors.update_metadata(ids[3:5], [{"content_hash": "0000/older-recipe"}] * 2)


if __name__ == "__main__":
    if sys.argv[1] == "race":
        asyncio.run(race(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])))
    else:
        asyncio.run(damage(Path(sys.argv[2])))
