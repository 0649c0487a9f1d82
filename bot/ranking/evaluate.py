"""Offline evaluation of the ranker against labelled arXiv days (the layout of shared/data).

`DIR/arxiv/DAY.jsonl` holds a day's papers, `DIR/labels/DAY.json` its picks. The ranker never sees the labels
of a day it ranks; they are read only to score its ranking (ROC AUC and recall@K of the picks). With feedback
learning (`evaluate_personalised`), other days' picks play a reader's thumbs up and a sample of their non-picks
the thumbs down, and the day being evaluated is never among them.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.core import Core
from bot.errors import InputError
from bot.ingest.jsonl import read_jsonl
from bot.ingest.save import store_papers
from bot.models import Paper, Profile
from bot.ranking.for_profile import rank_papers, rank_with_vectors
from bot.ranking.learn import BACKGROUND_SIZE, FeedbackModel, personal_scores, train_feedback_model
from bot.ranking.metrics import recall_at_k, roc_auc

log = logging.getLogger(__name__)

RECALL_AT = (50, 100, 150)


@dataclass(frozen=True, slots=True)
class LabelledDay:
    """One day's papers and the ids picked on it."""

    day: dt.date
    papers: list[Paper]
    picks: frozenset[str]


def load_labelled_days(data_dir: Path) -> list[LabelledDay]:
    """Every day that has both `arxiv/DAY.jsonl` and `labels/DAY.json` under `data_dir`, oldest first."""
    arxiv_dir, labels_dir = data_dir / "arxiv", data_dir / "labels"
    if not arxiv_dir.is_dir() or not labels_dir.is_dir():
        raise InputError(f"{data_dir}: expected arxiv/ and labels/ folders inside")
    days = []
    unlabelled = sorted({f.stem for f in arxiv_dir.glob("*.jsonl")} - {f.stem for f in labels_dir.glob("*.json")})
    if unlabelled:
        log.warning("%s: no labels for %s; %s left out", data_dir, ", ".join(unlabelled), _plural(len(unlabelled)))
    for label_file in sorted(labels_dir.glob("*.json")):
        papers_file = arxiv_dir / f"{label_file.stem}.jsonl"
        if not papers_file.is_file():
            log.warning("%s: labels for %s but no arxiv/%s.jsonl; left out", data_dir, label_file.stem, label_file.stem)
            continue
        try:
            day = dt.date.fromisoformat(label_file.stem)
            labels = json.loads(label_file.read_text(encoding="utf-8"))
            picks = frozenset(labels["picks"])
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{label_file}: not a labels file ({exc.__class__.__name__}: {exc})") from None
        days.append(LabelledDay(day=day, papers=read_jsonl([papers_file]), picks=picks))
    if not days:
        raise InputError(f"{data_dir}: no day has both arxiv/DAY.jsonl and labels/DAY.json")
    return days


def _plural(count: int) -> str:
    return "that day is" if count == 1 else "those days are"


def day_metrics(scores: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    """AUC and recall@K for one day's scores (higher = better) against 0/1 labels."""
    result = {"auc": roc_auc(scores, labels)}
    for k in RECALL_AT:
        result[f"recall@{k}"] = recall_at_k(scores, labels, k)
    return result


def mean_metrics(per_day: dict[str, dict[str, float]]) -> dict[str, float]:
    """The mean of each metric over days."""
    keys = next(iter(per_day.values())).keys()
    return {k: float(np.mean([m[k] for m in per_day.values()])) for k in keys}


async def cold_start_scores(core: Core, profile: Profile, papers: Sequence[Paper]) -> np.ndarray:
    """Scores of the cold-start ranker for `papers`, aligned with their order."""
    ranked = await rank_papers(core, papers, profile)
    by_id = {item.paper.id: item.score for item in ranked}
    return np.asarray([by_id[p.id] for p in papers], dtype=np.float64)


async def evaluate_cold_start(
    core: Core, days: Sequence[LabelledDay], profile: Profile, progress: Callable[[int, int], None] | None = None
) -> dict[str, dict[str, dict[str, float]] | dict[str, float]]:
    """Rank every labelled day with `profile` and report per-day and mean metrics."""
    per_day: dict[str, dict[str, float]] = {}
    for day in days:
        await store_papers(core, day.papers, progress)
        scores = await cold_start_scores(core, profile, day.papers)
        labels = np.asarray([p.id in day.picks for p in day.papers], dtype=np.int8)
        per_day[day.day.isoformat()] = day_metrics(scores, labels)
    return {"days": per_day, "mean": mean_metrics(per_day)}


# ---------------------------------------------------------------- learning from feedback (issue 5)

SKIM_DEPTH = 150  # how far down a day's ranking a reader skimming the digest goes


@dataclass(frozen=True, eq=False)
class DayArrays:
    """A labelled day ready for learning: ids, cold-start scores, paper vectors and pick labels, aligned."""

    day: dt.date
    ids: tuple[str, ...]
    cold: np.ndarray
    vecs: np.ndarray
    labels: np.ndarray  # bool


def skim_reactions(
    cold: np.ndarray, labels: np.ndarray, seed: int, depth: int = SKIM_DEPTH, downs_per_up: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """A reader's reactions to one labelled day: (paper indices, values).

    Every pick is a thumbs up. Thumbs down go to `downs_per_up` times as many non-picks as there are picks, drawn
    uniformly (fixed seed) from the non-picks among the top `depth` of the cold-start ranking: the papers a reader
    skimming the digest actually sees, and the hardest negatives, since they already look relevant to the profile.
    """
    labels = np.asarray(labels, dtype=bool)
    order = np.argsort(-np.asarray(cold), kind="stable")
    seen = order[:depth]
    pool = seen[~labels[seen]]
    ups = np.flatnonzero(labels)
    rng = np.random.default_rng(seed)
    size = min(int(downs_per_up * len(ups)), len(pool))
    downs = np.sort(rng.choice(pool, size=size, replace=False)) if len(pool) else pool
    idx = np.concatenate([ups, downs]).astype(np.int64)
    values = np.concatenate([np.ones(len(ups)), -np.ones(len(downs))]).astype(np.float32)
    return idx, values


# (cold-start scores, labels, seed) -> (paper indices, values), like `skim_reactions`
Skim = Callable[[np.ndarray, np.ndarray, int], tuple[np.ndarray, np.ndarray]]


def reader_reactions(
    train: Sequence[DayArrays],
    exclude_ids: frozenset[str] = frozenset(),
    seed: int = 0,
    skim: Skim = skim_reactions,
    background_size: int = BACKGROUND_SIZE,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(vectors, values, weak negatives) of one reader of the `train` days; None without days.

    `skim` turns a day's labels into reactions (default `skim_reactions`); the weak negatives are a sample of the
    days' papers. Papers in `exclude_ids` (those of the day being evaluated) are never used, not even as weak
    negatives.
    """
    vecs, values, background = [], [], []
    for day in train:
        idx, vals = skim(day.cold, day.labels, seed + day.day.toordinal())
        keep = np.array([day.ids[i] not in exclude_ids for i in idx], dtype=bool)
        vecs.append(day.vecs[idx[keep]])
        values.append(vals[keep])
        unseen = np.array([i not in exclude_ids for i in day.ids], dtype=bool)
        background.append(day.vecs[unseen])
    if not vecs:
        return None
    pool = np.concatenate(background)
    rng = np.random.default_rng(seed)
    if len(pool) > background_size:
        pool = pool[np.sort(rng.choice(len(pool), background_size, replace=False))]
    return np.concatenate(vecs), np.concatenate(values), pool


def train_on_days(
    train: Sequence[DayArrays], exclude_ids: frozenset[str] = frozenset(), seed: int = 0
) -> FeedbackModel | None:
    """Train a feedback model as if one reader had reacted to the `train` days (see `reader_reactions`)."""
    reactions = reader_reactions(train, exclude_ids, seed)
    if reactions is None:
        return None
    vecs, values, background = reactions
    return train_feedback_model(vecs, values, background=background)


def training_days_for(evaluated: dt.date, eval_days: Sequence[dt.date], train_days: Sequence[dt.date]) -> list[dt.date]:
    """The days to learn from when evaluating `evaluated`: never that day, and no evaluated day at all unless
    that would leave nothing (then leave one day out, as when the training and evaluation folders are the same).
    """
    others = [d for d in train_days if d not in set(eval_days)]
    return others or [d for d in train_days if d != evaluated]


async def day_arrays(core: Core, day: LabelledDay, profile: Profile) -> DayArrays:
    """The day ranked cold for `profile` (its papers stored), with its vectors and labels, ready for learning."""
    ranked, vecs = await rank_with_vectors(core, day.papers, profile)
    by_id = {item.paper.id: item.score for item in ranked}
    cold = np.asarray([by_id[p.id] for p in day.papers], dtype=np.float64)
    labels = np.asarray([p.id in day.picks for p in day.papers], dtype=bool)
    return DayArrays(day.day, tuple(p.id for p in day.papers), cold, vecs, labels)


async def evaluate_personalised(
    core: Core,
    days: Sequence[LabelledDay],
    train_days: Sequence[LabelledDay],
    profile: Profile,
    progress: Callable[[int, int], None] | None = None,
    seed: int = 0,
) -> dict[str, dict[str, dict[str, float]] | dict[str, float] | dict[str, dict[str, object]]]:
    """Cold start plus a model learned from other days' labels, per evaluated day; same report as cold start.

    For each evaluated day the model trains on `train_days` minus every evaluated day, or, when that leaves none
    (the same folder for both), on every other day: the evaluated day's labels and papers are never trained on.
    The report adds "train": for each evaluated day, the days learned from and the thumbs up/down used.
    """
    for day in [*train_days, *days]:
        await store_papers(core, day.papers, progress)
    train_arrays = {d.day: await day_arrays(core, d, profile) for d in train_days}
    per_day: dict[str, dict[str, float]] = {}
    trained: dict[str, dict[str, object]] = {}
    for day in days:
        target = await day_arrays(core, day, profile)
        chosen = training_days_for(day.day, [d.day for d in days], list(train_arrays))
        model = train_on_days([train_arrays[d] for d in chosen], frozenset(target.ids), seed)
        n = model.n_reactions if model is not None else 0
        scores = personal_scores(target.cold, target.vecs, model, n)
        per_day[day.day.isoformat()] = day_metrics(scores, target.labels.astype(np.int8))
        trained[day.day.isoformat()] = {
            "days": [d.isoformat() for d in chosen],
            "up": model.n_up if model is not None else 0,
            "down": model.n_down if model is not None else 0,
        }
    return {"days": per_day, "mean": mean_metrics(per_day), "train": trained}
