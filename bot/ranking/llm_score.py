"""LLM scoring of the ranker's shortlist: relevance and novelty (1-10) and a one-line comment per paper.

    shortlist (local ranker, `llm_shortlist_size` papers)
      -> cached scores for (paper, profile fingerprint, model) are reused; only the rest is sent
      -> batches of `llm_score_batch_size`: compact text per paper (title + opening of the abstract)
      -> JSON-schema answer where the server supports it, tolerant extraction otherwise
      -> papers whose answer was missing or malformed are asked again, in smaller batches (bounded rounds)
      -> final order: LLM relevance + novelty, nudged by the ranker's order; watched authors stay on top

Every failure degrades instead of failing the digest: past the daily cap, or when the endpoint fails, the
papers not yet scored keep the local ranker's estimate and the digest footer says so.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.core import Core, LLMRuntime
from bot.errors import SourceUnavailable
from bot.llm.client import LLMRequestRejected
from bot.llm.guard import steered
from bot.llm.prompts import clean_untrusted, papers_block, profile_text
from bot.llm.replies import as_grade, as_key, id_text_pairs, load_json_object
from bot.llm.usage import budget_today, format_usd
from bot.models import Paper, Profile, ScoredPaper
from bot.store.repos import CachedScore

log = logging.getLogger(__name__)

PURPOSE = "score"
# Characters of the abstract's opening sent with each title. Measured (bench/llm_tokens.py --text-proxy, an
# embedding proxy within the shortlist): title + 40 characters carries more signal than the title alone (AUC 0.716
# vs 0.696; 0.782 for the whole abstract) and about as much as + 60, and lets the 180-paper shortlist fit a fifth of
# the reference tokens together with the digest's TL;DRs; 100 characters would pass 20% (docs/BENCHMARKS.md).
ABSTRACT_CHARS = 40
COMMENT_CHARS = 200
RETRY_ROUNDS = 2
# Completion budget per paper: a [N, r, n] triple is ~3 tokens, a comment ~25; this covers a comment on each.
_TOKENS_PER_PAPER = 30
_TOKENS_PER_REPLY = 32
# Weight of the ranker's order in the final score, in points of relevance + novelty (out of 20): at most two
# grade points, so it breaks the many ties of integer LLM grades and close calls, never a clear LLM judgement.
RANKER_POINTS = 2.0
AUTHOR_BONUS = 1.0

SCORE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "scores": {
            "type": "array",
            "description": "one [N, relevance, novelty] triple per paper",
            "items": {"type": "array", "items": {"type": "integer"}},
        },
        "comments": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "text": {"type": "string"}},
                "required": ["id", "text"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["scores", "comments"],
    "additionalProperties": False,
}

_TRIPLE = re.compile(r"\[\s*\"?(\d+)\"?\s*,\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*\]")
# Plain lines such as "12: 8, 7 - Model architecture" or "12 | relevance 8 | novelty 7 | comment".
_LINE = re.compile(
    r"^\W*(\d+)\s*[|:.)\]-]?\s*(?:relevance\s*[:=]?\s*)?(\d+(?:\.\d+)?)\s*(?:/\s*10)?\s*[,;|/ ]\s*"
    r"(?:novelty\s*[:=]?\s*)?(\d+(?:\.\d+)?)\b(?:\s*/\s*10)?\s*[-:|,.]*\s*(.*)$",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass
class ScoringResult:
    """The shortlist in its final order, and what the LLM did for it."""

    items: list[ScoredPaper]
    fresh: int = 0  # papers scored by the LLM in this run
    cached: int = 0  # papers whose score came from the cache
    unscored: int = 0  # papers left with the ranker's estimate
    stopped: bool = False  # the budget ran out or the endpoint failed: make no more LLM calls in this run
    notes: list[str] = field(default_factory=list)


def paper_line(paper: Paper) -> str:
    """The compact text the model judges a paper by: its title and the opening of its abstract."""
    opening = clean_untrusted(paper.abstract, ABSTRACT_CHARS) if ABSTRACT_CHARS > 0 else ""
    return f"{clean_untrusted(paper.title)}: {opening}" if opening else clean_untrusted(paper.title)


def score_messages(llm: LLMRuntime, profile_block: str, papers: Sequence[Paper]) -> list[dict[str, str]]:
    """The chat messages asking for scores of `papers`, numbered 1..n in the data block."""
    rows = [(i, paper_line(p)) for i, p in enumerate(papers, 1)]
    return llm.prompts.score.messages(profile=profile_block, papers=papers_block(rows))


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def parse_scores(text: str, count: int) -> dict[int, CachedScore]:
    """Scores for paper numbers 1..`count` found in a reply; missing or out-of-range entries are left out."""
    grades: dict[int, tuple[float, float]] = {}
    comments: dict[int, str] = {}

    def add(key: int | None, relevance: Any, novelty: Any) -> None:
        r, n = as_grade(relevance), as_grade(novelty)
        if key is not None and 1 <= key <= count and r is not None and n is not None:
            grades.setdefault(key, (r, n))

    data = load_json_object(text) or {}
    for entry in _list(data.get("scores")):
        if isinstance(entry, list) and len(entry) == 3:
            add(as_key(entry[0]), entry[1], entry[2])
        elif isinstance(entry, dict):  # {"id": 3, "relevance": 8, "novelty": 7, "comment": "..."}
            key = as_key(entry.get("id"))
            add(key, entry.get("relevance"), entry.get("novelty"))
            if key is not None and isinstance(entry.get("comment"), str):
                comments.setdefault(key, entry["comment"])
    for entry in _list(data.get("comments")):
        key = as_key(entry.get("id")) if isinstance(entry, dict) else None
        if key is not None and isinstance(entry.get("text"), str):
            comments.setdefault(key, entry["text"])
    if not grades:
        # Not JSON (or cut short, or shaped otherwise): keep every complete triple, comment or plain line there is.
        for match in _TRIPLE.finditer(text):
            add(int(match.group(1)), match.group(2), match.group(3))
        for key, comment in id_text_pairs(text).items():
            comments.setdefault(key, comment)
        for match in _LINE.finditer(text):
            key = int(match.group(1))
            add(key, match.group(2), match.group(3))
            if match.group(4).strip() and key in grades:
                comments.setdefault(key, match.group(4))
    return {
        key: CachedScore(relevance=r, novelty=n, comment=clean_untrusted(comments.get(key, ""), COMMENT_CHARS))
        for key, (r, n) in grades.items()
    }


class _Stop(Exception):
    """No more LLM calls in this run; `note` says why in the digest footer."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


class _TooLarge(Exception):
    """The endpoint refused the request for its size (a small local context window): split the batch."""


# How servers word "prompt + max_tokens does not fit" (OpenAI, vLLM, llama.cpp, Ollama).
_CONTEXT_ERROR = re.compile(r"context|too long|too large|maximum .*tokens|max_tokens", re.IGNORECASE)
_MAX_SPLITS = 3


async def _score_batch(
    core: Core, llm: LLMRuntime, profile_block: str, papers: Sequence[Paper]
) -> tuple[dict[str, CachedScore], bool]:
    """Ask for one batch; returns the valid scores by paper id and whether the reply was cut short."""
    messages = score_messages(llm, profile_block, papers)
    max_tokens = _TOKENS_PER_REPLY + _TOKENS_PER_PAPER * len(papers)
    budget = await budget_today(core.repo, core.settings)
    if not budget.allows(llm.client.estimate_cost(messages, max_tokens)):
        raise _Stop(f"Daily LLM budget of {format_usd(budget.cap_usd)} reached")
    try:
        result = await llm.client.chat(messages, json_schema=SCORE_SCHEMA, max_tokens=max_tokens, purpose=PURPOSE)
    except LLMRequestRejected as exc:
        if exc.status_code in (400, 413) and len(papers) > 1 and _CONTEXT_ERROR.search(str(exc)):
            raise _TooLarge() from None
        raise _Stop(f"LLM scoring stopped: {exc}") from None
    except SourceUnavailable as exc:
        raise _Stop(f"LLM scoring stopped: {exc}") from None
    parsed = parse_scores(result.text, len(papers))
    for key, score in parsed.items():
        why = steered(score.comment, messages[0]["content"]) if score.comment else ""
        if why:  # an abstract or the profile steered the model: the comment is not shown
            log.info("score batch: comment on paper %d dropped: it %s", key, why)
            parsed[key] = replace(score, comment="")
    if len(parsed) < len(papers):
        log.info("score batch: %d of %d answers usable%s", len(parsed), len(papers), " (cut short)" * result.truncated)
    return {papers[key - 1].id: score for key, score in parsed.items()}, result.truncated


async def llm_scores(
    core: Core, llm: LLMRuntime, profile: Profile, papers: Sequence[Paper]
) -> tuple[dict[str, CachedScore], str]:
    """LLM scores for as many of `papers` as possible, stored in the cache as they arrive.

    Returns (scores by paper id, why the LLM was stopped or ''). Only papers without a usable answer are asked
    again, at most `RETRY_ROUNDS` times, in half-size batches after a reply was cut short. A batch the endpoint
    refuses as too long for its context is split in halves (small local models).
    """
    scores: dict[str, CachedScore] = {}
    stopped = ""
    profile_block = profile_text(profile)
    todo = list(papers)
    batch_size = core.settings.llm_score_batch_size
    try:
        for round_number in range(RETRY_ROUNDS + 1):
            if not todo:
                break
            if round_number:
                log.info("score retry %d: %d papers without a usable answer", round_number, len(todo))
            truncated_any = False
            pending = [(todo[i : i + batch_size], 0) for i in range(0, len(todo), batch_size)]
            while pending:
                batch, splits = pending.pop(0)
                try:
                    got, truncated = await _score_batch(core, llm, profile_block, batch)
                except _TooLarge:
                    if splits >= _MAX_SPLITS:
                        raise _Stop("LLM scoring stopped: requests do not fit the model's context") from None
                    half = (len(batch) + 1) // 2
                    log.info("score batch of %d too large for the endpoint; splitting it", len(batch))
                    pending[:0] = [(batch[:half], splits + 1), (batch[half:], splits + 1)]
                    batch_size = min(batch_size, half)
                    continue
                truncated_any |= truncated
                await core.repo.store_scores(got, profile.fingerprint, llm.model)
                scores.update(got)
            todo = [p for p in todo if p.id not in scores]
            if truncated_any:
                batch_size = max(1, batch_size // 2)
    except _Stop as stop:
        log.warning("%s", stop.note)
        stopped = stop.note
    return scores, stopped


def combine(shortlist: Sequence[ScoredPaper], scores: dict[str, CachedScore]) -> list[ScoredPaper]:
    """The shortlist re-ordered by LLM relevance + novelty, the ranker's order breaking ties.

    A paper without an LLM score keeps the ranker's 1-10 estimates in the same formula.
    """
    last = max(1, len(shortlist) - 1)
    out = []
    for position, item in enumerate(shortlist):  # shortlist is best first
        ranker_share = 1.0 - position / last
        judged = scores.get(item.paper.id)
        if judged is not None:
            item = replace(
                item, relevance=judged.relevance, novelty=judged.novelty, comment=judged.comment, judged=True
            )
        points = item.relevance + item.novelty + RANKER_POINTS * ranker_share
        score = points / (20.0 + RANKER_POINTS) + (AUTHOR_BONUS if item.author_hits else 0.0)
        out.append(replace(item, score=round(score, 4)))
    out.sort(key=lambda i: -i.score)
    return out


async def score_shortlist(
    core: Core, llm: LLMRuntime, profile: Profile, shortlist: Sequence[ScoredPaper]
) -> ScoringResult:
    """Score the ranker's `shortlist` with the LLM (cache first) and return it in the combined order."""
    papers = [item.paper for item in shortlist]
    cached = await core.repo.cached_scores([p.id for p in papers], profile.fingerprint, llm.model)
    fresh, stopped = await llm_scores(core, llm, profile, [p for p in papers if p.id not in cached])
    notes = [stopped] if stopped else []
    scores = {**cached, **fresh}
    unscored = len(papers) - len(scores)
    if not scores:
        # Nothing from the LLM at all: the ranker's own order and scores, untouched.
        notes.append(f"All {len(papers)} papers were ranked by the local embedding ranker.")
        return ScoringResult(items=list(shortlist), unscored=unscored, stopped=bool(stopped), notes=notes)
    if unscored:
        notes.append(
            f"{unscored} of {len(papers)} shortlisted papers have no LLM score; they keep the local ranker's estimate."
        )
    return ScoringResult(
        items=combine(shortlist, scores),
        fresh=len(fresh),
        cached=len(cached),
        unscored=unscored,
        stopped=bool(stopped),
        notes=notes,
    )
