"""Learning from thumbs up/down (bot/ranking/learn.py) on the labelled arXiv days: folds, alternatives, learning curve.

    python bench/learning_curve.py               # 3 days -> 4th folds and the learning curve
    python bench/learning_curve.py --compare     # also the alternative models and reader protocols tried
    python bench/learning_curve.py --vague       # also the learning curve of a user whose profile is one line

Folds: each day is ranked after learning from the other three days' labels as a reader's reactions: every pick a
thumbs up, and as many non-picks, sampled from the cold-start top 150, thumbs down
(`bot.ranking.evaluate.skim_reactions`,
the protocol of `paperscout eval --train`).

Learning curve: a simulated reader of the three training days. Each "digest" shows the 15 best not yet shown
papers of one training day under the reader's current personal ranking (days taken in turn); the reader reacts
to each shown paper with probability 1/3 (pick = up, non-pick = down), and the model is retrained after each
digest. AUC and recall@100 on the held-out day after the first N reactions, averaged over folds and seeds.

Paper embeddings come from <emb-dir>/emb_DAY.npy when present (rows in JSONL order), else from the local MiniLM.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rank_quality import DEFAULT_DATA, KS, Day, LazyModel, load_days, measure

from bot.models import Profile, Topic
from bot.ranking import learn, rank
from bot.ranking.evaluate import DayArrays, skim_reactions, train_on_days
from bot.ranking.metrics import recall_at_k, roc_auc
from bot.ranking.profiles import load_profile

CHECKPOINTS = (0, 5, 10, 20, 50, 100)
DIGEST_SIZE = 15
REACT_PROBABILITY = 1 / 3
VAGUE_PROFILE = Profile(
    name="one line", topics=(Topic("Interests", "new machine learning methods and deep learning theory"),)
)

Scorer = Callable[[DayArrays], np.ndarray]


def day_arrays(days: list[Day], model: rank.ProfileModel) -> list[DayArrays]:
    """Cold-start scores of `model` for every day, with vectors and labels."""
    out = []
    for day in days:
        cold = rank.score_papers(day.vecs, day.features, [model])[0]
        out.append(DayArrays(day.papers[0].announced, tuple(p.id for p in day.papers), cold, day.vecs, day.labels))
    return out


def header(title: str) -> None:
    print(f"\n{title}")
    print(f"{'':34s} {'AUC':>6s} " + " ".join(f"{'R@' + str(k):>6s}" for k in KS))


def row(label: str, values: list[float] | np.ndarray) -> None:
    print(f"{label:34s} " + " ".join(f"{v:6.3f}" for v in values))


# ---------------------------------------------------------------- folds


def folds(arrays: list[DayArrays], seeds: range) -> None:
    """The product model, trained as `paperscout eval --train` trains it, on 3 days; tested on the 4th."""
    header(f"3 days -> 4th: cold start + learned (bot/ranking/learn.py), mean of {len(seeds)} negative samples")
    results = []
    for test in arrays:
        train = [d for d in arrays if d is not test]
        per_seed = []
        for seed in seeds:
            model = train_on_days(train, frozenset(test.ids), seed)
            n = model.n_reactions if model else 0
            per_seed.append(measure(learn.personal_scores(test.cold, test.vecs, model, n), test.labels))
        results.append(np.mean(per_seed, axis=0))
        row(f"test {test.day} ({int(test.labels.sum())} picks)", results[-1])
    row("mean", np.mean(results, axis=0))
    cold = np.mean([measure(d.cold, d.labels) for d in arrays], axis=0)
    row("cold start alone (mean)", cold)


# ---------------------------------------------------------------- alternatives


def _reactions(train: list[DayArrays], protocol: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vectors, values, cold scores) of one reader protocol over the training days."""
    vecs, vals, colds = [], [], []
    for day in train:
        rng = np.random.default_rng(seed + day.day.toordinal())
        ups = np.flatnonzero(day.labels)
        non = np.flatnonzero(~day.labels)
        if protocol == "skim":
            idx, v = skim_reactions(day.cold, day.labels, seed + day.day.toordinal())
        else:
            if protocol == "all":
                downs = non
            elif protocol == "random":
                downs = rng.choice(non, len(ups), replace=False)
            else:  # "top": the highest-ranked non-picks only
                downs = non[np.argsort(-day.cold[non], kind="stable")[: len(ups)]]
            idx = np.concatenate([ups, downs])
            v = np.concatenate([np.ones(len(ups)), -np.ones(len(downs))])
        vecs.append(day.vecs[idx])
        vals.append(v)
        colds.append(day.cold[idx])
    return np.concatenate(vecs), np.concatenate(vals), np.concatenate(colds)


def _background(train: list[DayArrays], seed: int) -> tuple[np.ndarray, np.ndarray]:
    vecs = np.concatenate([d.vecs for d in train])
    cold = np.concatenate([d.cold for d in train])
    pick = np.sort(np.random.default_rng(seed).choice(len(vecs), learn.BACKGROUND_SIZE, replace=False))
    return vecs[pick], cold[pick]


def _offset_model(x: np.ndarray, y: np.ndarray, offset: np.ndarray, bg: np.ndarray, bg_off: np.ndarray) -> np.ndarray:
    """Logistic regression with the cold score as a fixed offset (beta * cold): learns only the residual."""
    n = len(y)
    up, down = int((y > 0).sum()), int((y < 0).sum())
    w = np.where(y > 0, n / (2 * up), n / (2 * down))
    xs = np.vstack([x, bg]).astype(np.float64)
    ys = np.concatenate([y, -np.ones(len(bg))])
    ws = np.concatenate([w, np.full(len(bg), learn.BACKGROUND_WEIGHT * n / len(bg))])
    off = np.concatenate([offset, bg_off])
    a = np.hstack([xs, np.ones((len(xs), 1))])
    theta = np.zeros(a.shape[1])
    penalty = np.full(a.shape[1], learn.L2)
    penalty[-1] = 1e-2

    def objective(t: np.ndarray) -> float:
        return float(ws @ np.logaddexp(0, -ys * (a @ t + off)) + 0.5 * penalty @ (t * t))

    value = objective(theta)
    for _ in range(30):
        p = 0.5 * (1 - np.tanh(0.5 * ys * (a @ theta + off)))
        grad = penalty * theta - a.T @ (ws * ys * p)
        hess = (a.T * (ws * p * (1 - p))) @ a + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        size = 1.0
        while objective(theta - size * step) > value - 1e-4 * size * grad @ step and size > 1e-4:
            size /= 2
        theta -= size * step
        value = objective(theta)
        if np.abs(size * step).max() < 1e-6:
            break
    return theta[:-1]


def _tfidf_scores(train_texts: list[str], y: np.ndarray, test_texts: list[str], fit_texts: list[str]) -> np.ndarray:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2, ngram_range=(1, 2), stop_words="english")
    vectorizer.fit(fit_texts)
    clf = LogisticRegression(C=10, max_iter=3000, class_weight="balanced")
    clf.fit(vectorizer.transform(train_texts), y)
    return clf.decision_function(vectorizer.transform(test_texts))


def compare(arrays: list[DayArrays], days: list[Day], seeds: range) -> None:
    """Each alternative under several reader protocols; mean over the 4 folds and the seeds."""
    texts = {a.day: [p.text for p in d.papers] for a, d in zip(arrays, days, strict=True)}

    def run(protocol: str, method: str) -> np.ndarray:
        out = []
        for test in arrays:
            # the in-sample row trains on the evaluated day too: how far these labels can be learned at all
            train = list(arrays) if method.startswith("in-sample") else [d for d in arrays if d is not test]
            for seed in seeds:
                x, y, c = _reactions(train, protocol, seed)
                bg, bg_cold = _background(train, seed)
                n = len(y)
                if method == "product" or method.startswith("in-sample"):
                    model = learn.train_feedback_model(x, y, background=bg)
                    scores = learn.personal_scores(test.cold, test.vecs, model, n)
                elif method == "no background":
                    model = learn.train_feedback_model(x, y)
                    scores = learn.personal_scores(test.cold, test.vecs, model, n)
                elif method == "learned part alone":
                    model = learn.train_feedback_model(x, y, background=bg)
                    scores = test.vecs @ model.weights
                elif method.startswith("fusion weight"):
                    weight = float(method.split()[-1])
                    model = learn.train_feedback_model(x, y, background=bg)
                    scores = test.cold + weight * (test.vecs @ model.weights)
                elif method.startswith("offset LR"):
                    beta = float(method.split()[-1])
                    w = _offset_model(x, y, beta * c, bg, beta * bg_cold)
                    scores = beta * test.cold + test.vecs @ w
                elif method == "Rocchio (mean up - mean down)":
                    direction = x[y > 0].mean(axis=0) - x[y < 0].mean(axis=0)
                    scores = test.cold + 1.0 * (test.vecs @ direction)
                elif method == "+ tf-idf LR (0.05)":
                    model = learn.train_feedback_model(x, y, background=bg)
                    train_texts, labels = [], []
                    for day in train:
                        idx, vals = (
                            skim_reactions(day.cold, day.labels, seed + day.day.toordinal())
                            if protocol == "skim"
                            else (np.arange(len(day.ids)), np.where(day.labels, 1.0, -1.0))
                        )
                        train_texts += [texts[day.day][i] for i in idx]
                        labels += list(vals)
                    fit_texts = [t for d in train for t in texts[d.day]]
                    tfidf = _tfidf_scores(train_texts, np.array(labels), texts[test.day], fit_texts)
                    scores = learn.personal_scores(test.cold, test.vecs, model, n) + 0.05 * tfidf
                else:
                    raise ValueError(method)
                out.append(measure(scores, test.labels))
        return np.mean(out, axis=0)

    methods = (
        "product",
        "no background",
        "learned part alone",
        "fusion weight 0.05",
        "fusion weight 0.2",
        "offset LR beta 10",
        "Rocchio (mean up - mean down)",
        "+ tf-idf LR (0.05)",
        "in-sample (test day trained on)",
    )
    protocols = {
        "skim": "the eval protocol: up = picks, down = as many non-picks from the cold top 150",
        "top": "down = the highest-ranked non-picks, as many as picks",
        "random": "down = uniformly random non-picks, as many as picks",
        "all": "down = every non-pick",
    }
    for protocol, description in protocols.items():
        header(f"alternatives, reader protocol '{protocol}': {description} (mean of 4 folds)")
        for method in methods:
            if method == "+ tf-idf LR (0.05)" and protocol not in ("skim", "all"):
                continue
            row(method, run(protocol, method))


# ---------------------------------------------------------------- learning curve


def simulate_reader(train: list[DayArrays], seed: int, limit: int) -> list[tuple[int, int, float]]:
    """Reactions (day index, paper index, value) of a reader of digests ranked by their current personal model."""
    rng = np.random.default_rng(seed)
    order = list(rng.permutation(len(train)))
    shown = [np.zeros(len(d.ids), dtype=bool) for d in train]
    background = _background(train, seed)[0]
    reactions: list[tuple[int, int, float]] = []
    model = None
    turn = 0
    while len(reactions) < limit and not all(s.all() for s in shown):
        k = order[turn % len(order)]
        turn += 1
        day = train[k]
        scores = learn.personal_scores(day.cold, day.vecs, model, model.n_reactions if model else 0)
        scores = np.where(shown[k], -np.inf, scores)
        for i in np.argsort(-scores, kind="stable")[:DIGEST_SIZE]:
            if shown[k][i]:
                continue
            shown[k][i] = True
            if rng.random() < REACT_PROBABILITY:
                reactions.append((k, int(i), 1.0 if day.labels[i] else -1.0))
        model = _fit(train, reactions, background)
    return reactions[:limit]


def _fit(
    train: list[DayArrays], reactions: list[tuple[int, int, float]], background: np.ndarray
) -> learn.FeedbackModel | None:
    if not reactions:
        return None
    vecs = np.stack([train[k].vecs[i] for k, i, _ in reactions])
    values = np.array([v for *_, v in reactions])
    return learn.train_feedback_model(vecs, values, background=background)


def learning_curve(arrays: list[DayArrays], seeds: range, title: str) -> None:
    results = np.zeros((len(arrays), len(seeds), len(CHECKPOINTS), 3))
    ups = []
    for t, test in enumerate(arrays):
        train = [d for d in arrays if d is not test]
        for s, seed in enumerate(seeds):
            reactions = simulate_reader(train, seed, max(CHECKPOINTS))
            background = _background(train, seed)[0]
            ups.append(sum(v > 0 for *_, v in reactions[:10]))
            for c, n in enumerate(CHECKPOINTS):
                model = _fit(train, reactions[:n], background)
                scores = learn.personal_scores(test.cold, test.vecs, model, n)
                top = np.argsort(-scores, kind="stable")[:DIGEST_SIZE]
                results[t, s, c] = (
                    roc_auc(scores, test.labels),
                    recall_at_k(scores, test.labels, 100),
                    test.labels[top].mean(),
                )
    print(f"\n{title}")
    print(f"(held-out day AUC / recall@100 / precision of a {DIGEST_SIZE}-paper digest; {len(seeds)} seeds per fold)")
    print(f"{'reactions':>10s} " + " ".join(f"{n:>7d}" for n in CHECKPOINTS))
    for t, test in enumerate(arrays):
        print(f"{'AUC ' + test.day.isoformat()[5:]:>10s} " + " ".join(f"{v:7.3f}" for v in results[t, :, :, 0].mean(0)))
    mean = results.mean(axis=(0, 1))
    for name, col in (("AUC mean", 0), ("R@100 mean", 1), ("P@15 mean", 2)):
        print(f"{name:>10s} " + " ".join(f"{v:7.3f}" for v in mean[:, col]))
    print(f"(thumbs up among the first 10 reactions: {np.mean(ups):.1f} on average)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with arxiv/, labels/, profiles/")
    parser.add_argument("--profile", type=Path, default=None, help="profile TOML (default: foundations.toml)")
    parser.add_argument("--emb-dir", type=Path, default=Path("/tmp"), help="folder with cached emb_DAY.npy")
    parser.add_argument("--seeds", type=int, default=5, help="seeds per fold (default 5)")
    parser.add_argument("--compare", action="store_true", help="also the alternatives tried")
    parser.add_argument("--vague", action="store_true", help="also a user whose profile is one line")
    args = parser.parse_args()

    embed = LazyModel()
    profile = load_profile(args.profile or args.data / "profiles" / "foundations.toml")
    days = load_days(args.data, args.emb_dir, embed)
    arrays = day_arrays(days, rank.compile_profile(profile, embed))
    seeds = range(args.seeds)
    print("command: python bench/learning_curve.py " + " ".join(sys.argv[1:]))
    folds(arrays, seeds)
    if args.compare:
        compare(arrays, days, range(min(args.seeds, 2)))
    learning_curve(arrays, seeds, f"learning curve, profile '{profile.name}' (the profile the labels were made for)")
    if args.vague:
        vague = day_arrays(days, rank.compile_profile(VAGUE_PROFILE, embed))
        learning_curve(vague, seeds, f"learning curve, one-line profile: '{VAGUE_PROFILE.topics[0].want}'")


if __name__ == "__main__":
    main()
