"""Ranking stored papers for a profile: the profile's compiled form (cached on the core per profile version) and
every paper scored with its vector, embedding what has none yet. Digests, feedback, evaluation, `/similar`,
onboarding and questions all rank through here."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from bot.ingest.vectors import ranking_vectors
from bot.models import Paper, Profile, ScoredPaper
from bot.ranking.rank import ProfileModel, compile_profile, rank_for_profile
from bot.ranking.rerank import default_model

if TYPE_CHECKING:
    from bot.core import Core

PROFILE_CACHE_SIZE = 1024  # compiled profiles kept in memory (~30 KB each); more are compiled again on demand


async def profile_model(core: Core, profile: Profile) -> ProfileModel:
    """The compiled form of `profile`, embedded once per profile version and cached."""
    cached = core.profile_cache.pop(profile.fingerprint, None)
    if cached is None:
        cached = await asyncio.to_thread(compile_profile, profile, core.query_embedder.embed)
    core.profile_cache[profile.fingerprint] = cached  # most recently used last
    while len(core.profile_cache) > PROFILE_CACHE_SIZE:  # drafts and old versions of edited profiles age out
        core.profile_cache.pop(next(iter(core.profile_cache)))
    return cached


async def rank_with_vectors(
    core: Core, papers: Sequence[Paper], profile: Profile
) -> tuple[list[ScoredPaper], np.ndarray]:
    """Every paper scored for `profile`, best first, and the papers' vectors in the order of `papers`.

    Embeds what has no vector yet (`ranking_vectors`); callers that go on to use the vectors (feedback, evaluation)
    read them once. A profile of one-line interests has its best papers re-ranked (`bot.ranking.rerank`) unless
    `Settings.rerank_profiles` is off.
    """
    if not papers:
        return [], np.zeros((0, core.embedder.dim), dtype=np.float32)
    vectors = await ranking_vectors(core, papers)
    model = await profile_model(core, profile)
    sentences = await sentence_matrices(core, papers, model)
    rerank = default_model() if core.settings.rerank_profiles else None
    return rank_for_profile(papers, vectors, model, len(papers), sentence_vecs=sentences, rerank=rerank), vectors


async def sentence_matrices(core: Core, papers: Sequence[Paper], model: ProfileModel) -> list[np.ndarray] | None:
    """The papers' stored sentence vectors, in their order, when `model` reads one-line interests, else None: only
    those profiles use them, so channel profiles (and `paperscout eval`) read nothing more. None too when the
    setting is off (rows kept while it was on are not read: the papers stored since have none) or when any of the
    papers lacks them (a store not filled in yet, a week straddling the upgrade, an interrupted ingest): the score
    is then as before them. A paper's best sentence is mostly closer to an interest than its whole-paper vector,
    so papers without them would sink below those with them for want of a row, not of relevance.
    """
    if not model.reads_lines or not core.settings.sentence_vectors:
        return None
    found = await core.sentences.matrices([p.id for p in papers])
    if len(found) < len({p.id for p in papers}):
        return None
    return [found[p.id] for p in papers]


async def rank_papers(
    core: Core, papers: Sequence[Paper], profile: Profile, top_k: int | None = None
) -> list[ScoredPaper]:
    """Score `papers` for `profile` and return them best first (all of them unless `top_k`)."""
    ranked, _ = await rank_with_vectors(core, papers, profile)
    return ranked[: top_k or len(ranked)]
