"""The learned re-ranking of a one-line-interest profile's best papers (issue 23).

The cold-start score (`bot.ranking.rank`) adds its terms with a few fixed weights. Here the `pool` best papers by
that score are put in a new order by a logistic regression of "on topic" on 15 features of each paper, each
standardised within the pool (so a day's or a profile's level does not count, only how the paper stands among the
pool): the score and its terms (whole-paper and best-sentence similarity, word evidence, the day's feedback,
avoid penalty, cues), the interests' coverage in title and abstract, how close the paper is to the day's papers
unrelated to the profile (a generic paper is close to many), the similarity of its title, of its contribution
sentences and of its second-best sentence, how far down both the meaning and the word ranking of its best interest
it stands, and for how many interests it is among the 30 nearest in meaning. Papers beyond the pool keep their
order after it.

Every feature is read from what the score already computed (its terms, the paper and sentence vectors, the day's
words): nothing is embedded again. The weights are `rerank_weights.json`, written by `bench/rerank_profiles.py
--export` (fitted on the three open labelled profile sets); `Settings.rerank_profiles` turns the re-ranking off.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from bot.models import Paper
from bot.text.extractive import split_sentences, states_contribution

WEIGHTS_FILE = Path(__file__).with_name("rerank_weights.json")
NAMES = (
    "score",
    "want",
    "sentence",
    "lexical",
    "feedback",
    "penalty",
    "cues",
    "cov_title",
    "cov_text",
    "hub",
    "contribution",
    "second",
    "agree",
    "breadth",
    "title_cos",
)
HUB_NEIGHBOURS = 5  # the unrelated papers whose mean closeness makes a paper's hubness
BREADTH_RANK = 30  # an interest counts towards breadth when the paper is among its this many nearest in meaning


@dataclass(frozen=True)
class RerankModel:
    """The fitted re-ranker: one weight per feature (in `NAMES` order), the intercept, the pool size."""

    weights: np.ndarray
    intercept: float
    pool: int


def load_model(path: Path = WEIGHTS_FILE) -> RerankModel:
    """The re-ranker's weights from `path`; every feature of `NAMES` must be there, in any order."""
    data = json.loads(path.read_text(encoding="utf-8"))
    named = dict(zip(data["features"], data["weights"], strict=True))
    missing = [n for n in NAMES if n not in named]
    if missing or len(named) != len(NAMES):
        raise ValueError(f"{path}: the re-ranker needs exactly the features {', '.join(NAMES)}")
    return RerankModel(np.array([named[n] for n in NAMES], np.float64), float(data["intercept"]), int(data["pool"]))


@cache
def default_model() -> RerankModel:
    """The shipped weights, read once."""
    return load_model()


@dataclass(frozen=True)
class PoolSignals:
    """What the cold-start score computed for one profile over the papers ranked together (each array per paper,
    in the papers' order), as the re-ranker reads it."""

    papers: Sequence[Paper]
    paper_vecs: np.ndarray  # (papers, dim) L2-normalised
    sentence_vecs: Sequence[np.ndarray | None]  # each paper's sentence matrix (title first)
    interest_vecs: np.ndarray  # (interests, dim) the profile's topics' embeddings
    score: np.ndarray  # the cold-start score
    before_feedback: np.ndarray  # ... without the day's feedback term
    expansion: float  # the feedback term's weight
    want: np.ndarray  # soft maximum of the whole-paper cosine over the interests
    near: np.ndarray  # bool: among the papers closest in meaning to the profile
    lexical: np.ndarray  # the phrase and interest word terms (weighted)
    penalty: np.ndarray  # everything the avoids take off (weighted)
    cues: np.ndarray  # theory cues less applied cues (capped, unweighted)
    coverage: Sequence[tuple[np.ndarray, np.ndarray]]  # per interest: (title, title-and-abstract) coverage
    phrase_per_interest: np.ndarray  # (interests, papers) each topic phrase's word term (weighted; 0 if not one)
    temperature: float
    sentence_weight: float
    interest_title: float
    interest_text: float


def soft_max(x: np.ndarray, temperature: float) -> np.ndarray:
    """Log-mean-exp over rows in cosine units: the score's soft maximum of each column, (papers,)."""
    if not len(x):
        return np.zeros(x.shape[1], np.float32)
    expo = np.exp(np.float32(temperature) * (x - np.float32(1.0)))
    return (1.0 + np.log(expo.mean(axis=0)) / np.float32(temperature)).astype(np.float32)


def ranks(score: np.ndarray) -> np.ndarray:
    """1-based rank of each paper by `score`, best first; equal scores share the best of their places, so a rank
    does not depend on the order the papers came in (a day's list and a question's candidates order them apart).
    A NaN score (no evidence) ranks after every number, the NaNs sharing the place after them."""
    scored = ~np.isnan(score)
    ascending = np.sort(score[scored])
    placed = 1 + len(ascending) - np.searchsorted(ascending, score, side="right")
    return np.where(scored, placed, len(ascending) + 1).astype(np.float32)


def _centred(vecs: np.ndarray, centre: np.ndarray) -> np.ndarray:
    out = np.asarray(vecs, dtype=np.float32) - centre
    norms = np.linalg.norm(out, axis=-1, keepdims=True)
    return out / np.where(norms > 1e-12, norms, np.float32(1.0))


def _sentence_features(s: PoolSignals) -> dict[str, np.ndarray]:
    """(interests, papers) each: the best, second-best, title's and best contribution sentence's centred cosine."""
    vecs = np.asarray(s.paper_vecs, np.float32).reshape(len(s.papers), -1)
    matrices = [m if m is not None and len(m) else vecs[i][None, :] for i, m in enumerate(s.sentence_vecs)]
    rows = np.concatenate(matrices).astype(np.float32)
    centre = rows.mean(axis=0)
    sims = _centred(rows, centre) @ _centred(s.interest_vecs, centre).T  # (sentences, interests)
    sizes = np.array([len(m) for m in matrices])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    stating = np.zeros(len(rows), bool)
    for k, paper in enumerate(s.papers):
        stating[starts[k]] = True  # the title says what the paper is
        # the rows are the title and the abstract's sentences, cut at the most a paper keeps (`paper_sentences`)
        sentences = [paper.title, *split_sentences(paper.abstract)]
        if len(sentences) >= sizes[k]:  # else the rows were stored from another reading: the title alone
            for offset, text in enumerate(sentences[1 : sizes[k]], 1):
                stating[starts[k] + offset] = states_contribution(text)
    second = np.empty((len(matrices), sims.shape[1]), np.float32)
    for k, (a, n) in enumerate(zip(starts, sizes, strict=True)):
        block = sims[a : a + n]
        second[k] = np.sort(block, axis=0)[-2] if n > 1 else block[0]
    return {
        "best": np.maximum.reduceat(sims, starts, axis=0).T,
        "second": second.T,
        "title": sims[starts].T,
        "contribution": np.maximum.reduceat(np.where(stating[:, None], sims, -np.inf), starts, axis=0).T,
    }


def _hubness(vecs: np.ndarray, near: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """(pool,) each pool paper's mean cosine to its nearest papers among those unrelated to the profile."""
    far = np.flatnonzero(~near)
    if not len(far):
        return np.zeros(len(pool), np.float32)
    sims = vecs[pool] @ vecs[far].T
    sims[pool[:, None] == far[None, :]] = -np.inf
    k = max(1, min(HUB_NEIGHBOURS, len(far)))
    top = np.partition(sims, sims.shape[1] - k, axis=1)[:, -k:]
    return np.where(np.isfinite(top), top, 0.0).mean(axis=1).astype(np.float32)


def features(s: PoolSignals, pool: np.ndarray) -> np.ndarray:
    """(len(pool), len(NAMES)) the features of the `pool` papers (indices), before standardising."""
    vecs = np.asarray(s.paper_vecs, np.float32).reshape(len(s.papers), -1)
    sent = _sentence_features(s)
    cos = (s.interest_vecs @ vecs.T).astype(np.float32)
    agree = np.full(len(s.papers), 1e9, np.float32)
    breadth = np.zeros(len(s.papers), np.float32)
    cov_title = np.zeros(len(s.papers), np.float32)
    cov_text = np.zeros(len(s.papers), np.float32)
    for i, (title, text) in enumerate(s.coverage):
        dense = cos[i] + np.float32(s.sentence_weight) * sent["best"][i]
        words = np.float32(s.interest_title) * title**2 + np.float32(s.interest_text) * text**2
        words = words + s.phrase_per_interest[i]
        by_meaning, by_words = ranks(dense), ranks(words + 1e-4 * dense)
        agree = np.minimum(agree, np.maximum(by_meaning, by_words))
        breadth += by_meaning <= BREADTH_RANK
        cov_title, cov_text = np.maximum(cov_title, title), np.maximum(cov_text, text)
    columns = {
        "score": s.score,
        "want": s.want,
        "sentence": soft_max(sent["best"], s.temperature),
        "lexical": s.lexical,
        "feedback": (s.score - s.before_feedback) / np.float32(s.expansion or 1.0),
        "penalty": s.penalty,
        "cues": s.cues,
        "cov_title": cov_title,
        "cov_text": cov_text,
        "contribution": soft_max(sent["contribution"], s.temperature),
        "second": soft_max(sent["second"], s.temperature),
        "agree": np.log(agree),
        "breadth": breadth,
        "title_cos": soft_max(sent["title"], s.temperature),
    }
    out = np.empty((len(pool), len(NAMES)), np.float32)
    for k, name in enumerate(NAMES):
        out[:, k] = _hubness(vecs, s.near, pool) if name == "hub" else np.asarray(columns[name])[pool]
    return out


def reranked_order(s: PoolSignals, model: RerankModel) -> np.ndarray:
    """Every paper's index, best first: the `model.pool` best by the score in the model's order, then the rest in
    the score's."""
    order = np.argsort(-s.score, kind="stable")
    pool = order[: model.pool]
    if len(pool) < 2 or not len(s.coverage):
        return order
    x = features(s, pool)
    x = (x - x.mean(axis=0)) / np.maximum(x.std(axis=0), 1e-6)
    decision = x.astype(np.float64) @ model.weights + model.intercept
    return np.concatenate([pool[np.argsort(-decision, kind="stable")], order[len(pool) :]])
