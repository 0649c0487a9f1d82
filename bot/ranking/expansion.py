"""Pseudo-relevance feedback for one-line interests: a short line embeds poorly, so the day's papers that match it
best stand in for it (Rocchio's query expansion, with the paper vectors).

For each profile, the best papers by the cold-start score among those on which the two ways of finding an interest
agree, holding a whole one-line interest (its words) and among the day's closest papers in meaning (its
embedding), are taken as relevant (selective feedback: papers that only share the line's words, when those words
also name a wider field, or only its meaning would make the interest drift; with fewer than MIN_EVIDENT such papers
that day nothing is added). The direction from
the mean of all the day's papers to their mean is what they share beyond the field, and every paper's projection on
it is added to its score: papers about the interest lie along it, those sharing one word or the field's vocabulary
do not. Only profiles holding a one-line interest are expanded: a described topic embeds well as written.
"""

from __future__ import annotations

import numpy as np

MIN_EVIDENT = 3  # papers holding a whole interest that day, below which the best papers are no evidence


def expansion_scores(
    scores: np.ndarray, vecs: np.ndarray, papers: int, evident: np.ndarray, near: np.ndarray | None = None
) -> np.ndarray:
    """(profiles, papers): each paper's projection on the direction from the day's mean paper vector to the mean
    of each profile's best-scored papers among the `evident` ones (that hold a whole interest) that are also `near`
    (among the closest in meaning; all when None), at most `papers` of them; zero for a profile with fewer than
    MIN_EVIDENT such papers that day, whose best papers would be a guess."""
    out = np.zeros_like(scores, dtype=np.float32)
    if papers <= 0:
        return out
    agreed = evident if near is None else evident & near
    centre = vecs.mean(axis=0)
    for p in range(scores.shape[0]):
        held = np.flatnonzero(agreed[p])
        if len(held) < MIN_EVIDENT or len(held) >= scores.shape[1]:
            continue
        best = held[np.argsort(-scores[p, held], kind="stable")[:papers]]
        out[p] = vecs @ (vecs[best].mean(axis=0) - centre)
    return out


def nearest_share(similarity: np.ndarray, share: float) -> np.ndarray:
    """(profiles, papers) bool: the `share` of the day's papers closest in meaning to each profile (at least one)."""
    count = max(1, int(np.ceil(share * similarity.shape[1])))
    out = np.zeros(similarity.shape, dtype=bool)
    top = np.argsort(-similarity, axis=1, kind="stable")[:, :count]
    np.put_along_axis(out, top, True, axis=1)
    return out
