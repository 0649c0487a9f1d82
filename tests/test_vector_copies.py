"""Each paper's vector copied into SQLite (bot.store.vector_copies): written with the sentence vectors at ingest as
the vector store returns it, read for a window without opening the vector store, giving the same answers; a window
with a paper lacking a current copy is read from the store; `db --refresh-vectors` copies without embedding, `db`
finds a copy that differs and `db --repair` copies it again; doctor says which papers lack one."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
from pathlib import Path

import numpy as np
import pytest

from bot.config import Settings
from bot.core import Core, open_core
from bot.ingest.save import store_papers
from bot.ingest.vectors import Embedded, refresh_vectors
from bot.models import Paper
from bot.questions.filters import Filters
from bot.questions.retrieval import ranked
from bot.questions.timewords import TimeWindow
from bot.store.repair import check_store, repair_store
from bot.store.vector_copies import VectorCopies
from tests.old_stores import undo_migrations
from tests.test_sentence_vectors import CountingEmbedder
from tests.word_vectors import WordEmbedder

MONDAY, TUESDAY = dt.date(2025, 5, 26), dt.date(2025, 5, 27)


def paper(n: int, day: dt.date = MONDAY) -> Paper:
    return Paper(
        id=f"2505.{n:05d}",
        title=f"Paper {n} on sparse routing{n % 3}",
        authors=("A. Author",),
        abstract=f"We study routing{n % 3} of experts. Our method uses gadget{n} sampling. Results improve.",
        categories=("cs.LG",) if n % 2 else ("cs.CL", "cs.LG"),
        announced=day,
    )


PAPERS = [paper(n) for n in range(6)] + [paper(n, TUESDAY) for n in range(6, 10)]


def settings_at(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home")


def ids_of(papers: list[Paper]) -> list[str]:
    return [p.id for p in papers]


async def copies_of(core: Core, ids: list[str]) -> dict[str, np.ndarray]:
    return await VectorCopies(core.repo, core.embedder).found(ids)


def opened(core: Core) -> bool:
    return core.vectors._client is not None or core.vectors._collection is not None


async def test_ingest_copies_each_vector_bit_for_bit_as_the_vector_store_returns_it(tmp_path: Path) -> None:
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, PAPERS)
        copies = await copies_of(core, ids_of(PAPERS))
        stored = await core.vectors.found_vectors(ids_of(PAPERS))
        coverage = await VectorCopies(core.repo, core.embedder).coverage()
    assert sorted(copies) == ids_of(PAPERS) and coverage == (10, 10)
    for paper_id, vector in copies.items():
        assert vector.dtype == np.float32 and np.array_equal(vector, stored[paper_id])


async def test_a_windowed_question_reads_the_copies_without_opening_the_vector_store_and_answers_the_same(
    tmp_path: Path,
) -> None:
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, PAPERS)
    filters = Filters(topic="sparse routing1", window=TimeWindow(MONDAY, MONDAY, "today"))
    answers = []
    for with_copies in (True, False):
        async with open_core(settings_at(tmp_path), WordEmbedder()) as core:  # a new process: nothing loaded
            if not with_copies:
                core.vectors.copies = None  # as before the copies: the window is read from the vector store
            results, _ = await ranked(core, filters)
            answers.append([(r.paper.id, r.relevance, r.dense) for r in results])
            assert opened(core) is not with_copies
    assert answers[0] == answers[1]
    assert answers[0] and {i for i, _, _ in answers[0]} <= set(ids_of(PAPERS[:6]))


async def test_a_window_with_a_paper_lacking_a_current_copy_is_read_from_the_vector_store(tmp_path: Path) -> None:
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, PAPERS)
        await core.repo.delete_vector_copies([PAPERS[7].id])  # a Tuesday paper
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        monday = await core.vectors.window_index(MONDAY, MONDAY)
        assert not opened(core) and len(monday) == 6
        both = await core.vectors.window_index(MONDAY, TUESDAY)
        assert opened(core) and len(both) == 10
        assert PAPERS[7].id in await core.vectors.window_vectors([PAPERS[7].id])


async def test_refresh_copies_every_current_vector_without_embedding_anything(tmp_path: Path) -> None:
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, PAPERS)
        await core.repo.delete_vector_copies(ids_of(PAPERS))  # a store from before the copies
    counting = CountingEmbedder()
    async with open_core(settings_at(tmp_path), counting) as core:
        assert await copies_of(core, ids_of(PAPERS)) == {}
        seen, embedded = await refresh_vectors(core)
        copies = await copies_of(core, ids_of(PAPERS))
        stored = await core.vectors.found_vectors(ids_of(PAPERS))
    assert (seen, embedded.papers, counting.texts) == (10, 0, [])
    assert all(np.array_equal(copies[i], stored[i]) for i in ids_of(PAPERS))


async def test_a_crashed_chunk_leaves_no_copy_and_the_next_ingest_copies_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.ingest import vectors as ingest_vectors

    monkeypatch.setattr(ingest_vectors, "EMBED_CHUNK", 4)
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        real_save = core.repo.save_vector_rows
        calls = 0

        async def save_then_crash(*args: object) -> None:
            nonlocal calls
            calls += 1
            if calls == 2:
                raise RuntimeError("killed")
            await real_save(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(core.repo, "save_vector_rows", save_then_crash)
        with pytest.raises(RuntimeError, match="killed"):
            await store_papers(core, PAPERS)
        assert len(await copies_of(core, ids_of(PAPERS))) == 4  # the second chunk's are in Chroma, not copied
        assert await core.vectors.count() == 8
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, PAPERS)
        assert len(await copies_of(core, ids_of(PAPERS))) == 10


async def test_db_finds_a_copy_that_differs_from_the_store_and_repair_copies_it_again(tmp_path: Path) -> None:
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, PAPERS)
        copies = VectorCopies(core.repo, core.embedder)
        other = WordEmbedder().embed(["something else entirely"])
        await core.repo.save_vector_rows((), copies.rows([PAPERS[2]], other))
        check = await check_store(core)
        assert check.copies_differ == (PAPERS[2].id,) and not check.consistent
        said = f"1 vector copies in SQLite that differ from the vector store (first: {PAPERS[2].id})"
        assert check.problems() == [said]
        report = await repair_store(core)
        assert report.after.consistent and not report.rebuilt
        fixed = (await copies.found([PAPERS[2].id]))[PAPERS[2].id]
        assert np.array_equal(fixed, (await core.vectors.found_vectors([PAPERS[2].id]))[PAPERS[2].id])


async def test_db_and_doctor_say_which_papers_lack_a_copy_until_refresh_copies_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main
    from bot.ops.doctor import check_vector_copies

    settings = settings_at(tmp_path)
    assert (await check_vector_copies(settings)).detail == "none yet; each ingest copies its papers' vectors"
    async with open_core(settings, WordEmbedder()) as core:
        await store_papers(core, PAPERS[:3])
        await core.repo.delete_vector_copies(ids_of(PAPERS[:2]))
    monkeypatch.setattr("bot.embeddings.embedder.MINILM_NAME", WordEmbedder.name)  # the model doctor expects
    missing = await check_vector_copies(settings)
    assert missing.status == "warn" and missing.detail.startswith("2 of 3 papers have no copy of their vector")
    assert "paperscout db --refresh-vectors" in missing.fix
    monkeypatch.setenv("PAPERSCOUT_HOME", str(settings.home))
    monkeypatch.setattr("bot.core.make_embedder", lambda settings: WordEmbedder())
    assert await asyncio.to_thread(main, ["db"]) == 0  # informative: a window lacking copies reads the store
    assert "copies:          1 of 3 papers have their vector copied in SQLite" in capsys.readouterr().out
    assert await asyncio.to_thread(main, ["db", "--refresh-vectors"]) == 0
    refreshed = capsys.readouterr().out  # nothing embedded, and the copies it made are said, not left unseen
    assert "vectors refreshed: 0 of 3 papers embedded again" in refreshed
    assert refreshed.rstrip().endswith("copies:          3 of 3 papers have their vector copied in SQLite")
    found = await check_vector_copies(settings)
    assert (found.status, found.detail) == ("ok", "every stored paper has its vector copied in SQLite (3)")


async def test_a_store_at_schema_10_migrates_answers_from_the_vector_store_and_is_copied_by_refresh(
    tmp_path: Path,
) -> None:
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, PAPERS)
    undo_migrations(settings_at(tmp_path).db_path, 10)
    counting = CountingEmbedder()
    async with open_core(settings_at(tmp_path), counting) as core:
        assert await VectorCopies(core.repo, core.embedder).coverage() == (10, 0)
        assert len(await core.vectors.window_index(MONDAY, MONDAY)) == 6 and opened(core)
        assert await refresh_vectors(core) == (10, Embedded())
        assert await VectorCopies(core.repo, core.embedder).coverage() == (10, 10)
    assert counting.texts == []


async def test_doctor_reads_sentence_vectors_of_a_store_at_schema_10_whose_copies_table_is_still_to_come(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a store at schema 10 has its sentence vectors: doctor said "the next start adds their table" for them too
    import sqlite3

    from bot.ops.doctor import check_sentence_vectors, check_vector_copies
    from bot.store.migrations import MIGRATIONS, SENTENCE_VECTORS_VERSION, VECTOR_COPIES_VERSION

    assert "CREATE TABLE sentence_vectors" in MIGRATIONS[SENTENCE_VECTORS_VERSION - 1]
    assert "CREATE TABLE paper_vectors" in MIGRATIONS[VECTOR_COPIES_VERSION - 1]
    settings = Settings(home=tmp_path / "home", sentence_vectors=True)
    async with open_core(settings, WordEmbedder()) as core:
        await store_papers(core, PAPERS)
    with sqlite3.connect(settings.db_path) as raw:
        raw.execute("DROP TABLE paper_vectors")
        raw.execute("PRAGMA user_version = 10")
    monkeypatch.setattr("bot.embeddings.embedder.MINILM_NAME", WordEmbedder.name)  # the model doctor expects
    sentences = await check_sentence_vectors(settings)
    assert (sentences.status, sentences.detail) == ("ok", "every stored paper has them (10)")
    copies = await check_vector_copies(settings)
    assert (copies.status, copies.detail) == ("ok", "the next start adds their table (schema migration)")


async def test_a_window_read_either_way_filters_on_the_categories_the_paper_has_now(tmp_path: Path) -> None:
    """A new version with the same text (a cross-listing added) changes the stored categories but not the vector,
    which is not written again: a window read from the vector store, whose metadata keeps the old ones, filters on
    the stored categories as one read from the copies does."""
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, PAPERS)
        cross_listed = dataclasses.replace(PAPERS[1], categories=("cs.LG", "cs.RO"), version=2)
        assert (await store_papers(core, [cross_listed])).embedded == 0
    found = []
    for with_copies in (True, False):
        async with open_core(settings_at(tmp_path), WordEmbedder()) as core:  # a new process: nothing loaded
            if not with_copies:  # a Monday paper lacks its copy: the window is read from the vector store
                await core.repo.delete_vector_copies([PAPERS[2].id])
            query = core.embedder.embed(["routing"])[0]
            hits = await core.vectors.search_window(query, 10, MONDAY, MONDAY, ["cs.RO"])
            assert opened(core) is not with_copies
            found.append([paper_id for paper_id, _ in hits])
    assert found == [[PAPERS[1].id], [PAPERS[1].id]]


async def test_a_loaded_window_follows_a_stored_papers_new_categories_without_a_restart(tmp_path: Path) -> None:
    """The window index a running process loaded keeps each paper's categories in memory: a new version with the
    same text (cross-listed since: the vector is kept) must move the paper into its new category there too, as a
    restarted process reading the stored categories would see it."""
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, PAPERS)
        query = core.embedder.embed(["routing"])[0]
        assert await core.vectors.search_window(query, 10, MONDAY, MONDAY, ["cs.RO"]) == []  # loaded, none there
        cross_listed = dataclasses.replace(PAPERS[1], categories=("cs.LG", "cs.RO"), version=2)
        assert (await store_papers(core, [cross_listed])).embedded == 0
        hits = await core.vectors.search_window(query, 10, MONDAY, MONDAY, ["cs.RO"])
        assert [paper_id for paper_id, _ in hits] == [PAPERS[1].id]
        assert [p for p, _ in await core.vectors.search_window(query, 10, MONDAY, MONDAY, ["cs.CL"])] == [
            p.id for p in PAPERS[:6] if "cs.CL" in p.categories
        ]


async def test_a_replaced_text_listed_on_a_later_day_keeps_its_first_day_in_every_window(tmp_path: Path) -> None:
    """A replacement comes in a later day's feed; the stored paper keeps the day it was first announced on, and so
    must its vector's day, in the loaded window and in the vector store a new process reads."""
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, PAPERS)
        query = core.embedder.embed(["routing"])[0]
        assert len(await core.vectors.search_window(query, 10, MONDAY, TUESDAY)) == 10
        replaced = dataclasses.replace(
            PAPERS[1],
            abstract=PAPERS[1].abstract + " Now with code.",
            version=2,
            announced=TUESDAY + dt.timedelta(days=7),
        )
        assert (await store_papers(core, [replaced])).embedded == 1
        assert PAPERS[1].id in [p for p, _ in await core.vectors.search_window(query, 10, MONDAY, MONDAY)]
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await core.repo.delete_vector_copies([PAPERS[2].id])  # read from the vector store
        assert PAPERS[1].id in [p for p, _ in await core.vectors.search_window(query, 10, MONDAY, MONDAY)]


async def test_a_new_version_with_the_same_text_updates_its_vectors_metadata(tmp_path: Path) -> None:
    """Its vector is kept, but what is stored beside it (authors, categories and the flags a `where` filters on) is
    the new version's, in this process and the next."""
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, PAPERS)
        first = PAPERS[0]
        assert "cs.CL" in first.categories
        new = dataclasses.replace(first, authors=("A. Author", "B. Second"), categories=("cs.LG", "cs.RO"), version=2)
        assert (await store_papers(core, [new])).embedded == 0
        vector = (await core.vectors.vectors([first.id]))[0]
        assert [h.id for h in await core.vectors.query(vector, 10, where={"cat_cs.RO": True})] == [first.id]
        assert first.id not in [h.id for h in await core.vectors.query(vector, 10, where={"cat_cs.CL": True})]
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        (hit,) = await core.vectors.query(vector, 1)
        assert hit.id == first.id
        assert (hit.metadata["authors"], hit.metadata["categories"]) == ("A. Author; B. Second", "cs.LG cs.RO")
        assert "cat_cs.CL" not in hit.metadata
