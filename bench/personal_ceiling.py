"""How far do the knobs around the feedback model move it? Sweeps behind the "Why not 0.93" note of BENCHMARKS.

    python bench/personal_ceiling.py [--emb-dir /tmp] [--seeds 3]

Every row is the product's personalised ranking (`bot.ranking.learn`, trained as `paperscout eval --train` trains it:
3 days -> 4th, `skim_reactions`) with one thing changed, mean AUC and recall@100 over the 4 folds and `--seeds`
draws of the thumbs down, and the per-fold figures. The groups:

- the learner's constants: ridge penalty x fusion weight, weight and number of weak negatives;
- the reader protocol: how deep the reader skims and how many thumbs down per thumbs up;
- the cold start under the learner: its temperature and term weights, one at a time;
- the profile's wants split into their comma- and semicolon-separated items, each embedded on its own;
- a contribution vector: MiniLM on the title plus the abstract from its first "we"/"this paper" sentence on,
  added to (or replacing) the stored paper vector;
- smoothing the day's scores over each paper's nearest neighbours among the same day's papers.

Contribution vectors take about a minute to embed on two cores; they are cached as <emb-dir>/contrib_DAY.npy.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rank_quality import DEFAULT_DATA, Day, LazyModel, load_days

from bot.embeddings.embedder import combine_vectors
from bot.models import Profile
from bot.ranking import learn, rank
from bot.ranking.evaluate import DayArrays, Skim, reader_reactions, skim_reactions
from bot.ranking.metrics import recall_at_k, roc_auc
from bot.ranking.profiles import load_profile

# (training days, test day, seed) -> scores of the test day's papers
Scorer = Callable[[list[DayArrays], DayArrays, int], np.ndarray]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
_CONTRIBUTION = re.compile(r"\b(we|our|this (paper|work|study|article)|here,)\b", re.IGNORECASE)
_ITEM_SEPARATOR = re.compile(r"[;,]")


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def arrays_for(
    days: list[Day], model: rank.ProfileModel, vecs: list[np.ndarray] | None = None, **weights: float
) -> list[DayArrays]:
    """Cold-start scores of every day under `model` (optionally other paper vectors or rank weights)."""
    chosen = dataclasses.replace(rank.DEFAULT_WEIGHTS, **weights)
    out = []
    for i, day in enumerate(days):
        v = day.vecs if vecs is None else vecs[i]
        cold = rank.score_papers(v, day.features, [model], chosen)[0]
        out.append(DayArrays(day.papers[0].announced, tuple(p.id for p in day.papers), cold, v, day.labels))
    return out


def learned(
    l2: float = learn.L2,
    weight: float = learn.MAX_WEIGHT,
    background_weight: float = learn.BACKGROUND_WEIGHT,
    background_size: int = learn.BACKGROUND_SIZE,
    skim: Skim = skim_reactions,
) -> Scorer:
    """The product's model (as `bot.ranking.evaluate.train_on_days` trains it) with constants replaced."""

    def score(train: list[DayArrays], test: DayArrays, seed: int) -> np.ndarray:
        reactions = reader_reactions(train, frozenset(test.ids), seed, skim, background_size)
        assert reactions is not None
        vecs, values, background = reactions
        model = learn.train_feedback_model(
            vecs, values, background=background, l2=l2, background_weight=background_weight
        )
        if model is None:
            return test.cold
        n = model.n_reactions
        return test.cold + weight * n / (n + learn.HALF_WEIGHT_AT) * (test.vecs @ model.weights)

    return score


def skim_at(depth: int, downs_per_up: float) -> Skim:
    """A reader who skims the cold-start top `depth` and gives `downs_per_up` thumbs down per thumbs up."""
    return functools.partial(skim_reactions, depth=depth, downs_per_up=downs_per_up)


def smoothed(k: int, share: float) -> Scorer:
    """The product's scores, standardised, mixed with the mean of each paper's `k` nearest same-day papers."""
    base = learned()

    def score(train: list[DayArrays], test: DayArrays, seed: int) -> np.ndarray:
        scores = base(train, test, seed)
        sims = test.vecs @ test.vecs.T
        np.fill_diagonal(sims, -1.0)
        neighbours = np.argsort(-sims, axis=1)[:, :k]
        z = (scores - scores.mean()) / scores.std()
        return (1 - share) * z + share * z[neighbours].mean(axis=1)

    return score


def evaluate(label: str, arrays: list[DayArrays], scorer: Scorer, seeds: range) -> None:
    """Print mean AUC / recall@100 and each fold's."""
    folds = []
    for test in arrays:
        train = [d for d in arrays if d is not test]
        per_seed = []
        for seed in seeds:
            scores = scorer(train, test, seed)
            labels = test.labels.astype(np.int8)
            per_seed.append((roc_auc(scores, labels), recall_at_k(scores, labels, 100)))
        folds.append(np.mean(per_seed, axis=0))
    mean = np.mean(folds, axis=0)
    per_fold = " ".join(f"{auc:.3f}/{r100:.3f}" for auc, r100 in folds)
    print(f"{label:44s} {mean[0]:.3f} / {mean[1]:.3f}   {per_fold}", flush=True)


def want_items(
    profile_model: rank.ProfileModel, profile: Profile, embed: LazyModel, keep_whole: bool
) -> rank.ProfileModel:
    """The compiled profile with each topic's want split into its listed items, each a want vector of its own."""
    texts, topics = [], []
    for index, topic in enumerate(t for t in profile.topics if t.want.strip()):
        for item in _ITEM_SEPARATOR.split(topic.want):
            item = re.sub(r"^(and|or)\s+", "", item.strip())
            if item:
                texts.append(item)
                topics.append(index)
    vecs = _unit(embed(texts))
    boosts = len(profile_model.boost)
    if keep_whole:
        kept_texts, kept_vecs, kept_topics = (
            profile_model.want_texts,
            profile_model.want_vecs,
            profile_model.want_topic,
        )
    else:  # the items replace the whole want texts; boost keywords stay
        kept_texts = profile_model.want_texts[len(profile_model.want_texts) - boosts :]
        kept_vecs = profile_model.want_vecs[len(profile_model.want_texts) - boosts :]
        kept_topics = (-1,) * boosts
    return dataclasses.replace(
        profile_model,
        want_texts=tuple(texts) + tuple(kept_texts),
        want_vecs=np.vstack([vecs, kept_vecs]).astype(np.float32),
        want_topic=tuple(topics) + tuple(kept_topics),
    )


def contribution_text(title: str, abstract: str) -> str:
    """The title and the abstract from its first sentence saying what the paper does ("we ...") on."""
    sentences = [s for s in _SENTENCE_END.split(" ".join(abstract.split())) if s.strip()] or [abstract]
    first = next((i for i, s in enumerate(sentences) if _CONTRIBUTION.search(s)), len(sentences) // 2)
    return f"{title}. " + " ".join(sentences[first:])


def contribution_vectors(days: list[Day], embed: LazyModel, cache: Path) -> list[np.ndarray]:
    """Contribution vectors of every day's papers, cached as contrib_DAY.npy."""
    out = []
    for day in days:
        path = cache / f"contrib_{day.name}.npy"
        if path.exists() and len(np.load(path)) == len(day.papers):
            out.append(np.load(path))
            continue
        vecs = _unit(embed([contribution_text(p.title, p.abstract) for p in day.papers]))
        np.save(path, vecs)
        out.append(vecs)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with arxiv/, labels/, profiles/")
    parser.add_argument("--emb-dir", type=Path, default=Path("/tmp"), help="cache of paper embeddings")
    parser.add_argument("--seeds", type=int, default=3, help="thumbs-down draws per fold (default 3)")
    args = parser.parse_args()

    embed = LazyModel()
    profile = load_profile(args.data / "profiles" / "foundations.toml")
    days = load_days(args.data, args.emb_dir, embed)
    model = rank.compile_profile(profile, embed)
    base = arrays_for(days, model)
    seeds = range(args.seeds)
    print("command: python bench/personal_ceiling.py " + " ".join(sys.argv[1:]))
    print(f"{'variant':44s} AUC / R@100     per fold (05-26 05-28 05-29 05-30)")
    evaluate("product (L2 0.3, weight 0.07)", base, learned(), seeds)
    evaluate("cold start alone", base, lambda train, test, seed: test.cold, range(1))

    print("-- learner constants")
    for l2 in (0.1, 0.3, 1.0):
        for weight in (0.05, 0.07, 0.1):
            if (l2, weight) != (learn.L2, learn.MAX_WEIGHT):
                evaluate(f"L2 {l2}, weight {weight}", base, learned(l2=l2, weight=weight), seeds)
    for share in (0.1, 0.6, 1.0):
        evaluate(f"weak negatives weigh {share}", base, learned(background_weight=share), seeds)
    evaluate("1,000 weak negatives", base, learned(background_size=1000), seeds)

    print("-- reader protocol (thumbs down from the cold-start top N, per thumbs up)")
    for depth in (100, 150, 200, 300):
        for ratio in (0.5, 1.0, 2.0):
            if (depth, ratio) != (150, 1.0):
                evaluate(f"skims top {depth}, {ratio} down per up", base, learned(skim=skim_at(depth, ratio)), seeds)

    print("-- cold-start weights under the learner (cold start alone in brackets)")
    for name, value in [("temperature", 5.0), ("temperature", 15.0), ("avoid", 0.15), ("avoid", 0.5),
                        ("novelty", 0.0), ("novelty", 0.05), ("boost", 0.0), ("boost", 0.04),
                        ("penalize", 0.08), ("application", 0.04), ("category", 0.03)]:  # fmt: skip
        arrays = arrays_for(days, model, **{name: value})
        cold = np.mean([roc_auc(a.cold, a.labels.astype(np.int8)) for a in arrays])
        evaluate(f"{name} {value} [{cold:.3f}]", arrays, learned(), seeds)

    print("-- profile wants split into their items")
    for keep_whole in (True, False):
        arrays = arrays_for(days, want_items(model, profile, embed, keep_whole))
        cold = np.mean([roc_auc(a.cold, a.labels.astype(np.int8)) for a in arrays])
        label = "items added to the whole wants" if keep_whole else "items instead of the whole wants"
        evaluate(f"{label} [{cold:.3f}]", arrays, learned(), seeds)

    print("-- contribution vector (title + abstract from its first 'we' sentence)")
    contrib = contribution_vectors(days, embed, args.emb_dir)
    text = [np.load(args.emb_dir / f"emb_{d.name}.npy") for d in days]
    title = [np.load(args.emb_dir / f"title_{d.name}.npy") for d in days]
    for label, vecs in [
        ("stored vector + contribution", [_unit(s + c) for s, c in zip([d.vecs for d in days], contrib, strict=True)]),
        ("text + contribution (no title)", [_unit(t + c) for t, c in zip(text, contrib, strict=True)]),
        ("contribution alone", contrib),
        ("check: text + title as stored", [combine_vectors(t, ti) for t, ti in zip(text, title, strict=True)]),
    ]:
        arrays = arrays_for(days, model, vecs)
        cold = np.mean([roc_auc(a.cold, a.labels.astype(np.int8)) for a in arrays])
        evaluate(f"{label} [{cold:.3f}]", arrays, learned(), seeds)

    print("-- scores smoothed over the k nearest papers of the same day")
    for k in (3, 5, 10):
        for share in (0.1, 0.2, 0.3):
            evaluate(f"k {k}, share {share}", base, smoothed(k, share), seeds)


if __name__ == "__main__":
    main()
