"""One writer of an archive's vectors: a ranking that finds papers without a vector stores them only under the
archive's writer lock (bot.ingest.vectors.ranking_vectors); while another process holds it (the running bot beside
a CLI `digest` or `ask`), the ranking uses the vectors it made and stores none, and an ingest is refused."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from bot.config import Settings
from bot.core import open_core
from bot.errors import StateError
from bot.ingest.save import store_papers
from bot.models import Profile, Topic
from bot.ranking.for_profile import rank_with_vectors
from bot.store.archive_lock import hold_archive, holds_archive
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
