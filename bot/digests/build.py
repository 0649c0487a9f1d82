"""Building a day's (or a week's) digest for a profile: recommend (rank) -> score (LLM, optional) -> summarize ->
Digest; a weekly channel's is then grouped as a topic tree (`bot.topictree`, imported when a week is built).

Without an LLM the ranker's top papers get their stored TL;DRs. With one, the ranker's shortlist is scored by the
LLM (`bot.ranking.llm_score`), the best papers get LLM TL;DRs (`bot.text.tldr`), and the run's tokens and cost go into
`Digest.usage`. Rendering is in `bot.views.render`, delivery in `bot.digests.delivery`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from dataclasses import replace

from bot.core import Core, LLMRuntime
from bot.digests.due import unstored_days
from bot.errors import InputError
from bot.llm.usage import run_usage, usage_run
from bot.models import Digest, Paper, Profile, ScoredPaper, Target
from bot.ranking.for_profile import rank_papers
from bot.ranking.llm_score import score_shortlist
from bot.text.tldr import digest_tldrs, shown_tldrs


async def day_candidates(core: Core, day: dt.date, categories: Sequence[str] = ()) -> list[Paper]:
    """Papers announced on `day` in any of `categories` (all stored papers of the day when empty)."""
    return await core.repo.papers_on(day, list(categories) or None)


def with_standing(ranked: Sequence[ScoredPaper]) -> list[ScoredPaper]:
    """`ranked` (every candidate, best first) with each item's place in it: its standing, shown everywhere."""
    return [replace(item, rank=n, ranked_of=len(ranked)) for n, item in enumerate(ranked, 1)]


async def attach_tldrs(core: Core, items: Sequence[ScoredPaper]) -> list[ScoredPaper]:
    """Fill in each item's TL;DR (the LLM's when one was written, else extractive)."""
    tldrs = await shown_tldrs(core, [i.paper for i in items])
    return [replace(i, tldr=tldrs[i.paper.id]) for i in items]


async def build_digest(
    core: Core,
    profile: Profile,
    day: dt.date,
    *,
    size: int | None = None,
    categories: Sequence[str] | None = None,
    exclude: Collection[str] = (),
    target: str = "",
    use_llm: bool = True,
    start: dt.date | None = None,
) -> Digest:
    """The digest of `day` (or of the days from `start` to `day`) for `profile`: the top `size` unsent papers with
    TL;DRs.

    With an LLM configured (and `use_llm`), papers are scored by it and its usage is recorded under `target`.
    """
    size = size or core.settings.digest_size
    wanted = categories if categories is not None else profile.categories
    first = start or day
    papers = await core.repo.papers_between(first, day, list(wanted) or None)
    if not papers and not await core.repo.papers_between(first, day):
        days = f"for {day.isoformat()}" if first == day else f"from {first.isoformat()} to {day.isoformat()}"
        raise InputError(f"no papers stored {days}; run `paperscout ingest` first")
    # every candidate is ranked, sent or not, so a paper's standing is the same in the digest, /why and the site
    ranked = [item for item in with_standing(await rank_papers(core, papers, profile)) if item.paper.id not in exclude]
    if core.llm is not None and use_llm and ranked:
        built = await _llm_digest(core, core.llm, profile, day, ranked, size, len(papers), target)
    else:
        items = await attach_tldrs(core, ranked[:size])
        built = Digest(day=day, profile_name=profile.name, scanned=len(papers), items=tuple(items))
    return replace(built, start=min(p.announced for p in papers)) if start is not None and papers else built


async def build_channel_digest(core: Core, target: Target, profile: Profile, day: dt.date) -> Digest:
    """What a channel target posts for `day`: the day's digest, or for a weekly channel the seven days ending on
    `day` as a topic tree (its picks grouped under headings; a plain ranked list when too few to group)."""
    size, categories = target.digest_size, target.categories
    if target.schedule != "weekly":
        return await build_digest(core, profile, day, size=size, categories=categories, target=target.key)
    start = day - dt.timedelta(days=6)
    # what the channel already got on the week's earlier days (as a daily channel until mid-week, or a /digest now
    # filed under another day) is left out; the week's own day is not, so a preview after posting shows the post
    sent = await core.repo.sent_paper_ids([target.id], start, day - dt.timedelta(days=1)) if target.id else set()
    week = await build_digest(
        core, profile, day, size=size, categories=categories, exclude=sent, target=target.key, start=start
    )
    # imported here, not at the top: the tree loads scikit-learn and SciPy, kept off every command's start-up;
    # the standings' module imports this one
    from bot.digests.standing import day_standings
    from bot.topictree.digest import grouped_items

    # each paper's standing on its own day among the channel's categories, as /why gives it there
    picked = await day_standings(core, profile, week.items, categories=categories)
    items, sections = await grouped_items(core, picked)
    gaps = await missing_days_note(core, start, day)
    notes = (*week.notes, *([gaps] if gaps else []))
    return replace(week, items=items, sections=sections, notes=notes, by_day=True)


async def missing_days_note(core: Core, start: dt.date, end: dt.date) -> str:
    """What a weekly digest from `start` to `end` says about announcement days with no stored papers ('' when
    none): the week went out without them rather than wait for a listing that never came."""
    missing = unstored_days(start, end, set(await core.repo.announcement_days()))
    if not missing:
        return ""
    days = ", ".join(f"{day:%a} {day.day} {day:%b}" for day in missing)
    return f"No arXiv listing is stored for {days} (not fetched, or the fetch failed): this covers the other days."


async def _llm_digest(
    core: Core,
    llm: LLMRuntime,
    profile: Profile,
    day: dt.date,
    ranked: Sequence[ScoredPaper],
    size: int,
    scanned: int,
    target: str,
) -> Digest:
    shortlist = list(ranked[: max(size, core.settings.llm_shortlist_size)])
    with usage_run(target or f"profile:{profile.name}") as run:
        scored = await score_shortlist(core, llm, profile, shortlist)
        top = scored.items[:size]
        # After a budget stop or an endpoint failure, no further calls: TL;DRs stay extractive this time.
        summaries = await digest_tldrs(core, None if scored.stopped else llm, [i.paper for i in top])
        usage = await run_usage(core.repo, run.run_id)
    items = [replace(i, tldr=summaries.tldrs[i.paper.id]) for i in top]
    usage.update(
        shortlist=len(shortlist),
        scores_new=scored.fresh,
        scores_cached=scored.cached,
        scores_missing=scored.unscored,
        tldrs_new=summaries.written,
        tldrs_cached=summaries.reused,
    )
    notes = [*scored.notes, *([summaries.note] if summaries.note else [])]
    return Digest(
        day=day, profile_name=profile.name, scanned=scanned, items=tuple(items), notes=tuple(notes), usage=usage
    )
