"""Pseudo-relevance feedback on words (RM3, Lavrenko and Croft's relevance model with the query kept in): the words
most likely in the first pass's best papers, added to the topic's own, and every candidate scored by BM25F over
that expanded query. It reaches papers that say the topic in other words their neighbours use ("subseasonal",
"atmospheric" for weather forecasting), which neither the topic's own words nor one whole-paper vector do.

No word list: a word is left out of the expansion when more than COMMON_SHARE of the stored papers hold it (the
archive's own stop list), and words are the full-text index's (porter-stemmed) terms, so their document frequencies
come from that index (`PapersRepo.term_document_frequencies`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bot.models import Paper
from bot.text.terms import INDEX_STEMMER

FEEDBACK_DOCS = 3  # the first pass's best papers read (chosen by leave-one-set-out, docs/BENCHMARKS.md)
EXPANSION_TERMS = 30  # words of theirs added to the topic's
ORIGINAL_WEIGHT = 0.5  # the topic's own words' share of the expanded query's weight
COMMON_SHARE = 0.1  # a word in more than this share of the stored papers says nothing about a topic
TITLE_WEIGHT = 2.0  # BM25F: a word in the title counts as this many in the abstract
K1 = 1.2  # BM25's term-frequency saturation and length normalisation (Robertson's usual values)
B = 0.75

_TOKEN = re.compile(r"[^\W_]+")


def index_terms(text: str) -> list[str]:
    """`text` as the full-text index reads it: case and diacritics folded, split at anything but letters and digits,
    each token porter-stemmed."""
    return INDEX_STEMMER.stemWords(_tokens(text))


def _tokens(text: str) -> list[str]:
    """`text`'s tokens as the full-text index reads them, not stemmed."""
    folded = unicodedata.normalize("NFKD", text.lower())
    if not folded.isascii():
        folded = "".join(c for c in folded if not unicodedata.combining(c))
    return _TOKEN.findall(folded)


@dataclass(frozen=True, slots=True)
class Bags:
    """Each paper's title and abstract tokens, counted, and each token's term (its stem): the papers' words are
    counted as written and stemmed once each, which keeps a few hundred abstracts to milliseconds."""

    title: list[Counter[str]]
    abstract: list[Counter[str]]
    stems: dict[str, str]
    forms: dict[str, list[str]]  # each term's tokens

    @staticmethod
    def of(papers: Sequence[Paper]) -> Bags:
        """The bags of `papers`, in their order."""
        title = [Counter(_tokens(p.title)) for p in papers]
        abstract = [Counter(_tokens(p.abstract)) for p in papers]
        tokens = list({t: None for c in (*title, *abstract) for t in c})
        stems = dict(zip(tokens, INDEX_STEMMER.stemWords(tokens), strict=True))
        forms: dict[str, list[str]] = {}
        for token, stem in stems.items():
            forms.setdefault(stem, []).append(token)
        return Bags(title, abstract, stems, forms)

    def terms(self, rows: Sequence[int]) -> set[str]:
        """Every term of the papers `rows`."""
        return {self.stems[t] for i in rows for t in (*self.title[i], *self.abstract[i])}

    def counts(self, row: int) -> Counter[str]:
        """The terms of paper `row`'s title and abstract, counted."""
        counts: Counter[str] = Counter()
        for bag in (self.title[row], self.abstract[row]):
            for token, count in bag.items():
                counts[self.stems[token]] += count
        return counts

    def frequencies(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """How often each paper's title and abstract hold `term`."""
        forms = self.forms.get(term, [])
        title = np.asarray([sum(c[f] for f in forms) for c in self.title], dtype=np.float64)
        abstract = np.asarray([sum(c[f] for f in forms) for c in self.abstract], dtype=np.float64)
        return title, abstract


def term_likelihoods(bags: Bags, feedback: Sequence[int]) -> list[tuple[str, float]]:
    """Every term of the papers `feedback` with its likelihood in them (each paper's term distribution, the papers
    weighted alike), most likely first."""
    likely: Counter[str] = Counter()
    for i in feedback:
        counts = bags.counts(i)
        length = sum(counts.values()) or 1
        for term, count in counts.items():
            likely[term] += count / length / len(feedback)
    return likely.most_common()


def relevance_model(likely: Sequence[tuple[str, float]], df: Mapping[str, int], total: int) -> dict[str, float]:
    """The EXPANSION_TERMS most likely terms of `likely` (`term_likelihoods`) that at most COMMON_SHARE of the `total`
    stored papers hold (`df`: their document frequencies), weights summing to 1."""
    top = [(term, weight) for term, weight in likely if df.get(term, 0) <= COMMON_SHARE * total][:EXPANSION_TERMS]
    mass = sum(weight for _, weight in top)
    return {term: weight / mass for term, weight in top} if mass else {}


def expansion_complete(likely: Sequence[tuple[str, float]], df: Mapping[str, int], total: int) -> bool:
    """Whether `df` holds the document frequencies `relevance_model` reads: enough terms of `likely` have theirs and
    are rare enough, so the terms after them (less likely) cannot enter the model."""
    rare = 0
    for term, _ in likely:
        if term not in df:
            return False
        rare += df[term] <= COMMON_SHARE * total
        if rare >= EXPANSION_TERMS:
            return True
    return True


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
        title_tf, abstract_tf = bags.frequencies(term)
        tf = TITLE_WEIGHT * title_tf / title_norm + abstract_tf / abstract_norm
        scores += weight * idf * tf / (K1 + tf)
    return np.where(scores > 0, scores, np.nan)
