"""The learned re-ranking of a one-line-interest profile's best papers (issue 23): the shipped weights, the pool put
in the model's order with the rest after it, one standing per paper, and the setting that turns it off."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pytest

from bot.config import Settings
from bot.core import open_core
from bot.digests.standing import ranked_candidates, standing_of
from bot.ingest.save import store_papers
from bot.ingest.vectors import paper_sentences
from bot.models import Paper, ScoredPaper
from bot.ranking import for_profile, rank, rerank
from tests.test_interests import member
from tests.test_rank import fake_embed
from tests.word_vectors import WordEmbedder

DAY = dt.date(2025, 5, 26)
WORDS = ("protein", "folding", "dynamics", "laboratory", "storage", "graph", "kernel", "sampling")


def papers_of_the_day(count: int = 12) -> list[Paper]:
    """Papers sharing the interest's words in different measure, so the cold score orders them all apart."""
    out = []
    for n in range(count):
        held = " ".join(WORDS[: 1 + n % 4])
        out.append(
            Paper(
                id=f"2505.{n:05d}",
                title=f"On {WORDS[n % len(WORDS)]} {held} number{n}",
                authors=("A. Author",),
                abstract=f"We study {held} with method{n} and tool{n * 7}. Our results hold for case{n}. "
                f"A look at {WORDS[n % 3]}.",
                categories=("cs.LG",),
                announced=DAY,
            )
        )
    return out


def only(weights: dict[str, float], pool: int) -> rerank.RerankModel:
    """A re-ranker with these weights (0 for every other feature)."""
    return rerank.RerankModel(np.array([weights.get(n, 0.0) for n in rerank.NAMES]), 0.0, pool)


def test_the_shipped_weights_load_with_the_fifteen_features_and_say_how_they_were_made() -> None:
    data = json.loads(rerank.WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert sorted(data["features"]) == sorted(rerank.NAMES) and len(rerank.NAMES) == 15
    assert "bench/rerank_profiles.py" in data["about"] and "--export" in data["about"]
    model = rerank.default_model()
    assert model.weights.shape == (15,) and np.all(np.isfinite(model.weights)) and model.weights.any()
    assert model.pool == data["pool"] == 100
    assert model.weights[rerank.NAMES.index("want")] == pytest.approx(data["weights"][data["features"].index("want")])


def test_a_weights_file_without_every_feature_is_refused(tmp_path: Path) -> None:
    data = json.loads(rerank.WEIGHTS_FILE.read_text(encoding="utf-8"))
    k = data["features"].index("hub")
    del data["features"][k], data["weights"][k]
    path = tmp_path / "weights.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="hub"):
        rerank.load_model(path)


def ranked(papers: list[Paper], model: rerank.RerankModel | None, interests: list[str]) -> list[ScoredPaper]:
    vecs = fake_embed([p.text for p in papers])
    profile = rank.compile_profile(member(interests), fake_embed)
    sentences = [fake_embed(paper_sentences(p)) for p in papers]
    return rank.rank_for_profile(papers, vecs, profile, len(papers), sentence_vecs=sentences, rerank=model)


def test_the_pool_takes_the_models_order_and_the_papers_beyond_it_keep_theirs() -> None:
    papers = papers_of_the_day()
    cold = ranked(papers, None, ["protein folding dynamics"])
    assert len({round(r.score, 6) for r in cold}) == len(cold)
    # a model that wants what the score does not: the pool of 5 reversed, the other 7 after it as they were
    reversed_pool = ranked(papers, only({"score": -1.0}, 5), ["protein folding dynamics"])
    ids = [r.paper.id for r in cold]
    assert [r.paper.id for r in reversed_pool] == ids[:5][::-1] + ids[5:]
    # the standing a paper is shown with is its place's: scores fall down the list, so feedback starts from it
    assert [r.score for r in reversed_pool] == [r.score for r in cold]
    # its relevance is still read from its own score
    relevance = {r.paper.id: r.relevance for r in cold}
    assert all(r.relevance == relevance[r.paper.id] for r in reversed_pool)
    # the model's own weights decide: the score's sign kept, nothing moves
    assert [r.paper.id for r in ranked(papers, only({"score": 1.0}, 5), ["protein folding dynamics"])] == ids


def test_the_pool_is_ordered_by_the_weighted_standardised_features() -> None:
    papers = papers_of_the_day()
    vecs = fake_embed([p.text for p in papers])
    profile = rank.compile_profile(member(["protein folding dynamics", "graph kernel sampling"]), fake_embed)
    sentences = [fake_embed(paper_sentences(p)) for p in papers]
    seen: list[rerank.PoolSignals] = []
    real = rerank.reranked_order

    def keep(signals: rerank.PoolSignals, model: rerank.RerankModel) -> np.ndarray:
        seen.append(signals)
        return real(signals, model)

    model = only({"title_cos": 1.0, "breadth": 0.5, "hub": -0.3}, 8)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rank, "reranked_order", keep)
        out = rank.rank_for_profile(papers, vecs, profile, len(papers), sentence_vecs=sentences, rerank=model)
    signals = seen[0]
    order = np.argsort(-signals.score, kind="stable")
    x = rerank.features(signals, order[:8])
    x = (x - x.mean(axis=0)) / np.maximum(x.std(axis=0), 1e-6)
    expected = order[:8][np.argsort(-(x @ model.weights), kind="stable")]
    assert [r.paper.id for r in out[:8]] == [papers[j].id for j in expected]
    assert [r.paper.id for r in out[8:]] == [papers[j].id for j in order[8:]]
    assert list(expected) != list(order[:8])  # the features moved something


def test_equal_evidence_shares_a_rank_whatever_order_the_papers_come_in() -> None:
    # a day's list and a question's candidates hold the same papers in other orders: a rank that broke ties by
    # that order gave one paper two feature rows, so a question could rank a member's profile unlike the digest
    score = np.array([0.1, 0.5, 0.5, 0.2, 0.5])
    assert rerank.ranks(score).tolist() == [5.0, 1.0, 1.0, 4.0, 1.0]
    assert rerank.ranks(score[::-1]).tolist() == [1.0, 4.0, 1.0, 1.0, 5.0]


def test_a_paper_without_a_score_ranks_after_every_scored_one() -> None:
    # NaN sorts after every number, so it was counted the best: a paper whose similarity could not be computed
    # ranked first
    score = np.array([0.1, np.nan, 0.5, 0.2, np.nan])
    assert rerank.ranks(score).tolist() == [3.0, 4.0, 1.0, 2.0, 4.0]
    assert rerank.ranks(np.array([np.nan, 0.3])).tolist() == [2.0, 1.0]
    assert rerank.ranks(np.array([np.nan, np.nan])).tolist() == [1.0, 1.0]


def test_a_profile_without_one_line_interests_or_without_sentences_is_not_reranked() -> None:
    papers = papers_of_the_day()
    vecs = fake_embed([p.text for p in papers])
    profile = rank.compile_profile(member(["protein folding dynamics"]), fake_embed)
    cold = [r.paper.id for r in rank.rank_for_profile(papers, vecs, profile, len(papers))]
    model = only({"score": -1.0}, 5)
    assert [r.paper.id for r in rank.rank_for_profile(papers, vecs, profile, len(papers), rerank=model)] == cold


async def test_the_setting_turns_the_reranking_off_and_why_gives_the_digests_standing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    papers = papers_of_the_day()
    profile = member(["protein folding dynamics"])
    monkeypatch.setattr(for_profile, "default_model", lambda: only({"score": -1.0}, 5))
    orders = {}
    for on in (False, True):
        settings = Settings(home=tmp_path / f"home-{on}", sentence_vectors=True, rerank_profiles=on)
        async with open_core(settings, WordEmbedder()) as core:
            await store_papers(core, papers)
            stored = await core.repo.papers_between(DAY, DAY, None)
            candidates = await ranked_candidates(core, profile, stored)
            orders[on] = [item.paper.id for item in candidates]
            for item in candidates:  # /why's standing is the digest's
                why = await standing_of(core, item.paper, profile)
                assert why is not None and (why.rank, why.ranked_of) == (item.rank, item.ranked_of)
    assert orders[True] == orders[False][:5][::-1] + orders[False][5:]
    assert Settings.model_fields["rerank_profiles"].default is True
