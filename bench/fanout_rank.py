"""Personal ranking fan-out: 1,000 papers for 10,000 users, each with a profile and a feedback model.

    python bench/fanout_rank.py              # best of 3 runs, each stage timed
    python bench/fanout_rank.py --users 2000 --papers 500

Papers are real (the labelled days' embeddings from <emb-dir>/emb_DAY.npy, else the local MiniLM). Profiles are
synthetic (3 topics, 5 boost, 3 penalize and 2 application keywords from a shared vocabulary, random text vectors).
Feedback models are real models (bot/ranking/learn.py) trained on random reactions to real papers, 20 to 300 each,
shared
round-robin by the users: the product of the users' stacked weights with the paper vectors does not depend on
the values. The whole pass is: cold-start scores (bot/ranking/rank.score_papers), the stacked weight matrix, one matrix
product for the personal part, and each user's top 15.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rank_quality import DEFAULT_DATA, LazyModel, _fake_embed, load_days

from bot.models import Profile, Topic
from bot.ranking import learn, rank

DIGEST = 15


def synthetic_profiles(count: int, rng: np.random.Generator) -> list[rank.ProfileModel]:
    """`count` compiled profiles of a typical size, sharing a keyword vocabulary as real users would."""
    vocab = [f"keyword {i}" if i % 2 else f"term{i} model" for i in range(600)]
    out = []
    for i in range(count):
        words = [vocab[k] for k in rng.choice(len(vocab), 10, replace=False)]
        profile = Profile(
            name=f"user{i}",
            topics=tuple(Topic(f"t{j}", f"wants {i}.{j}", f"avoids {i}.{j}") for j in range(3)),
            boost=tuple(words[:5]),
            penalize=tuple(words[5:8]),
            applications=tuple(words[8:]),
            categories=("cs.LG",),
        )
        out.append(rank.compile_profile(profile, _fake_embed))
    return out


def synthetic_models(count: int, vecs: np.ndarray, rng: np.random.Generator) -> list[learn.FeedbackModel]:
    """`count` users' feedback models: real models trained on random reactions, shared round-robin."""
    distinct = []
    for _ in range(min(count, 200)):
        n = int(rng.integers(20, 301))
        idx = rng.choice(len(vecs), n, replace=False)
        model = learn.train_feedback_model(vecs[idx], rng.choice([-1.0, 1.0], n), background=vecs[:256])
        assert model is not None
        distinct.append(model)
    return [distinct[i % len(distinct)] for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with arxiv/ and labels/")
    parser.add_argument("--emb-dir", type=Path, default=Path("/tmp"), help="folder with cached emb_DAY.npy")
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--papers", type=int, default=1_000)
    args = parser.parse_args()

    days = load_days(args.data, args.emb_dir, LazyModel())
    papers = [p for d in days for p in d.papers][: args.papers]
    vecs = np.ascontiguousarray(np.concatenate([d.vecs for d in days])[: args.papers], dtype=np.float32)
    rng = np.random.default_rng(0)
    print("command: python bench/fanout_rank.py " + " ".join(sys.argv[1:]))
    print(f"{len(papers)} papers x {args.users} users (profile + feedback model each)")
    profiles = synthetic_profiles(args.users, rng)
    models = synthetic_models(args.users, vecs, rng)

    start = time.perf_counter()
    for _ in range(20):
        learn.train_feedback_model(vecs[:500], np.where(np.arange(500) % 3 == 0, 1.0, -1.0), background=vecs[500:756])
    print(
        f"train_feedback_model, 500 reactions + 256 weak negatives: {(time.perf_counter() - start) / 20 * 1000:.1f} ms"
    )

    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        features = rank.paper_features(papers)
        t1 = time.perf_counter()
        cold = rank.score_papers(vecs, features, profiles)
        t2 = time.perf_counter()
        matrix = learn.feedback_matrix(models, vecs.shape[1])
        t3 = time.perf_counter()
        scores = learn.personal_scores_many(cold, vecs, matrix)
        t4 = time.perf_counter()
        top = np.argpartition(-scores, DIGEST, axis=1)[:, :DIGEST]
        t5 = time.perf_counter()
        runs.append((t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t5 - t0))
        del cold, scores, top
    best = min(runs, key=lambda r: r[-1])
    labels = ("paper_features", "cold start (score_papers)", "stack weight matrix", "personal part (one matmul)")
    for label, value in zip((*labels, f"top {DIGEST} per user"), best[:-1], strict=True):
        print(f"  {label:28s} {value:6.3f} s")
    print(f"  {'total':28s} {best[-1]:6.3f} s   (best of 3; totals {', '.join(f'{r[-1]:.2f}' for r in runs)} s)")
    # the batched personal part must agree with the one-user path
    one = rank.score_papers(vecs, features, profiles[:1])
    single = learn.personal_scores(one[0], vecs, models[0], models[0].n_reactions)
    assert np.allclose(single, learn.personal_scores_many(one, vecs, matrix[:1])[0], atol=1e-5)


if __name__ == "__main__":
    main()
