"""Each paper's sentence vectors: stored at ingest beside the paper vector, read back by paper id, repaired after
a crash, embedded again when the text changes, and filled in for stores built before they existed."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
from pathlib import Path

import numpy as np
import pytest

from bot.config import Settings
from bot.core import open_core
from bot.embeddings.embedder import paper_vectors
from bot.ingest import vectors as ingest_vectors
from bot.ingest.save import store_papers
from bot.ingest.vectors import Embedded, paper_sentences, refresh_vectors
from bot.models import Paper, Profile, Topic
from bot.store.sentences import best_sentence_similarity_of
from tests.old_stores import undo_migrations
from tests.word_vectors import WordEmbedder

DAY = dt.date(2025, 5, 26)


class CountingEmbedder(WordEmbedder):
    """`WordEmbedder` that remembers every text it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return super().embed(texts)


def paper(n: int, abstract: str | None = None) -> Paper:
    return Paper(
        id=f"2505.{n:05d}",
        title=f"Paper {n} on topic{n}",
        authors=("A. Author",),
        abstract=abstract
        or f"We study widget{n} estimation. Our method uses gadget{n} sampling. Results improve on baselines.",
        categories=("cs.LG",),
        announced=DAY,
    )


def settings_at(tmp_path: Path, sentence_vectors: bool = True) -> Settings:
    return Settings(home=tmp_path / "home", sentence_vectors=sentence_vectors)


async def test_ingest_stores_each_papers_title_and_sentences_beside_its_vector(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    papers = [paper(n) for n in range(3)]
    async with open_core(settings_at(tmp_path), embedder) as core:
        report = await store_papers(core, papers)
        matrices = await core.sentences.matrices([p.id for p in papers] + ["2505.99999"])
        stored = await core.vectors.vectors([p.id for p in papers])
    assert (report.embedded, report.sentences_only) == (3, 0)
    assert sorted(matrices) == [p.id for p in papers]
    fresh = WordEmbedder()
    for p in papers:
        sentences = paper_sentences(p)
        assert sentences[0] == p.title and len(sentences) == 4
        np.testing.assert_allclose(matrices[p.id], fresh.embed(sentences), atol=2e-3)  # float16 as stored
    np.testing.assert_allclose(stored, paper_vectors(fresh.embed, papers), atol=1e-6)
    assert embedder.texts.count(papers[0].title) == 1  # the title's vector serves both


async def test_best_sentence_similarity_finds_the_sentence_and_says_nan_for_papers_without(tmp_path: Path) -> None:
    papers = [paper(n) for n in range(3)]
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, papers)
        queries = WordEmbedder().embed(["gadget1 sampling", "widget2 estimation"])
        found = await core.sentences.best_sentence_similarity(queries, [papers[1].id, "2505.99999", papers[2].id])
    assert found.shape == (3, 2)
    assert found[0, 0] == pytest.approx(np.max(WordEmbedder().embed(paper_sentences(papers[1])) @ queries[0]), abs=2e-3)
    assert found[0, 0] > found[2, 0] and found[2, 1] > found[0, 1]
    assert np.isnan(found[1]).all()


def test_best_sentence_similarity_of_takes_each_papers_best_row() -> None:
    eye = np.eye(4, dtype=np.float32)
    found = best_sentence_similarity_of(eye[:2], [eye[[2, 0]], None, eye[[1]], np.zeros((0, 4), np.float32)])
    np.testing.assert_array_equal(found[0], [1.0, 0.0])
    np.testing.assert_array_equal(found[2], [0.0, 1.0])
    assert np.isnan(found[1]).all() and np.isnan(found[3]).all()


async def test_a_crash_between_chunks_leaves_whole_rows_and_the_next_ingest_embeds_only_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    papers = [paper(n) for n in range(5)]
    monkeypatch.setattr(ingest_vectors, "EMBED_CHUNK", 2)
    saved = 0
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        real_save = type(core.sentences).save

        async def save_then_crash(
            self: object, batch: list[Paper], matrices: list[np.ndarray], *copies: object
        ) -> None:
            nonlocal saved
            if saved == 2:
                raise RuntimeError("killed")
            await real_save(self, batch, matrices, *copies)  # type: ignore[arg-type]
            saved += len(batch)

        monkeypatch.setattr(type(core.sentences), "save", save_then_crash)
        with pytest.raises(RuntimeError, match="killed"):
            await store_papers(core, papers)
        monkeypatch.setattr(type(core.sentences), "save", real_save)
        assert len(await core.sentences.matrices([p.id for p in papers])) == 2
        assert await core.vectors.count() == 4  # the crashed chunk's paper vectors were written before its sentences

    counting = CountingEmbedder()
    async with open_core(settings_at(tmp_path), counting) as core:
        await store_papers(core, papers)
        assert len(await core.sentences.matrices([p.id for p in papers])) == 5
        assert await core.vectors.count() == 5
    done = {p.id for p in papers if p.title in counting.texts}
    assert len(done) == 3  # the two whole papers were not embedded again
    assert sum(text == p.text for p in papers for text in counting.texts) == 1  # one paper vector was missing


async def test_a_changed_abstract_is_not_read_from_old_sentences_and_is_embedded_again(tmp_path: Path) -> None:
    first = paper(1)
    changed = dataclasses.replace(first, abstract="A new abstract about sprockets. It has two sentences.", version=2)
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, [first])
        await core.repo.upsert_papers([changed])
        assert await core.sentences.matrices([first.id]) == {}  # the stored rows are of the old text
        await store_papers(core, [changed])
        matrices = await core.sentences.matrices([first.id])
    assert len(matrices[first.id]) == 3


async def test_with_the_setting_off_no_sentence_vectors_are_kept(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    async with open_core(settings_at(tmp_path, sentence_vectors=False), embedder) as core:
        await store_papers(core, [paper(1)])
        assert await core.sentences.matrices([paper(1).id]) == {}
    assert len(embedder.texts) == 2  # the text and the title, as before sentences were kept


async def test_a_store_built_before_sentence_vectors_is_filled_in_by_refresh_newest_day_first(tmp_path: Path) -> None:
    older = dataclasses.replace(paper(1), announced=DAY - dt.timedelta(days=1))
    papers = [older, paper(2)]
    async with open_core(settings_at(tmp_path, sentence_vectors=False), WordEmbedder()) as core:
        await store_papers(core, papers)
    counting = CountingEmbedder()
    async with open_core(settings_at(tmp_path), counting) as core:
        seen, embedded = await refresh_vectors(core)
        matrices = await core.sentences.matrices([p.id for p in papers])
    assert (seen, embedded) == (2, Embedded(papers=0, sentences_only=2)) and len(matrices) == 2
    assert counting.texts.index(paper(2).title) < counting.texts.index(older.title)
    assert not any(text == p.text for p in papers for text in counting.texts)  # paper vectors were current


async def test_an_ingest_says_apart_which_papers_only_got_their_sentence_vectors(tmp_path: Path) -> None:
    async with open_core(settings_at(tmp_path, sentence_vectors=False), WordEmbedder()) as core:
        await store_papers(core, [paper(1)])
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        report = await store_papers(core, [paper(1), paper(2)])
    assert (report.embedded, report.sentences_only) == (1, 1)
    assert report.line().endswith("1 unchanged; 1 embedded, 1 given only their sentence vectors")


async def test_ranking_does_not_embed_sentences(tmp_path: Path) -> None:
    from bot.models import Profile, Topic
    from bot.ranking.for_profile import rank_papers

    async with open_core(settings_at(tmp_path), WordEmbedder()) as opened:
        await opened.repo.upsert_papers([paper(1)])
        await rank_papers(opened, [paper(1)], Profile(name="p", topics=(Topic("widgets", "widget estimation"),)))
        assert await opened.sentences.matrices([paper(1).id]) == {}
        assert await opened.vectors.count() == 1


async def test_db_and_doctor_say_which_papers_lack_sentence_vectors_until_refresh_fills_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main
    from bot.ops.doctor import check_sentence_vectors

    async with open_core(settings_at(tmp_path, sentence_vectors=False), WordEmbedder()) as core:
        await store_papers(core, [paper(1), paper(2)])
    settings = settings_at(tmp_path)
    monkeypatch.setattr("bot.embeddings.embedder.MINILM_NAME", WordEmbedder.name)  # the model doctor expects
    missing = await check_sentence_vectors(settings)
    assert missing.status == "warn" and missing.detail.startswith("2 of 2 papers have none")
    assert "paperscout db --refresh-vectors" in missing.fix
    monkeypatch.setenv("PAPERSCOUT_HOME", str(settings.home))
    monkeypatch.setenv("PAPERSCOUT_SENTENCE_VECTORS", "true")
    monkeypatch.setattr("bot.core.make_embedder", lambda settings: WordEmbedder())
    assert await asyncio.to_thread(main, ["db"]) == 0  # informative: the paper vectors are all there
    out = capsys.readouterr().out
    assert "sentences:       0 of 2 papers have sentence vectors" in out and "--refresh-vectors" in out
    assert await asyncio.to_thread(main, ["db", "--refresh-vectors"]) == 0
    refreshed = capsys.readouterr().out  # the paper vectors were current: only sentence vectors were added
    assert "vectors refreshed: 0 of 2 papers embedded again, 2 given only their sentence vectors" in refreshed
    assert await asyncio.to_thread(main, ["db"]) == 0
    assert "sentences:       2 of 2 papers have sentence vectors\n" in capsys.readouterr().out
    found = await check_sentence_vectors(settings)
    assert (found.status, found.detail) == ("ok", "every stored paper has them (2)")


async def test_a_damaged_row_reads_as_missing_and_is_embedded_again(tmp_path: Path) -> None:
    from bot.store.repos import SentenceRow

    papers = [paper(1), paper(2), paper(3)]
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, papers)
        nan = np.full((2, WordEmbedder.dim), np.nan, dtype=np.float16).tobytes()
        await core.repo.save_sentence_rows(
            [
                SentenceRow(papers[0].id, papers[0].sentence_key, WordEmbedder.name, 3, b"\x00" * 10),  # cut short
                SentenceRow(papers[1].id, papers[1].sentence_key, WordEmbedder.name, 2, nan),
            ]
        )
        assert list(await core.sentences.matrices([p.id for p in papers])) == [papers[2].id]
        await store_papers(core, papers)
        assert len(await core.sentences.matrices([p.id for p in papers])) == 3


def interests(*lines: str) -> Profile:
    """A member's profile of one-line interests, as onboarding stores it (the sentence term reads only those)."""
    return Profile(name="member (personal)", topics=tuple(Topic(name=line[:40], want=line) for line in lines))


async def ranked_scores(settings: Settings, papers: list[Paper], profile: Profile) -> dict[str, float]:
    from bot.ranking.for_profile import rank_papers

    async with open_core(settings, WordEmbedder()) as core:
        return {r.paper.id: r.score for r in await rank_papers(core, papers, profile)}


async def test_a_store_without_sentence_vectors_ranks_exactly_as_before_them(tmp_path: Path) -> None:
    # the whole-paper ranking alone (no sentence term) is what a store without sentence vectors must give, bit for bit
    from bot.ranking.rank import compile_profile, rank_for_profile

    papers = [paper(n) for n in range(4)]
    profile = interests("gadget1 sampling", "widget3 estimation")
    async with open_core(settings_at(tmp_path, sentence_vectors=False), WordEmbedder()) as core:
        await store_papers(core, papers)
        assert await core.sentences.matrices([p.id for p in papers]) == {}
        vectors = await core.vectors.vectors([p.id for p in papers])
    model = compile_profile(profile, WordEmbedder().embed)
    before = {r.paper.id: r.score for r in rank_for_profile(papers, vectors, model, len(papers))}
    for sentence_vectors in (False, True):  # the setting on, with nothing stored yet, changes nothing either
        assert await ranked_scores(settings_at(tmp_path, sentence_vectors), papers, profile) == before


async def test_with_the_setting_off_stored_sentence_vectors_are_not_read_by_ranking(tmp_path: Path) -> None:
    # sentence vectors kept while the setting was on, then turned off: new papers get none, so reading the old ones
    # would rank the old papers by a term the new ones cannot have; off means the whole-paper vector alone
    papers = [paper(n) for n in range(4)]
    profile = interests("gadget1 sampling", "widget3 estimation")
    async with open_core(settings_at(tmp_path, sentence_vectors=False), WordEmbedder()) as core:
        await store_papers(core, papers)
    plain = await ranked_scores(settings_at(tmp_path, sentence_vectors=False), papers, profile)
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, papers)
        assert len(await core.sentences.matrices([p.id for p in papers])) == 4
    assert await ranked_scores(settings_at(tmp_path), papers, profile) != plain  # on: the sentence term counts
    assert await ranked_scores(settings_at(tmp_path, sentence_vectors=False), papers, profile) == plain


async def test_papers_of_which_some_lack_sentence_vectors_rank_as_before_them(tmp_path: Path) -> None:
    # a week straddling the upgrade: the papers stored before it have none yet. Read as their whole-paper vector, they
    # would sink below the others (a best sentence is closer to an interest than an average); the ranking is the
    # whole-paper one until `paperscout db --refresh-vectors` fills them in
    from bot.ranking.rank import compile_profile, rank_for_profile

    older, newer = [paper(n) for n in range(3)], [paper(n) for n in range(3, 6)]
    profile = interests("gadget1 sampling", "widget4 estimation")
    async with open_core(settings_at(tmp_path, sentence_vectors=False), WordEmbedder()) as core:
        await store_papers(core, older)
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        await store_papers(core, newer)
        assert len(await core.sentences.matrices([p.id for p in older + newer])) == 3
        vectors = await core.vectors.vectors([p.id for p in older + newer])
    model = compile_profile(profile, WordEmbedder().embed)
    before = {r.paper.id: r.score for r in rank_for_profile(older + newer, vectors, model, 6)}
    assert await ranked_scores(settings_at(tmp_path), older + newer, profile) == before
    assert await ranked_scores(settings_at(tmp_path), newer, profile) != {
        p: before[p] for p in before if p >= "2505.00003"
    }


async def test_a_store_at_schema_9_with_papers_migrates_and_keeps_them(tmp_path: Path) -> None:
    # a store written before migration 10: its papers, vectors and TL;DRs stay; the new table starts empty, the
    # ranking is the whole-paper one, and a refresh embeds the sentences alone (the paper vectors are current)
    papers = [paper(n) for n in range(3)]
    profile = interests("gadget1 sampling")
    async with open_core(settings_at(tmp_path, sentence_vectors=False), WordEmbedder()) as core:
        await store_papers(core, papers)
    plain = await ranked_scores(settings_at(tmp_path, sentence_vectors=False), papers, profile)
    undo_migrations(settings_at(tmp_path).db_path, 9)
    async with open_core(settings_at(tmp_path), WordEmbedder()) as core:
        assert [p.id for p in await core.repo.get_papers([p.id for p in papers])] == [p.id for p in papers]
        assert await core.sentences.coverage() == (3, 0)
    assert await ranked_scores(settings_at(tmp_path), papers, profile) == plain
    counting = CountingEmbedder()
    async with open_core(settings_at(tmp_path), counting) as core:
        assert await refresh_vectors(core) == (3, Embedded(papers=0, sentences_only=3))
        assert await core.sentences.coverage() == (3, 3)
        assert await core.vectors.count() == 3
    assert not any(text == p.text for p in papers for text in counting.texts)  # only titles and sentences


async def test_doctor_says_none_yet_for_a_store_without_papers(tmp_path: Path) -> None:
    # a database with no paper was reported as "every stored paper has them (0)"
    from bot.ops.doctor import check_sentence_vectors

    async with open_core(settings_at(tmp_path), WordEmbedder()):
        pass
    found = await check_sentence_vectors(settings_at(tmp_path))
    assert (found.status, found.detail) == ("ok", "none yet; each ingest embeds its papers' sentences")


def test_how_a_paper_is_read_sentence_by_sentence_is_pinned_to_its_recipe() -> None:
    # stored rows count as current while SENTENCE_RECIPE is unchanged: a change to how sentences are cut (shared with
    # the extractive TL;DR) that leaves it as is would keep rows made the old way beside rows made the new way
    from bot.ingest.vectors import MAX_SENTENCES
    from bot.models import SENTENCE_RECIPE

    lines = " ".join(f"Line {n}." for n in range(50))
    abstract = f"We study e.g. widgets at 0.5 Hz (Fig. 1). Results improve by 3.2%! Does it scale? Yes: see {lines}"
    sentences = paper_sentences(paper(1, abstract))
    assert (SENTENCE_RECIPE, MAX_SENTENCES, len(sentences)) == ("title+sentences", 40, 40), "bump SENTENCE_RECIPE"
    assert sentences[:5] == [
        "Paper 1 on topic1",
        "We study e.g. widgets at 0.5 Hz (Fig. 1).",
        "Results improve by 3.2%!",
        "Does it scale?",
        f"Yes: see {lines.split('. ')[0]}.",
    ], "a change to how sentences are cut needs a new SENTENCE_RECIPE (stored rows are then embedded again)"
