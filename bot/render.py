"""Platform-neutral renderings of a digest: Markdown (terminal, files) and JSON (machines).

Chat platforms have their own markup rules; their renderers live in the adapters and cogs.
Everything shown here came from outside (titles, abstracts, LLM text), so Markdown control characters
are escaped and nothing is trusted to be markup.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.models import Digest, ScoredPaper

MAX_AUTHORS_SHOWN = 6

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def escape_markdown(text: str) -> str:
    """Escape characters that Markdown would treat as markup."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def authors_line(authors: tuple[str, ...], limit: int = MAX_AUTHORS_SHOWN) -> str:
    """Authors joined with commas, shortened with 'et al.' past `limit`."""
    if len(authors) <= limit:
        return ", ".join(authors)
    return ", ".join(authors[:limit]) + f" et al. ({len(authors)} authors)"


def usage_line(usage: dict[str, float]) -> str:
    """The header line with LLM tokens and cost, empty when no LLM ran."""
    if not usage.get("total_tokens"):
        return ""
    return (
        f"LLM: {int(usage.get('prompt_tokens', 0)):,} prompt + {int(usage.get('completion_tokens', 0)):,} completion"
        f" tokens, ${usage.get('cost_usd', 0.0):.4f}"
    )


def _item_markdown(rank: int, item: ScoredPaper) -> str:
    paper = item.paper
    lines = [f"### {rank}. {escape_markdown(paper.title)}"]
    lines.append(f"[arXiv:{paper.id}]({paper.url}) · {escape_markdown(authors_line(paper.authors))}")
    if item.tldr:
        lines.append(f"**TL;DR** {escape_markdown(item.tldr)}")
    lines.append(f"Relevance **{item.relevance:.0f}**/10 · Novelty **{item.novelty:.0f}**/10 · score {item.score:.3f}")
    if item.author_hits:
        lines.append("Author watch: " + escape_markdown(", ".join(item.author_hits)))
    if item.comment:
        lines.append("Comment: " + escape_markdown(item.comment))
    if item.reasons:
        lines.append("Why: " + escape_markdown("; ".join(item.reasons)))
    return "\n".join(lines)


def digest_markdown(digest: Digest) -> str:
    """The whole digest as Markdown: header, one section per paper, notes as a footer."""
    header = [
        f"# {escape_markdown(digest.profile_name)}: arXiv digest for {digest.day.isoformat()}",
        f"Scanned {digest.scanned} papers, picked {digest.picked}.",
    ]
    usage = usage_line(digest.usage)
    if usage:
        header.append(usage)
    parts = ["\n".join(header)]
    if not digest.items:
        parts.append("No papers matched this profile today.")
    parts += [_item_markdown(i, item) for i, item in enumerate(digest.items, 1)]
    if digest.notes:
        parts.append("\n".join(f"_{escape_markdown(note)}_" for note in digest.notes))
    return "\n\n".join(parts) + "\n"


def item_to_dict(rank: int, item: ScoredPaper) -> dict[str, Any]:
    """One digest entry as plain data."""
    paper = item.paper
    return {
        "rank": rank,
        "id": paper.id,
        "title": paper.title,
        "url": paper.url,
        "authors": list(paper.authors),
        "categories": list(paper.categories),
        "tldr": item.tldr,
        "score": round(item.score, 4),
        "relevance": round(item.relevance, 1),
        "novelty": round(item.novelty, 1),
        "reasons": list(item.reasons),
        "author_hits": list(item.author_hits),
        "comment": item.comment,
    }


def digest_to_dict(digest: Digest) -> dict[str, Any]:
    """The digest as plain data (the JSON rendering)."""
    return {
        "day": digest.day.isoformat(),
        "profile": digest.profile_name,
        "scanned": digest.scanned,
        "picked": digest.picked,
        "usage": digest.usage,
        "notes": list(digest.notes),
        "papers": [item_to_dict(i, item) for i, item in enumerate(digest.items, 1)],
    }


def digest_json(digest: Digest) -> str:
    """The digest as a JSON document."""
    return json.dumps(digest_to_dict(digest), ensure_ascii=False, indent=2)
