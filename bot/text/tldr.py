"""One-line TL;DRs as shown: with an LLM, written once per paper; else the extractive one (`bot.text.extractive`)."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.errors import SourceUnavailable
from bot.llm.client import Budget, LLMClient
from bot.llm.guard import steered
from bot.llm.prompts import PromptTemplate, clean_untrusted, papers_block
from bot.llm.replies import as_key, id_text_pairs, load_json_object
from bot.llm.usage import budget_today, format_usd
from bot.models import Paper
from bot.text.extractive import TLDR_MAX, extractive_tldr, key_passage, readable

if TYPE_CHECKING:
    from bot.core import Core, LLMRuntime

log = logging.getLogger(__name__)

LLM_PURPOSE = "tldr"
EXTRACTIVE_SOURCE = "extractive"
# Characters of the abstract sent per paper, from its contribution sentence on (`key_passage`): the background
# before it and the result tables after it are what a one-liner leaves out anyway. 250 keeps a digest's TL;DRs
# near 2,000 tokens (bench/llm_tokens.py).
TLDR_ABSTRACT_CHARS = 250
TLDR_BATCH = 15
_TLDR_TOKENS_PER_PAPER = 60
_TLDR_TOKENS_PER_REPLY = 16

TLDR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tldrs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "text": {"type": "string"}},
                "required": ["id", "text"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["tldrs"],
    "additionalProperties": False,
}

_TLDR_LINE = re.compile(r"^\W*(\d+)\s*[|:.)\]-]\s*(.{10,})$", re.MULTILINE)


def parse_tldrs(text: str, count: int) -> dict[int, str]:
    """TL;DRs for paper numbers 1..`count` found in a reply (JSON, JSON fragments or ``N| text`` lines)."""
    found: dict[int, str] = {}
    data = load_json_object(text)
    entries = data.get("tldrs") if isinstance(data, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("text"), str):
            key = as_key(entry.get("id"))
            if key is not None:
                found.setdefault(key, entry["text"])
    if not found:
        found.update(id_text_pairs(text))
        for match in _TLDR_LINE.finditer(text):
            found.setdefault(int(match.group(1)), match.group(2))
    # the model's line gets the same cleaning as an extractive one: LaTeX, a leading connective, a cut clause
    cleaned = {key: readable(clean_untrusted(value, 2 * TLDR_MAX)) for key, value in found.items() if 1 <= key <= count}
    return {key: value for key, value in cleaned.items() if len(value) >= 10}


def tldr_messages(template: PromptTemplate, papers: Sequence[Paper]) -> list[dict[str, str]]:
    """The chat messages asking for TL;DRs of `papers`, numbered 1..n in the data block."""
    rows = [
        (i, f"{clean_untrusted(p.title)}: {clean_untrusted(key_passage(p, TLDR_ABSTRACT_CHARS))}")
        for i, p in enumerate(papers, 1)
    ]
    return template.messages(papers=papers_block(rows))


async def write_llm_tldrs(
    client: LLMClient, template: PromptTemplate, papers: Sequence[Paper], budget: Callable[[], Awaitable[Budget]]
) -> tuple[dict[str, str], str]:
    """LLM TL;DRs for `papers` by id, asking once more for any left without one; and a footer note ('' if none).

    `budget` is called before every request; a request that would pass the daily cap is not sent.
    """
    out: dict[str, str] = {}
    todo = list(papers)
    for _ in range(2):
        for start in range(0, len(todo), TLDR_BATCH):
            batch = todo[start : start + TLDR_BATCH]
            messages = tldr_messages(template, batch)
            max_tokens = _TLDR_TOKENS_PER_REPLY + _TLDR_TOKENS_PER_PAPER * len(batch)
            current = await budget()
            if not current.allows(client.estimate_cost(messages, max_tokens)):
                return (
                    out,
                    f"Daily LLM budget of {format_usd(current.cap_usd)} reached; remaining TL;DRs are extractive.",
                )
            try:
                result = await client.chat(
                    messages, json_schema=TLDR_SCHEMA, max_tokens=max_tokens, purpose=LLM_PURPOSE
                )
            except SourceUnavailable as exc:
                return out, f"LLM TL;DRs stopped ({exc}); remaining TL;DRs are extractive."
            for key, text in parse_tldrs(result.text, len(batch)).items():
                if not steered(text, messages[0]["content"]):  # else an abstract steered it: stays extractive
                    out[batch[key - 1].id] = text
        todo = [p for p in todo if p.id not in out]
        if not todo:
            break
    return out, ""


async def shown_tldrs(core: Core, papers: Sequence[Paper]) -> dict[str, str]:
    """The TL;DR to show for each paper, by id: the LLM's when one was written, else the extractive one computed
    afresh (a stored extractive TL;DR may come from an older version of the choice), both readable."""
    stored = await core.repo.tldrs_with_sources([p.id for p in papers])
    out: dict[str, str] = {}
    for paper in papers:
        text, source = stored.get(paper.id, ("", None))
        llm_written = bool(text) and (source or EXTRACTIVE_SOURCE) != EXTRACTIVE_SOURCE
        out[paper.id] = readable(text) if llm_written else extractive_tldr(paper)
    return out


@dataclass(frozen=True, slots=True)
class TldrReport:
    """TL;DRs for a digest's papers and what it took."""

    tldrs: dict[str, str]  # paper id -> TL;DR (LLM where available, else stored or extractive)
    written: int = 0  # written by the LLM in this run
    reused: int = 0  # LLM TL;DRs already stored, from any profile's digest
    note: str = ""


async def digest_tldrs(core: Core, llm: LLMRuntime | None, papers: Sequence[Paper]) -> TldrReport:
    """TL;DRs for `papers`: LLM ones are written once per paper and shared by every profile.

    New LLM TL;DRs are stored in SQLite (source = model name) and in the paper's Chroma metadata, so retrieval
    sees them. Papers the LLM does not cover keep their stored (extractive) TL;DR.
    """
    ids = [p.id for p in papers]
    stored = await core.repo.tldrs_with_sources(ids)
    tldrs: dict[str, str] = {}
    todo: list[Paper] = []  # papers whose TL;DR the LLM may improve on: extractive or of unknown origin
    for paper in papers:
        text, source = stored.get(paper.id, ("", None))
        extractive = (source or EXTRACTIVE_SOURCE) == EXTRACTIVE_SOURCE
        tldrs[paper.id] = readable(text) if text and not extractive else extractive_tldr(paper)
        if extractive:
            todo.append(paper)
    if llm is None or not core.settings.llm_tldrs:
        return TldrReport(tldrs)
    reused = len(papers) - len(todo)
    if not todo:
        return TldrReport(tldrs, reused=reused)

    async def budget() -> Budget:
        return await budget_today(core.repo, core.settings)

    written, note = await write_llm_tldrs(llm.client, llm.prompts.tldr, todo, budget)
    if written:
        await core.repo.set_tldrs(written, source=llm.model)
        ids_written = list(written)
        try:
            await core.vectors.update_metadata(ids_written, [{"tldr": written[i][:600]} for i in ids_written])
        except Exception as exc:  # SQLite has them; retrieval only misses the better text until the next write
            log.warning("could not store %d TL;DRs in the vector store: %s", len(written), exc)
        tldrs.update(written)
    return TldrReport(tldrs, written=len(written), reused=reused, note=note)
