"""LLM-written answers to questions, grounded in retrieved papers and citing them as [n].

The model sees the question and the numbered papers as delimited data. Its reply is untrusted too: only the
[n] markers that name a paper we gave it survive, invented ones are removed, and the kept citations are
renumbered in order of first use so the text and the citation list agree. A reply that cites nothing (the
model refused, or obeyed an instruction smuggled into an abstract), that quotes its instructions (a question
asked it to print its prompt), carries mentions or markup, or links anywhere but to the papers it cites
(`bot.llm.guard`) is not used: the caller
falls back to the extractive answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core import Core
from bot.errors import SourceUnavailable
from bot.llm.guard import steered
from bot.llm.prompts import clean_untrusted, papers_block
from bot.llm.usage import budget_today
from bot.models import Paper
from bot.text.safetext import clean_text

LLM_PURPOSE = "answer"
MAX_ANSWER_TOKENS = 350
MAX_ANSWER_CHARS = 1500
SUMMARY_CHARS = 300
_CITATION = re.compile(r"\[(\d{1,3})\]")
_MULTI_CITATION = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})+)\]")


@dataclass(frozen=True, slots=True)
class WrittenAnswer:
    """An LLM answer after its citations were checked: text with [1..k] and the k cited papers in order."""

    text: str
    citations: tuple[Paper, ...]
    dropped: int  # citation markers that named no given paper


def answer_messages(core: Core, question: str, papers: Sequence[Paper], tldrs: dict[str, str]) -> list[dict[str, str]]:
    """The chat messages: question and numbered papers as data blocks."""
    assert core.llm is not None
    rows = [
        (n, f"{p.title} ({p.announced}): {tldrs.get(p.id) or p.abstract[:SUMMARY_CHARS]}")
        for n, p in enumerate(papers, 1)
    ]
    return core.llm.prompts.answer.messages(question=clean_untrusted(question, 1000), papers=papers_block(rows))


def check_citations(text: str, papers: Sequence[Paper]) -> WrittenAnswer:
    """Keep the [n] markers that name one of `papers`, drop the rest, renumber by first use."""
    text = _MULTI_CITATION.sub(lambda m: "".join(f"[{n.strip()}]" for n in m.group(1).split(",")), text)
    order: list[int] = []
    dropped = 0

    def renumber(match: re.Match[str]) -> str:
        nonlocal dropped
        number = int(match.group(1))
        if not 1 <= number <= len(papers):
            dropped += 1
            return ""
        if number not in order:
            order.append(number)
        return f"[{order.index(number) + 1}]"

    if len(text) > MAX_ANSWER_CHARS:  # cut first, so every paper cited is still cited in the text shown
        text = text[: MAX_ANSWER_CHARS - 1].rsplit(" ", 1)[0] + "…"
    cleaned = _CITATION.sub(renumber, text)
    cleaned = re.sub(r"[ \t]+([.,;:])", r"\1", re.sub(r"[ \t]{2,}", " ", cleaned)).strip()
    return WrittenAnswer(text=cleaned, citations=tuple(papers[n - 1] for n in order), dropped=dropped)


async def write_answer(
    core: Core, question: str, papers: Sequence[Paper], tldrs: dict[str, str]
) -> tuple[WrittenAnswer | None, str]:
    """Ask the LLM for an answer citing `papers`; (None, reason) when no usable answer came back."""
    if core.llm is None:
        return None, "no LLM configured"
    messages = answer_messages(core, question, papers, tldrs)
    budget = await budget_today(core.repo, core.settings)
    if not budget.allows(core.llm.client.estimate_cost(messages, MAX_ANSWER_TOKENS)):
        return None, "the daily LLM budget is spent"
    try:
        result = await core.llm.client.chat(messages, max_tokens=MAX_ANSWER_TOKENS, purpose=LLM_PURPOSE)
    except SourceUnavailable as exc:
        return None, str(exc)
    written = check_citations(clean_text(result.text), papers)
    problem = steered(result.text, messages[0]["content"], cited=[p.id for p in written.citations])
    if problem:  # written on an instruction smuggled into the question or an abstract
        return None, f"the LLM answer {problem}"
    if not written.citations:
        return None, "the LLM answer cited none of the papers"
    return written, ""
