"""Platform-neutral renderings of a digest: Markdown (terminal, files) and JSON (machines).

Chat platforms have their own markup rules; their renderers live in the adapters and cogs.
Everything shown here came from outside (titles, abstracts, LLM text), so Markdown control characters
are escaped and nothing is trusted to be markup.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from bot.models import Digest, ScoredPaper

if TYPE_CHECKING:
    from bot.rag import Answer

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


_PURPOSE_NAMES = {"score": "scoring", "tldr": "TL;DRs", "answer": "answers"}


def usage_table(usage: dict[str, float]) -> list[str]:
    """Markdown lines for the header: what the LLM scored, then a token/cost table per LLM step.

    Empty when no LLM ran. When every answer came from the cache, the line says no tokens were spent.
    """
    if "scores_new" not in usage and not usage.get("total_tokens"):
        return []
    purposes = sorted({key.split(".", 1)[0] for key in usage if "." in key})
    lines = []
    if "scores_new" in usage:
        scores_cached, tldrs_cached = int(usage.get("scores_cached", 0)), int(usage.get("tldrs_cached", 0))
        summary = (
            f"LLM scored {int(usage.get('scores_new', 0)) + scores_cached} of"
            f" {int(usage.get('shortlist', 0))} shortlisted papers"
        )
        if not purposes:
            summary += ", spending no tokens"
        if scores_cached or tldrs_cached:
            summary += f" ({scores_cached} scores and {tldrs_cached} TL;DRs reused from earlier runs)"
        lines.append(summary + ".")
    if purposes:
        if lines:
            lines.append("")  # a Markdown table needs a blank line before it
        lines += ["| LLM step | calls | prompt tokens | completion tokens | cost |", "|---|--:|--:|--:|--:|"]
        for name in [*purposes, None]:
            prefix = f"{name}." if name else ""
            label = escape_markdown(_PURPOSE_NAMES.get(name, name)) if name else "**total**"
            lines.append(
                f"| {label} | {int(usage.get(prefix + 'calls', 0)):,}"
                f" | {int(usage.get(prefix + 'prompt_tokens', 0)):,}"
                f" | {int(usage.get(prefix + 'completion_tokens', 0)):,} | ${usage.get(prefix + 'cost_usd', 0.0):.4f} |"
            )
    return lines


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
    table = usage_table(digest.usage)
    parts = ["\n".join(header)]
    if table:
        parts.append("\n".join(table))
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


def answer_text(answer: Answer) -> str:
    """A question's answer as plain text: the answer, its numbered sources and, when an LLM ran, its cost."""
    lines = [answer.text]
    if answer.citations:
        lines.append("")
        lines.extend(f"[{n}] {paper.title} {paper.url}" for n, paper in enumerate(answer.citations, 1))
    cost = usage_line(answer.usage)
    if cost:
        lines.extend(["", cost])
    return "\n".join(lines)
