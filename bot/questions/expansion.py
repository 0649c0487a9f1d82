"""Pseudo-relevance feedback on words (RM3, Lavrenko and Croft's relevance model with the query kept in): the words
most likely in the first pass's best papers, added to the topic's own, and every candidate scored by BM25F over
that expanded query. It reaches papers that say the topic in other words their neighbours use ("subseasonal",
"atmospheric" for weather forecasting), which neither the topic's own words nor one whole-paper vector do.

No word list: a word is left out of the expansion when more than COMMON_SHARE of the stored papers hold it (the
archive's own stop list), and words are the full-text index's (porter-stemmed) terms, so their document frequencies
come from that index (`PapersRepo.term_document_frequencies`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import snowballstemmer

from bot.models import Paper

FEEDBACK_DOCS = 3  # the first pass's best papers read (chosen by leave-one-set-out, docs/BENCHMARKS.md)
EXPANSION_TERMS = 30  # words of theirs added to the topic's
ORIGINAL_WEIGHT = 0.5  # the topic's own words' share of the expanded query's weight
COMMON_SHARE = 0.1  # a word in more than this share of the stored papers says nothing about a topic
TITLE_WEIGHT = 2.0  # BM25F: a word in the title counts as this many in the abstract
K1 = 1.2  # BM25's term-frequency saturation and length normalisation (Robertson's usual values)
B = 0.75

_PORTER = snowballstemmer.stemmer("porter")  # the full-text index's tokenizer is 'porter unicode61'
_TOKEN = re.compile(r"[^\W_]+")


def index_terms(text: str) -> list[str]:
    """`text` as the full-text index reads it: case and diacritics folded, split at anything but letters and digits,
    each token porter-stemmed."""
    folded = unicodedata.normalize("NFKD", text.lower())
    if not folded.isascii():
        folded = "".join(c for c in folded if not unicodedata.combining(c))
    return [_stem(token) for token in _TOKEN.findall(folded)]


@functools.lru_cache(maxsize=65536)
def _stem(token: str) -> str:
    """One token's stem (pure-Python Snowball is slow, and a few thousand words make most abstracts)."""
    return _PORTER.stemWord(token)


@dataclass(frozen=True, slots=True)
class Bags:
    """Each paper's title and abstract terms, counted."""

    title: list[Counter[str]]
    abstract: list[Counter[str]]

    @staticmethod
    def of(papers: Sequence[Paper]) -> Bags:
        """The bags of `papers`, in their order."""
        return Bags([Counter(index_terms(p.title)) for p in papers], [Counter(index_terms(p.abstract)) for p in papers])

    def terms(self, rows: Sequence[int]) -> set[str]:
        """Every term of the papers `rows`."""
        return {t for i in rows for t in (*self.title[i], *self.abstract[i])}


def relevance_model(bags: Bags, feedback: Sequence[int], df: Mapping[str, int], total: int) -> dict[str, float]:
    """The EXPANSION_TERMS most likely terms of the papers `feedback` (each paper's term distribution, the papers
    weighted alike), terms in more than COMMON_SHARE of the `total` stored papers left out; weights sum to 1."""
    model: Counter[str] = Counter()
    for i in feedback:
        counts = bags.title[i] + bags.abstract[i]
        length = sum(counts.values()) or 1
        for term, count in counts.items():
            if df.get(term, 0) <= COMMON_SHARE * total:
                model[term] += count / length / len(feedback)
    top = model.most_common(EXPANSION_TERMS)
    mass = sum(weight for _, weight in top)
    return {term: weight / mass for term, weight in top} if mass else {}


def expanded_query(topic_terms: Sequence[str], model: Mapping[str, float]) -> dict[str, float]:
    """The topic's terms (ORIGINAL_WEIGHT in all) and the relevance model's (the rest), each term's weight summed."""
    own = set(topic_terms)
    query = {term: ORIGINAL_WEIGHT / len(own) for term in own}
    for term, weight in model.items():
        query[term] = query.get(term, 0.0) + (1 - ORIGINAL_WEIGHT) * weight
    return query


def bm25f(bags: Bags, query: Mapping[str, float], df: Mapping[str, int], total: int) -> np.ndarray:
    """Each paper's BM25F score for the weighted `query` (title and abstract term frequencies, each normalised by
    its length against the papers' mean, summed with the title weighted TITLE_WEIGHT, then saturated once); NaN for
    a paper holding none of its terms."""
    title_lengths = np.asarray([sum(c.values()) for c in bags.title], dtype=np.float64)
    abstract_lengths = np.asarray([sum(c.values()) for c in bags.abstract], dtype=np.float64)
    title_norm = 1 - B + B * title_lengths / max(title_lengths.mean(), 1.0)
    abstract_norm = 1 - B + B * abstract_lengths / max(abstract_lengths.mean(), 1.0)
    scores = np.zeros(len(bags.title))
    for term, weight in query.items():
        n = df.get(term, 0)
        idf = np.log(1 + (total - n + 0.5) / (n + 0.5))
        title_tf = np.asarray([t[term] for t in bags.title], dtype=np.float64)
        abstract_tf = np.asarray([a[term] for a in bags.abstract], dtype=np.float64)
        tf = TITLE_WEIGHT * title_tf / title_norm + abstract_tf / abstract_norm
        scores += weight * idf * tf / (K1 + tf)
    return np.where(scores > 0, scores, np.nan)
