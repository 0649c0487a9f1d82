"""Does the feedback model gain from seeing more of each paper than one MiniLM vector of title + abstract?

    python bench/representations.py [--emb-dir /tmp] [--cache /tmp/ps_reps]

MiniLM reads at most 256 word pieces, and more than half of the abstracts on the labelled days are longer, so a
title-and-abstract vector never sees their last sentences. This benchmark builds other vectors of the same papers
with the same model (the title alone, the second half of the abstract alone, the mean of the abstract's sentence
vectors, and sums or concatenations with the title-and-abstract vector), trains the same feedback model on each
(3 days -> 4th, the protocol of `paperscout eval --train`, on top of the product's cold start) and prints held-out
AUC and recall@100 at three fusion weights, plus two changes of the model itself on the stored vectors: bagging
over the thumbs-down draws, and a prototype term (highest cosine to an upvoted paper) added to the learned part.
The product's stored vector is title-and-abstract plus title (`bot.embeddings.embedder.paper_vectors`), a change this
benchmark
led to.

The extra vectors take about two minutes to compute on two cores; they are cached under --cache.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from learning_curve import day_arrays
from rank_quality import DEFAULT_DATA, Day, LazyModel, load_days

from bot.ranking import rank
from bot.ranking.evaluate import DayArrays, reader_reactions, train_on_days
from bot.ranking.learn import MAX_WEIGHT, train_feedback_model
from bot.ranking.metrics import recall_at_k, roc_auc
from bot.ranking.profiles import load_profile

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
MULTIPLIERS = (0.5, 1.0, 1.5)  # times the model's fusion weight


def _sentences(abstract: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(" ".join(abstract.split())) if s.strip()] or [abstract]


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def extra_vectors(day: Day, embed: LazyModel, cache: Path) -> dict[str, np.ndarray]:
    """Title, abstract-tail and sentence-mean vectors of one day's papers (cached as .npy)."""
    cache.mkdir(parents=True, exist_ok=True)
    out: dict[str, np.ndarray] = {}
    for kind in ("title", "tail", "sentmean"):
        path = cache / f"{kind}_{day.name}.npy"
        if path.exists():
            out[kind] = np.load(path)
            continue
        if kind == "title":
            vecs = embed([p.title for p in day.papers])
        elif kind == "tail":
            vecs = embed([" ".join(s[len(s) // 2 :]) for s in (_sentences(p.abstract) for p in day.papers)])
        else:
            owners, texts = [], []
            for i, paper in enumerate(day.papers):
                for sentence in _sentences(paper.abstract):
                    owners.append(i)
                    texts.append(sentence)
            sums = np.zeros((len(day.papers), day.vecs.shape[1]), dtype=np.float32)
            np.add.at(sums, np.array(owners), embed(texts))
            vecs = _unit(sums)
        np.save(path, vecs.astype(np.float32))
        out[kind] = vecs.astype(np.float32)
    return out


def representations(full: np.ndarray, extra: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every paper representation compared, by name (`full`: the title-and-abstract vector alone)."""
    title, tail, sentmean = extra["title"], extra["tail"], extra["sentmean"]
    return {
        "title + abstract (first 256 word pieces) alone": full,
        "title only": title,
        "second half of the abstract only": tail,
        "mean of the abstract's sentence vectors": sentmean,
        "title + abstract, plus title (sum): the stored vector": _unit(full + title),
        "title + abstract, plus tail (sum)": _unit(full + tail),
        "title + abstract, plus sentence mean (sum)": _unit(full + sentmean),
        "title + abstract, plus title, tail, sentence mean (sum)": _unit(full + title + tail + sentmean),
        "[title + abstract, tail] concatenated": np.hstack([full, tail]) / np.sqrt(2),
        "[title + abstract, title, sentence mean] concatenated": np.hstack([full, title, sentmean]) / np.sqrt(3),
    }


def folds(arrays: list[DayArrays], vecs: list[np.ndarray]) -> np.ndarray:
    """(len(MULTIPLIERS), 2): mean held-out AUC and recall@100 of cold + m * weight * learned, per multiplier."""
    days = [DayArrays(a.day, a.ids, a.cold, v, a.labels) for a, v in zip(arrays, vecs, strict=True)]
    out = np.zeros((len(MULTIPLIERS), len(days), 2))
    for e, test in enumerate(days):
        model = train_on_days([d for d in days if d is not test], frozenset(test.ids))
        assert model is not None
        learned = test.vecs @ model.weights
        for m, mult in enumerate(MULTIPLIERS):
            scores = test.cold + mult * MAX_WEIGHT * learned
            out[m, e] = roc_auc(scores, test.labels), recall_at_k(scores, test.labels, 100)
    return out.mean(axis=1)


def bagged(arrays: list[DayArrays], draws: int) -> np.ndarray:
    """Mean AUC / recall@100 when the model's weights are averaged over `draws` thumbs-down samples."""
    out = []
    for test in arrays:
        train = [d for d in arrays if d is not test]
        weights = []
        for seed in range(draws):
            reactions = reader_reactions(train, frozenset(test.ids), seed)
            assert reactions is not None
            x, y, background = reactions
            model = train_feedback_model(x, y, background=background)
            assert model is not None
            weights.append(model.weights)
        scores = test.cold + MAX_WEIGHT * (test.vecs @ np.mean(weights, axis=0))
        out.append((roc_auc(scores, test.labels), recall_at_k(scores, test.labels, 100)))
    return np.mean(out, axis=0)


def with_prototypes(arrays: list[DayArrays], weight: float) -> np.ndarray:
    """Mean AUC / recall@100 of the chosen model plus `weight` x the highest cosine to an upvoted paper."""
    out = []
    for test in arrays:
        train = [d for d in arrays if d is not test]
        model = train_on_days(train, frozenset(test.ids))
        assert model is not None
        ups = np.concatenate([d.vecs[d.labels] for d in train])
        scores = test.cold + MAX_WEIGHT * (test.vecs @ model.weights) + weight * (test.vecs @ ups.T).max(axis=1)
        out.append((roc_auc(scores, test.labels), recall_at_k(scores, test.labels, 100)))
    return np.mean(out, axis=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with arxiv/, labels/, profiles/")
    parser.add_argument("--emb-dir", type=Path, default=Path("/tmp"), help="folder with cached emb_DAY.npy")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/ps_reps"), help="where the extra vectors are kept")
    args = parser.parse_args()

    embed = LazyModel()
    profile = load_profile(args.data / "profiles" / "foundations.toml")
    days = load_days(args.data, args.emb_dir, embed)
    arrays = day_arrays(days, rank.compile_profile(profile, embed))
    extras = [extra_vectors(day, embed, args.cache) for day in days]
    long_share = np.mean([len(p.text.split()) > 190 for day in days for p in day.papers])
    print("command: python bench/representations.py " + " ".join(sys.argv[1:]))
    print(f"(papers whose title + abstract has more than 190 words, about 256 word pieces: {long_share:.0%})")
    print(f"\n{'representation':55s} " + " ".join(f"{'x' + str(m) + ' AUC / R@100':>18s}" for m in MULTIPLIERS))
    # the title-and-abstract vectors alone, as load_days cached them before adding the title vectors
    text_only = [np.load(args.emb_dir / f"emb_{day.name}.npy") for day in days]
    per_day = [representations(text, extra) for text, extra in zip(text_only, extras, strict=True)]
    for name in per_day[0]:
        result = folds(arrays, [reps[name] for reps in per_day])
        print(f"{name:55s} " + " ".join(f"{auc:>9.4f} / {r100:.4f}" for auc, r100 in result), flush=True)
    print("\nmodel changes on the stored vector (fusion weight x1.0):")
    for draws in (1, 8):
        auc, r100 = bagged(arrays, draws)
        print(f"{f'weights averaged over {draws} thumbs-down draws':55s} {auc:>9.4f} / {r100:.4f}")
    for weight in (0.03, 0.1):
        auc, r100 = with_prototypes(arrays, weight)
        print(f"{f'+ {weight} x highest cosine to an upvoted paper':55s} {auc:>9.4f} / {r100:.4f}")


if __name__ == "__main__":
    main()
