"""Ranking quality measures used by the benchmarks and `paperscout eval`: ROC AUC and recall@K."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _arrays(scores: Sequence[float] | np.ndarray, labels: Sequence[bool] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=np.float64).ravel()
    y = np.asarray(labels, dtype=bool).ravel()
    if s.shape != y.shape:
        raise ValueError(f"scores ({s.size}) and labels ({y.size}) differ in length")
    return s, y


def _average_ranks(values: np.ndarray) -> np.ndarray:
    # 1-based ranks; tied values share the mean of the ranks they span.
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    boundaries = np.flatnonzero(np.diff(ordered)) + 1
    starts = np.concatenate(([0], boundaries))
    ends = np.concatenate((boundaries, [len(values)]))
    ranks = np.empty(len(values), dtype=np.float64)
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return ranks


def roc_auc(scores: Sequence[float] | np.ndarray, labels: Sequence[bool] | np.ndarray) -> float:
    """ROC AUC of `scores` against boolean `labels` (Mann-Whitney U from average ranks; ties count one half).

    Returns NaN when the labels hold only one class.
    """
    s, y = _arrays(scores, labels)
    positives = int(y.sum())
    negatives = len(y) - positives
    if positives == 0 or negatives == 0:
        return float("nan")
    ranks = _average_ranks(s)
    u = ranks[y].sum() - positives * (positives + 1) / 2.0
    return float(u / (positives * negatives))


def recall_at_k(scores: Sequence[float] | np.ndarray, labels: Sequence[bool] | np.ndarray, k: int) -> float:
    """Share of the positive labels found among the `k` highest scores (ties broken by position).

    Returns NaN when there is no positive label.
    """
    s, y = _arrays(scores, labels)
    positives = int(y.sum())
    if positives == 0:
        return float("nan")
    top = np.argsort(-s, kind="stable")[: max(k, 0)]
    return float(y[top].sum() / positives)
