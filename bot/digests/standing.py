"""A paper's standing for a profile on its day: one ranking of the day's candidates, shared by every place that
shows it (the digest's '#9 of 292', `/why`, the web archive), so two places never give two standings."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence
from dataclasses import replace

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
    ranked = await _day_ranking(core, paper.announced, profile, user_key, categories)
    return next((item for item in ranked if item.paper.id == paper.id), None)


async def _day_ranking(
    core: Core, day: dt.date, profile: Profile, user_key: str, categories: Sequence[str] | None
) -> list[ScoredPaper]:
    """The day's candidates ranked as its digest ranked them, kept a while in `core.day_standings`."""
    wanted = categories if categories is not None else profile.categories
    papers = await day_candidates(core, day, wanted)
    key = await _standing_key(core, profile, papers, user_key)
    now = time.monotonic()
    kept = core.day_standings.get(key)
    if kept is not None and now - kept[0] < STANDING_SECONDS:
        ranked = kept[1]
    else:
        ranked = await ranked_candidates(core, profile, papers, user_key)
        for old in [k for k, (at, _) in core.day_standings.items() if now - at >= STANDING_SECONDS]:
            del core.day_standings[old]
        while len(core.day_standings) >= MAX_STANDINGS:  # the oldest ranking out first
            del core.day_standings[next(iter(core.day_standings))]
        core.day_standings[key] = (now, ranked)
    return ranked


async def day_standings(
    core: Core,
    profile: Profile,
    items: Sequence[ScoredPaper],
    *,
    user_key: str = "",
    categories: Sequence[str] | None = None,
) -> list[ScoredPaper]:
    """`items` of a digest of several days (a week), each with its standing among its own day's candidates, the one
    `/why` gives (`standing_of` with the same profile, member and categories), in place of its place in the span: one
    standing per paper per day everywhere. An item its day does not rank keeps what it had."""
    by_day: dict[dt.date, dict[str, ScoredPaper]] = {}
    for day in dict.fromkeys(item.paper.announced for item in items):  # each day's candidates loaded and ranked once
        ranked = await _day_ranking(core, day, profile, user_key, categories)
        by_day[day] = {scored.paper.id: scored for scored in ranked}
    out = []
    for item in items:
        ranked = by_day[item.paper.announced].get(item.paper.id)
        out.append(replace(item, rank=ranked.rank, ranked_of=ranked.ranked_of) if ranked is not None else item)
    return out


def forget_standings(core: Core, user_key: str, profile: Profile | None) -> None:
    """Drop the days' rankings kept for a member (by their key, or by their profile when feedback did not rank it):
    after `/forget` nothing of theirs stays, in memory either."""
    mine = repr(profile) if profile is not None else None
    for key in [k for k in core.day_standings if k[1] == user_key or k[0] == mine]:
        del core.day_standings[key]


STANDING_SECONDS = 600.0  # a day's ranking kept this long for /why and the cards (vectors may arrive later)
MAX_STANDINGS = 32  # days' rankings kept at once


async def _standing_key(core: Core, profile: Profile, papers: Sequence[Paper], user_key: str) -> tuple[object, ...]:
    """What a day's ranking for `profile` depends on: the profile, the day's candidates as stored (the store's
    generation of papers), and the member's reactions when their feedback ranks it."""
    reactions = tuple((r.paper_id, r.value) for r in await core.repo.user_feedback_rows(user_key)) if user_key else ()
    generation = await core.repo.papers_generation()
    return (repr(profile), user_key, reactions, generation, tuple(p.id for p in papers))
