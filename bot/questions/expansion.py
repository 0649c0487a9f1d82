"""Pseudo-relevance feedback on words (RM3, Lavrenko and Croft's relevance model with the query kept in): the words
most likely in the first pass's best papers, added to the topic's own, and every candidate scored by BM25F over
that expanded query. It reaches papers that say the topic in other words their neighbours use ("subseasonal",
"atmospheric" for weather forecasting), which neither the topic's own words nor one whole-paper vector do.

No word list: a word is left out of the expansion when more than COMMON_SHARE of the stored papers hold it (the
archive's own stop list), and words are the full-text index's (porter-stemmed) terms, so their document frequencies
come from that index (`PapersRepo.term_document_frequencies`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from bot.text.bm25 import Bags

FEEDBACK_DOCS = 3  # the first pass's best papers read (chosen by leave-one-set-out, docs/BENCHMARKS.md)
EXPANSION_TERMS = 30  # words of theirs added to the topic's
ORIGINAL_WEIGHT = 0.5  # the topic's own words' share of the expanded query's weight
COMMON_SHARE = 0.1  # a word in more than this share of the stored papers says nothing about a topic


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
