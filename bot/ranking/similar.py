"""More like this: the stored papers nearest to one paper, shaped by the asker's profile when they have one."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bot.core import Core
from bot.models import Paper, Profile
from bot.ranking import learn
from bot.ranking.for_profile import rank_papers

NEIGHBOURS = 40  # nearest papers considered before the profile re-orders them
PROFILE_SHAPE = 0.05  # how far the profile can move a neighbour (similarities of close papers differ by ~0.05)


@dataclass(frozen=True, slots=True)
class Similar:
    """A paper near the one asked about, with its cosine similarity to it."""

    paper: Paper
    similarity: float


async def similar_papers(
    core: Core, paper: Paper, *, user_key: str = "", profile: Profile | None = None, limit: int = 8
) -> list[Similar]:
    """Up to `limit` stored papers most like `paper`, nearest first; a profile lifts the ones it prefers."""
    found = await core.vectors.found_vectors([paper.id])
    if paper.id not in found:
        return []
    hits = [h for h in await core.vectors.query(found[paper.id], NEIGHBOURS + 1) if h.id != paper.id]
    by_id = {p.id: p for p in await core.repo.get_papers([h.id for h in hits])}
    hits = [h for h in hits if h.id in by_id]
    if not hits:
        return []
    score = np.array([h.similarity for h in hits], dtype=np.float64)
    if profile is not None:
        candidates = [by_id[h.id] for h in hits]
        if user_key:
            ranked = await learn.rank_for_user(core, user_key, profile, candidates)
        else:
            ranked = await rank_papers(core, candidates, profile)
        if ranked:
            personal = {r.paper.id: r.score for r in ranked}
            values = np.array([personal[h.id] for h in hits], dtype=np.float64)
            spread = float(np.ptp(values)) or 1.0
            score += PROFILE_SHAPE * (values - values.min()) / spread
    order = np.argsort(-score, kind="stable")[:limit]
    return [Similar(by_id[hits[i].id], hits[i].similarity) for i in order]
