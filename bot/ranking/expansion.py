"""Pseudo-relevance feedback for one-line interests: a short line embeds poorly, so the day's papers that match it
best stand in for it (Rocchio's query expansion, with the paper vectors).

For each profile, the best papers by the cold-start score among those holding a whole one-line interest are taken
as relevant (selective feedback: with few such papers that day a narrow interest would drift). The direction from
the mean of all the day's papers to their mean is what they share beyond the field, and every paper's projection on
it is added to its score: papers about the interest lie along it, those sharing one word or the field's vocabulary
do not. Only profiles holding a one-line interest are expanded: a described topic embeds well as written.
"""

from __future__ import annotations

import numpy as np

MIN_EVIDENT = 3  # papers holding a whole interest that day, below which the best papers are no evidence


def expansion_scores(scores: np.ndarray, vecs: np.ndarray, papers: int, evident: np.ndarray) -> np.ndarray:
    """(profiles, papers): each paper's projection on the direction from the day's mean paper vector to the mean
    of each profile's best-scored papers among the `evident` ones (that hold a whole interest), at most `papers`
    of them; zero for a profile with fewer than MIN_EVIDENT such papers that day, whose best papers would be a
    guess."""
    out = np.zeros_like(scores, dtype=np.float32)
    if papers <= 0:
        return out
    centre = vecs.mean(axis=0)
    for p in range(scores.shape[0]):
        held = np.flatnonzero(evident[p])
        if len(held) < MIN_EVIDENT or len(held) >= scores.shape[1]:
            continue
        best = held[np.argsort(-scores[p, held], kind="stable")[:papers]]
        out[p] = vecs @ (vecs[best].mean(axis=0) - centre)
    return out
