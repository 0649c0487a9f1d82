"""A process reading the embedded vector store while another process writes it (the CI failure of issue 17).

Chroma's embedded store applies its log to a process's copy of the vector index once, on that process's first
read; another process's later write reaches the shared metadata at once but never that copy, and the next read of
a new paper's vector failed with ``InternalError: Error finding id``. Every call now holds the store's lock and a
read that meets a stale copy opens the store again.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bot.config import Settings
from bot.store.vectors import VectorStore
from tests.store_breaker import NoModel, made_up, random_vectors

ROOT = Path(__file__).resolve().parents[1]


def write_from_another_process(home: Path, tag: int, count: int) -> None:
    subprocess.run(
        [sys.executable, "-m", "tests.store_breaker", "race", str(home), str(tag), str(count), "0"],
        cwd=ROOT,
        check=True,
        timeout=120,
    )


async def store_then_another_process_writes(store: VectorStore, home: Path) -> tuple[list[str], list[str]]:
    """20 vectors stored and read back by this process, then 30 more written by another: both id lists."""
    first = made_up(1, range(20))
    await store.upsert(first, random_vectors(np.random.default_rng(0), len(first)))
    assert await store.count() == 20  # this process has read (and so copied) the store
    write_from_another_process(home, 2, 30)
    return [p.id for p in first], [p.id for p in made_up(2, range(30))]


def test_a_reader_sees_vectors_another_process_wrote_after_its_first_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = VectorStore(Settings(home=home), NoModel())  # type: ignore[arg-type]

    async def scenario() -> None:
        first, later = await store_then_another_process_writes(store, home)
        found = await store.found_vectors(first + later)
        assert set(found) == {*first, *later}
        assert all(v.shape == (384,) for v in found.values())
        index = await store.window_index()  # loaded after the other write: every vector, in one snapshot
        assert len(index) == 50
        hits = await store.query(found[later[0]], 1)
        assert [h.id for h in hits] == [later[0]]

    asyncio.run(scenario())


def test_the_store_lock_is_held_for_a_call_and_released_after(tmp_path: Path) -> None:
    import fcntl

    from bot.store.vectors import LOCK_FILE, store_lock

    settings = Settings(home=tmp_path / "home")
    with store_lock(settings), open(settings.home / LOCK_FILE, "a") as other:
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held = False
        except BlockingIOError:
            held = True
    assert held, "another holder could take the lock during a call"
    with open(settings.home / LOCK_FILE, "a") as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free again: this raises if it is not


def test_a_reopen_that_fails_leaves_the_store_to_open_again_on_the_next_call(tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = Settings(home=home)
    store = VectorStore(settings, NoModel())  # type: ignore[arg-type]

    async def scenario() -> None:
        first, later = await store_then_another_process_writes(store, home)
        # the stale read opens the store again, and the store cannot be opened just then (a file in its place)
        aside = settings.chroma_path.with_name("chroma-aside")
        settings.chroma_path.rename(aside)
        settings.chroma_path.write_text("not a directory")
        with pytest.raises(FileExistsError):
            await store.found_vectors(later)
        settings.chroma_path.unlink()
        aside.rename(settings.chroma_path)
        found = await store.found_vectors(first + later)
        assert set(found) == {*first, *later}

    asyncio.run(scenario())


def test_a_store_started_again_empty_still_reads_what_another_process_writes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = VectorStore(Settings(home=home), NoModel())  # type: ignore[arg-type]
    first = made_up(1, range(20))

    async def scenario() -> None:
        await store.upsert(first, random_vectors(np.random.default_rng(0), len(first)))
        await store.rebuild()  # what `paperscout db --repair` does before it stores every vector again
        await store.upsert(first, random_vectors(np.random.default_rng(0), len(first)))
        assert await store.count() == 20
        write_from_another_process(home, 2, 30)
        later = [p.id for p in made_up(2, range(30))]
        assert set(await store.found_vectors(later)) == set(later)

    asyncio.run(scenario())
