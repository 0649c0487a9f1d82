"""One writer of an archive's vectors: a ranking that finds papers without a vector embeds them without the
archive's writer lock and stores them only under it (bot.ingest.vectors.ranking_vectors); while another process holds
it (the running bot beside a CLI `digest` or `ask`), the ranking uses the vectors it made and stores none, and an
ingest is refused. Within one process the lock is given back by its last user (bot.store.archive_lock)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from bot.config import Settings
from bot.core import Core, open_core
from bot.errors import StateError
from bot.ingest.save import store_papers
from bot.ingest.vectors import ensure_vectors
from bot.models import Profile, Topic
from bot.ranking.for_profile import rank_with_vectors
from bot.store.archive_lock import (
    LOCK_FILE,
    VECTOR_WRITER,
    hold_archive,
    holds_archive,
    vector_writes,
    vector_writes_if_free,
)
from bot.store.vector_copies import VectorCopies
from tests.test_vector_copies import PAPERS, ids_of
from tests.word_vectors import WordEmbedder

PROFILE = Profile(name="routing", topics=(Topic("sparse routing", "sparse routing of experts"),))
HOLD = """
import sys
from bot.config import Settings
from bot.store.archive_lock import hold_archive
with hold_archive(Settings(home=sys.argv[1]), "run"):
    print("held", flush=True)
    sys.stdin.read()
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def start_writer(home: Path) -> subprocess.Popen[str]:
    """Another process holding the archive's writer lock (as `paperscout run` does) until its stdin closes."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


@pytest.fixture
def other_writer(home: Path) -> Iterator[subprocess.Popen[str]]:
    """`start_writer` for the whole test (released at its end if the test did not)."""
    holder = start_writer(home)
    yield holder
    if holder.poll() is None:
        release(holder)


def release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.close()
    assert holder.wait(timeout=60) == 0


async def test_a_ranking_beside_another_writer_embeds_what_is_missing_and_stores_none_of_it(
    home: Path, other_writer: subprocess.Popen[str]
) -> None:
    settings = Settings(home=home)  # type: ignore[call-arg]
    async with open_core(settings, WordEmbedder()) as core:
        await core.repo.upsert_papers(PAPERS)  # stored, not embedded yet (an interrupted ingest)
        ranked, vectors = await rank_with_vectors(core, PAPERS, PROFILE)
        assert len(ranked) == len(PAPERS) and vectors.shape == (len(PAPERS), core.embedder.dim)
        assert await core.vectors.stored_hashes(ids_of(PAPERS)) == {}
        assert await VectorCopies(core.repo, core.embedder).found(ids_of(PAPERS)) == {}
        with pytest.raises(StateError, match=r"being written by pid \d+ \(run, since"):
            await store_papers(core, PAPERS)

        release(other_writer)
        ranked_again, stored_vectors = await rank_with_vectors(core, PAPERS, PROFILE)
        assert sorted(await core.vectors.stored_hashes(ids_of(PAPERS))) == sorted(ids_of(PAPERS))
        assert sorted(await VectorCopies(core.repo, core.embedder).found(ids_of(PAPERS))) == sorted(ids_of(PAPERS))
    # the same vectors, whether used unstored or read back from the store
    assert np.allclose(vectors, stored_vectors, atol=1e-6)
    assert [s.paper.id for s in ranked] == [s.paper.id for s in ranked_again]
    assert not holds_archive(settings), "the lock taken to store them was given back"


async def test_a_process_holding_the_writer_lock_stores_what_its_rankings_embed(home: Path) -> None:
    settings = Settings(home=home)  # type: ignore[call-arg]
    with hold_archive(settings, "run"):
        assert holds_archive(settings)
        async with open_core(settings, WordEmbedder()) as core:
            await core.repo.upsert_papers(PAPERS)
            await rank_with_vectors(core, PAPERS, PROFILE)
            assert sorted(await core.vectors.stored_hashes(ids_of(PAPERS))) == sorted(ids_of(PAPERS))
    assert not holds_archive(settings)


async def test_a_vector_the_other_writer_removes_while_a_ranking_reads_is_embedded_not_a_key_error(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other writer may remove vectors the ranking read as current a moment before (`db --repair` rebuilds the
    store): the ranking embeds those too, as it does the ones it found without a current vector."""
    settings = Settings(home=home)  # type: ignore[call-arg]
    async with open_core(settings, WordEmbedder()) as core:
        await store_papers(core, PAPERS)
        expected = await core.vectors.vectors(ids_of(PAPERS))
        current = await core.vectors.stored_hashes(ids_of(PAPERS))
        holder = start_writer(home)
        try:
            await core.vectors.delete([PAPERS[0].id])  # as the repair began, after the ranking read it as current

            async def read_before_the_repair(ids: list[str]) -> dict[str, str]:
                # and one paper is read without a current vector (a new version), so the ranking embeds
                return {i: current[i] for i in ids if i in current and i != PAPERS[1].id}

            monkeypatch.setattr(core.vectors, "stored_hashes", read_before_the_repair)
            ranked, vectors = await rank_with_vectors(core, PAPERS, PROFILE)
        finally:
            release(holder)
    assert len(ranked) == len(PAPERS)
    assert np.allclose(vectors, expected, atol=1e-6)


def lock_is_free(home: Path) -> bool:
    """Whether anyone, this process included, holds the archive's writer lock (flock conflicts between two open files
    of one process too)."""
    with open(home / LOCK_FILE, "a+", encoding="utf-8") as probe:
        try:
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(probe, fcntl.LOCK_UN)
        return True


class LockWatchingEmbedder(WordEmbedder):
    """Records, at every embedding, whether the archive's writer lock was free; `meanwhile` runs then too (as another
    writer storing while this one embeds)."""

    def __init__(self, home: Path, meanwhile: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.home, self.meanwhile, self.lock_free_while_embedding = home, meanwhile, list[bool]()

    def embed(self, texts: list[str]) -> np.ndarray:
        self.lock_free_while_embedding.append(lock_is_free(self.home))
        if self.meanwhile is not None:
            meanwhile, self.meanwhile = self.meanwhile, None
            meanwhile()
        return super().embed(texts)


async def test_a_ranking_embeds_without_the_writer_lock_and_takes_it_only_to_store(home: Path) -> None:
    """A CLI digest that finds a day without vectors must not keep `paperscout run` or an ingest from starting for
    the whole embedding: the lock is free while it embeds, and the vectors are stored after."""
    settings = Settings(home=home)  # type: ignore[call-arg]
    embedder = LockWatchingEmbedder(home)
    async with open_core(settings, embedder) as core:
        await core.repo.upsert_papers(PAPERS)
        await rank_with_vectors(core, PAPERS, PROFILE)
        assert sorted(await core.vectors.stored_hashes(ids_of(PAPERS))) == sorted(ids_of(PAPERS))
        assert sorted(await VectorCopies(core.repo, core.embedder).found(ids_of(PAPERS))) == sorted(ids_of(PAPERS))
    assert embedder.lock_free_while_embedding and all(embedder.lock_free_while_embedding)  # papers and profile
    assert lock_is_free(home) and not holds_archive(settings)


class AnotherWriter:
    """Another writer that, while this one embeds, stores its own vector for PAPERS[0] (`theirs`) and a new text of
    PAPERS[1]: `stores` runs in the embedding's thread, while the event loop is free."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.core: Core | None = None  # the core this process opened, set once it is open
        self.theirs = np.zeros((1, 384), dtype=np.float32)
        self.theirs[0, 7] = 1.0

    def stores(self) -> None:
        core = self.core
        assert core is not None

        async def store() -> None:
            await core.vectors.upsert([PAPERS[0]], self.theirs, [""])
            await core.repo.upsert_papers([dataclasses.replace(PAPERS[1], abstract="A new version: routing, revised.")])

        asyncio.run_coroutine_threadsafe(store(), self.loop).result(timeout=60)


async def test_what_was_stored_or_changed_while_a_ranking_embedded_is_not_written_over(home: Path) -> None:
    """Checked again under the lock: a vector another writer stored meanwhile is kept (not written twice), and a
    paper whose stored text changed meanwhile is not given the vector of its older text."""
    settings = Settings(home=home)  # type: ignore[call-arg]
    meanwhile = AnotherWriter(asyncio.get_running_loop())
    async with open_core(settings, LockWatchingEmbedder(home, meanwhile.stores)) as core:
        meanwhile.core = core
        await core.repo.upsert_papers(PAPERS)
        _, vectors = await rank_with_vectors(core, PAPERS, PROFILE)
        stored = await core.vectors.stored_hashes(ids_of(PAPERS))
        kept = await core.vectors.found_vectors([PAPERS[0].id])
    theirs = meanwhile.theirs[0]
    assert np.allclose(kept[PAPERS[0].id], theirs, atol=1e-6) and np.allclose(vectors[0], theirs, atol=1e-6)
    assert PAPERS[1].id not in stored, "the older text's vector was stored for a paper that changed"
    assert sorted(stored) == sorted(ids_of(PAPERS[:1] + PAPERS[2:]))


async def test_the_writer_lock_shared_in_one_process_is_held_until_its_last_user_ends(home: Path) -> None:
    """Two rankings of one process storing at once share one hold: the first to finish must not release it while
    the other still writes; nor may a command's hold end under a ranking that joined it."""
    settings = Settings(home=home)  # type: ignore[call-arg]
    async with contextlib.AsyncExitStack() as first, contextlib.AsyncExitStack() as second:
        assert await first.enter_async_context(vector_writes_if_free(settings))
        assert await second.enter_async_context(vector_writes_if_free(settings))
        await first.aclose()
        assert holds_archive(settings) and not lock_is_free(home)
        await second.aclose()
        assert not holds_archive(settings) and lock_is_free(home)

    with contextlib.ExitStack() as command:
        command.enter_context(hold_archive(settings, "run"))
        async with vector_writes(settings):
            command.close()
            assert holds_archive(settings) and not lock_is_free(home)
        assert not holds_archive(settings) and lock_is_free(home)


def holder_read_off_the_loop(path: Path) -> dict[str, object]:
    """Stands for `_holder_record`, which may wait up to 2 s with time.sleep for a holder's record: never on the
    loop."""
    with contextlib.suppress(RuntimeError):
        asyncio.get_running_loop()
        raise AssertionError("the holder of the writer lock was read on the event loop")
    return {"pid": 4242, "command": "ingest", "since": "2026-11-26 09:00:00 UTC"}


@contextlib.contextmanager
def taken_without_a_record(home: Path) -> Iterator[None]:
    """The writer lock as a writer holds it in the moment after taking it, before it writes who it is."""
    with open(home / LOCK_FILE, "a+", encoding="utf-8") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield


async def test_a_busy_writer_lock_is_never_waited_on_in_the_event_loop(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beside a writer that has only just taken the lock (its record not written yet), a ranking goes on with the
    vectors unstored without reading who holds it, and an ingest reads that off the loop before it is refused."""
    monkeypatch.setattr("bot.store.archive_lock._holder_record", holder_read_off_the_loop)
    settings = Settings(home=home)  # type: ignore[call-arg]
    async with open_core(settings, WordEmbedder()) as core:
        await core.repo.upsert_papers(PAPERS)
        with taken_without_a_record(home):
            ranked, _ = await rank_with_vectors(core, PAPERS, PROFILE)
            assert len(ranked) == len(PAPERS) and await core.vectors.stored_hashes(ids_of(PAPERS)) == {}
            with pytest.raises(StateError, match=r"being written by pid 4242 \(ingest, since"):
                await store_papers(core, PAPERS)


async def test_an_ingest_embeds_without_the_writer_lock_and_takes_it_for_each_chunks_write(home: Path) -> None:
    """The console's first load (or any ingest not run under a command's hold) embeds for minutes: the lock is free
    while it embeds, so a ranking elsewhere can store its vectors meanwhile; everything is stored after."""
    settings = Settings(home=home, sentence_vectors=True)  # type: ignore[call-arg]
    embedder = LockWatchingEmbedder(home)
    async with open_core(settings, embedder) as core:
        report = await store_papers(core, PAPERS)
        assert report.embedded == len(PAPERS)
        assert sorted(await core.vectors.stored_hashes(ids_of(PAPERS))) == sorted(ids_of(PAPERS))
        assert sorted(await VectorCopies(core.repo, core.embedder).found(ids_of(PAPERS))) == sorted(ids_of(PAPERS))
        assert await core.sentences.current(ids_of(PAPERS)) == set(ids_of(PAPERS))
    assert embedder.lock_free_while_embedding and all(embedder.lock_free_while_embedding)
    assert lock_is_free(home) and not holds_archive(settings)


async def test_what_was_stored_or_changed_while_an_ingest_embedded_is_not_written_over(home: Path) -> None:
    """As for a ranking: checked again under the lock at each chunk's write, a vector another writer stored meanwhile
    is kept, and a paper whose stored text changed meanwhile is not given its older text's vector or sentences."""
    settings = Settings(home=home, sentence_vectors=True)  # type: ignore[call-arg]
    meanwhile = AnotherWriter(asyncio.get_running_loop())
    async with open_core(settings, LockWatchingEmbedder(home, meanwhile.stores)) as core:
        meanwhile.core = core
        await core.repo.upsert_papers(PAPERS)
        await ensure_vectors(core, PAPERS, sentences=True)
        stored = await core.vectors.stored_hashes(ids_of(PAPERS))
        kept = await core.vectors.found_vectors([PAPERS[0].id])
        sentences = await core.sentences.current(ids_of(PAPERS))
    assert np.allclose(kept[PAPERS[0].id], meanwhile.theirs[0], atol=1e-6)
    assert PAPERS[1].id not in stored, "the older text's vector was stored for a paper that changed"
    assert PAPERS[1].id not in sentences
    assert sorted(stored) == sorted(ids_of(PAPERS[:1] + PAPERS[2:]))


async def test_an_ingest_waits_for_a_ranking_elsewhere_storing_its_vectors_and_is_not_refused(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While an ingest embeds, the lock is free, so a ranking in another process may take it for a moment to store
    what it embedded: the ingest's next chunk waits for that moment to pass rather than stopping half done (it is
    still refused by a command that writes, `test_a_busy_writer_lock_is_never_waited_on_in_the_event_loop`)."""
    import bot.store.archive_lock as archive_lock

    settings = Settings(home=home, sentence_vectors=True)  # type: ignore[call-arg]
    reader: list[contextlib.ExitStack] = []

    def a_ranking_elsewhere_starts_storing() -> None:  # in the embedding's thread, with the lock free
        with contextlib.ExitStack() as held:
            handle = held.enter_context(open(home / LOCK_FILE, "a+", encoding="utf-8"))
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps({"pid": 4242, "command": VECTOR_WRITER, "since": "2026-11-26 09:00:00 UTC"}))
            handle.flush()
            reader.append(held.pop_all())

    real_record = archive_lock._holder_record

    def read_then_done(path: Path) -> dict[str, object]:  # the ranking finishes storing once it was seen holding
        record = real_record(path)
        while reader:
            reader.pop().close()
        return record

    monkeypatch.setattr("bot.store.archive_lock._holder_record", read_then_done)
    async with open_core(settings, LockWatchingEmbedder(home, a_ranking_elsewhere_starts_storing)) as core:
        report = await store_papers(core, PAPERS)
        assert report.embedded == len(PAPERS)
        assert sorted(await core.vectors.stored_hashes(ids_of(PAPERS))) == sorted(ids_of(PAPERS))
        assert await core.sentences.current(ids_of(PAPERS)) == set(ids_of(PAPERS))
    assert not reader and lock_is_free(home)
