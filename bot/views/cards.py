"""One paper at a time: finding it by id, its view (`/paper ID`) and why it scored as it did (`/why ID`)."""

from __future__ import annotations

from bot.core import Core
from bot.digests.build import rank_papers
from bot.errors import InputError
from bot.models import InvalidPaperId, Paper, Profile, split_arxiv_id
from bot.text.tldr import shown_tldrs
from bot.views.model import PaperView, paper_view, standing


async def stored_paper(core: Core, raw_id: str) -> Paper:
    """The stored paper for an id in any common form; InputError when it is not an id or not stored."""
    try:
        paper_id, _ = split_arxiv_id(raw_id)
    except InvalidPaperId:
        raise InputError(f"not an arXiv id: {raw_id[:60]!r} (expected something like 2505.17639)") from None
    found = await core.repo.get_papers([paper_id])
    if not found:
        raise InputError(f"paper {paper_id} is not stored; fetch it with `paperscout ingest --ids {paper_id}`")
    return found[0]


async def paper_card(core: Core, raw_id: str) -> PaperView:
    """The view of a stored paper with its TL;DR (extractive when none is stored yet)."""
    paper = await stored_paper(core, raw_id)
    return paper_view(paper, tldr=(await shown_tldrs(core, [paper]))[paper.id])


async def explain_paper(core: Core, raw_id: str, profile: Profile) -> str:
    """Why `profile` scores the paper as it does: its rank that day, scores, matching topics, keywords, authors."""
    paper = await stored_paper(core, raw_id)
    day_papers = await core.repo.papers_on(paper.announced)
    ranked = await rank_papers(core, day_papers, profile)
    position = next(i for i, item in enumerate(ranked, 1) if item.paper.id == paper.id)
    item = ranked[position - 1]
    where = standing(position, len(ranked), f"announced {paper.announced}")
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
