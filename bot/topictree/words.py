"""The papers' own words: a TF-IDF view of each paper for grouping, and the phrases a heading can be made of.

Both are weighed against a background corpus (the bundled arXiv day, plus whatever the caller adds), so a word every
machine-learning abstract uses ("model", "data") counts for little even when only a handful of papers are grouped.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer, TfidfTransformer
from sklearn.preprocessing import normalize

from bot.ingest.bundled import DEMO_DAY_FILE, bundled_file
from bot.text.terms import phrase_key

from .tree import PaperText

MAX_WORDS = 4000  # the most frequent shared words make the TF-IDF view
WORD_DIMS = 100  # the TF-IDF view is reduced to this many dimensions (LSA) once there are enough papers
_SPLIT = re.compile(r"[:;,.!?()\[\]{}\"“”‘’/|]+|\s[-–—]\s")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*")
# Words a heading neither starts nor ends with: function words, and the words of a title's framing ("Towards ...",
# "... via X", "A novel approach"), which say how a paper is written rather than what it is about.
_FRAME = frozenset(
    """via using based towards toward novel new approach approaches method methods framework frameworks study
    revisiting rethinking understanding improving enhanced efficient effective simple scalable robust beyond
    learning-based unified general generalized better fast faster large-scale deep""".split()
)
HEADING_STOP = frozenset(ENGLISH_STOP_WORDS) | _FRAME
_INNER = frozenset({"of"})  # may stand inside a phrase: "mixture of experts"
MAX_PHRASE_WORDS = 4


def paper_words(paper: PaperText) -> str:
    """The text the TF-IDF view reads: the title twice (it says in a few words what the paper is about), then the
    abstract."""
    return f"{paper.title}. {paper.title}. {paper.abstract}"


@functools.cache
def bundled_background() -> tuple[tuple[str, str], ...]:
    """Title and abstract of every paper of the bundled arXiv day: the default background corpus."""
    rows = []
    with open(bundled_file(DEMO_DAY_FILE), encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                rows.append((str(record.get("title", "")), str(record.get("abstract", ""))))
    return tuple(rows)


def word_matrix(papers: Sequence[PaperText], background: Sequence[tuple[str, str]]) -> np.ndarray:
    """Each paper's TF-IDF row over the words at least two of the papers share (document frequencies from the papers
    and the background), L2-normalised; reduced by truncated SVD when there are many papers. Zero rows for papers
    that share no word with another."""
    texts = [paper_words(p) for p in papers]
    if len(texts) < 2:
        return np.zeros((len(texts), 1), dtype=np.float32)
    counter = CountVectorizer(stop_words="english", min_df=2, max_features=MAX_WORDS)
    try:
        counts = counter.fit_transform(texts)
    except ValueError:  # no word is shared at all
        return np.zeros((len(texts), 1), dtype=np.float32)
    known = counter.transform([f"{title}. {abstract}" for title, abstract in background])
    weigh = TfidfTransformer(sublinear_tf=True).fit(sparse.vstack([counts, known]))
    rows = weigh.transform(counts)
    if len(texts) > 3 * WORD_DIMS and rows.shape[1] > WORD_DIMS:
        reduced = TruncatedSVD(WORD_DIMS, n_iter=3, random_state=0).fit_transform(rows)
        return normalize(reduced).astype(np.float32)
    return normalize(rows).toarray().astype(np.float32)


@dataclass(frozen=True, slots=True)
class Phrase:
    """A candidate heading phrase as written (`surface`) and its matching key (lowercase, plurals folded)."""

    key: str
    surface: str
    words: int


@functools.lru_cache(maxsize=65536)
def _word_key(token: str) -> str:
    return phrase_key(token)


def phrases(text: str) -> Iterable[Phrase]:
    """Every phrase of 1 to 4 words in `text` that could be a heading: no punctuation inside, neither starting nor
    ending with a function or framing word ("Graph neural networks", "mixture of experts", "LLMs")."""
    for chunk in _SPLIT.split(text):
        tokens = _TOKEN.findall(chunk)
        lowered = [t.lower() for t in tokens]
        keys = [_word_key(t) for t in lowered]
        for start, first in enumerate(lowered):
            if first in HEADING_STOP or len(first) < 2:
                continue
            for end in range(start + 1, min(start + MAX_PHRASE_WORDS, len(tokens)) + 1):
                inner = lowered[start:end]
                if any(w in HEADING_STOP and w not in _INNER for w in inner[1:-1]):
                    break
                last = inner[-1]
                if last in HEADING_STOP or len(last) < 2:
                    continue
                yield Phrase(" ".join(keys[start:end]), " ".join(tokens[start:end]), end - start)


def phrase_keys(text: str) -> set[str]:
    """The keys of `phrases(text)`, without their written forms (the same rules, quicker: this reads every abstract)."""
    found: set[str] = set()
    stop, inner, most = HEADING_STOP, _INNER, MAX_PHRASE_WORDS
    for chunk in _SPLIT.split(text):
        lowered = [t.lower() for t in _TOKEN.findall(chunk)]
        keys = [_word_key(t) for t in lowered]
        count = len(lowered)
        for start in range(count):
            first = lowered[start]
            if first in stop or len(first) < 2:
                continue
            for end in range(start + 1, min(start + most, count) + 1):
                last = lowered[end - 1]
                if end - start > 2 and lowered[end - 2] in stop and lowered[end - 2] not in inner:
                    break
                if last in stop or len(last) < 2:
                    continue
                found.add(" ".join(keys[start:end]))
    return found


def phrase_sets(title: str, abstract: str) -> tuple[set[str], set[str]]:
    """The phrase keys of a title and of its abstract."""
    return phrase_keys(title), phrase_keys(abstract)


@dataclass(frozen=True, slots=True)
class Background:
    """What the background corpus says about phrases: in how many of its papers each key occurs, how many papers it
    has, and which single words mostly stand before another content word (modifiers: "sparse", "generative")."""

    counts: Counter[str]
    size: int
    modifiers: frozenset[str]


MODIFIER_SHARE = 0.6  # a word followed by another content word at least this often is a modifier, not a heading
_MIN_SEEN = 3


@functools.cache
def background_counts(extra: tuple[tuple[str, str], ...] = ()) -> Background:
    """The phrase statistics of the bundled day and `extra` (title, abstract pairs)."""
    counts: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    before_word: Counter[str] = Counter()
    rows = bundled_background() + extra
    for title, abstract in rows:
        in_title, in_abstract = phrase_sets(title, abstract)
        counts.update(in_title | in_abstract)
        for chunk in _SPLIT.split(f"{title}. {abstract}"):
            words = [_word_key(t.lower()) for t in _TOKEN.findall(chunk)]
            for word, after in zip(words, [*words[1:], ""][: len(words)], strict=True):
                seen[word] += 1
                if after and after not in HEADING_STOP:
                    before_word[word] += 1
    modifiers = frozenset(w for w, n in seen.items() if n >= _MIN_SEEN and before_word[w] >= MODIFIER_SHARE * n)
    return Background(counts, len(rows), modifiers)


def _cased(word: str) -> str:
    # Acronyms and names keep their letters ("LLMs", "LoRA", "GNN"); every other word is lowercased, each part of a
    # hyphenated word on its own ("Physics-Informed" -> "physics-informed", "Text-to-SQL" -> "text-to-SQL").
    if "-" in word:
        return "-".join(_cased(part) for part in word.split("-"))
    if any(c.isupper() for c in word[1:]) or (word.isupper() and len(word) > 1):
        return word
    return word.lower()


def heading_case(surface: str) -> str:
    """A heading's casing: sentence case with acronyms kept ("graph Neural Networks" -> "Graph neural networks",
    "LLMs for math" -> "LLMs for math")."""
    words = [_cased(w) for w in surface.split()]
    if not words:
        return ""
    head = words[0]
    words[0] = head[:1].upper() + head[1:]
    return " ".join(words)


def surface_forms(papers: Sequence[PaperText], keys: set[str]) -> dict[str, str]:
    """The most frequent written form of each key, heading-cased: as the titles write it, else as the abstracts do."""
    seen: dict[str, Counter[str]] = {}

    def read(texts: Iterable[str], wanted: set[str]) -> None:
        for text in texts:
            for phrase in phrases(text):
                if phrase.key in wanted:
                    seen.setdefault(phrase.key, Counter())[heading_case(phrase.surface)] += 1

    read((p.title for p in papers), keys)
    missing = keys - seen.keys()
    if missing:
        read((p.abstract for p in papers), missing)
    return {key: forms.most_common(1)[0][0] for key, forms in seen.items()}
