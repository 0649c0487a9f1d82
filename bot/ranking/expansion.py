"""Pseudo-relevance feedback for one-line interests: a short line embeds poorly, so the day's papers that match it
best stand in for it (Rocchio's query expansion, with the paper vectors).

For each profile, the `papers` best papers by the cold-start score are taken as relevant; the direction from the
mean of all the day's papers to their mean is what they share beyond the field, and every paper's projection on it
is added to its score. Papers about the interest lie along it; those sharing one word or the field's vocabulary do
not. Only profiles holding a one-line interest are expanded: a described topic embeds well as written.
"""

from __future__ import annotations

import numpy as np


def expansion_scores(scores: np.ndarray, vecs: np.ndarray, papers: int) -> np.ndarray:
    """(profiles, papers): each paper's projection on the direction from the day's mean paper vector to the mean
    of each profile's `papers` best-scored papers; zero when the day holds no more papers than that."""
    out = np.zeros_like(scores, dtype=np.float32)
    if papers <= 0 or scores.shape[1] <= papers:
        return out
    best = np.argpartition(-scores, papers - 1, axis=1)[:, :papers]  # (profiles, papers): the best, in any order
    directions = vecs[best].mean(axis=1) - vecs.mean(axis=0)  # (profiles, dim)
    return np.asarray(directions @ vecs.T, dtype=np.float32)
