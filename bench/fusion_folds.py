"""Retrieval methods measured by leave-one-set-out over the three open held-out sets (issue 22).

Each configuration is a way to order a question's candidates (`bot.questions.retrieval.fused_order`: the fusion, its
rankings and their constants, pseudo-relevance feedback on vectors and on words), or, for searches, to list them
(`retrieve`: the evidence groups or the fused order). The baseline of every family is main before word feedback
(RM3, `bot.questions.expansion`); "main" is main with it. The candidates and their evidence do not depend on it, so
each distinct question's candidates are read once (`retrieval._ranked`, then cached by its filters) and every
configuration re-orders them in memory; `select`, paging and the answers run as they do in the chat. Searches go
through `search_papers` and questions through `ask`, as in `bench/heldout_questions.py`, whose counting is used.

Sets: the development set `bench/heldout` and the two earlier sealed sets (`sealed`, `sealed2`), which are open for
analysis. Never the later sealed sets. A family of configurations (one parameter varied) is chosen by
leave-one-set-out: the configuration with the best mean over two sets (search recall@10 + on-topic@5, and the same
for questions with `--only` unset) is measured on the third, each set held out in turn.

    PYTHONPATH=$PWD .venv/bin/python bench/fusion_folds.py --home DIR [--only search|questions] [--family NAME ...]
    PYTHONPATH=$PWD .venv/bin/python bench/fusion_folds.py --home DIR --where

`DIR` is a copy of a store holding the four shared days with their sentence vectors (follow-up turns are written to it).
Prints each configuration's figures per set, then each family's folds (families: rrf_k, rankers, bm25f, rm3, rm3_shape,
rm3_k, cutoff, listing, rocchio; and, none of which passed: passage and dense_rm (word feedback from the closest
sentences or papers), sentence (best-sentence rankings), sdm (term proximity), pool (the dense pool's size), mention and
every_part (listing wordless papers before passing mentions), multi_query (each alternative of a topic embedded on its
own), neighbours (a query word's nearest stored words as its spellings); docs/BENCHMARKS.md, "Search misses by cause";
categories, categories_q (with the questions) and categories_tier (category feedback: a candidate's arXiv categories
against those of the papers the dense and lexical rankings agree on, as a ranking or as a listing tier) and
neighbourhood and neighbourhood_q (score regularisation over the candidates' nearest neighbours);
docs/BENCHMARKS.md, "Category feedback").
`--where` prints, for every search missing a relevant paper in its first ten, those ten (R relevant, a acceptable; T/A
the topic's words in title/abstract; dense and best-sentence cosine; fused rank) and where each missed paper is (fused
rank, RM3 rank, listed place).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import snowballstemmer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout_questions import HERE, SHARED_DATA, _load, ensure_store, run_questions, run_searches

from bot.config import Settings
from bot.core import open_core
from bot.ingest.jsonl import read_jsonl
from bot.ingest.vectors import paper_sentences
from bot.models import Paper
from bot.questions import expansion, retrieval
from bot.questions import search as search_module
from bot.questions.filters import Filters
from bot.questions.topics import expand_terms, topic_alternatives

SETS = {"dev": HERE / "heldout", "sealed": HERE / "heldout" / "sealed", "sealed2": HERE / "heldout" / "sealed2"}
# the open search sets written later (searches only: they hold no questions)
SEARCH_SETS = {"search11": HERE / "search11", "search13": HERE / "search13", "search14": HERE / "search14"}
KINDS = ["wordy", "benchmark", "follow_up", "plain_topic", "exclusion", "compound", "typo", "day_summary"]

Order = Callable[["Query"], np.ndarray]


@dataclass
class Query:
    """One ranking call's inputs: what `fused_order` receives, and the filters it was asked with."""

    scored: retrieval._Scored
    lexical_ids: Sequence[str]
    vector: np.ndarray
    filters: Filters


# --- the corpus: stemmed words of each paper's title and abstract, their document frequencies -------------------

_STEM = snowballstemmer.stemmer("english")
_WORD = re.compile(r"[a-z][a-z0-9]+")


def words(text: str) -> list[str]:
    """Lower-cased, stemmed words (hyphenated words split), as FTS5's porter tokenizer roughly reads them."""
    return _STEM.stemWords(_WORD.findall(text.lower()))


@dataclass
class Corpus:
    """Document frequencies over every stored paper, and each paper's title and abstract words."""

    papers: int
    df: Counter[str]
    title: dict[str, Counter[str]] = field(default_factory=dict)
    abstract: dict[str, Counter[str]] = field(default_factory=dict)
    mean_title: float = 1.0
    mean_abstract: float = 1.0

    @staticmethod
    def of(papers: Sequence[Paper]) -> Corpus:
        corpus = Corpus(len(papers), Counter())
        for p in papers:
            corpus.title[p.id] = Counter(words(p.title))
            corpus.abstract[p.id] = Counter(words(p.abstract))
            corpus.df.update(set(corpus.title[p.id]) | set(corpus.abstract[p.id]))
        corpus.mean_title = sum(sum(c.values()) for c in corpus.title.values()) / len(papers)
        corpus.mean_abstract = sum(sum(c.values()) for c in corpus.abstract.values()) / len(papers)
        return corpus

    def idf(self, word: str) -> float:
        n = self.df.get(word, 0)
        return math.log(1 + (self.papers - n + 0.5) / (n + 0.5))

    def bm25f(self, paper_id: str, query: dict[str, float], title_weight: float, k1: float = 1.2, b: float = 0.75):
        """BM25F (one saturation over the field-weighted term frequency) of a weighted query."""
        title, abstract = self.title[paper_id], self.abstract[paper_id]
        lt, la = sum(title.values()), sum(abstract.values())
        score = 0.0
        for word, weight in query.items():
            tf = title_weight * title[word] / (1 - b + b * lt / self.mean_title) + abstract[word] / (
                1 - b + b * la / self.mean_abstract
            )
            if tf:
                score += weight * self.idf(word) * tf / (k1 + tf)
        return score


CORPUS: Corpus | None = None


# --- configurations ----------------------------------------------------------------------------------------------


ORIGINAL_FUSED_ORDER = retrieval.fused_order


def current(q: Query) -> np.ndarray:
    """Main's order."""
    return ORIGINAL_FUSED_ORDER(q.scored, q.lexical_ids, q.vector)


def _bm25_rank(q: Query) -> dict[str, int]:
    return {i: len(q.lexical_ids) - n for n, i in enumerate(q.lexical_ids)}


def fusion(
    k: float = 60,
    dense: float = 1.0,
    bm25: float = 1.0,
    coverage: float = 1.0,
    feedback: float = 1.0,
    sentence: float = 0.0,
    extra: Callable[[Query], np.ndarray] | None = None,
    extra_weight: float = 1.0,
    feedback_papers: int = 3,
    beta: float = 0.75,
) -> Order:
    """The fusion with its constants and weights set; `extra` one more ranking (NaN: not held)."""

    def order(q: Query) -> np.ndarray:
        s = q.scored
        old_k, old_papers, old_beta = retrieval.RRF_K, retrieval.FEEDBACK_PAPERS, retrieval.FEEDBACK_WEIGHT
        retrieval.RRF_K, retrieval.FEEDBACK_PAPERS, retrieval.FEEDBACK_WEIGHT = k, feedback_papers, beta
        try:
            ranks = _bm25_rank(q)
            cov = s.title + s.abstract / 2
            lists = [
                (s.dense, dense),
                (np.asarray([ranks.get(p.id, np.nan) for p in s.papers], dtype=np.float64), bm25),
                (np.where(cov > 0, cov, np.nan), coverage),
            ]
            if sentence and s.sentence is not None:
                lists.append((np.where(np.isnan(s.sentence), np.nan, s.sentence), sentence))
            if extra is not None:
                lists.append((extra(q), extra_weight))
            first = retrieval.reciprocal_rank_fusion([a for a, _ in lists], [w for _, w in lists])
            fused = first
            if feedback:
                expanded = s.feedback_query(q.vector, first)
                if expanded is not None:
                    lists.append(((s.vectors @ expanded).astype(np.float64), feedback))
                    fused = retrieval.reciprocal_rank_fusion([a for a, _ in lists], [w for _, w in lists])
            return np.lexsort((-fused, -s.name_tier))
        finally:
            retrieval.RRF_K, retrieval.FEEDBACK_PAPERS, retrieval.FEEDBACK_WEIGHT = old_k, old_papers, old_beta

    return order


def query_words(q: Query) -> dict[str, float]:
    """The topic's stemmed words, as the question's vector reads them (its normalised key and term spellings)."""
    return {w: 1.0 for w in words(" ".join(expand_terms(q.filters.topic)) or q.filters.topic)}


def bm25f_ranking(title_weight: float, every_word: bool = False) -> Callable[[Query], np.ndarray]:
    """BM25F of the topic's words over each candidate's title and abstract (graded: any word counts), or only over
    the papers the full-text search found (`every_word`: those holding every word of an alternative)."""

    def ranking(q: Query) -> np.ndarray:
        assert CORPUS is not None
        query = query_words(q)
        held = set(q.lexical_ids)
        scores = [
            CORPUS.bm25f(p.id, query, title_weight) if (not every_word or p.id in held) else 0.0
            for p in q.scored.papers
        ]
        a = np.asarray(scores, dtype=np.float64)
        return np.where(a > 0, a, np.nan)

    return ranking


DF: dict[str, int] = {}  # every stored term's document frequency, read once from the full-text index
TOTAL = [0]


def without_expansion(q: Query) -> np.ndarray:
    """Main before word feedback (RM3): dense, BM25, coverage and vector feedback only."""
    saved, q.scored.expansion = q.scored.expansion, None
    try:
        return ORIGINAL_FUSED_ORDER(q.scored, q.lexical_ids, q.vector)
    finally:
        q.scored.expansion = saved


def rm3_scores(q: Query, docs: int) -> np.ndarray:
    """`retrieval.expansion_scores` of `q` with `docs` feedback papers (the constants of `bot.questions.expansion`
    as they are set), document frequencies from DF."""
    s = q.scored
    first = without_expansion(q)[:docs]
    topic = expansion.index_terms(" ".join(expand_terms(q.filters.topic)) or q.filters.topic)
    if not topic:
        return np.full(len(s.papers), np.nan)
    bags = expansion.Bags.of(s.papers)
    rows = [int(i) for i in first]
    model = expansion.relevance_model(expansion.term_likelihoods(bags, rows), DF, TOTAL[0])
    return expansion.bm25f(bags, expansion.expanded_query(topic, model), DF, TOTAL[0])


def rm3(
    docs: int = 3, terms: int = 30, weight: float = 1.0, original: float = 0.5, title: float = 2.0, k: float = 60
) -> Order:
    """Main with word feedback set so: `docs` feedback papers, `terms` words, the topic's own words' share
    `original`, BM25F's title weight `title`, the ranking's fusion weight `weight`; the fusion's constant `k`."""

    def order(q: Query) -> np.ndarray:
        names = ("EXPANSION_TERMS", "ORIGINAL_WEIGHT", "TITLE_WEIGHT")
        saved = [getattr(expansion, n) for n in names]
        saved_weight, saved_scores, saved_k = retrieval.EXPANSION_FUSION_WEIGHT, q.scored.expansion, retrieval.RRF_K
        for n, v in zip(names, (terms, original, title), strict=True):
            setattr(expansion, n, v)
        retrieval.EXPANSION_FUSION_WEIGHT = weight
        try:
            q.scored.expansion = rm3_scores(q, docs)  # its first pass as main's (k = 60)
            retrieval.RRF_K = k
            return ORIGINAL_FUSED_ORDER(q.scored, q.lexical_ids, q.vector)
        finally:
            for n, v in zip(names, saved, strict=True):
                setattr(expansion, n, v)
            retrieval.EXPANSION_FUSION_WEIGHT, q.scored.expansion = saved_weight, saved_scores
            retrieval.RRF_K = saved_k

    return order


SENTENCES: dict[str, np.ndarray] = {}  # every stored paper's sentence matrix (row 0 the title), read once


def _terms_of_texts(texts: Sequence[str], weights: Sequence[float]) -> list[tuple[str, float]]:
    """The terms of `texts` (as the full-text index reads them) with their likelihood: each text's term distribution,
    weighted by `weights` (summing to 1), most likely first."""
    likely: Counter[str] = Counter()
    for text, weight in zip(texts, weights, strict=True):
        terms = expansion.index_terms(text)
        for term, count in Counter(terms).items():
            likely[term] += weight * count / max(len(terms), 1)
    return likely.most_common()


def _expanded_bm25(q: Query, likely: list[tuple[str, float]]) -> np.ndarray:
    """BM25F over the candidates of the topic's terms expanded by the relevance model of `likely`."""
    s = q.scored
    topic = expansion.index_terms(" ".join(expand_terms(q.filters.topic)) or q.filters.topic)
    if not topic or not likely:
        return np.full(len(s.papers), np.nan)
    model = expansion.relevance_model(likely, DF, TOTAL[0])
    return expansion.bm25f(expansion.Bags.of(s.papers), expansion.expanded_query(topic, model), DF, TOTAL[0])


def passage_feedback(count: int, per_paper: int = 40, titles: bool = True) -> Callable[[Query], np.ndarray]:
    """Word feedback from passages: the `count` sentences of the whole candidate pool closest to the question (at most
    `per_paper` of one paper; `titles`: a title counts as a sentence), their words a relevance model (RM3 over
    sentences retrieved densely: dense-to-sparse expansion)."""

    def ranking(q: Query) -> np.ndarray:
        rows = []
        for p in q.scored.papers:
            m = SENTENCES.get(p.id)
            if m is None:
                continue
            texts = paper_sentences(p)
            cos = m @ q.vector
            for r in np.argsort(-cos)[:per_paper]:
                if (titles or r > 0) and r < len(texts):
                    rows.append((float(cos[r]), texts[r]))
        rows.sort(key=lambda x: -x[0])
        top = rows[:count]
        return _expanded_bm25(q, _terms_of_texts([t for _, t in top], [1 / len(top)] * len(top)))

    return ranking


def dense_feedback(docs: int) -> Callable[[Query], np.ndarray]:
    """Word feedback from the `docs` candidates closest to the question as whole papers (not the fused first pass)."""

    def ranking(q: Query) -> np.ndarray:
        s = q.scored
        first = [int(i) for i in np.argsort(-s.dense)[:docs]]
        return _expanded_bm25(q, expansion.term_likelihoods(expansion.Bags.of(s.papers), first))

    return ranking


def best_sentence(q: Query) -> np.ndarray:
    """Each candidate's best sentence cosine (title included): a paper stating the topic in one sentence of a long
    abstract, which the whole-paper vector dilutes."""
    s = q.scored
    return s.sentence.copy() if s.sentence is not None else np.full(len(s.papers), np.nan)


def top_sentences(n: int) -> Callable[[Query], np.ndarray]:
    """The mean cosine of each candidate's `n` best sentences."""

    def ranking(q: Query) -> np.ndarray:
        out = np.full(len(q.scored.papers), np.nan)
        for i, p in enumerate(q.scored.papers):
            m = SENTENCES.get(p.id)
            if m is not None and len(m):
                out[i] = float(np.sort(m @ q.vector)[::-1][:n].mean())
        return out

    return ranking


def sequential_dependence(window: int = 8, title: float = 2.0) -> Callable[[Query], np.ndarray]:
    """Metzler and Croft's sequential dependence features without the unigrams (BM25 and coverage hold those): for
    each pair of adjacent topic terms, how often they stand in order side by side (#1) and within `window` terms in
    any order (#uw), each count log-damped and summed over the pairs, the title's counts weighted `title`; NaN for
    a paper holding no pair. A one-term topic gives no ranking."""

    def counts(terms: list[str], a: str, b: str) -> tuple[int, int]:
        at_a = [i for i, t in enumerate(terms) if t == a]
        at_b = [i for i, t in enumerate(terms) if t == b]
        ordered = sum(1 for i in at_a if i + 1 < len(terms) and terms[i + 1] == b)
        near = sum(1 for i in at_a for j in at_b if i != j and abs(i - j) < window)
        return ordered, near

    def ranking(q: Query) -> np.ndarray:
        topic = expansion.index_terms(" ".join(expand_terms(q.filters.topic)) or q.filters.topic)
        pairs = [(a, b) for a, b in itertools.pairwise(topic) if a != b]
        out = np.full(len(q.scored.papers), np.nan)
        if not pairs:
            return out
        for i, p in enumerate(q.scored.papers):
            score = 0.0
            for text, weight in ((p.title, title), (p.abstract, 1.0)):
                terms = expansion.index_terms(text)
                for a, b in pairs:
                    ordered, near = counts(terms, a, b)
                    score += weight * (np.log1p(ordered) + 0.5 * np.log1p(near))
            if score > 0:
                out[i] = score
        return out

    return ranking


EMBED: list[Callable[[list[str]], np.ndarray] | None] = [None]  # the question embedder, set once the core is open
_ALTERNATIVE_VECTORS: dict[str, np.ndarray] = {}


def alternative_similarities(q: Query) -> list[np.ndarray]:
    """Each candidate's cosine with each alternative of the topic embedded on its own (multi-query retrieval: "X,
    i.e. Y or Z" asks for any of them, and one vector of the whole blends them); none for a one-alternative topic."""
    alternatives = [a.text for a in topic_alternatives(q.filters.topic)]
    if len(alternatives) < 2:
        return []
    out = []
    for text in alternatives:
        query = " ".join(expand_terms(text)) or text
        if query not in _ALTERNATIVE_VECTORS:
            _ALTERNATIVE_VECTORS[query] = np.asarray(EMBED[0]([query])[0], dtype=np.float32)
        out.append((q.scored.vectors @ _ALTERNATIVE_VECTORS[query]).astype(np.float64))
    return out


def alternatives_max(weight: float) -> Callable[[Query], list[tuple[np.ndarray, float]]]:
    """One more ranking: each candidate's highest cosine over the alternatives."""

    def make(q: Query) -> list[tuple[np.ndarray, float]]:
        sims = alternative_similarities(q)
        return [(np.max(sims, axis=0), weight)] if sims else []

    return make


def alternatives_each(weight: float) -> Callable[[Query], list[tuple[np.ndarray, float]]]:
    """One more ranking per alternative, `weight` shared among them."""

    def make(q: Query) -> list[tuple[np.ndarray, float]]:
        sims = alternative_similarities(q)
        return [(x, weight / len(sims)) for x in sims]

    return make


_ORIGINAL_CANDIDATES = retrieval._candidates
ALTERNATIVE_POOLS = [False]


async def _candidates_with_alternatives(core, filters, query_vector, loose=()):
    """`retrieval._candidates`, and with ALTERNATIVE_POOLS each alternative's own POOL nearest papers too (a topic
    search with two or more alternatives)."""
    papers, lexical_ids = await _ORIGINAL_CANDIDATES(core, filters, query_vector, loose)
    alternatives = [a.text for a in topic_alternatives(filters.topic)] if filters.topic else []
    if not ALTERNATIVE_POOLS[0] or lexical_ids is None or len(alternatives) < 2:
        return papers, lexical_ids
    start = filters.window.start if filters.window else None
    end = filters.window.end if filters.window else None
    held = {p.id for p in papers}
    for text in alternatives:
        vector = np.asarray(EMBED[0]([" ".join(expand_terms(text)) or text])[0], dtype=np.float32)
        near = await core.vectors.search_window(vector, retrieval.POOL, start, end, filters.categories)
        new = [i for i, _ in near if i not in held]
        held.update(new)
        found = await core.repo.get_papers(new)
        if filters.window:
            found = [p for p in found if filters.window.contains(p.announced)]
        papers += found
    return papers, lexical_ids


EXTRA: list[list[tuple[np.ndarray, float]] | None] = [None]
_ORIGINAL_FUSED = retrieval._Scored.fused


def _fused_with_extra(self, bm25, expanded=None):
    """`_Scored.fused` with EXTRA's rankings added (reciprocal rank fusion sums over rankings, so adding is exact)."""
    fused = _ORIGINAL_FUSED(self, bm25, expanded)
    for scores, weight in EXTRA[0] or []:
        fused = fused + retrieval.reciprocal_rank_fusion([scores], [weight])
    return fused


def with_ranking(make: Callable[[Query], np.ndarray], weight: float) -> Order:
    """Main's fusion with one more ranking (`make`), in both passes (word feedback read from the new first pass)."""
    return with_rankings(lambda q: [(make(q), weight)])


def with_rankings(make: Callable[[Query], list[tuple[np.ndarray, float]]]) -> Order:
    """Main's fusion with more rankings (`make`: each with its weight), in both passes."""

    def order(q: Query) -> np.ndarray:
        saved = q.scored.expansion
        EXTRA[0] = make(q)
        try:
            q.scored.expansion = rm3_scores(q, 3)
            return ORIGINAL_FUSED_ORDER(q.scored, q.lexical_ids, q.vector)
        finally:
            EXTRA[0], q.scored.expansion = None, saved

    return order


def instead_of_rm3(make: Callable[[Query], np.ndarray]) -> Order:
    """Main's fusion with word feedback read from `make`'s source instead of the fused first pass's three papers."""

    def order(q: Query) -> np.ndarray:
        saved = q.scored.expansion
        try:
            q.scored.expansion = make(q)
            return ORIGINAL_FUSED_ORDER(q.scored, q.lexical_ids, q.vector)
        finally:
            q.scored.expansion = saved

    return order


def rocchio_all(feedback_docs: int = 5, beta: float = 0.75) -> Callable[[Query], np.ndarray]:
    """Dense Rocchio on the first pass's best papers whatever they carry (main's reads only title carriers)."""

    def ranking(q: Query) -> np.ndarray:
        s = q.scored
        first = without_expansion(q)[:feedback_docs]
        moved = q.vector + beta * s.vectors[first].mean(axis=0)
        return (s.vectors @ (moved / np.linalg.norm(moved))).astype(np.float64)

    return ranking


# --- category feedback: the fit of a candidate's arXiv categories to those of the question's surest papers --------
# The candidates both the dense and a lexical ranking put in their first few are the ones a question is surely about;
# their categories (primary and cross-lists), smoothed by those of all the candidates, are the field it asks in.
# Each candidate is scored by how much more likely its own categories are under that field than among the candidates
# at large (the expected log-ratio). No category is named. Tried and not kept (docs/BENCHMARKS.md, "Category
# feedback").

CATEGORY_PRIMARY_SHARE = 0.5  # a paper's primary category's share of its categories; its cross-lists share the rest
AGREEMENT_DEPTH = 10  # a sure paper is in the first this many of both the dense and the lexical ranking
MIN_SURE = 2  # with fewer sure papers there is no field to speak of: no category ranking
SMOOTHING = 2.0  # Dirichlet prior, in papers, of the candidates' own category distribution


def category_shares(categories: Sequence[str]) -> dict[str, float]:
    """A paper's categories as a distribution: the primary (first) one CATEGORY_PRIMARY_SHARE, the cross-lists the rest
    equally; a paper with one category is all of it."""
    if not categories:
        return {}
    unique = list(dict.fromkeys(categories))
    if len(unique) == 1:
        return {unique[0]: 1.0}
    rest = (1.0 - CATEGORY_PRIMARY_SHARE) / (len(unique) - 1)
    return {unique[0]: CATEGORY_PRIMARY_SHARE, **{c: rest for c in unique[1:]}}


def sure_papers(dense: np.ndarray, lexical: np.ndarray, depth: int = AGREEMENT_DEPTH) -> list[int]:
    """The candidates both rankings put in their first `depth` (`lexical`: NaN for a paper it does not hold)."""
    held = np.flatnonzero(~np.isnan(lexical))
    if not len(held):
        return []
    top_lexical = set(held[np.argsort(-lexical[held], kind="stable")][:depth].tolist())
    top_dense = np.argsort(-dense, kind="stable")[:depth]
    return [int(i) for i in top_dense if int(i) in top_lexical]


def category_fit(categories: Sequence[Sequence[str]], sure: Sequence[int]) -> np.ndarray | None:
    """Each candidate's expected log-ratio of its categories' likelihood among the `sure` candidates (smoothed by
    SMOOTHING papers' worth of all candidates' categories) to their likelihood among all candidates; None when fewer
    than MIN_SURE papers are sure or no candidate has a category."""
    if len(sure) < MIN_SURE:
        return None
    shares = [category_shares(c) for c in categories]
    background: dict[str, float] = {}
    for s in shares:
        for c, w in s.items():
            background[c] = background.get(c, 0.0) + w
    total = sum(background.values())
    if not total:
        return None
    background = {c: w / total for c, w in background.items()}
    field: dict[str, float] = {}
    for i in sure:
        for c, w in shares[i].items():
            field[c] = field.get(c, 0.0) + w
    n = len(sure)
    ratio = {c: (field.get(c, 0.0) + SMOOTHING * b) / (n + SMOOTHING) / b for c, b in background.items()}
    return np.asarray(
        [sum(w * np.log(ratio[c]) for c, w in s.items()) if s else np.nan for s in shares], dtype=np.float64
    )


def category_feedback(depth: int = 10, lexical: str = "bm25") -> Callable[[Query], np.ndarray]:
    """Category feedback (the functions above): the fit of each candidate's categories to those of the papers
    that the dense ranking and `lexical` (the full-text BM25 order, the topic's coverage, or either) both put in
    their first `depth`."""

    def ranking(q: Query) -> np.ndarray:
        s = q.scored
        ranks = _bm25_rank(q)
        bm25 = np.asarray([ranks.get(p.id, np.nan) for p in s.papers], dtype=np.float64)
        cov = s.title + s.abstract / 2
        coverage = np.where(cov > 0, cov, np.nan)
        source = {"bm25": bm25, "coverage": coverage}.get(lexical)
        if source is None:  # "either": BM25 where it holds enough papers, else the coverage
            source = bm25 if np.count_nonzero(~np.isnan(bm25)) >= MIN_SURE else coverage
        sure = sure_papers(s.dense, source, depth)
        fit = category_fit([p.categories for p in s.papers], sure)
        return fit if fit is not None else np.full(len(s.papers), np.nan)

    return ranking


def neighbourhood(k: int = 5, within: str = "fused") -> Callable[[Query], np.ndarray]:
    """Score regularisation over the candidates' own neighbourhoods (the cluster hypothesis, Diaz 2005): each
    candidate scored by the mean first-pass evidence of its `k` nearest other candidates (whole-paper vectors),
    weighted by their cosine; the evidence is the first pass's reciprocal-rank score (`within` "fused") or whether
    the paper carries the topic's words in its title or abstract ("words")."""

    def ranking(q: Query) -> np.ndarray:
        s = q.scored
        n = len(s.papers)
        if n < 2:
            return np.full(n, np.nan)
        if within == "fused":
            order = without_expansion(q)
            evidence = np.zeros(n)
            evidence[order] = 1.0 / (60 + np.arange(1, n + 1))
        else:
            evidence = ((s.title >= retrieval.COVERED) | (s.abstract >= retrieval.COVERED)).astype(np.float64)
        sims = s.vectors @ s.vectors.T
        np.fill_diagonal(sims, -np.inf)
        near = np.argsort(-sims, axis=1)[:, : min(k, n - 1)]
        weights = np.take_along_axis(sims, near, axis=1).clip(min=0)
        total = weights.sum(axis=1)
        score = (weights * evidence[near]).sum(axis=1) / np.where(total > 0, total, 1)
        return score.astype(np.float64)

    return ranking


def main_fusion(
    k: float = 60,
    dense: float = 1.0,
    bm25: float = 1.0,
    coverage: float = 1.0,
    expansion_weight: float = 1.0,
    feedback: float = 1.0,
    sentence: float = 0.0,
    rare_below: int | None = None,
) -> Order:
    """Main's fusion (word feedback included, as it ran) with its weights set; with `rare_below`, the weights apply
    only to searches in which fewer than that many candidates carry the topic's words (title or abstract), the others
    keep main's order: more weight to meaning where the words are rare in the store."""

    def order(q: Query) -> np.ndarray:
        s = q.scored
        if rare_below is not None:
            carriers = int(np.sum((s.title >= retrieval.COVERED) | (s.abstract >= retrieval.COVERED)))
            if carriers >= rare_below:
                return current(q)
        saved_k = retrieval.RRF_K
        retrieval.RRF_K = k
        try:
            ranks = _bm25_rank(q)
            cov = s.title + s.abstract / 2
            lists = [
                (s.dense, dense),
                (np.asarray([ranks.get(p.id, np.nan) for p in s.papers], dtype=np.float64), bm25),
                (np.where(cov > 0, cov, np.nan), coverage),
            ]
            if s.expansion is not None:
                lists.append((s.expansion, expansion_weight))
            if sentence and s.sentence is not None:
                lists.append((s.sentence, sentence))
            first = retrieval.reciprocal_rank_fusion([a for a, _ in lists], [w for _, w in lists])
            fused = first
            expanded = s.feedback_query(q.vector, first)
            if expanded is not None and feedback:
                lists.append(((s.vectors @ expanded).astype(np.float64), feedback))
                fused = retrieval.reciprocal_rank_fusion([a for a, _ in lists], [w for _, w in lists])
            return np.lexsort((-fused, -s.name_tier))
        finally:
            retrieval.RRF_K = saved_k

    return order


EVIDENCE: list = [None]  # the topic's evidence of the search being listed (`retrieval.topic_evidence`)


def _rarest_units(ratio: float = 0.0):
    """Each alternative's rarest needed unit, for alternatives of two needed units or more (with `ratio`: only when
    it is that much rarer, in rarity weight, than the next rarest)."""
    topic = EVIDENCE[0]
    if topic is None:
        return []
    found = []
    for a in topic.alternatives:
        needed = sorted((u for u in a.units if not u.optional), key=lambda u: -u.weight)
        if len(needed) >= 2 and needed[0].weight >= needed[1].weight + ratio:
            found.append((a, needed[0]))
    return found


def rarest_first(add: int = 0, ratio: float = 0.0, before_far: bool = False) -> Listing:
    """The wordless papers holding the topic's rarest needed unit ("Chinese" of "chinese nlp") listed before the other
    wordless ones (`add`: and up to that many such candidates not listed, in fused order; `before_far`: before the
    carriers naming the topic in an abstract far in meaning, too)."""
    from bot.text.terms import Text

    def listing(results, shown, carrying):
        ordered = [*shown, *carrying]
        rare = _rarest_units(ratio)
        if not rare:
            return ordered

        def holds(r):
            tokens = Text.of(f"{r.paper.title}\n{r.paper.abstract}")
            return any(u.where(tokens, a.exact) for a, u in rare)

        def wordless(r):
            return not (r.in_title or r.in_abstract)

        def far(r):
            return before_far and not wordless(r) and r.dense < retrieval.FLOOR and not r.in_title

        listed = {r.paper.id for r in ordered}
        extra = [r for r in results if r.paper.id not in listed and holds(r)][:add]
        at = next((n for n, r in enumerate(ordered) if wordless(r) or far(r)), len(ordered))
        head, tail = ordered[:at], ordered[at:]
        moved = [r for r in tail if (wordless(r) or far(r)) and holds(r)]
        rest = [r for r in tail if r not in moved]
        return [*head, *moved, *extra, *rest]

    return listing


def page_first(key: str) -> Listing:
    """The first page's papers reordered: `key` "firm" (title, or named twice in the abstract) or "title" first, each
    part in main's order; the rest as main lists it."""

    def listing(results, shown, carrying):
        def later(r):
            return not (r.firm if key == "firm" else r.in_title)

        return [*sorted(shown, key=later), *carrying]

    return listing


def as_main(results, shown, carrying):
    """Main's listing (checks that the listing hook reproduces main)."""
    return [*shown, *carrying]


def families() -> dict[str, list[tuple[str, object]]]:
    """Families of configurations, each holding main before word feedback as its first member (the baseline)."""
    base = ("before", without_expansion)
    return {
        "check": [("main", current), ("main fusion", main_fusion()), ("main listing", (current, as_main))],
        "page": [
            ("main", current),
            ("page firm first", (current, page_first("firm"))),
            ("page title first", (current, page_first("title"))),
        ],
        "rarest": [("main", current)]
        + [
            (f"rarest first add={a} ratio={r} far={f}", (current, rarest_first(a, r, f)))
            for a in (0, 5)
            for r in (0.0, 1.0)
            for f in (False, True)
        ],
        "adaptive": [("main", current)]
        + [
            (f"rare<{n}: dense {d} feedback {f}", main_fusion(dense=d, feedback=f, rare_below=n))
            for n in (5, 10, 20)
            for d, f in ((2, 1), (2, 2), (3, 1))
        ]
        + [(f"rare<{n}: rm3 {e}", main_fusion(expansion_weight=e, rare_below=n)) for n in (5, 10, 20) for e in (2, 3)]
        + [(f"rare<{n}: sentence 1", main_fusion(sentence=1, rare_below=n)) for n in (5, 10, 20)],
        "weights": [("main", current)]
        + [(f"k={k}", main_fusion(k=k)) for k in (10, 20, 30, 120)]
        + [(f"dense {d}", main_fusion(dense=d)) for d in (0.5, 1.5, 2)]
        + [(f"bm25 {b}", main_fusion(bm25=b)) for b in (0.5, 1.5)]
        + [(f"coverage {c}", main_fusion(coverage=c)) for c in (0.5, 1.5)]
        + [(f"rm3 {e}", main_fusion(expansion_weight=e)) for e in (0.5, 1.5, 2)]
        + [(f"feedback {f}", main_fusion(feedback=f)) for f in (0.5, 1.5, 2)]
        + [(f"+sentence {w}", main_fusion(sentence=w)) for w in (0.5, 1)],
        "rrf_k": [base] + [(f"k={k}", fusion(k=k)) for k in (10, 30, 120, 250)],
        "rankers": [
            base,
            ("no coverage", fusion(coverage=0)),
            ("no bm25", fusion(bm25=0)),
            ("no feedback", fusion(feedback=0)),
            ("dense 0.5", fusion(dense=0.5)),
            ("dense 2", fusion(dense=2)),
            ("+sentence 0.5", fusion(sentence=0.5)),
            ("+sentence 1", fusion(sentence=1)),
        ],
        "bm25f": [base]
        + [(f"+bm25f t={t}", fusion(extra=bm25f_ranking(t))) for t in (1, 3, 8)]
        + [(f"bm25f t={t} for bm25", fusion(bm25=0, extra=bm25f_ranking(t, every_word=True))) for t in (1, 3, 8)],
        "rm3": [base]
        + [(f"+rm3 d={d} t={t} w={w}", rm3(d, t, w)) for d in (3, 5, 10) for t in (10, 30) for w in (0.5, 1.0)],
        "rm3_shape": [base, ("main (+rm3 d=3 t=30 w=1)", current)]
        + [(f"+rm3 original={o}", rm3(original=o)) for o in (0.3, 0.7)]
        + [(f"+rm3 title={t}", rm3(title=t)) for t in (1.0, 4.0)],
        # what an answer offers besides the papers it shows (main's order): each of the cut-off's constants in turn
        "cutoff": [("main", current)]
        + [(f"NEAR={v}", {"NEAR": v}) for v in (0.40, 0.50)]
        + [(f"SENTENCE_NEAR={v}", {"SENTENCE_NEAR": v}) for v in (0.50, 0.60)]
        + [(f"MEANING_RANKS={v}", {"MEANING_RANKS": v}) for v in (5, 20)]
        + [(f"SPREAD={v}", {"SPREAD": v}) for v in (0.15, 0.25)],
        "rm3_k": [("main", current)] + [(f"main, k={k}", rm3(k=k)) for k in (10, 30, 120)],
        "listing": [
            base,
            ("list by fused", (without_expansion, by_fused)),
            ("list title, then fused", (without_expansion, title_then_fused)),
            ("list main 5, then fused", (without_expansion, fused_after(5))),
            ("list shown, then fused", (without_expansion, shown_then_fused)),
        ],
        "passage": [("main", current)]
        + [(f"+passage s={n} w={w}", with_ranking(passage_feedback(n), w)) for n in (5, 10, 20) for w in (0.5, 1.0)]
        + [(f"rm3 from passages s={n}", instead_of_rm3(passage_feedback(n))) for n in (5, 10, 20)],
        "dense_rm": [("main", current)]
        + [(f"+dense rm d={d} w={w}", with_ranking(dense_feedback(d), w)) for d in (3, 10) for w in (0.5, 1.0)]
        + [(f"rm3 from dense d={d}", instead_of_rm3(dense_feedback(d))) for d in (3, 10)],
        "mention": [
            ("main", current),
            ("meaning before far mentions", (current, meaning_before_mentions())),
            ("dense-close before far mentions", (current, meaning_before_mentions(sentence=False))),
            ("sentence-close before far mentions", (current, meaning_before_mentions(dense=False))),
            ("meaning before mentions under 0.35", (current, meaning_before_mentions(floor=0.35))),
            ("meaning before mentions under 0.25", (current, meaning_before_mentions(floor=0.25))),
        ],
        "every_part": [
            ("main", current),
            ("wordless holding every part first", (current, every_part_first())),
            ("the same among the first 6 wordless", (current, every_part_first(within=6))),
            ("wordless holding every part before far mentions", (current, every_part_first(before_far=True))),
        ],
        "multi_query": [("main", current)]
        + [(f"+max over alternatives w={w}", with_rankings(alternatives_max(w))) for w in (0.5, 1.0)]
        + [(f"+each alternative, w={w} shared", with_rankings(alternatives_each(w))) for w in (1.0, 2.0)]
        + [("alternatives' own pools", {"ALTERNATIVE_POOLS": True, "fresh": True})],
        "neighbours": [("main", current)]
        + [
            (f"neighbours >= {t}, margin {m}{' merged' if g else ''}", (current, neighbour_carriers(t, m, g)))
            for t in (0.7, 0.75)
            for m in (0.0, 0.05)
            for g in (False, True)
        ],
        "sentence": [("main", current)]
        + [(f"+best sentence w={w}", with_ranking(best_sentence, w)) for w in (0.5, 1.0, 2.0)]
        + [(f"+mean of top-2 sentences w={w}", with_ranking(top_sentences(2), w)) for w in (0.5, 1.0)],
        # candidates: the dense pool's size (the candidates are read again for each setting)
        "pool": [("main", current)] + [(f"POOL={v}", {"POOL": v, "fresh": True}) for v in (200, 300)],
        "sdm": [("main", current)]
        + [(f"+sdm uw{u} w={w}", with_ranking(sequential_dependence(u), w)) for u in (4, 8) for w in (0.5, 1.0)],
        "categories": [("main", current)]
        + [
            (f"+categories {src} top{d} w={w}", with_ranking(category_feedback(d, src), w))
            for src in ("bm25", "coverage", "either")
            for d in (5, 10)
            for w in (0.5, 1.0)
        ],
        # the same with the questions (`--family categories_q`, without --only): the first ten of both rankings
        "categories_q": [("main", current)]
        + [
            (f"+categories {src} top10 w={w}", with_ranking(category_feedback(10, src), w))
            for src in ("bm25", "coverage")
            for w in (0.5, 1.0)
        ],
        "neighbourhood": [("main", current)]
        + [
            (f"+neighbourhood {src} k={k} w={w}", with_ranking(neighbourhood(k, src), w))
            for src in ("fused", "words")
            for k in (5, 10)
            for w in (0.5, 1.0)
        ],
        "neighbourhood_q": [("main", current)]
        + [(f"+neighbourhood fused k={k} w=1.0", with_ranking(neighbourhood(k, "fused"), 1.0)) for k in (5, 10)],
        "categories_tier": [("main", current)]
        + [
            (f"out of field (< {t}) last{' among carriers too' if c else ''}", (current, out_of_field_last(t, c)))
            for t in (-0.5, -1.0)
            for c in (False, True)
        ],
        "rocchio": [base]
        + [(f"+rocchio d={d} w={w}", fusion(extra=rocchio_all(d), extra_weight=w)) for d in (3, 10) for w in (0.5, 1)],
    }


# --- how a search lists its matches (`retrieve`): main's, or another order of the same papers ---------------------

Listing = Callable[[list[retrieval.Retrieved], list[retrieval.Retrieved], list[retrieval.Retrieved]], list]


def by_fused(results, shown, carrying):
    """Every listed paper in the fused order (the evidence groups ignored)."""
    place = {r.paper.id: n for n, r in enumerate(results)}
    return sorted([*shown, *carrying], key=lambda r: place[r.paper.id])


def title_then_fused(results, shown, carrying):
    """Papers carrying the topic in their title first, then the others in the fused order."""
    return sorted(by_fused(results, shown, carrying), key=lambda r: not r.in_title)


def shown_then_fused(results, shown, carrying):
    """The papers shown (select's evidence: the topic in the title, or in the abstract with similarity >= FLOOR) first,
    then the others in the fused order, whether their abstract names the topic or not."""
    return [*shown, *by_fused(results, carrying, [])]


def fused_after(first: int) -> Listing:
    """Main's first `first` papers, then the rest in the fused order."""

    def listing(results, shown, carrying):
        main = [*shown, *carrying]
        return main[:first] + by_fused(results, main[first:], [])

    return listing


def meaning_before_mentions(dense: bool = True, sentence: bool = True, floor: float | None = None) -> Listing:
    """After the shown papers: the papers carrying the words and not far in meaning (dense >= `floor`, FLOOR by
    default), then the wordless papers close in meaning (whole-paper similarity >= NEAR with `dense`, best sentence
    >= SENTENCE_NEAR with `sentence`), then the word carriers far in meaning (a passing mention), then the rest; each
    group in main's order."""

    def listing(results, shown, carrying):
        low = retrieval.FLOOR if floor is None else floor

        def close(r):
            return (dense and r.dense >= retrieval.NEAR) or (sentence and r.sentence >= retrieval.SENTENCE_NEAR)

        words = [r for r in carrying if r.in_title or r.in_abstract]
        near = [r for r in words if r.dense >= low]
        far = [r for r in words if r.dense < low]
        wordless = [r for r in carrying if not (r.in_title or r.in_abstract)]
        return [*shown, *near, *(r for r in wordless if close(r)), *far, *(r for r in wordless if not close(r))]

    return listing


def every_part_first(before_far: bool = False, within: int | None = None) -> Listing:
    """Among the wordless papers after the shown ones, those holding every part of the topic somewhere first (only
    among the first `within` of them in main's order, if set); with `before_far`, also before the papers carrying the
    words that are far in meaning (dense under FLOOR)."""

    def listing(results, shown, carrying):
        words = [r for r in carrying if r.in_title or r.in_abstract]
        wordless = [r for r in carrying if not (r.in_title or r.in_abstract)]
        head = wordless if within is None else wordless[:within]
        parts = [r for r in head if r.every_part]
        rest = [r for r in wordless if r not in parts]
        if before_far:
            near = [r for r in words if r.dense >= retrieval.FLOOR]
            far = [r for r in words if r.dense < retrieval.FLOOR]
            return [*shown, *near, *parts, *far, *rest]
        return [*shown, *words, *parts, *rest]

    return listing


def out_of_field_last(threshold: float, carriers: bool = False) -> Listing:
    """Category feedback as a listing tier: the shown papers (and with `carriers` the other word carriers) whose
    categories fit the sure papers' field worse than `threshold` (`category_feedback`, coverage, first ten) listed
    after the others of their group."""

    def listing(results, shown, carrying):
        q = LAST_QUERY[0]
        if q is None:
            return [*shown, *carrying]
        fit = category_feedback(10, "coverage")(q)
        by_id = {p.id: fit[i] for i, p in enumerate(q.scored.papers)}

        def tiered(group):
            return sorted(group, key=lambda r: bool(by_id.get(r.paper.id, 0.0) < threshold))

        words = [r for r in carrying if r.in_title or r.in_abstract]
        rest = [r for r in carrying if not (r.in_title or r.in_abstract)]
        return [*tiered(shown), *(tiered(words) if carriers else words), *rest]

    return listing


VOCAB: list[str] = []  # the words of the stored papers held by 2 papers or more and at most 10% of them
VOCAB_VECTORS: list[np.ndarray] = []  # each embedded alone (MiniLM), set at start when the family runs
TOPIC: list[str] = [""]  # the topic of the search being listed
_WORDS = re.compile(r"[a-z][a-z0-9\-]{2,}")


def _paper_words(r: retrieval.Retrieved) -> set[str]:
    return set(_WORDS.findall(f"{r.paper.title} {r.paper.abstract}".lower()))


def neighbour_carriers(threshold: float, margin: float, merged: bool = False) -> Listing:
    """Dense-to-sparse spellings: each rare word of the topic reads as itself or as a stored word whose MiniLM vector
    is within `threshold` of it, when the candidates holding that word are on average at most `margin` less similar
    to the question than those holding the topic's word (which keeps "online" out for "offline"). A wordless
    candidate holding every such word is listed after the papers carrying the words (`merged`: among them, in fused
    order), before the other wordless papers."""

    def listing(results, shown, carrying):
        rare = [w for w in dict.fromkeys(_WORDS.findall(TOPIC[0].lower())) if w in VOCAB_INDEX]
        if not rare:
            return [*shown, *carrying]
        bags = {r.paper.id: _paper_words(r) for r in results}
        dense = {r.paper.id: r.dense for r in results}

        def mean_dense(word: str) -> float | None:
            held = [dense[i] for i, b in bags.items() if word in b]
            return sum(held) / len(held) if held else None

        spellings = []
        for word in rare:
            sims = VOCAB_VECTORS[0] @ VOCAB_VECTORS[0][VOCAB_INDEX[word]]
            own = mean_dense(word)
            own = own if own is not None else float(np.mean(sorted(dense.values())[-10:]))
            near = {VOCAB[i] for i in np.flatnonzero(sims >= threshold)}
            spellings.append({w for w in near if w == word or ((m := mean_dense(w)) is not None and m >= own - margin)})
        words = [r for r in carrying if r.in_title or r.in_abstract]
        by_neighbours = [
            r
            for r in results
            if not (r.in_title or r.in_abstract)
            and r.paper.id not in {x.paper.id for x in shown}
            and all(bags[r.paper.id] & spell for spell in spellings)
        ]
        ids = {r.paper.id for r in by_neighbours}
        rest = [r for r in carrying if not (r.in_title or r.in_abstract) and r.paper.id not in ids]
        if merged:
            place = {r.paper.id: n for n, r in enumerate(results)}
            return [*shown, *sorted([*words, *by_neighbours], key=lambda r: place[r.paper.id]), *rest]
        return [*shown, *words, *by_neighbours, *rest]

    return listing


VOCAB_INDEX: dict[str, int] = {}


LISTING: list[Listing | None] = [None]


async def _retrieve(core, filters, *, profile=None, limit=retrieval.MAX_CITATIONS, cut=True):
    """`retrieval.retrieve` with the listing order of LISTING[0] (main's own without one): the list main's
    `retrieve` makes, its first page and the fill of a short list as there, the order of the list LISTING[0]'s."""
    if LISTING[0] is None:
        return await ORIGINAL_RETRIEVE(core, filters, profile=profile, limit=limit, cut=cut)
    descriptive = await retrieval.descriptive_compounds(core, filters.topic)
    results, _ = await retrieval.ranked(core, filters, profile=profile, descriptive=descriptive)
    if not cut:
        return results[:limit], []
    shown, carrying = retrieval.select(results, filters, descriptive=descriptive)
    wording = [r for r in carrying if r.in_title or r.in_abstract]
    if wording and not any(r.in_title or r.in_abstract for r in shown):
        shown, carrying = [], [*wording, *shown, *(r for r in carrying if r not in wording)]
    TOPIC[0] = filters.topic
    EVIDENCE[0] = await retrieval.topic_evidence(core, filters.topic, asked=True) if filters.topic else None
    ordered = LISTING[0](results, shown, carrying)
    first = len(shown) or len(wording)
    page = min(first, limit)
    filling = retrieval._filling(results, ordered, filters, limit, descriptive)
    return ordered[:page], [*ordered[page:][: retrieval.MAX_MORE], *filling]


# --- running ---------------------------------------------------------------------------------------------------------

ACTIVE: list[Order] = [current]
LAST_QUERY: list[Query | None] = [None]  # the query of the last ranking asked for (what a listing reads)
CACHE: dict[object, tuple[list[retrieval.Retrieved], object, Query | None]] = {}
_LAST: list[Query] = []
_ORIGINAL_RANKED = retrieval._ranked
ORIGINAL_RETRIEVE = retrieval.retrieve


def _capturing_order(scored, lexical_ids, query_vector):
    _LAST.append(Query(scored, lexical_ids, query_vector, _FILTERS[-1]))
    return ORIGINAL_FUSED_ORDER(scored, lexical_ids, query_vector)


_FILTERS: list[Filters] = []


async def _cached_ranked(core, filters, *, profile=None, descriptive=None):
    key = (filters, id(profile) if profile is not None else None)
    if key not in CACHE:
        _FILTERS.append(filters)
        _LAST.clear()
        results, topic = await _ORIGINAL_RANKED(core, filters, profile=profile, descriptive=descriptive)
        CACHE[key] = (results, topic, _LAST[-1] if _LAST else None)
    results, topic, query = CACHE[key]
    LAST_QUERY[0] = query
    if query is None or ACTIVE[0] is current:
        return results, topic
    by_id = {r.paper.id: r for r in results}
    return [by_id[query.scored.papers[i].id] for i in ACTIVE[0](query)], topic


@dataclass
class Figures:
    search_recall: float = 0.0
    search_on: float = 0.0
    page1: float = 0.0
    q_recall: float = 0.0
    q_on: float = 0.0
    q_listed: float = 0.0  # papers listed per question (shown and offered)
    kinds: dict[str, tuple[float, float]] = field(default_factory=dict)

    def objective(self, only: str | None) -> float:
        search, questions = self.search_recall + self.search_on, self.q_recall + self.q_on
        return {"search": search, "questions": questions}.get(only or "", search + questions)

    def line(self) -> str:
        kinds = " ".join(f"{k[:5]} {r:.3f}/{o:.3f}" for k, (r, o) in self.kinds.items())
        return (
            f"search {self.search_recall:.3f}/{self.search_on:.3f} (p1 {self.page1:.3f}) "
            f"questions {self.q_recall:.3f}/{self.q_on:.3f} ({self.q_listed:.1f} listed)  {kinds}"
        )


async def measure(core, name: str, set_dir: Path, by_id: dict[str, Paper], only: str | None) -> Figures:
    figures = Figures()
    if only in (None, "search"):
        rows = await run_searches(core, _load(set_dir / "search.jsonl"), by_id, False)
        n = len(rows)
        figures.search_recall = sum(r[1] for r in rows) / n
        figures.search_on = sum(r[2] for r in rows) / n
        figures.page1 = sum(r[4] for r in rows) / n
    if only in (None, "questions"):
        items = _load(set_dir / "questions.jsonl")
        results = await run_questions(core, items, by_id, False)
        scores = [results[i["id"]] for i in items]
        figures.q_recall = sum(s.recall for s in scores) / len(scores)
        figures.q_on = sum(s.on_topic for s in scores) / len(scores)
        figures.q_listed = sum(s.listed for s in scores) / len(scores)
        for kind in KINDS:
            mine = [results[i["id"]] for i in items if i["kind"] == kind]
            if mine:
                figures.kinds[kind] = (
                    sum(s.recall for s in mine) / len(mine),
                    sum(s.on_topic for s in mine) / len(mine),
                )
    return figures


def folds(table: dict[str, dict[str, Figures]], names: list[str], only: str | None) -> None:
    """Leave one set out: the configuration best on the other two, measured on the held-out set."""
    sets = list(SETS)
    held_means = {"search_recall": [], "search_on": [], "q_recall": [], "q_on": []}
    base_means = {k: [] for k in held_means}
    for held in sets:
        train = [s for s in sets if s != held]
        # ties (to rounding) go to the baseline: a setting must gain on the two sets to be chosen
        best = max(names, key=lambda n: (round(sum(table[n][s].objective(only) for s in train), 9), n == names[0]))
        f, b = table[best][held], table[names[0]][held]
        gain = sum(table[best][s].objective(only) - table[names[0]][s].objective(only) for s in train)
        print(f"  held out {held:<8} gain of {best!r} on the other two: {gain:+.6f}")
        print(f"  held out {held:<8} chosen {best!r:<28} {f.line()}")
        print(f"  {'':<8} {'':>8}  baseline {'':<18} {b.line()}")
        for k in held_means:
            held_means[k].append(getattr(f, k))
            base_means[k].append(getattr(b, k))
    mean = {k: sum(v) / len(v) for k, v in held_means.items()}
    base = {k: sum(v) / len(v) for k, v in base_means.items()}
    print("  mean of held-out folds: " + ", ".join(f"{k} {mean[k]:.3f} (baseline {base[k]:.3f})" for k in held_means))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a copy of a store of the four shared days")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--only", choices=["questions", "search"])
    parser.add_argument("--family", action="append", help="families to run (default: all)")
    parser.add_argument(
        "--search-sets", action="store_true", help="with --only search: the later open search sets too (search11 ...)"
    )
    parser.add_argument("--where", action="store_true", help="where each search's missed papers rank, then stop")
    args = parser.parse_args()
    if args.search_sets:
        assert args.only == "search" or args.where, "the later search sets hold searches only"
        SETS.update({k: v for k, v in SEARCH_SETS.items() if (v / "search.jsonl").exists()})
    global CORPUS
    papers = read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl")))
    by_id = {p.id: p for p in papers}
    CORPUS = Corpus.of(papers)
    retrieval.fused_order = _capturing_order
    retrieval._ranked = _cached_ranked
    search_module.retrieve = _retrieve
    chosen = {k: v for k, v in families().items() if not args.family or k in args.family}
    async with open_core(Settings(home=args.home, llm_base_url=None, llm_api_key=None)) as core:
        await ensure_store(core, papers)
        every = expansion.Bags.of(papers)
        counts, TOTAL[0] = await core.repo.term_document_frequencies(sorted(every.terms(range(len(papers)))))
        DF.update(counts)
        SENTENCES.update(await core.sentences.matrices([p.id for p in papers]))
        EMBED[0] = core.query_embedder.embed
        retrieval._candidates = _candidates_with_alternatives
        if "neighbours" in chosen:
            df = Counter(w for p in papers for w in set(_WORDS.findall(f"{p.title} {p.abstract}".lower())))
            VOCAB.extend(sorted(w for w, n in df.items() if 2 <= n <= 0.1 * len(papers)))
            VOCAB_INDEX.update({w: i for i, w in enumerate(VOCAB)})
            VOCAB_VECTORS.append(np.asarray(core.embedder.embed(VOCAB), dtype=np.float32))
        retrieval._Scored.fused = _fused_with_extra
        if args.where:
            for d in SETS.values():
                await run_searches(core, _load(d / "search.jsonl"), by_id, False)
            await where_missed(core, by_id)
            return
        table: dict[str, dict[str, Figures]] = {}
        for family, configs in chosen.items():
            print(f"== {family}")
            for name, order in configs:
                if name in table:
                    continue
                constants = dict(order) if isinstance(order, dict) else {}
                fresh = constants.pop("fresh", False)
                if fresh:  # the candidates themselves change: read them again
                    CACHE.clear()
                pools = constants.pop("ALTERNATIVE_POOLS", False)
                ALTERNATIVE_POOLS[0] = pools
                saved = {n: getattr(retrieval, n) for n in constants}
                if constants or pools:  # the cut-off's constants (`select`), main's order
                    order = current
                    for n, v in constants.items():
                        setattr(retrieval, n, v)
                ACTIVE[0], LISTING[0] = order if isinstance(order, tuple) else (order, None)
                started = time.perf_counter()
                table[name] = {s: await measure(core, name, d, by_id, args.only) for s, d in SETS.items()}
                for n, v in saved.items():
                    setattr(retrieval, n, v)
                ALTERNATIVE_POOLS[0] = False
                if fresh:
                    CACHE.clear()
                print(f"{name} ({time.perf_counter() - started:.0f} s)")
                for s in SETS:
                    print(f"  {s:<8} {table[name][s].line()}")
            folds(table, [n for n, _ in configs], args.only)


async def where_missed(core, by_id: dict[str, Paper]) -> None:
    """Each search's relevant papers missing from its first ten: listed where, words or not, rank in main's fused
    order and in RM3's ranking among the candidates."""
    from bot.chat.questions import MAX_LIST
    from bot.questions.search import search_papers

    for s, d in SETS.items():
        for item in _load(d / "search.jsonl"):
            last = max(p.announced for p in by_id.values())
            found = await search_papers(core, item["query"], until=last, limit=MAX_LIST, cut=True)
            listed = [h.paper.id for h in (*found.hits, *found.more)]
            query = next((q for (f, _), (_, _, q) in CACHE.items() if q is not None and f.topic == found.query), None)
            if query is None:
                continue
            ids = [p.id for p in query.scored.papers]
            fused = [ids[i] for i in ORIGINAL_FUSED_ORDER(query.scored, query.lexical_ids, query.vector)]
            r = rm3_scores(query, 3)
            rm3_order = [ids[i] for i in np.argsort(-np.nan_to_num(r, nan=-1))]
            results, _, _ = CACHE[(query.filters, None)]
            by = {x.paper.id: x for x in results}
            good = set(item["relevant"]) | set(item["acceptable"])
            if set(item["relevant"]) - set(listed[:10]):
                for n, pid in enumerate(listed[:10]):
                    x = by[pid]
                    mark = "R" if pid in item["relevant"] else ("a" if pid in good else "-")
                    print(
                        f"   {n + 1:>2} {mark} {'T' if x.in_title else '-'}{'A' if x.in_abstract else '-'} "
                        f"d {x.dense:.2f} s {x.sentence:.2f} f#{fused.index(pid) + 1} | {by_id[pid].title[:60]}"
                    )
            for pid in sorted(set(item["relevant"]) - set(listed[:10])):
                x = by.get(pid)
                tag = (
                    "not a candidate"
                    if x is None
                    else (
                        f"words {'T' if x.in_title else '-'}{'A' if x.in_abstract else '-'} dense {x.dense:.2f} "
                        f"sent {x.sentence:.2f} fused #{fused.index(pid) + 1} rm3 #{rm3_order.index(pid) + 1} "
                        f"listed #{listed.index(pid) + 1 if pid in listed else '-'}/{len(listed)}"
                    )
                )
                print(f"{s} {item['id']} {item['query'][:28]:<28} {tag} | {by_id[pid].title[:50]}")


if __name__ == "__main__":
    asyncio.run(main())
