"""Cold-start ranker: vectorised scoring, keyword/author/avoid signals, and the metrics used to judge it."""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re

import numpy as np
import pytest

from bot.models import Paper, Profile, Topic
from bot.ranking import rank
from bot.ranking.metrics import recall_at_k, roc_auc

DIM = 256
DAY = dt.date(2025, 5, 26)


def fake_embed(texts: list[str]) -> np.ndarray:
    """Bag-of-words hashing vectors: texts sharing words are similar, and no model is needed."""
    out = np.zeros((len(texts), DIM), dtype=np.float32)
    for i, text in enumerate(texts):
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            digest = hashlib.md5(word.encode()).digest()
            out[i, int.from_bytes(digest[:4], "little") % DIM] += 1.0 if digest[4] % 2 else -1.0
        norm = np.linalg.norm(out[i])
        if norm:
            out[i] /= norm
    return out


def paper(pid: str, title: str, abstract: str, authors: tuple[str, ...] = ("A. Nobody",), cat: str = "cs.LG") -> Paper:
    return Paper(id=pid, title=title, authors=authors, abstract=abstract, categories=(cat, "cs.AI"), announced=DAY)


PAPERS = [
    paper("1", "Pruning sparse transformers", "We prune attention heads of sparse transformers and prove a bound."),
    paper("2", "Graph networks for molecules", "A message passing network predicts molecule properties."),
    paper("3", "Robot control with reinforcement learning", "A policy for robot arms trained with rewards."),
    paper("4", "Mixture-of-Experts routing", "Sparse MoEs route tokens to experts; mixtures of experts scale well."),
    paper("5", "A dataset for medical imaging", "We release a dataset of clinical scans for a real-world application."),
    paper("6", "Low rank adapters", "Lowrank adapters compress language models with low-rank updates.", cat="cs.CL"),
]

FOUNDATIONS = Profile(
    name="foundations",
    topics=(
        Topic("Architecture", "sparse transformers and mixture of experts routing", "robot control applications"),
        Topic("Compression", "pruning and low rank compression of language models"),
    ),
    boost=("pruning", "low-rank"),
    penalize=("reinforcement learning",),
    applications=("medical imaging",),
    categories=("cs.LG",),
)
SCIENCE = Profile(
    name="science",
    topics=(Topic("Molecules", "graph networks for molecule property prediction", "medical datasets"),),
    boost=("molecule",),
    authors=("Jose Garcia",),
)
ROBOTS = Profile(
    name="robots",
    topics=(Topic("Control", "reinforcement learning for robot control"),),
    penalize=("dataset",),
    categories=("cs.RO", "cs.LG"),
)


def embed_papers(papers: list[Paper]) -> np.ndarray:
    return fake_embed([p.text for p in papers]) if papers else np.zeros((0, DIM), dtype=np.float32)


def scores_for(profile: Profile, papers: list[Paper] = PAPERS, **weights: float) -> np.ndarray:
    model = rank.compile_profile(profile, fake_embed)
    w = rank.RankWeights(**weights) if weights else rank.DEFAULT_WEIGHTS
    return rank.score_papers(embed_papers(papers), rank.paper_features(papers), [model], w)[0]


def test_many_profiles_at_once_equal_each_profile_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    models = [rank.compile_profile(p, fake_embed) for p in (FOUNDATIONS, SCIENCE, ROBOTS, FOUNDATIONS)]
    vecs, features = embed_papers(PAPERS), rank.paper_features(PAPERS)
    together = rank.score_papers(vecs, features, models)
    alone = np.stack([rank.score_papers(vecs, features, [m])[0] for m in models])
    assert together.shape == (4, len(PAPERS))
    np.testing.assert_allclose(together, alone, rtol=1e-5, atol=1e-6)
    # Tiny chunks force one product per profile; the result must not depend on chunking.
    monkeypatch.setattr(rank, "_CHUNK_ELEMENTS", 1)
    np.testing.assert_allclose(rank.score_papers(vecs, features, models), together, rtol=1e-5, atol=1e-6)


def test_score_does_not_depend_on_the_rest_of_the_day() -> None:
    alone = scores_for(FOUNDATIONS, PAPERS[:1])
    assert alone[0] == pytest.approx(scores_for(FOUNDATIONS)[0], abs=1e-6)


def test_want_similarity_orders_papers_by_topic() -> None:
    scores = scores_for(SCIENCE, boost=0.0, novelty=0.0)
    assert int(np.argmax(scores)) == 1  # the molecule paper


def test_boost_keyword_raises_exactly_the_matching_papers() -> None:
    with_boost = scores_for(FOUNDATIONS)
    without = scores_for(FOUNDATIONS, boost=0.0)
    lift = with_boost - without
    w = rank.DEFAULT_WEIGHTS.boost
    # "pruning" is in paper 1 ("prune" is another word); "low-rank" is in paper 6.
    np.testing.assert_allclose(lift, [w, 0, 0, 0, 0, w], atol=1e-6)


def test_boost_keyword_moves_a_paper_up_the_ranking() -> None:
    base = Profile(name="b", topics=(Topic("Nets", "graph networks and sparse transformers"),))
    boosted = Profile(name="b", topics=base.topics, boost=("low-rank",))
    before = np.argsort(-scores_for(base)).tolist().index(5)
    after = np.argsort(-scores_for(boosted)).tolist().index(5)
    assert after < before


def test_penalize_and_application_keywords_lower_matching_papers() -> None:
    drop = scores_for(FOUNDATIONS, penalize=0.0, application=0.0) - scores_for(FOUNDATIONS)
    assert drop[2] == pytest.approx(rank.DEFAULT_WEIGHTS.penalize, abs=1e-6)  # reinforcement learning
    assert drop[4] == pytest.approx(rank.DEFAULT_WEIGHTS.application, abs=1e-6)  # medical imaging
    assert drop[[0, 1, 3, 5]] == pytest.approx(0.0, abs=1e-6)
    robots = scores_for(ROBOTS, penalize=0.0) - scores_for(ROBOTS)
    assert robots[4] == pytest.approx(rank.DEFAULT_WEIGHTS.penalize, abs=1e-6)  # "dataset"


def test_keyword_variants_hyphens_plurals_and_closed_forms() -> None:
    features = rank.paper_features(PAPERS)

    def hits(keyword: str) -> list[str]:
        return [p.id for p, h in zip(PAPERS, features.keyword_hits(rank.phrase_key(keyword)), strict=True) if h]

    assert hits("mixture of experts") == ["4"]  # "Mixture-of-Experts" and "mixtures of experts"
    assert hits("Mixture-of-Experts") == ["4"]
    assert hits("MoE") == ["4"]  # "MoEs"
    assert hits("low rank") == ["6"]  # "low-rank" and "Lowrank"
    assert hits("transformer") == ["1"]
    assert hits("expert") == ["4"]
    assert hits("exper") == []  # whole words only
    assert hits("sparse transformers") == ["1"]
    assert hits("graph molecules") == []  # a phrase, not a bag of words
    assert hits("") == []
    closed = rank.paper_features([paper("9", "Lowrank finetuning", "No hyphens here.")])
    assert closed.keyword_hits(rank.phrase_key("low-rank"))[0]
    assert closed.keyword_hits(rank.phrase_key("fine tuning"))[0]


def test_author_watch_flags_and_lifts_to_the_top() -> None:
    papers = [*PAPERS, paper("7", "Unrelated topic", "Something else entirely.", authors=("José García", "B. Other"))]
    model = rank.compile_profile(SCIENCE, fake_embed)
    ranked = rank.rank_for_profile(papers, embed_papers(papers), model, top_k=3)
    assert ranked[0].paper.id == "7"
    assert ranked[0].author_hits == ("José García",)
    assert any("watched author" in r for r in ranked[0].reasons)
    assert all(not r.author_hits for r in ranked[1:])


@pytest.mark.parametrize(
    ("watched", "written", "match"),
    [
        ("Jose Garcia", "José García", True),
        ("José García", "J. Garcia", True),
        ("J. García", "Jose Garcia", True),
        ("Garcia, Jose", "Jose A. Garcia", True),
        ("Jose Garcia", "Juan Garcia", False),
        ("Jose Garcia", "Jose Garcias", False),
    ],
)
def test_author_name_forms(watched: str, written: str, match: bool) -> None:
    papers = [paper("1", "Title", "Abstract.", authors=("Someone Else", written))]
    profile = Profile(name="a", topics=(Topic("t", "anything"),), authors=(watched,))
    model = rank.compile_profile(profile, fake_embed)
    ranked = rank.rank_for_profile(papers, embed_papers(papers), model, top_k=1)
    assert bool(ranked[0].author_hits) is match


def test_avoid_text_lowers_papers_closer_to_it_than_to_the_wants() -> None:
    want = Topic("Nets", "sparse transformers for language")
    avoiding = Profile(name="x", topics=(Topic("Nets", want.want, "robot arms trained with rewards"),))
    plain = Profile(name="x", topics=(want,))
    drop = scores_for(plain) - scores_for(avoiding)
    assert drop[2] > 0.01  # the robot paper
    assert drop[0] == pytest.approx(0.0, abs=1e-6)  # the transformer paper is closer to the wants


def test_near_avoided_is_said_only_when_it_moved_the_paper_and_says_how_far() -> None:
    avoiding = Profile(name="x", topics=(Topic("Nets", "sparse transformers for language", "robot arms with rewards"),))
    model = rank.compile_profile(avoiding, fake_embed)
    ranked = rank.rank_for_profile(PAPERS, embed_papers(PAPERS), model, top_k=10)
    robot = next(r for r in ranked if r.paper.id == "3")
    assert scores_for(avoiding)[2] < scores_for(Profile(name="x", topics=(Topic("Nets", avoiding.topics[0].want),)))[2]
    # the avoided text lowers the robot paper, but it stood last already: a reader would be told of a change
    # that did not happen
    assert ranked[-1] is robot and not any(r.startswith("near avoided") for r in robot.reasons)
    scores = np.array([1.0, 0.5, 0.45, 0.2], dtype=np.float32)
    assert rank._avoid_reason(model, embed_papers(PAPERS)[2], scores, 2, 0.01) == ""  # passes nobody
    said = rank._avoid_reason(model, embed_papers(PAPERS)[2], scores, 2, 0.6)
    assert said == "near avoided 'robot arms with rewards': 2 places lower"


def test_category_match_on_primary_category_only() -> None:
    gain = scores_for(FOUNDATIONS) - scores_for(FOUNDATIONS, category=0.0)
    w = rank.DEFAULT_WEIGHTS.category
    np.testing.assert_allclose(gain, [w, w, w, w, w, 0.0], atol=1e-6)  # paper 6 is cs.CL primary


def test_applied_cues_not_held_against_a_profile_that_wants_them() -> None:
    data_profile = Profile(name="d", topics=(Topic("Data", "new datasets and benchmarks"),))
    model = rank.compile_profile(data_profile, fake_embed)
    cue_sign = dict(zip(rank._CUES, model.cue_sign, strict=True))
    assert cue_sign["dataset"] == 0.0
    assert cue_sign["case study"] == -1.0
    assert cue_sign["theorem"] == 1.0
    novelty_gap = scores_for(data_profile) - scores_for(data_profile, novelty=0.0)
    assert novelty_gap[4] == pytest.approx(-rank.DEFAULT_WEIGHTS.novelty * 2, abs=1e-6)  # clinical, real world
    assert novelty_gap[0] == pytest.approx(rank.DEFAULT_WEIGHTS.novelty, abs=1e-6)  # "prove"
    assert scores_for(FOUNDATIONS, novelty=0.0)[4] - scores_for(FOUNDATIONS)[4] == pytest.approx(
        rank.DEFAULT_WEIGHTS.novelty * 2, abs=1e-6
    )


def test_rank_for_profile_sorted_with_reasons_and_scales() -> None:
    model = rank.compile_profile(FOUNDATIONS, fake_embed)
    ranked = rank.rank_for_profile(PAPERS, embed_papers(PAPERS), model, top_k=4)
    assert len(ranked) == 4
    assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)
    assert all(1.0 <= r.relevance <= 10.0 and 1.0 <= r.novelty <= 10.0 for r in ranked)
    top = ranked[0]
    assert top.paper.id in {"1", "4", "6"}
    assert any(r.startswith("closest to") for r in top.reasons)
    by_id = {r.paper.id: r for r in rank.rank_for_profile(PAPERS, embed_papers(PAPERS), model, top_k=10)}
    assert len(by_id) == len(PAPERS)
    assert "keywords: pruning" in by_id["1"].reasons
    assert "penalized: reinforcement learning" in by_id["3"].reasons
    assert by_id["1"].novelty > by_id["5"].novelty  # a proof versus a dataset and a real-world application


def test_empty_day_and_empty_profile_list() -> None:
    model = rank.compile_profile(FOUNDATIONS, fake_embed)
    features = rank.paper_features([])
    assert rank.score_papers(np.zeros((0, DIM), np.float32), features, [model]).shape == (1, 0)
    assert rank.rank_for_profile([], np.zeros((0, DIM), np.float32), model, top_k=10) == []
    assert rank.score_papers(embed_papers(PAPERS), rank.paper_features(PAPERS), []).shape == (0, len(PAPERS))


def test_profile_with_only_authors_or_only_keywords() -> None:
    only_authors = Profile(name="a", topics=(), authors=("A. Nobody",))
    scores = scores_for(only_authors)
    assert np.all(scores >= rank.DEFAULT_WEIGHTS.author - 0.2)
    only_boost = Profile(name="b", topics=(), boost=("molecule",))
    assert int(np.argmax(scores_for(only_boost))) == 1


def test_roc_auc_and_recall_at_k() -> None:
    assert roc_auc([0.9, 0.8, 0.3, 0.1], [1, 1, 0, 0]) == 1.0
    assert roc_auc([0.1, 0.2, 0.8, 0.9], [1, 1, 0, 0]) == 0.0
    assert roc_auc([0.5, 0.5, 0.5, 0.5], [1, 0, 1, 0]) == 0.5  # ties count one half
    assert roc_auc([0.9, 0.5, 0.5, 0.1], [1, 1, 0, 0]) == pytest.approx(0.875)
    assert math.isnan(roc_auc([0.1, 0.2], [1, 1]))
    assert recall_at_k([0.9, 0.8, 0.7, 0.1], [1, 0, 0, 1], 2) == 0.5
    assert recall_at_k([0.9, 0.8, 0.7, 0.1], [1, 0, 0, 1], 10) == 1.0
    assert math.isnan(recall_at_k([0.9], [0], 1))
    with pytest.raises(ValueError):
        roc_auc([0.1, 0.2], [1])
