"""Cold-start ranking: score a day's papers against interest profiles without an LLM or any feedback.

The score of paper x for profile p is a sum of terms, all in cosine-similarity units:

    want      soft maximum (log-mean-exp, temperature T) of cos(x, v) over the profile's want vectors:
              one per topic `want` text and one per boost keyword
    avoid     - w_avoid * max(0, avoid - want), where avoid is the same soft maximum over the topics' `avoid`
              texts and the penalize/application keywords. Only the excess counts, because avoid texts are
              usually close to the field the profile wants; none for a paper holding a one-line interest whole
              and nothing the avoid phrases name (`named_interest_kept`)
    phrase    + w_title * (title share)^2 + w_text * (title-and-abstract share)^2 of the best topic that is one
              short phrase ("sparse mixture-of-experts"; not a list or a description), where a share is the
              weight of the phrase's units found (named terms such as "MoE" / "mixture of experts" count whole,
              see `bot.text.terms`): a compound is about the whole thing, not any one of its words
    interest  + w_title * (title coverage)^2 + w_text * (title-and-abstract coverage)^2 of the best topic that is a
              one-line interest (`is_one_line`: what onboarding stores), read as a head and details
              (`interest_query`: "quantization of LLMs (low-bit)"); a unit counts by its weight times its rarity
              that day (BM25's idf), details may stand for half of the head: a compound needs its parts (a head
              held in part is also scaled by the share of its units held, except in the papers closest to the
              profile in meaning, `expansion_near`), and "quantum" is not "quantization"
    avoided   - what the profile's avoid phrases name, read as contribution kinds plus a topic
              (`bot.ranking.contribution`): "surveys" removes surveys (w_avoid_kind), "medical imaging" for a
              member who wants image generation the papers holding "medical", the part the interests lack
              (w_avoid_title, w_avoid_text on its coverage)
    keywords  + w_boost * min(boost hits, cap) - w_penalize * min(...) - w_application * min(...), where a hit is
              a whole-word phrase match that ignores case, hyphens and plurals
    category  + w_category if the primary category is one of the profile's categories
    cues      + w_novelty * (min(theory cues, cap) - min(resource/application cues, cap)): generic signs of a
              new method or theory versus a dataset, case study or application; a cue the profile itself
              asks for (in its wants or boost keywords) is not held against it
    authors   + w_author when a watched author wrote the paper, enough to lift it above every other paper

The phrase, interest and avoided terms are computed in `bot.ranking.one_line`. Only the interest and avoid
coverages use statistics of the day (how rare a word is); the rest does not, so scores of profiles without one-line
interests are comparable across days. Several profiles are scored at once:
the dense part is one matrix product against the distinct vectors of a chunk of profiles, and keywords are
matched once per distinct keyword per day (`PaperFeatures` caches them) and combined by sparse products.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from bot.models import Paper, Profile, ScoredPaper
from bot.ranking.contribution import paper_kinds
from bot.ranking.contribution_words import CUE_IDIOMS, THEORY_CUES, VERB_CUES, clause_joined, cue_uses
from bot.ranking.expansion import expansion_scores, nearest_share
from bot.ranking.interest_units import (
    InterestQuery,
    interest_core,
    interest_query,
    named_terms_text,
    without_setting,
)
from bot.ranking.one_line import (
    AvoidPhrase,
    TopicPhrase,
    avoid_phrase,
    avoided_scores,
    interest_coverage,
    interest_scores,
    is_one_line,
    phrase_scores,
    topic_phrase,
)
from bot.ranking.rerank import PoolSignals, RerankModel, reranked_order, soft_max
from bot.store.sentences import best_sentence_similarity_of
from bot.text.names import name_tokens
from bot.text.terms import Unit, UnitIndex, phrase_key, text_tokens

if TYPE_CHECKING:  # scipy loads where a ranking is computed: a question's retrieval needs only the tokenizers here
    import scipy.sparse as sp

Embedder = Callable[[list[str]], np.ndarray]

# Generic contribution cues. Profile-independent on purpose: they stand for "new theory or method" (THEORY_CUES,
# `bot.ranking.contribution_words`) versus "a resource, an evaluation or an application", the digest's novelty axis.
APPLIED_CUES: tuple[str, ...] = (
    "dataset",
    "case study",
    "we evaluate",
    "survey",
    "real world",
    "application",
    "pipeline",
    "platform",
    "open source",
    "toolkit",
    "clinical",
    "patient",
    "medical",
    "healthcare",
)
_CUES: tuple[str, ...] = THEORY_CUES + APPLIED_CUES


@dataclass(frozen=True, slots=True)
class RankWeights:
    """The few constants of the cold-start score (cosine units), chosen by leave-one-day-out checks."""

    temperature: float = 10.0
    avoid: float = 0.3
    boost: float = 0.02
    penalize: float = 0.04
    application: float = 0.02
    category: float = 0.01
    novelty: float = 0.025
    author: float = 1.0
    phrase_title: float = 0.3
    phrase_text: float = 0.05
    interest_title: float = 0.2
    interest_text: float = 0.2
    detail_share: float = 0.5  # how much of an interest's head its details (examples, qualifiers) may stand for
    compound_parts: float = 1.0  # a one-line head held in part, far in meaning: evidence x (share of units held)^this
    avoid_kind: float = 2.0  # more than every other term together: a paper of an avoided kind goes last
    avoid_title: float = 1.0  # the avoided topic in the title is what the paper is about
    avoid_text: float = 0.1
    keyword_cap: int = 2
    expansion: float = 0.6  # pseudo-relevance feedback for one-line interests (`bot.ranking.expansion`)
    expansion_papers: int = 10  # the best papers that stand in for a one-line interest
    expansion_near: float = 0.2  # ... taken only among this share of the day's papers closest in meaning
    sentence: float = 0.5  # one-line interests: soft max over them of the paper's best sentence's cosine, added
    sentence_avoid: float = 1.0  # ... less the excess of the same over the avoid phrases (`sentence_avoid_term`)
    # Cosine similarities of MiniLM that map to relevance 1 and 10; another embedding model needs its own.
    relevance_low: float = 0.05
    relevance_high: float = 0.35


DEFAULT_WEIGHTS = RankWeights()

_CHUNK_ELEMENTS = 32 * 1024 * 1024  # bounds the (profile vectors x papers) block held in memory while scoring


# ---------------------------------------------------------------- authors


@dataclass(frozen=True, slots=True)
class _NameKey:
    full: str  # first and last name
    initial: str  # first initial and last name
    is_initial: bool  # the name was written with an initial ("Y. LeCun")


def _name_key(name: str) -> _NameKey | None:
    parts = name_tokens(name)
    if not parts:
        return None
    first, last = parts[0], parts[-1]
    if len(parts) == 1:
        return _NameKey(first, first, False)
    return _NameKey(f"{first} {last}", f"{first[0]} {last}", len(first) == 1)


def _author_hits(
    features: PaperFeatures, profiles: Sequence[ProfileModel]
) -> tuple[np.ndarray, dict[tuple[int, int], list[str]]]:
    """Which (profile, paper) pairs share a watched author, by dictionary look-ups instead of pairwise checks."""
    full: dict[str, list[int]] = defaultdict(list)
    initial_any: dict[str, list[int]] = defaultdict(list)
    initial_only: dict[str, list[int]] = defaultdict(list)
    for p, model in enumerate(profiles):
        for key in model.author_keys:
            initial_any[key.initial].append(p)
            (initial_only[key.initial] if key.is_initial else full[key.full]).append(p)
    hits = np.zeros((len(profiles), len(features)), dtype=bool)
    names: dict[tuple[int, int], list[str]] = defaultdict(list)
    if not initial_any:
        return hits, names
    for j, keys in enumerate(features.author_keys):
        for name, key in zip(features.authors[j], keys, strict=True):
            if key is None:
                continue
            matched = initial_any.get(key.initial, []) if key.is_initial else full.get(key.full, [])
            if not key.is_initial:
                matched = matched + initial_only.get(key.initial, [])
            for p in set(matched):
                hits[p, j] = True
                names[(p, j)].append(name)
    return hits, names


# ---------------------------------------------------------------- per-day paper features


@dataclass(eq=False)
class PaperFeatures:
    """Profile-independent pieces of one day's papers, computed once and shared by every profile."""

    ids: tuple[str, ...]
    primary: tuple[str, ...]  # primary category per paper
    category_codes: dict[str, int]  # primary category -> row of `category_onehot`
    category_onehot: sp.csr_matrix  # (distinct primary categories, papers)
    authors: tuple[tuple[str, ...], ...]
    author_keys: tuple[tuple[_NameKey | None, ...], ...]
    joined: tuple[str, ...]  # " token token ... " of title and abstract, for phrase look-ups
    postings: dict[str, np.ndarray]  # token -> indices of papers containing it
    cue_hits: np.ndarray  # (len(_CUES), papers) bool
    units: UnitIndex  # titles and abstracts indexed for the units of topic phrases
    _keyword_cache: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _kinds: tuple[frozenset[str], ...] | None = field(default=None, repr=False)
    _idf: dict[str, float] = field(default_factory=dict, repr=False)
    stats: dict[tuple[str, ...], object] = field(default_factory=dict, repr=False)  # other statistics of the day

    def kinds(self) -> tuple[frozenset[str], ...]:
        """Each paper's contribution kinds (benchmark, dataset, survey, position), read once per day."""
        if self._kinds is None:
            pairs = zip(self.units.raw_titles, self.units.raw_texts, strict=True)
            self._kinds = tuple(paper_kinds(title, text) for title, text in pairs)
        return self._kinds

    def idf(self, unit: Unit) -> float:
        """How rare the unit is among the day's papers (BM25's inverse document frequency)."""
        cached = self._idf.get(unit.cache_key)
        if cached is None:
            held = int(self.units.hits(unit)[1].sum())
            cached = float(np.log(1.0 + (len(self) - held + 0.5) / (held + 0.5)))
            self._idf[unit.cache_key] = cached
        return cached

    def __len__(self) -> int:
        return len(self.ids)

    def keyword_hits(self, key: str) -> np.ndarray:
        """Boolean vector: which papers contain the normalised phrase `key` (see `phrase_key`)."""
        cached = self._keyword_cache.get(key)
        if cached is not None:
            return cached
        out = np.zeros(len(self), dtype=bool)
        tokens = key.split()
        if tokens:
            postings = [self.postings.get(t) for t in tokens]
            if all(p is not None for p in postings):
                candidates = min(postings, key=len)
                if len(tokens) == 1:
                    out[candidates] = True
                else:
                    needle = f" {key} "
                    for i in candidates:
                        if needle in self.joined[i]:
                            out[i] = True
            if len(tokens) > 1:  # "low-rank" also matches "lowrank"
                closed = self.postings.get("".join(tokens))
                if closed is not None:
                    out[closed] = True
        self._keyword_cache[key] = out
        return out

    def keyword_matrix(self, keys: Sequence[str]) -> np.ndarray:
        """(len(keys), papers) float32 matrix of keyword hits."""
        if not keys:
            return np.zeros((0, len(self)), dtype=np.float32)
        return np.stack([self.keyword_hits(k) for k in keys]).astype(np.float32)


def paper_features(papers: Sequence[Paper]) -> PaperFeatures:
    """Tokenise, index and pre-match one day's papers; independent of any profile."""
    import scipy.sparse as sp

    joined: list[str] = []
    postings_lists: dict[str, list[int]] = defaultdict(list)
    codes: dict[str, int] = {}
    for paper in papers:
        codes.setdefault(paper.primary_category, len(codes))
    onehot = sp.csr_matrix(
        (np.ones(len(papers), dtype=np.float32), ([codes[p.primary_category] for p in papers], range(len(papers)))),
        shape=(len(codes), len(papers)),
    )
    token_lists = []
    for i, paper in enumerate(papers):
        tokens = text_tokens(paper.text)
        token_lists.append(tokens)
        joined.append(" " + " ".join(tokens) + " ")
        for token in set(tokens):
            postings_lists[token].append(i)
    features = PaperFeatures(
        ids=tuple(p.id for p in papers),
        primary=tuple(p.primary_category for p in papers),
        category_codes=codes,
        category_onehot=onehot,
        authors=tuple(tuple(p.authors) for p in papers),
        author_keys=tuple(tuple(_name_key(a) for a in p.authors) for p in papers),
        joined=tuple(joined),
        postings={t: np.array(ix, dtype=np.int64) for t, ix in postings_lists.items()},
        cue_hits=np.zeros((len(_CUES), len(papers)), dtype=bool),
        units=UnitIndex([p.title for p in papers], [p.text for p in papers], token_lists),
    )
    features.cue_hits = features.keyword_matrix([phrase_key(c) for c in _CUES]).astype(bool)
    for row, cue in enumerate(_CUES):
        for j in np.flatnonzero(features.cue_hits[row]) if cue in CUE_IDIOMS or cue in VERB_CUES else ():
            # every use inside a set phrase ("proof of concept"), or a verb of outcome ("proves effective"), read
            # with the clauses' ends for a verb
            joined = clause_joined(papers[j].text) if cue in VERB_CUES else features.joined[j]
            if not cue_uses(joined, cue):
                features.cue_hits[row, j] = False
    return features


# ---------------------------------------------------------------- compiled profiles


@dataclass(frozen=True, eq=False)
class ProfileModel:
    """A profile compiled for scoring: embedded want/avoid texts, normalised keywords, categories, authors."""

    name: str
    fingerprint: str
    topic_names: tuple[str, ...]
    want_texts: tuple[str, ...]  # topic wants, then boost keywords
    want_topic: tuple[int, ...]  # topic index of each want vector; -1 for a boost keyword
    want_vecs: np.ndarray  # (n_want, dim) float32, L2-normalised
    avoid_texts: tuple[str, ...]  # topic avoids, then penalize and application keywords (for reasons)
    avoid_vecs: np.ndarray  # (n_avoid, dim)
    avoid_keys: tuple[str, ...]  # the scored avoid set: one entry for all topic avoids, then the keywords
    avoid_mix_vecs: np.ndarray  # (len(avoid_keys), dim)
    boost: tuple[tuple[str, str], ...]  # (keyword as written, normalised key)
    penalize: tuple[tuple[str, str], ...]
    applications: tuple[tuple[str, str], ...]
    categories: frozenset[str]
    authors: tuple[str, ...]
    author_keys: tuple[_NameKey, ...]
    cue_sign: np.ndarray  # (len(_CUES),) +1 theory cue, -1 applied cue, 0 when the profile asks for the cue
    phrases: tuple[TopicPhrase, ...] = ()  # the topics that are one short phrase
    interests: tuple[InterestQuery, ...] = ()  # every topic's lexical evidence, in topic order
    avoids: tuple[AvoidPhrase, ...] = ()  # the profile's avoid phrases as contribution kinds and topic units

    @property
    def reads_lines(self) -> bool:
        """The profile holds a one-line interest, read word by word and expanded by the day's best papers."""
        return any(q.alternatives for q in self.interests)


def _keywords(words: Iterable[str]) -> tuple[tuple[str, str], ...]:
    seen: dict[str, str] = {}
    for word in words:
        key = phrase_key(word)
        if key and key not in seen:
            seen[key] = word
    return tuple((word, key) for key, word in seen.items())


# The share of a one-line interest's vector given to the line without its setting (`without_setting`).
SETTING_MEANING = 0.5


def _embedded_want(want: str) -> str:
    """What is embedded for a topic: a one-phrase topic without its framing words and with its named terms
    spelled out ("I'm into MoE papers" -> "MoE (mixture of experts)"); a longer description as written."""
    return named_terms_text(interest_core(want)) if topic_phrase(want) is not None else want


def _embed(embed: Embedder, texts: list[str]) -> np.ndarray:
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    vecs = np.asarray(embed(texts), dtype=np.float32)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs / np.where(norms > 0, norms, 1.0)


def compile_profile(profile: Profile, embed: Embedder) -> ProfileModel:
    """Embed a profile's texts once; rebuild when `profile.fingerprint` changes."""
    topics = [t for t in profile.topics if t.want.strip()]
    boost = _keywords(profile.boost)
    penalize = _keywords(profile.penalize)
    applications = _keywords(profile.applications)
    want_texts = [t.want for t in topics] + [word for word, _ in boost]
    topic_avoids = [t.avoid for t in topics if t.avoid.strip()] + [a for a in profile.avoid if a.strip()]
    avoid_words = [word for word, _ in penalize] + [word for word, _ in applications]
    avoid_texts = topic_avoids + avoid_words
    # A topic that is one short phrase is embedded with its named terms spelled out: MiniLM knows "mixture of
    # experts" far better than "MoE".
    embedded = [_embedded_want(t.want) for t in topics]
    # A one-line interest's setting ("quantization of LLMs") is embedded apart too: the line's vector leans on the
    # broad term (an LLM paper on anything is close to it), what it is about leans on the topic.
    about = [_embedded_want(without_setting(t.want)) if is_one_line(t) else "" for t in topics]
    settled = [k for k, text in enumerate(about) if SETTING_MEANING and text and text != embedded[k]]
    vecs = _embed(embed, embedded + want_texts[len(topics) :] + avoid_texts + [about[k] for k in settled])
    dim = vecs.shape[1]
    if settled:
        vecs, free = vecs[: len(vecs) - len(settled)].copy(), vecs[len(vecs) - len(settled) :]
        for row, k in zip(free, settled, strict=True):
            mixed = (1.0 - SETTING_MEANING) * vecs[k] + SETTING_MEANING * row
            vecs[k] = mixed / max(float(np.linalg.norm(mixed)), 1e-12)
    want_vecs = vecs[: len(want_texts)].reshape(len(want_texts), dim)
    avoid_vecs = vecs[len(want_texts) :].reshape(len(avoid_texts), dim)
    # Topic avoids are merged into one direction: separate vectors scored no better and cost one product row each.
    avoid_keys = list(avoid_words)
    avoid_mix = avoid_vecs[len(topic_avoids) :]
    if topic_avoids:
        centre = avoid_vecs[: len(topic_avoids)].mean(axis=0)
        centre /= max(float(np.linalg.norm(centre)), 1e-12)
        avoid_keys.insert(0, "\x00avoid\x00" + "\x00".join(topic_avoids))
        avoid_mix = np.vstack([centre[None, :], avoid_mix])
    # A cue the profile wants (e.g. a profile about datasets) must not count against a paper.
    wanted = " ".join(" " + " ".join(text_tokens(t)) + " " for t in want_texts)
    unwanted = " ".join(f" {key} " for _, key in penalize + applications)
    signs = []
    for cue in _CUES:
        needle = f" {phrase_key(cue)} "
        if cue in THEORY_CUES:
            signs.append(0.0 if needle in unwanted else 1.0)
        else:
            signs.append(0.0 if needle in wanted else -1.0)
    author_keys = tuple(k for k in (_name_key(a) for a in profile.authors) if k is not None)
    interests = tuple(interest_query(t.want) if is_one_line(t) else InterestQuery((), ()) for t in topics)
    return ProfileModel(
        name=profile.name,
        fingerprint=profile.fingerprint,
        topic_names=tuple(t.name for t in topics),
        want_texts=tuple(want_texts),
        want_topic=tuple(range(len(topics))) + (-1,) * len(boost),
        want_vecs=want_vecs,
        avoid_texts=tuple(avoid_texts),
        avoid_vecs=avoid_vecs,
        avoid_keys=tuple(avoid_keys),
        avoid_mix_vecs=np.ascontiguousarray(avoid_mix, dtype=np.float32),
        boost=boost,
        penalize=penalize,
        applications=applications,
        categories=frozenset(profile.categories),
        authors=tuple(profile.authors),
        author_keys=author_keys,
        cue_sign=np.array(signs, dtype=np.float32),
        phrases=tuple(p for p in (topic_phrase(t.want, i) for i, t in enumerate(topics)) if p is not None),
        interests=interests,
        avoids=tuple(avoid_phrase(a, interests) for a in profile.avoid if a.strip()),
    )


# ---------------------------------------------------------------- scoring


@dataclass(frozen=True, slots=True)
class _Terms:
    """Per-term scores, each (profiles, papers), before weighting (keyword counts already capped)."""

    want: np.ndarray
    avoid_excess: np.ndarray
    boost: np.ndarray
    penalize: np.ndarray
    applications: np.ndarray
    category: np.ndarray
    theory: np.ndarray
    applied: np.ndarray
    authors: np.ndarray
    phrase: np.ndarray  # how wholly a topic phrase is in the paper, the title counting most (weights applied)
    interest: np.ndarray  # the best interest's lexical evidence (weights applied)
    avoided: np.ndarray  # what the avoid phrases name, found in the paper (weights applied)
    near: np.ndarray  # the papers closest in meaning to each profile of one-line interests (`nearest_share`)
    coverage: list[list[tuple[np.ndarray, np.ndarray]]]  # per profile, per topic: (title, text) coverage


def _soft_max_terms(vecs: np.ndarray, profiles: Sequence[ProfileModel], temperature: float) -> tuple[np.ndarray, ...]:
    """Log-mean-exp similarity to each profile's want vectors and to its avoid vectors, (profiles, papers) each."""
    import scipy.sparse as sp

    want_n = np.array([len(m.want_texts) for m in profiles], dtype=np.int64)
    avoid_n = np.array([len(m.avoid_keys) for m in profiles], dtype=np.int64)
    outputs = (
        np.zeros((len(profiles), vecs.shape[0]), np.float32),
        np.zeros((len(profiles), vecs.shape[0]), np.float32),
    )
    keys = [t for m in profiles for t in m.want_texts] + [t for m in profiles for t in m.avoid_keys]
    if not keys:
        return outputs
    # Profiles often share texts (keywords, copied topics): each distinct text costs one row of the product.
    column: dict[str, int] = {}
    cols = np.fromiter((column.setdefault(k, len(column)) for k in keys), dtype=np.int64, count=len(keys))
    every = np.concatenate(
        [m.want_vecs for m in profiles if m.want_texts] + [m.avoid_mix_vecs for m in profiles if m.avoid_keys]
    )
    first = np.empty(len(column), dtype=np.int64)
    first[cols] = np.arange(len(cols))
    expo = (every[first] * np.float32(temperature)) @ vecs.T  # (distinct texts, papers): the one large product
    expo -= np.float32(temperature)  # cosine <= 1, so exp stays in (0, 1]
    np.exp(expo, out=expo)
    offset = 0
    for counts, out in zip((want_n, avoid_n), outputs, strict=True):
        total = int(counts.sum())
        if total:
            rows = np.repeat(np.arange(len(profiles)), counts)
            vals = np.repeat(1.0 / np.maximum(counts, 1), counts).astype(np.float32)
            mix = sp.csr_matrix((vals, (rows, cols[offset : offset + total])), shape=(len(profiles), len(column)))
            mean = np.asarray(mix @ expo, dtype=np.float32)
            present = counts > 0
            out[present] = 1.0 + np.log(mean[present]) / np.float32(temperature)
        offset += total
    return outputs


def _membership(
    profiles: Sequence[ProfileModel], items: Callable[[ProfileModel], Iterable[str]], column: dict[str, int]
) -> sp.csr_matrix:
    """(profiles, len(column)) 0/1 matrix: which of the column's keys each profile lists (unknown keys skipped)."""
    import scipy.sparse as sp

    per_profile = [[column[k] for k in items(m) if k in column] for m in profiles]
    counts = np.fromiter((len(c) for c in per_profile), dtype=np.int64, count=len(profiles))
    indices = np.fromiter((c for cols in per_profile for c in cols), dtype=np.int64, count=int(counts.sum()))
    indptr = np.concatenate(([0], np.cumsum(counts)))
    data = np.ones(len(indices), dtype=np.float32)
    return sp.csr_matrix((data, indices, indptr), shape=(len(profiles), len(column)))


def _terms(
    paper_vecs: np.ndarray, features: PaperFeatures, profiles: Sequence[ProfileModel], weights: RankWeights
) -> _Terms:
    n = len(features)
    vecs = np.asarray(paper_vecs, dtype=np.float32).reshape(n, -1)
    want, avoid = _soft_max_terms(vecs, profiles, weights.temperature)
    # only profiles of one-line interests read it (partial compounds, feedback): the others are spared the sort
    near = np.zeros(want.shape, dtype=bool)
    lines = [p for p, model in enumerate(profiles) if model.reads_lines]
    if lines:
        near[lines] = nearest_share(want[lines], weights.expansion_near)
    coverage = interest_coverage(features, profiles, weights, near)
    interest = interest_scores(coverage, n, weights)
    avoided = avoided_scores(features, profiles, weights)
    has_avoid = np.array([bool(m.avoid_keys) for m in profiles])[:, None]
    kept = named_interest_kept(interest, avoided, weights)
    excess = np.where(kept, np.float32(0.0), np.maximum(avoid - want, 0.0) * has_avoid).astype(np.float32)

    keys = sorted({key for m in profiles for _, key in m.boost + m.penalize + m.applications})
    kw_col = {k: i for i, k in enumerate(keys)}
    kw_matrix = features.keyword_matrix(keys)
    cap = float(weights.keyword_cap)
    counts = {}
    for attr in ("boost", "penalize", "applications"):
        member = _membership(profiles, lambda m, attr=attr: (key for _, key in getattr(m, attr)), kw_col)
        hits = np.asarray(member @ kw_matrix, dtype=np.float32)
        counts[attr] = np.minimum(hits, cap, out=hits)

    signs = np.stack([m.cue_sign for m in profiles])
    cue = features.cue_hits.astype(np.float32)
    theory = np.minimum(np.maximum(signs, 0.0) @ cue, cap)
    applied = np.minimum(np.maximum(-signs, 0.0) @ cue, cap)
    member = _membership(profiles, lambda m: m.categories, features.category_codes)
    category = np.asarray((member @ features.category_onehot).toarray(), dtype=np.float32)
    authors, _ = _author_hits(features, profiles)
    return _Terms(
        want=want,
        avoid_excess=excess,
        boost=counts["boost"],
        penalize=counts["penalize"],
        applications=counts["applications"],
        category=category,
        theory=theory,
        applied=applied,
        authors=authors.astype(np.float32),
        phrase=phrase_scores(features, profiles, weights),
        interest=interest,
        avoided=avoided,
        near=near,
        coverage=coverage,
    )


def named_interest_kept(interest: np.ndarray, avoided: np.ndarray, weights: RankWeights) -> np.ndarray:
    """(profiles, papers) bool: papers an avoid phrase may not push down by meaning alone, those holding one of the
    member's one-line interests whole (`interest`, the same evidence the pseudo-relevance feedback trusts) and nothing
    the avoid phrases name (`avoided`: their kinds, their words). A short avoid phrase is nearer in meaning to a
    neighbouring wanted field than the member's longer lines ("vision-language models" to activation steering, "surveys"
    to simulating survey respondents with generative agents): an avoid removes what it names, not what it resembles."""
    return (interest >= np.float32(weights.interest_text) - 1e-6) & (avoided <= 0.0)


def _combine(terms: _Terms, weights: RankWeights) -> np.ndarray:
    score = terms.want + terms.phrase + terms.interest - terms.avoided
    for value, weight in (
        (terms.avoid_excess, -weights.avoid),
        (terms.boost, weights.boost),
        (terms.penalize, -weights.penalize),
        (terms.applications, -weights.application),
        (terms.category, weights.category),
        (terms.theory, weights.novelty),
        (terms.applied, -weights.novelty),
        (terms.authors, weights.author),
    ):
        if weight:
            score += np.float32(weight) * value
    return score


def score_papers(
    paper_vecs: np.ndarray,
    features: PaperFeatures,
    profiles: Sequence[ProfileModel],
    weights: RankWeights = DEFAULT_WEIGHTS,
) -> np.ndarray:
    """Scores of shape (len(profiles), len(papers)); higher is better, comparable across days.

    `paper_vecs` holds L2-normalised embeddings of `Paper.text`, in the order `features` was built from, made by
    the same embedder as the profiles (texts shared by several profiles are scored once, keyed by the text).
    """
    if np.shape(paper_vecs)[0] != len(features):
        raise ValueError(f"{np.shape(paper_vecs)[0]} paper vectors for {len(features)} papers")
    out = np.zeros((len(profiles), len(features)), dtype=np.float32)
    if len(features) == 0 or not profiles:
        return out
    budget = max(1024, _CHUNK_ELEMENTS // len(features))
    start = 0
    while start < len(profiles):
        stop, size = start, 0
        while stop < len(profiles) and (stop == start or size < budget):
            size += len(profiles[stop].want_texts) + len(profiles[stop].avoid_keys)
            stop += 1
        terms = _terms(paper_vecs, features, profiles[start:stop], weights)
        out[start:stop] = _expanded(_combine(terms, weights), terms, paper_vecs, profiles[start:stop], weights)
        start = stop
    return out


def _expanded(
    scores: np.ndarray, terms: _Terms, paper_vecs: np.ndarray, profiles: Sequence[ProfileModel], weights: RankWeights
) -> np.ndarray:
    """`scores` plus the pseudo-relevance feedback of the profiles holding one-line interests."""
    rows = [p for p, model in enumerate(profiles) if model.reads_lines]
    if not rows or not weights.expansion:
        return scores
    vecs = np.asarray(paper_vecs, dtype=np.float32).reshape(scores.shape[1], -1)
    evident = terms.interest[rows] >= np.float32(weights.interest_text) - 1e-6  # the whole interest in the paper
    feedback = expansion_scores(scores[rows], vecs, weights.expansion_papers, evident, terms.near[rows])
    scores[rows] += np.float32(weights.expansion) * feedback
    return scores


# ---------------------------------------------------------------- one profile, with reasons


def _scale(value: float, low: float, high: float) -> float:
    return float(np.clip(1.0 + 9.0 * (value - low) / (high - low), 1.0, 10.0))


def _avoid_reason(model: ProfileModel, vec: np.ndarray, scores: np.ndarray, j: int, penalty: float) -> str:
    """ "near avoided 'X': N places lower" when being nearer an avoided topic than to the wanted ones put paper `j`
    below others it would have stood above; '' when it moved it past none (a reason must have changed something)."""
    if penalty <= 0:
        return ""
    passed = int(np.count_nonzero((scores > scores[j]) & (scores <= scores[j] + np.float32(penalty))))
    if not passed:
        return ""
    nearest = model.avoid_texts[int(np.argmax(model.avoid_vecs @ vec))]
    return f"near avoided '{nearest}': {passed} place{'' if passed == 1 else 's'} lower"


def sentence_term(
    paper_vecs: np.ndarray,
    sentence_vecs: Sequence[np.ndarray | None],
    model: ProfileModel,
    weights: RankWeights = DEFAULT_WEIGHTS,
) -> np.ndarray:
    """(1, papers): the soft maximum over the profile's want vectors of each one's best sentence in the paper.

    MiniLM averages what it reads of an abstract into one vector; a one-line interest is short, and the sentence
    that states it may stand anywhere (docs/BENCHMARKS.md, interests, "After (4)" and "Sentence vectors stored"). A
    paper without sentence vectors is read as one sentence, its whole-paper vector.

    Sentences and interests are compared after the mean of all the sentences ranked together is taken out of both
    (and each vector normalised again): what every sentence of the day shares ("we propose", "large language
    models") makes any sentence look close to an interest that names it, and what is left tells the interest apart
    (docs/BENCHMARKS.md, "Sixth session: one-line interests").
    """
    return _best_sentences(paper_vecs, sentence_vecs, model.want_vecs, weights)


def sentence_avoid_term(
    paper_vecs: np.ndarray,
    sentence_vecs: Sequence[np.ndarray | None],
    model: ProfileModel,
    weights: RankWeights = DEFAULT_WEIGHTS,
) -> np.ndarray:
    """(1, papers): how much closer the paper's best sentence is to the profile's avoid phrases than to its
    interests (the soft maximum over each side, as `sentence_term`; zero when nearer the interests or without
    avoids). The whole-paper avoid term (`avoid`) misses a paper whose one sentence says what the member avoids
    ("we fine-tune the LLM with RLHF") among sentences about what they want."""
    if not len(model.avoid_vecs):
        return np.zeros((1, len(sentence_vecs)), dtype=np.float32)
    avoided = _best_sentences(paper_vecs, sentence_vecs, model.avoid_vecs, weights)
    return np.maximum(avoided - sentence_term(paper_vecs, sentence_vecs, model, weights), np.float32(0.0))


def _best_sentences(
    paper_vecs: np.ndarray, sentence_vecs: Sequence[np.ndarray | None], vectors: np.ndarray, weights: RankWeights
) -> np.ndarray:
    """(1, papers): the soft maximum over `vectors` of each one's best sentence in the paper, all centred."""
    vecs = np.asarray(paper_vecs, dtype=np.float32).reshape(len(sentence_vecs), -1)
    matrices = [m if m is not None and len(m) else vecs[i][None, :] for i, m in enumerate(sentence_vecs)]
    centre = np.concatenate(matrices).astype(np.float32).mean(axis=0)
    best = best_sentence_similarity_of(_centred(vectors, centre), [_centred(m, centre) for m in matrices])
    return soft_max(best.T, weights.temperature)[None, :]


def _centred(vecs: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """`vecs` less `centre`, each row normalised to unit length again (a row equal to the centre stays zero)."""
    out = np.asarray(vecs, dtype=np.float32) - centre
    norms = np.linalg.norm(out, axis=-1, keepdims=True)
    return out / np.where(norms > 1e-12, norms, np.float32(1.0))


def _says(text: str, phrase: str) -> bool:
    """Whether `text` writes `phrase` as one run of words (case, hyphens and plurals aside)."""
    words, said = text_tokens(phrase), text_tokens(text)
    n = len(words)
    return bool(n) and any(said[i : i + n] == words for i in range(len(said) - n + 1))


def _phrase_reason(features: PaperFeatures, model: ProfileModel, paper: Paper, j: int) -> str:
    """Which topic phrase paper `j` holds whole, and where: "phrase 'state space models' in the title" when it writes
    the phrase as typed, else "every part of 'X' in the text" (its parts apart, or in another spelling); or ""."""
    best, best_rank = "", 0
    for phrase in model.phrases:
        hits = [features.units.hits(u) for u in phrase.units]
        if all(text[j] for _, text in hits):
            rank = 2 if all(title[j] for title, _ in hits) else 1
            if rank > best_rank:
                where = "title" if rank == 2 else "text"
                said = _says(paper.title if rank == 2 else f"{paper.title}. {paper.abstract}", phrase.text)
                what = f"phrase '{phrase.text}'" if said else f"every part of '{phrase.text}'"
                best, best_rank = f"{what} in the {where}", rank
    return best


def _pool_signals(
    papers: Sequence[Paper],
    paper_vecs: np.ndarray,
    sentence_vecs: Sequence[np.ndarray | None],
    model: ProfileModel,
    features: PaperFeatures,
    weights: RankWeights,
    terms: _Terms,
    whole: np.ndarray,
    avoided: np.ndarray,
    combined: np.ndarray,
    scores: np.ndarray,
) -> PoolSignals:
    """What `rank_for_profile` computed for one profile, as the re-ranker reads it (nothing computed twice but the
    per-topic phrase terms, which the score keeps only as their maximum)."""
    topics = len(model.interests)
    per_topic = np.zeros((topics, len(papers)), np.float32)
    for phrase in model.phrases:
        total = sum(u.weight for u in phrase.units)
        title, text = np.zeros(len(papers), np.float32), np.zeros(len(papers), np.float32)
        for unit in phrase.units:
            hit_title, hit_text = features.units.hits(unit)
            title += np.float32(unit.weight / total) * hit_title
            text += np.float32(unit.weight / total) * hit_text
        held = np.float32(weights.phrase_title) * title**2 + np.float32(weights.phrase_text) * text**2
        np.maximum(per_topic[phrase.topic], held, out=per_topic[phrase.topic])
    penalty = np.float32(weights.avoid) * terms.avoid_excess[0] + avoided[0] + terms.avoided[0]
    return PoolSignals(
        papers=papers,
        paper_vecs=paper_vecs,
        sentence_vecs=sentence_vecs,
        interest_vecs=model.want_vecs[:topics],
        score=scores,
        before_feedback=combined[0],
        expansion=weights.expansion,
        want=whole[0],
        near=terms.near[0],
        lexical=terms.phrase[0] + terms.interest[0],
        penalty=penalty,
        cues=terms.theory[0] - terms.applied[0],
        coverage=terms.coverage[0],
        phrase_per_interest=per_topic,
        temperature=weights.temperature,
        sentence_weight=weights.sentence,
        interest_title=weights.interest_title,
        interest_text=weights.interest_text,
    )


def rank_for_profile(
    papers: Sequence[Paper],
    paper_vecs: np.ndarray,
    profile_model: ProfileModel,
    top_k: int,
    features: PaperFeatures | None = None,
    weights: RankWeights = DEFAULT_WEIGHTS,
    sentence_vecs: Sequence[np.ndarray | None] | None = None,
    rerank: RerankModel | None = None,
) -> list[ScoredPaper]:
    """The `top_k` best papers for one profile, best first, with reasons and 1-10 relevance and novelty.

    Pass `features` when the day's `paper_features` are already built, to reuse them. `sentence_vecs` (each
    paper's sentence matrix, `bot.store.sentences`; None for a paper without) adds the sentence term for a profile
    of one-line interests. With `rerank` too, that profile's best papers are put in the learned re-ranker's order
    (`bot.ranking.rerank`); each paper's `score` is then the score of the place it takes (the pool's scores in
    their order), so a sort by score (feedback added later) starts from that order, while its relevance is read
    from its own score.
    """
    if not papers or top_k <= 0:
        return []
    features = features if features is not None else paper_features(papers)
    terms = _terms(paper_vecs, features, [profile_model], weights)
    whole = terms.want
    avoided = np.zeros((1, len(papers)), dtype=np.float32)  # the sentences' avoid excess, weighted
    if sentence_vecs is not None and profile_model.reads_lines and weights.sentence:
        want = terms.want + np.float32(weights.sentence) * sentence_term(
            paper_vecs, sentence_vecs, profile_model, weights
        )
        if weights.sentence_avoid:
            avoided = np.float32(weights.sentence_avoid) * sentence_avoid_term(
                paper_vecs, sentence_vecs, profile_model, weights
            )
            avoided[named_interest_kept(terms.interest, terms.avoided, weights)] = 0.0
        terms = replace(terms, want=(want - avoided).astype(np.float32))
    combined = _combine(terms, weights)
    scores = _expanded(combined.copy(), terms, paper_vecs, [profile_model], weights)[0]
    order = np.argsort(-scores, kind="stable")
    standing = scores
    if rerank is not None and sentence_vecs is not None and profile_model.reads_lines:
        signals = _pool_signals(
            papers, paper_vecs, sentence_vecs, profile_model, features, weights, terms, whole, avoided, combined, scores
        )
        order = reranked_order(signals, rerank)
        standing = np.empty_like(scores)
        standing[order] = scores[np.argsort(-scores, kind="stable")]  # the place's score, in the new order
    order = order[:top_k]
    vecs = np.asarray(paper_vecs, dtype=np.float32).reshape(len(papers), -1)
    _, author_names = _author_hits(features, [profile_model])
    out = []
    for j in order:
        j = int(j)
        reasons: list[str] = []
        if profile_model.want_texts:
            sims = profile_model.want_vecs @ vecs[j]
            best = int(np.argmax(sims))
            topic = profile_model.want_topic[best]
            label = (
                f"topic '{profile_model.topic_names[topic]}'" if topic >= 0 else f"'{profile_model.want_texts[best]}'"
            )
            reasons.append(f"closest to {label} (similarity {sims[best]:.2f})")
        phrase = _phrase_reason(features, profile_model, papers[j], j)
        if phrase:
            reasons.append(phrase)
        for title, attr in (("keywords", "boost"), ("penalized", "penalize"), ("application", "applications")):
            hit = [word for word, key in getattr(profile_model, attr) if features.keyword_hits(key)[j]]
            if hit:
                reasons.append(f"{title}: {', '.join(hit)}")
        penalty = weights.avoid * float(terms.avoid_excess[0, j]) + float(avoided[0, j])
        avoid_reason = _avoid_reason(profile_model, vecs[j], scores, j, penalty)
        if avoid_reason:
            reasons.append(avoid_reason)
        if terms.category[0, j]:
            reasons.append(f"primary category {features.primary[j]}")
        cues = [c for c, s, h in zip(_CUES, profile_model.cue_sign, features.cue_hits[:, j], strict=True) if h and s]
        theory = [c for c in cues if c in THEORY_CUES]
        applied = [c for c in cues if c not in THEORY_CUES]
        if theory:
            reasons.append(f"theory cues: {', '.join(theory)}")
        if applied:
            reasons.append(f"applied cues: {', '.join(applied)}")
        hits = tuple(author_names.get((0, j), ()))
        if hits:
            reasons.append(f"watched author: {', '.join(hits)}")
        relevance_raw = scores[j] - weights.novelty * (terms.theory[0, j] - terms.applied[0, j])
        relevance_raw -= weights.author * terms.authors[0, j]
        novelty_raw = 5.0 + 2.0 * (terms.theory[0, j] - terms.applied[0, j])
        out.append(
            ScoredPaper(
                paper=papers[j],
                score=float(standing[j]),
                relevance=round(_scale(float(relevance_raw), weights.relevance_low, weights.relevance_high), 1),
                novelty=round(float(np.clip(novelty_raw, 1.0, 10.0)), 1),
                reasons=tuple(reasons),
                author_hits=hits,
            )
        )
    return out
