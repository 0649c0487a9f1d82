"""Offline evaluation of the ranker against labelled arXiv days (the layout of shared/data).

`DIR/arxiv/DAY.jsonl` holds a day's papers, `DIR/labels/DAY.json` its picks. The ranker never sees the labels;
they are read only to score its ranking (ROC AUC and recall@K of the picks).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.core import Core
from bot.digest import rank_papers
from bot.errors import InputError
from bot.ingest.jsonl import read_jsonl
from bot.ingest.store import store_papers
from bot.metrics import recall_at_k, roc_auc
from bot.models import Paper, Profile

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
    for label_file in sorted(labels_dir.glob("*.json")):
        papers_file = arxiv_dir / f"{label_file.stem}.jsonl"
        if not papers_file.is_file():
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
