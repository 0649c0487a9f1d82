"""A stored paper found by an arXiv id as people type it (`2505.17639v2`, an abs or pdf URL)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.errors import InputError
from bot.models import InvalidPaperId, Paper, split_arxiv_id

if TYPE_CHECKING:
    from bot.store.repos.papers import PapersRepo


async def stored_paper(repo: PapersRepo, raw_id: str) -> Paper:
    """The stored paper for an id in any common form; InputError when it is not an id or not stored."""
    try:
        paper_id, _ = split_arxiv_id(raw_id)
    except InvalidPaperId:
        raise InputError(f"not an arXiv id: {raw_id[:60]!r} (expected something like 2505.17639)") from None
    found = await repo.get_papers([paper_id])
    if not found:
        raise InputError(f"paper {paper_id} is not stored; fetch it with `paperscout ingest --ids {paper_id}`")
    return found[0]
