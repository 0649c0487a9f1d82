"""Learning from thumbs up/down: the model, its fusion with the cold start, storage, caching and `eval --train`."""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from bot.cli import main
from bot.core import Core
from bot.ingest.bundled import bundled_file
from bot.models import Paper, Profile, Topic
from bot.ranking import learn
from bot.ranking.evaluate import SKIM_DEPTH, skim_reactions, training_days_for

PROFILE = Profile(
    name="test",
    topics=(
        Topic("Language models", "large language models, transformers and their training"),
        Topic("Learning theory", "generalisation bounds and optimisation theory"),
    ),
)


CENTRE = np.random.default_rng(0).standard_normal(32)
CENTRE /= np.linalg.norm(CENTRE)


def clusters(rng: np.random.Generator, n: int, dim: int = 32) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit vectors around two opposite centres, +-CENTRE: (vectors, +1 / -1 for the side, CENTRE)."""
    centre = CENTRE
    side = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    vecs = side[:, None] * centre + 0.8 * rng.standard_normal((n, dim)) / np.sqrt(dim)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs.astype(np.float32), side, centre


# ---------------------------------------------------------------- the model


def test_training_on_separable_vectors_ranks_upvoted_like_papers_first() -> None:
    rng = np.random.default_rng(1)
    train, values, _ = clusters(rng, 60)
    model = learn.train_feedback_model(train, values)
    assert model is not None and model.n_up == 30 and model.n_down == 30
    fresh, side, _ = clusters(np.random.default_rng(2), 40)
    scores = learn.personal_scores(np.zeros(40, np.float32), fresh, model, model.n_reactions)
    liked, disliked = scores[side > 0], scores[side < 0]
    assert liked.min() > disliked.max()


def test_only_thumbs_up_still_learns_a_direction_thanks_to_the_weak_negatives() -> None:
    rng = np.random.default_rng(3)
    vecs, side, _ = clusters(rng, 80)
    ups = vecs[side > 0][:8]
    background = vecs[40:]  # half of them look like the upvoted papers: the rest of the day
    model = learn.train_feedback_model(ups, np.ones(8), background=background)
    assert model is not None and model.n_down == 0
    fresh, fresh_side, _ = clusters(np.random.default_rng(4), 40)
    scores = learn.personal_scores(np.zeros(40, np.float32), fresh, model, 8)
    assert scores[fresh_side > 0].mean() > scores[fresh_side < 0].mean()


def test_no_model_below_the_minimum_and_zero_reactions_is_exactly_cold_start() -> None:
    vecs, side, _ = clusters(np.random.default_rng(5), 10)
    assert learn.train_feedback_model(vecs[:1], side[:1]) is None
    assert learn.train_feedback_model(np.zeros((0, 32)), np.zeros(0)) is None
    cold = np.random.default_rng(6).random(10).astype(np.float32)
    model = learn.train_feedback_model(vecs, side)
    assert np.array_equal(learn.personal_scores(cold, vecs, None, 0), cold)
    assert np.array_equal(learn.personal_scores(cold, vecs, model, 0), cold)
    assert learn.fusion_weight(0) == 0.0 and learn.fusion_weight(learn.MIN_REACTIONS - 1) == 0.0


def test_the_weight_of_feedback_grows_with_the_number_of_reactions() -> None:
    weights = [learn.fusion_weight(n) for n in (2, 5, 10, 20, 50, 100, 500)]
    assert all(a < b for a, b in itertools.pairwise(weights))
    assert weights[-1] < learn.MAX_WEIGHT
    vecs, side, _ = clusters(np.random.default_rng(7), 400)
    test, _, _ = clusters(np.random.default_rng(8), 50)
    cold = np.zeros(50, np.float32)
    shifts = []
    for n in (4, 40, 400):
        model = learn.train_feedback_model(vecs[:n], side[:n])
        shifts.append(float(np.abs(learn.personal_scores(cold, test, model, n)).mean()))
    assert shifts[0] < shifts[1] < shifts[2]


def test_batched_scores_match_the_one_user_path() -> None:
    vecs, side, _ = clusters(np.random.default_rng(9), 60)
    models = [learn.train_feedback_model(vecs[: 10 * k], side[: 10 * k]) for k in (1, 3, 6)] + [None]
    cold = np.random.default_rng(10).random((4, 60)).astype(np.float32)
    many = learn.personal_scores_many(cold, vecs, learn.feedback_matrix(models, 32))
    for i, model in enumerate(models):
        n = model.n_reactions if model else 0
        assert np.allclose(many[i], learn.personal_scores(cold[i], vecs, model, n), atol=1e-6)


def test_training_on_500_reactions_with_weak_negatives_gives_one_model() -> None:
    # its speed (about 20 ms) is a figure of bench/fanout_rank.py, not a timed test: timings flake on a busy machine
    rng = np.random.default_rng(11)
    vecs = rng.standard_normal((756, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    values = np.where(rng.random(500) < 0.4, 1.0, -1.0)
    model = learn.train_feedback_model(vecs[:500], values, background=vecs[500:])
    assert model is not None and model.n_reactions == 500


# ---------------------------------------------------------------- storage, cache and ranking


@pytest.fixture
def forty(demo_papers: list[Paper]) -> list[Paper]:
    return demo_papers[:40]


async def test_a_change_of_mind_replaces_the_reaction_and_users_are_created_on_demand(core: Core) -> None:
    await core.repo.add_feedback("telegram:1", "2505.00001", 1)
    await core.repo.add_feedback("telegram:1", "2505.00002", 1)
    await core.repo.add_feedback("telegram:1", "2505.00001", -1)
    assert len(await core.repo.user_feedback_rows("telegram:1")) == 2
    rows = await core.repo.user_feedback_rows("telegram:1")
    assert {row.paper_id: row.value for row in rows} == {"2505.00001": -1, "2505.00002": 1}
    assert await core.repo.user_feedback_rows("telegram:2") == []


async def test_record_reaction_rejects_values_other_than_plus_or_minus_one(core: Core) -> None:
    from bot.errors import InputError

    with pytest.raises(InputError):
        await learn.record_reaction(core, "console:local", "2505.17083", 0)
    assert len(await core.repo.user_feedback_rows("console:local")) == 0


async def test_reactions_reorder_the_users_ranking_and_say_why(core: Core, forty: list[Paper]) -> None:
    cold = await learn.rank_for_user(core, "discord:7", PROFILE, forty)
    assert core.feedback_models["discord:7"].model is None
    cold_rank = {item.paper.id: i for i, item in enumerate(cold)}
    liked = [item.paper.id for item in cold[-6:]]  # the profile's least favourite papers
    disliked = [item.paper.id for item in cold[:6]]  # and its favourites
    for pid in liked:
        await learn.record_reaction(core, "discord:7", pid, 1)
    for pid in disliked:
        await learn.record_reaction(core, "discord:7", f"arXiv:{pid}v2", -1)  # ids are normalised
    entry = core.feedback_models["discord:7"]
    assert entry.model is not None and (entry.model.n_up, entry.model.n_down) == (6, 6)

    ranked = await learn.rank_for_user(core, "discord:7", PROFILE, forty)
    assert sorted(i.paper.id for i in ranked) == sorted(p.id for p in forty)
    new_rank = {item.paper.id: i for i, item in enumerate(ranked)}
    cold_score = {item.paper.id: item.score for item in cold}
    shift = {item.paper.id: item.score - cold_score[item.paper.id] for item in ranked}
    assert min(shift[p] for p in liked) > max(shift[p] for p in disliked)
    # twelve reactions against the profile move papers visibly without overturning it
    assert np.mean([new_rank[p] for p in liked]) < np.mean([cold_rank[p] for p in liked]) - 2
    assert np.mean([new_rank[p] for p in disliked]) > np.mean([cold_rank[p] for p in disliked]) + 1
    reasons = [r for item in ranked for r in item.reasons]
    assert any(r.startswith("like papers you upvoted") or r == "ranked higher by your feedback" for r in reasons)
    # a reason names another upvoted paper, never the paper itself (test_standing: only a really close one)
    assert not [i for i in ranked if f"like papers you upvoted: {i.paper.title}" in i.reasons]
    assert all(a.score >= b.score for a, b in itertools.pairwise(ranked))

    # another user, and top_k, are untouched by these reactions
    other = await learn.rank_for_user(core, "discord:8", PROFILE, forty, top_k=5)
    assert [i.paper.id for i in other] == [i.paper.id for i in cold[:5]]
    assert [i.score for i in other] == [i.score for i in cold[:5]]

    # a change of mind on every upvote pulls those papers back down
    for pid in liked:
        await learn.record_reaction(core, "discord:7", pid, -1)
    flipped = {item.paper.id: i for i, item in enumerate(await learn.rank_for_user(core, "discord:7", PROFILE, forty))}
    assert np.mean([flipped[p] for p in liked]) > np.mean([new_rank[p] for p in liked]) + 2


async def test_forget_feedback_removes_rows_and_the_cached_model(core: Core, forty: list[Paper]) -> None:
    cold = await learn.rank_for_user(core, "telegram:9", PROFILE, forty)
    for item in cold[-3:]:
        await learn.record_reaction(core, "telegram:9", item.paper.id, 1)
    await learn.record_reaction(core, "telegram:9", cold[0].paper.id, -1)
    assert core.feedback_models["telegram:9"].model is not None
    assert await learn.forget_feedback(core, "telegram:9") == 4
    assert "telegram:9" not in core.feedback_models
    assert len(await core.repo.user_feedback_rows("telegram:9")) == 0
    again = await learn.rank_for_user(core, "telegram:9", PROFILE, forty)
    assert [(i.paper.id, i.score) for i in again] == [(i.paper.id, i.score) for i in cold]
    assert await learn.forget_feedback(core, "telegram:9") == 0


async def test_a_reaction_to_a_paper_without_a_vector_is_stored_but_not_learned(core: Core, forty: list[Paper]) -> None:
    await learn.rank_for_user(core, "console:local", PROFILE, forty)  # stores the papers' vectors
    await learn.record_reaction(core, "console:local", "2501.00001", 1)  # never ingested
    await learn.record_reaction(core, "console:local", forty[0].id, 1)
    assert len(await core.repo.user_feedback_rows("console:local")) == 2
    await learn.rank_for_user(core, "console:local", PROFILE, forty)
    assert core.feedback_models["console:local"].model is None  # one usable reaction is below the minimum


# ---------------------------------------------------------------- evaluation protocol


def test_skim_reactions_upvote_every_pick_and_downvote_as_many_seen_non_picks() -> None:
    rng = np.random.default_rng(12)
    cold = rng.random(400)
    labels = rng.random(400) < 0.1
    idx, values = skim_reactions(cold, labels, seed=3)
    ups, downs = idx[values > 0], idx[values < 0]
    assert set(ups) == set(np.flatnonzero(labels))
    assert len(downs) == len(ups) and not labels[downs].any()
    seen = set(np.argsort(-cold, kind="stable")[:SKIM_DEPTH])
    assert set(downs) <= seen
    again = skim_reactions(cold, labels, seed=3)
    assert np.array_equal(again[0], idx) and np.array_equal(again[1], values)


def test_training_days_never_include_the_evaluated_day() -> None:
    a, b, c = dt.date(2025, 5, 26), dt.date(2025, 5, 28), dt.date(2025, 5, 29)
    assert training_days_for(a, [a, b, c], [a, b, c]) == [b, c]  # same folder: leave one day out
    assert training_days_for(c, [c], [a, b, c]) == [a, b]
    assert training_days_for(a, [a, b], [a]) == []  # the only training day is the evaluated one
    assert training_days_for(b, [a, b], [a, b, c]) == [c]  # other evaluated days are held out too


def write_labelled_dir(root: Path, days: dict[str, list[dict]], picks: dict[str, list[str]]) -> Path:
    (root / "arxiv").mkdir(parents=True)
    (root / "labels").mkdir()
    for day, rows in days.items():
        lines = [json.dumps({**r, "announced": day}) for r in rows]
        (root / "arxiv" / f"{day}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        chosen = {pid: {"relevance": 9, "novelty": 8, "author_match": False} for pid in picks[day]}
        (root / "labels" / f"{day}.json").write_text(json.dumps({"day": day, "picks": chosen}), encoding="utf-8")
    return root


@pytest.mark.slow
def test_eval_train_json_never_learns_from_the_evaluated_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PAPERSCOUT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PAPERSCOUT_CONFIG", raising=False)
    rows = [json.loads(line) for line in bundled_file("arxiv-2025-05-26.jsonl").read_text("utf-8").splitlines()[:80]]
    days = {"2025-05-26": rows[:40], "2025-05-27": rows[40:]}
    # arbitrary picks: nothing about day A's picks can be learned from day B, but they can be memorised
    picks = {day: [r["id"] for r in day_rows[3::5]] for day, day_rows in days.items()}
    data = write_labelled_dir(tmp_path / "data", days, picks)
    only_a = write_labelled_dir(tmp_path / "only_a", {"2025-05-26": days["2025-05-26"]}, picks)
    profile = str(bundled_file("example_profile.toml"))

    def run(*extra: str) -> dict:
        assert main(["eval", "--data", str(data), "--profile", profile, "--json", *extra]) == 0
        return json.loads(capsys.readouterr().out)

    cold = run()
    lodo = run("--train", str(data))
    assert set(lodo) >= {"days", "mean"} and set(lodo["days"]) == {"2025-05-26", "2025-05-27"}
    for metrics in [*lodo["days"].values(), lodo["mean"]]:
        assert set(metrics) == {"auc", "recall@50", "recall@100", "recall@150"}
    assert lodo["train"]["2025-05-26"] == {"days": ["2025-05-27"], "up": 8, "down": 8}
    assert lodo["train"]["2025-05-27"]["days"] == ["2025-05-26"]

    # training data that holds only the evaluated day must leave that day exactly at cold start
    alone = run("--train", str(only_a))
    assert alone["train"]["2025-05-26"] == {"days": [], "up": 0, "down": 0}
    assert alone["days"]["2025-05-26"] == cold["days"]["2025-05-26"]
    assert alone["train"]["2025-05-27"]["days"] == ["2025-05-26"]
    assert alone["days"]["2025-05-27"] != cold["days"]["2025-05-27"]


def test_a_reaction_dataclass_is_frozen() -> None:
    reaction = learn.Reaction("2505.17083", 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        reaction.value = -1  # type: ignore[misc]


async def test_compiled_profiles_are_kept_up_to_a_bound(core: Core, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.ranking import for_profile

    monkeypatch.setattr(for_profile, "PROFILE_CACHE_SIZE", 2)
    profiles = [Profile(name=f"p{i}", topics=(Topic("t", f"topic number {i}"),)) for i in range(3)]
    first = await for_profile.profile_model(core, profiles[0])
    await for_profile.profile_model(core, profiles[1])
    assert await for_profile.profile_model(core, profiles[0]) is first  # used again: now the most recent
    await for_profile.profile_model(core, profiles[2])
    assert list(core.profile_cache) == [profiles[0].fingerprint, profiles[2].fingerprint]
