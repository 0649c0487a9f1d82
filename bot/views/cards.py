"""One paper at a time: finding it by id, its view (`/paper ID`) and why it scored as it did (`/why ID`)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core import Core
from bot.digests.standing import ranked_candidates, standing_of
from bot.models import Paper, Profile
from bot.store.lookup import stored_paper
from bot.text.tldr import shown_tldrs
from bot.views.model import PaperView, paper_view, standing


async def paper_card(core: Core, paper_or_id: Paper | str, *, number: int = 0) -> PaperView:
    """A stored paper's own card: its TL;DR, the abstract (bounded), its day, categories and arXiv comment."""
    paper = paper_or_id if isinstance(paper_or_id, Paper) else await stored_paper(core.repo, paper_or_id)
    return paper_view(paper, tldr=(await shown_tldrs(core, [paper]))[paper.id], number=number, details=True)


async def explain_paper(
    core: Core, raw_id: str, profile: Profile, *, user_key: str = "", categories: Sequence[str] | None = None
) -> str:
    """Why `profile` scores the paper as it does: its standing that day (the one its digest shows: among the same
    candidates, with the member's feedback when `user_key`), matching topics, keywords, authors."""
    paper = await stored_paper(core.repo, raw_id)
    item = await standing_of(core, paper, profile, user_key=user_key, categories=categories)
    if item is None:  # outside the profile's categories: ranked among the whole day, and said so
        ranked = await ranked_candidates(core, profile, await core.repo.papers_on(paper.announced), user_key)
        item = next(i for i in ranked if i.paper.id == paper.id)
        where = standing(item.rank, item.ranked_of, f"on {paper.announced}") + ", outside the profile's categories"
    else:
        where = standing(item.rank, item.ranked_of, f"on {paper.announced}")
    lines = [f"{paper.title} ({paper.url})", f"For profile '{profile.name}': {where}."]
    lines += [f"- {reason}" for reason in item.reasons]
    if item.author_hits:
        lines.append("- watched authors: " + ", ".join(item.author_hits))
    cached = await core.repo.cached_scores([paper.id], profile.fingerprint, core.settings.llm_model)
    if paper.id in cached:
        llm = cached[paper.id]
        lines.append(
            f"- LLM ({core.settings.llm_model}): relevance {llm.relevance:.0f}, novelty {llm.novelty:.0f}"
            + (f": {llm.comment}" if llm.comment else "")
        )
    return "\n".join(lines)
