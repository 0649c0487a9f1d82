"""One-line TL;DRs. Without an LLM: the abstract's key sentence, picked extractively."""

from __future__ import annotations

import re

from bot.models import Paper

TLDR_MAX = 240

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")
_WORD = re.compile(r"[a-z][a-z0-9\-]+")
# Sentences that state the contribution carry the TL;DR far more often than background or results tables.
_CONTRIBUTION = re.compile(
    r"\b(we|this (paper|work|study)|our (method|approach|work)|here)\b.{0,40}?\b(propose|introduce|present|show|"
    r"develop|prove|demonstrate|find|study|establish|derive|design|identify|reveal|argue)",
    re.IGNORECASE,
)
_BACKGROUND = re.compile(
    r"^(however|recently|despite|while|although|in recent years|existing|current|traditional)\b", re.I
)
_STOP = frozenset(
    "the of and a an to in for on with by from is are we our this that as at be via using based its their".split()
)


def split_sentences(text: str) -> list[str]:
    """Split an abstract into sentences (good enough for scientific prose)."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def _shorten(sentence: str, limit: int) -> str:
    if len(sentence) <= limit:
        return sentence
    cut = sentence[: limit - 1]
    cut = cut[: cut.rfind(" ")] if " " in cut else cut
    return cut.rstrip(",;:") + "…"


def extractive_tldr(paper: Paper, limit: int = TLDR_MAX) -> str:
    """The sentence of the abstract that best states the contribution, shortened to `limit` characters."""
    sentences = split_sentences(paper.abstract)
    if not sentences:
        return _shorten(paper.title, limit)
    title_words = {w for w in _WORD.findall(paper.title.lower()) if w not in _STOP}
    best, best_score = sentences[0], float("-inf")
    for position, sentence in enumerate(sentences):
        words = {w for w in _WORD.findall(sentence.lower()) if w not in _STOP}
        score = len(words & title_words) / (1 + len(title_words)) * 2.0
        if _CONTRIBUTION.search(sentence):
            score += 1.5
        if _BACKGROUND.search(sentence):
            score -= 1.0
        score -= 0.08 * position  # contributions come early; later sentences are usually results
        if len(sentence) < 40:
            score -= 1.0
        if score > best_score:
            best, best_score = sentence, score
    return _shorten(best, limit)
