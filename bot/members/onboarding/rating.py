"""Choosing the few recent papers a new member rates: relevant to what they said, and unlike each other."""

from __future__ import annotations

import datetime as dt

import numpy as np

from bot.core import Core
from bot.models import Paper, Profile
from bot.ranking.for_profile import rank_papers

RATE_COUNT = 5

RATE_POOL = 50  # the cold-start top-N the papers to rate are picked from

RECENT_DAYS = 7

DIVERSITY = 0.6  # weight of dissimilarity against relevance when picking papers to rate (MMR)


def pick_diverse(relevance: np.ndarray, vectors: np.ndarray, k: int, diversity: float = DIVERSITY) -> list[int]:
    """Maximal marginal relevance: indices of `k` items, each relevant and unlike those already picked.

    Rating five near-duplicates teaches little; five different corners of what the profile might mean teach more.
    """
    n = len(relevance)
    if n == 0 or k <= 0:
        return []
    spread = float(relevance.max() - relevance.min())
    rel = (relevance - relevance.min()) / spread if spread > 0 else np.ones(n)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms > 0, norms, 1.0)
    sims = unit @ unit.T
    picked = [int(np.argmax(rel))]
    while len(picked) < min(k, n):
        closest = sims[:, picked].max(axis=1)
        gain = (1 - diversity) * rel - diversity * closest
        gain[picked] = -np.inf
        picked.append(int(np.argmax(gain)))
    return picked


async def papers_to_rate(core: Core, profile: Profile, exclude: set[str], k: int = RATE_COUNT) -> list[Paper]:
    """`k` recent papers to rate: from the cold-start top `RATE_POOL` for `profile`, picked to differ."""
    latest = await core.repo.latest_day()
    if latest is None:
        return []
    start = latest - dt.timedelta(days=RECENT_DAYS - 1)
    papers = await core.repo.papers_between(start, latest, list(profile.categories) or None)
    if not papers:  # nothing recent in their categories: any recent paper still teaches something
        papers = await core.repo.papers_between(start, latest)
    papers = [p for p in papers if p.id not in exclude]
    ranked = await rank_papers(core, papers, profile, RATE_POOL)
    if not ranked:
        return []
    vectors = await core.vectors.vectors([s.paper.id for s in ranked])
    order = pick_diverse(np.array([s.score for s in ranked], dtype=np.float32), vectors, k)
    return [ranked[i].paper for i in order]
