"""Platform-neutral renderings of the core's views: Markdown (files), plain text (terminals) and JSON (machines).

Chat platforms have their own markup rules; their renderers live in the front ends and lay out the same
`PaperView`s. Everything shown came from outside (titles, abstracts, names, LLM text), so Markdown control
characters are escaped and nothing is trusted to be markup.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot.models import Digest
from bot.text.safetext import escape_markdown
from bot.views.model import DigestView, PaperView, digest_view, usage_line

MAX_AUTHORS_SHOWN = 6

__all__ = ["escape_markdown", "usage_line"]


def authors_line(authors: Sequence[str], limit: int = MAX_AUTHORS_SHOWN) -> str:
    """Authors joined with commas, shortened with 'et al.' past `limit`."""
    if len(authors) <= limit:
        return ", ".join(authors)
    return ", ".join(authors[:limit]) + f" et al. ({len(authors)} authors)"


def _as_view(digest: Digest | DigestView) -> DigestView:
    return digest if isinstance(digest, DigestView) else digest_view(digest)


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


def judgement_line(item: PaperView) -> str:
    """'#3 of 444 papers on 2025-05-26 (top 1%) · LLM relevance 8/10, novelty 7/10' (the LLM part only if it ran)."""
    parts = [item.standing] if item.standing else []
    if item.relevance is not None and item.novelty is not None:
        parts.append(f"LLM relevance {item.relevance:.0f}/10, novelty {item.novelty:.0f}/10")
    return " · ".join(parts)


def _item_markdown(item: PaperView) -> str:
    lines = [f"### {item.number}. {escape_markdown(item.title)}"]
    lines.append(
        f"[arXiv:{item.id}]({item.url}) · {escape_markdown(authors_line(item.authors))} · {item.announced.isoformat()}"
    )
    if item.tldr:
        lines.append(f"**TL;DR** {escape_markdown(item.tldr)}")
    judged = judgement_line(item)
    if judged:
        lines.append(judged)
    if item.author_hits:
        lines.append("Author watch: " + escape_markdown(", ".join(item.author_hits)))
    if item.comment:
        lines.append("Comment: " + escape_markdown(item.comment))
    if item.reasons:
        lines.append("Why: " + escape_markdown("; ".join(item.reasons)))
    return "\n".join(lines)


def digest_markdown(digest: Digest | DigestView) -> str:
    """The whole digest as Markdown: header, one section per paper, notes as a footer."""
    view = _as_view(digest)
    parts = [f"# {escape_markdown(view.title)}\n{view.summary}"]
    table = usage_table(view.usage)
    if table:
        parts.append("\n".join(table))
    if not view.items:
        parts.append("No papers matched this profile today.")
    groups = view.topic_groups()
    for group in groups:
        parts.append(f"{'#' * (group.level + 1)} {escape_markdown(group.heading)}")
        if group.note:
            parts.append(f"_{escape_markdown(group.note)}_")
        parts += [_item_markdown(item).replace("### ", "#### ", 1) for item in group.items]
    if not groups:
        parts += [_item_markdown(item) for item in view.items]
    if view.notes:
        parts.append("\n".join(f"_{escape_markdown(note)}_" for note in view.notes))
    return "\n\n".join(parts) + "\n"


def paper_text(item: PaperView, *, indent: str = "    ") -> str:
    """One paper as plain text for a terminal: numbered title, authors, TL;DR, standing and reasons, link."""
    head = f"{item.number:2}. {item.title}" if item.number else item.title
    byline = " · ".join(filter(None, [authors_line(item.authors, 4), ", ".join(item.categories[:4])]))
    lines = [head, f"{indent}{byline} · {item.announced.isoformat()}"]
    if item.arxiv_comment:
        lines.append(f"{indent}arXiv comment: {item.arxiv_comment}")
    if item.tldr:
        lines.append(f"{indent}TL;DR {item.tldr}")
    if item.abstract:
        lines.append(f"{indent}Abstract: {item.abstract}")
    judged = judgement_line(item)
    if judged:
        lines.append(indent + judged)
    if item.author_hits:
        lines.append(f"{indent}Author watch: {', '.join(item.author_hits)}")
    if item.comment:
        lines.append(f"{indent}Comment: {item.comment}")
    if item.reasons:
        lines.append(f"{indent}Why: {'; '.join(item.reasons)}")
    lines.append(indent + item.url)
    return "\n".join(lines)


def digest_text(digest: Digest | DigestView) -> str:
    """The digest as readable plain text (a terminal is not a Markdown viewer)."""
    view = _as_view(digest)
    parts = [f"{view.title}\n{view.summary}"]
    cost = usage_line(view.usage)
    if cost:
        parts[0] += "\n" + cost
    if not view.items:
        parts.append("No papers matched this profile.")
    groups = view.topic_groups()
    for group in groups:
        heading = group.heading.upper() if group.level == 1 else f"-- {group.heading} --"
        parts.append(heading + (f"\n{group.note}" if group.note else ""))
        parts += [paper_text(item) for item in group.items]
    if not groups:
        parts += [paper_text(item) for item in view.items]
    if view.notes:
        parts.append("\n".join(f"Note: {note}" for note in view.notes))
    return "\n\n".join(parts) + "\n"


def item_to_dict(item: PaperView) -> dict[str, Any]:
    """One paper of a digest as plain data (relevance and novelty are null unless an LLM judged it)."""
    return {
        "rank": item.number,
        "id": item.id,
        "title": item.title,
        "url": item.url,
        "authors": list(item.authors),
        "categories": list(item.categories),
        "announced": item.announced.isoformat(),
        "tldr": item.tldr,
        "standing": item.standing,
        "score": None if item.score is None else round(item.score, 4),
        "relevance": None if item.relevance is None else round(item.relevance, 1),
        "novelty": None if item.novelty is None else round(item.novelty, 1),
        "reasons": list(item.reasons),
        "author_hits": list(item.author_hits),
        "comment": item.comment,
        "abstract": item.abstract,
        "arxiv_comment": item.arxiv_comment,
    }


def digest_to_dict(digest: Digest | DigestView) -> dict[str, Any]:
    """The digest as plain data (the JSON rendering)."""
    view = _as_view(digest)
    return {
        "day": view.day.isoformat(),
        "title": view.title,
        "scanned": view.scanned,
        "picked": view.picked,
        "usage": view.usage,
        "notes": list(view.notes),
        "papers": [item_to_dict(item) for item in view.items],
    } | (
        {"topics": [{"heading": g.heading, "level": g.level, "papers": [i.id for i in g.items]} for g in groups]}
        if (groups := view.topic_groups())
        else {}
    )


def digest_json(digest: Digest | DigestView) -> str:
    """The digest as a JSON document."""
    return json.dumps(digest_to_dict(digest), ensure_ascii=False, indent=2)


def citations_text(citations: Sequence[PaperView]) -> str:
    """Numbered sources under an answer: '[1] Title https://arxiv.org/abs/...'."""
    return "\n".join(f"[{n}] {paper.title} {paper.url}" for n, paper in enumerate(citations, 1))


def answer_text(text: str, citations: Sequence[PaperView], usage: dict[str, float] | None = None) -> str:
    """An answer as plain text: the answer, then its numbered sources unless the text already lists them
    (the extractive answer is itself the list), then the LLM cost when one ran."""
    lines = [text]
    listed = all(f"[{n}] {paper.title}" in text for n, paper in enumerate(citations, 1))
    if citations and not listed:
        lines += ["", citations_text(citations)]
    elif citations:
        lines += ["", "\n".join(f"[{n}] {paper.url}" for n, paper in enumerate(citations, 1))]
    cost = usage_line(usage or {})
    if cost:
        lines += ["", cost]
    return "\n".join(lines)
