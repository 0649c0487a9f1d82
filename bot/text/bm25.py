"""BM25F over titles and abstracts as the full-text index reads them: porter-stemmed terms, each paper's title and
abstract counted apart (a title word weighs TITLE_WEIGHT abstract words), term frequencies saturated and normalised by
length (Robertson's k1 and b). Questions score a topic expanded by feedback words with it (`bot.questions.expansion`);
the digest scores a member's one-line interests with the same constants over their units (`bot.ranking.one_line`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import snowballstemmer

from bot.models import Paper

TITLE_WEIGHT = 2.0  # BM25F: a word in the title counts as this many in the abstract
K1 = 1.2  # BM25's term-frequency saturation and length normalisation (Robertson's usual values)
B = 0.75

_PORTER = snowballstemmer.stemmer("porter")  # the full-text index's tokenizer is 'porter unicode61'
_TOKEN = re.compile(r"[^\W_]+")


def index_terms(text: str) -> list[str]:
    """`text` as the full-text index reads it: case and diacritics folded, split at anything but letters and digits,
    each token porter-stemmed."""
    return _PORTER.stemWords(_tokens(text))


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
        return Bags.of_texts([p.title for p in papers], [p.abstract for p in papers])

    @staticmethod
    def of_texts(titles: Sequence[str], abstracts: Sequence[str]) -> Bags:
        """The bags of papers given by their titles and abstracts, in their order."""
        title = [Counter(_tokens(t)) for t in titles]
        abstract = [Counter(_tokens(a)) for a in abstracts]
        tokens = list({t: None for c in (*title, *abstract) for t in c})
        stems = dict(zip(tokens, _PORTER.stemWords(tokens), strict=True))
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

    def document_frequencies(self) -> Counter[str]:
        """How many of the papers hold each term (title or abstract)."""
        df: Counter[str] = Counter()
        for title, abstract in zip(self.title, self.abstract, strict=True):
            df.update({self.stems[t] for t in (*title, *abstract)})
        return df


def idf(term: str, df: Mapping[str, int], total: int) -> float:
    """BM25's inverse document frequency of `term` among `total` papers (`df`: how many hold each term)."""
    n = df.get(term, 0)
    return float(np.log(1 + (total - n + 0.5) / (n + 0.5)))


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
        title_tf, abstract_tf = bags.frequencies(term)
        tf = TITLE_WEIGHT * title_tf / title_norm + abstract_tf / abstract_norm
        scores += weight * idf(term, df, total) * tf / (K1 + tf)
    return np.where(scores > 0, scores, np.nan)
