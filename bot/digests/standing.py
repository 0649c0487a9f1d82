"""A paper's standing for a profile on its day: one ranking of the day's candidates, shared by every place that
shows it (the digest's '#9 of 292', `/why`, the web archive), so two places never give two standings."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core import Core
from bot.digests.build import day_candidates, with_standing
from bot.models import Paper, Profile, ScoredPaper
from bot.ranking import learn
from bot.ranking.for_profile import rank_papers


async def ranked_candidates(
    core: Core, profile: Profile, papers: Sequence[Paper], user_key: str = ""
) -> list[ScoredPaper]:
    """`papers` ranked as a digest of `profile` ranks them (with the member's feedback when `user_key`), best first,
    each carrying its standing among all of them."""
    if user_key:
        ranked = await learn.rank_for_user(core, user_key, profile, papers)
    else:
        ranked = await rank_papers(core, papers, profile)
    return with_standing(ranked)


async def standing_of(
    core: Core, paper: Paper, profile: Profile, *, user_key: str = "", categories: Sequence[str] | None = None
) -> ScoredPaper | None:
    """The paper as ranked among its day's candidates (the profile's categories, or `categories` of a channel),
    the ranking its daily digest used; None when it is not one of them (outside the categories)."""
    wanted = categories if categories is not None else profile.categories
    papers = await day_candidates(core, paper.announced, wanted)
    ranked = await ranked_candidates(core, profile, papers, user_key)
    return next((item for item in ranked if item.paper.id == paper.id), None)
