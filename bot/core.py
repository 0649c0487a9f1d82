"""The services every front end shares, made once and handed in (CLI, console, Discord, Telegram)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from bot.config import Settings
from bot.db.connection import open_database
from bot.db.repos import Repository
from bot.embed import Embedder, LocalEmbedder
from bot.vectors import VectorStore


@dataclass
class Core:
    """Settings, storage and models for one process; adapters receive this instead of building their own."""

    settings: Settings
    repo: Repository
    vectors: VectorStore
    embedder: Embedder
    # compiled profiles keyed by fingerprint: embedding profile text once per profile version
    profile_cache: dict[str, Any] = field(default_factory=dict)


def make_embedder(settings: Settings) -> Embedder:
    """The configured embedder (the local MiniLM model)."""
    return LocalEmbedder(batch_size=settings.embed_batch_size, threads=settings.embed_threads)


@asynccontextmanager
async def open_core(settings: Settings, embedder: Embedder | None = None) -> AsyncIterator[Core]:
    """Open the database and vector store under `settings.home`; closes them on exit."""
    settings.home.mkdir(parents=True, exist_ok=True)
    conn = await open_database(settings.db_path)
    repo = Repository(conn)
    embedder = embedder or make_embedder(settings)
    try:
        yield Core(settings=settings, repo=repo, vectors=VectorStore(settings, embedder), embedder=embedder)
    finally:
        await repo.close()
