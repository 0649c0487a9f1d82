"""The services every front end shares, made once and handed in (CLI, console, Discord, Telegram)."""

from __future__ import annotations

import asyncio
import os
import sys
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.config import Settings
from bot.digests.sent_journal import JOURNAL_FILE, SentJournal
from bot.embeddings.embedder import VERIFIED_WEIGHTS, Embedder, LocalEmbedder
from bot.errors import ConfigError
from bot.llm.client import LLMClient
from bot.llm.prompts import Prompts, load_prompts
from bot.llm.usage import UsageRecorder
from bot.store.connection import open_database
from bot.store.repos import Repository
from bot.store.vector_copies import VectorCopies
from bot.store.vectors import VectorStore
from bot.text.terms import ENGLISH_LIST, english_list_path

if TYPE_CHECKING:
    from bot.embeddings.query import QueryEmbedder
    from bot.store.sentences import SentenceVectors


@dataclass
class LLMRuntime:
    """The configured LLM endpoint, its checked prompt templates and usage recording, shared by every caller."""

    client: LLMClient
    prompts: Prompts

    @property
    def model(self) -> str:
        """The configured model name; cached scores are keyed by it."""
        return self.client.model


class KeyedLocks:
    """One asyncio lock per key (a user, a chat), made on first use and dropped once nobody holds or waits on it.

    Adapters deliver a user's messages concurrently (two quick Telegram messages, a button press during a reply);
    each step of a conversation reads, changes and stores its state, so two steps of one user must not interleave.
    """

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def __call__(self, key: str) -> asyncio.Lock:
        """The lock of `key`; hold a reference (``async with locks(key):``) for as long as it matters."""
        lock = self._locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[key] = lock
        return lock

    def __len__(self) -> int:
        return len(self._locks)


@dataclass
class Core:
    """Settings, storage and models for one process; adapters receive this instead of building their own."""

    settings: Settings
    repo: Repository
    vectors: VectorStore
    # embeds what is stored (paper and sentence vectors: one computation, torch) and, unless `question_embedder` is
    # set, questions and queries too
    embedder: Embedder
    # compiled profiles keyed by fingerprint: embedding profile text once per profile version
    profile_cache: dict[str, Any] = field(default_factory=dict)
    # per-user feedback models (bot.ranking.learn), keyed by user key; replaced after every reaction
    feedback_models: dict[str, Any] = field(default_factory=dict)
    # present only when an LLM is configured; everything works without it
    llm: LLMRuntime | None = None
    # the index of stored author names (bot.questions.authors), keyed by the store's generation of papers it was
    # built at (`PapersRepo.papers_generation`, raised by any write of a paper)
    author_index: dict[int, Any] = field(default_factory=dict)
    # the words of stored titles (bot.text.spelling), keyed by the generation of papers they were read at
    title_vocabulary: dict[int, Any] = field(default_factory=dict)
    # held while `title_vocabulary` is read or built: concurrent questions after an ingest build it once
    vocabulary_building: asyncio.Lock = field(default_factory=asyncio.Lock)
    # the words stored titles and abstracts write (bot.text.spelling.WrittenWords), keyed as `title_vocabulary` is
    written_words: dict[int, Any] = field(default_factory=dict)
    # serialises each user's conversation steps (bot.members.onboarding) and each digest's delivery
    # (bot.digests.delivery)
    user_locks: KeyedLocks = field(default_factory=KeyedLocks)
    # digest messages noted the moment a platform accepts them (bot.digests.delivery); None for a core without a home
    sent_journal: SentJournal | None = None
    # when each member's last answer in each place was sent (bot.chat.questions), on the monotonic clock; inf while
    # it is being worked out
    last_questions: dict[str, float] = field(default_factory=dict)
    # a day's ranking for a profile (bot.digests.standing.standing_of), kept so each /why does not rank the day
    # again: by what the ranking depends on, with when it was made (monotonic clock)
    day_standings: dict[tuple[object, ...], tuple[float, Any]] = field(default_factory=dict)
    # a one-shot command's embedder of questions and queries (`command_embedder`: NumPy, no torch); never stores
    question_embedder: Embedder | None = None

    @property
    def query_embedder(self) -> Embedder:
        """What embeds a question, a search query or a profile's texts: vectors compared, never stored."""
        return self.question_embedder or self.embedder

    @property
    def sentences(self) -> SentenceVectors:
        """Each stored paper's sentence vectors (bot.store.sentences), in SQLite beside the paper."""
        from bot.store.sentences import SentenceVectors  # here: at the top it lengthens every chain through core

        return SentenceVectors(self.repo, self.embedder)


def make_llm(settings: Settings, repo: Repository) -> LLMRuntime | None:
    """The LLM runtime when one is configured (prompt templates checked now, at start-up), else None."""
    if not settings.llm_enabled:
        return None
    prompts = load_prompts(settings.prompts_dir)
    return LLMRuntime(client=LLMClient(settings, sink=UsageRecorder(repo)), prompts=prompts)


def command_embedder(settings: Settings) -> QueryEmbedder:
    """The embedder of a one-shot command that embeds a question or a query (`ask`, `search`): short requests in
    NumPy in this process, without torch (`bot.embeddings.query`); larger ones by torch, in a helper process
    (`bot.embeddings.process`) on a machine with a second core for it, else in this process."""
    from bot.embeddings.query import QueryEmbedder

    verified = settings.home / VERIFIED_WEIGHTS
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    bulk: Embedder = make_embedder(settings)
    if cores >= 2 and sys.executable:
        from bot.embeddings.process import ProcessEmbedder

        bulk = ProcessEmbedder(batch_size=settings.embed_batch_size, threads=settings.embed_threads, verified=verified)
    return QueryEmbedder(bulk, settings.embed_batch_size, settings.embed_threads, verified=verified)


def make_embedder(settings: Settings) -> Embedder:
    """The configured embedder (the local MiniLM model)."""
    return LocalEmbedder(
        batch_size=settings.embed_batch_size, threads=settings.embed_threads, verified=settings.home / VERIFIED_WEIGHTS
    )


@asynccontextmanager
async def open_core(
    settings: Settings, embedder: Embedder | None = None, query_embedder: Embedder | None = None
) -> AsyncIterator[Core]:
    """Open the database and vector store under `settings.home`; closes them on exit. The stores embed with
    `embedder` (else the configured one); `query_embedder`, if given, embeds only questions and queries."""
    if english_list_path() is None:  # word matching and spelling need it: a clear error now, not a wrong answer later
        raise ConfigError(
            f"symspellpy's English word list ({ENGLISH_LIST}, bundled with the symspellpy package) was not found: "
            "word matching and spelling need it; install paperscout's dependencies again (pip install -e ., or pip "
            "install --force-reinstall symspellpy)"
        )
    settings.home.mkdir(parents=True, exist_ok=True)
    conn = await open_database(settings.db_path)
    repo = Repository(conn)
    llm = None
    try:
        llm = make_llm(settings, repo)
        embedder = embedder or make_embedder(settings)
        vectors = VectorStore(settings, embedder, VectorCopies(repo, embedder))
        journal = SentJournal(settings.home / JOURNAL_FILE)
        yield Core(
            settings=settings,
            repo=repo,
            vectors=vectors,
            embedder=embedder,
            llm=llm,
            sent_journal=journal,
            question_embedder=query_embedder,
        )
        journal.close()
    finally:
        if llm is not None:
            await llm.client.aclose()
        await repo.close()
