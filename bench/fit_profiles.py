"""Ways of ranking one-line-interest profiles compared by leave-one-set-out over the open labelled profiles (issue 23).

The open sets of labelled profiles (`bench/heldout/profiles.jsonl`, `sealed/`, `sealed2/`, and since the eleventh
session `bench/profiles11a/`, `bench/profiles11b/`: 43 profiles, each
ranked on the four shared days) are the data. Every per-(profile, paper) term of the cold-start score
(`bot.ranking.rank`, as `personal_digest` ranks without feedback) is computed once, per interest where the score
takes a maximum over interests, and kept in a cache file; the score is then rebuilt in memory, so that a weight
setting or another way of combining the terms is measured over all 172 profile-days in well under a second. The
rebuilt default score is checked against `rank_for_profile` (the same top 15 on every profile-day).

A method with a free choice (weights, a constant) is fitted on all sets but one and measured on that one, for
every fold ("leave one set out"); it is worth landing when the mean over the held-out folds rises and
no held-out fold drops by more than 0.01 against the current score. The metric is `bench/heldout_interests.py`'s:
the on-topic share of each profile's top 15 of what exists that day, averaged over days, then over profiles.

    cp -r /tmp/final-i DIR     # a ready profiles store (the shared days with sentence vectors)
    PYTHONPATH=$PWD .venv/bin/python bench/fit_profiles.py --home DIR [--only '(4)']   # ~7 min, one candidate ~20 s

The cache (~30 s to build, 30 MB) is kept in DIR/fit-profiles-cache.pkl; `--rebuild` computes it again (after a
change to the ranker, or the rebuilt score's check fails).

Never pass a sealed set that is not open: the sets read are the ones named in OPEN_SETS.
"""

from __future__ import annotations

import argparse
import asyncio
import pickle
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout_interests import SHARED_DATA, TOP, HeldOutProfile, load_profiles, onboarding_profile

from bot.config import Settings
from bot.core import Core, open_core
from bot.ingest.jsonl import read_jsonl
from bot.ingest.save import store_papers
from bot.models import Paper
from bot.ranking import rank
from bot.ranking.expansion import MIN_EVIDENT, expansion_scores, nearest_share
from bot.ranking.one_line import avoided_scores, coverage
from bot.ranking.rerank import soft_max
from bot.store.sentences import best_sentence_similarity_of

ROOT = Path(__file__).resolve().parents[1]
OPEN_SETS = {
    "development": ROOT / "bench" / "heldout" / "profiles.jsonl",
    "sealed": ROOT / "bench" / "heldout" / "sealed" / "profiles.jsonl",
    "sealed2": ROOT / "bench" / "heldout" / "sealed2" / "profiles.jsonl",
    "profiles11a": ROOT / "bench" / "profiles11a" / "profiles.jsonl",
    "profiles11b": ROOT / "bench" / "profiles11b" / "profiles.jsonl",
}
CACHE = "fit-profiles-cache.pkl"
CACHE_VERSION = 4
ISSUE_PROFILE = HeldOutProfile(
    id="issue23",
    interests=(
        "speculative decoding",
        "KV cache compression",
        "quantization of LLMs (weights and activations, low-bit)",
    ),
    avoid=("medical imaging", "benchmark-only papers"),
    labels={},
    acceptable={},
)
ISSUE_DAY = "2025-05-30"
ISSUE_TITLES = (
    "Information-Computation Gaps in Quantum Learning",
    "AnchorAttention",
    "Model-Preserving Adaptive Rounding",
)


@dataclass
class Case:
    """One profile on one day: every term of its score before weighting, per interest where the score takes a
    maximum over interests (rows in the profile's topic order)."""

    set_name: str
    profile: str
    day: str
    ids: tuple[str, ...]
    relevant: frozenset[str]
    vecs_key: str  # the day, whose paper vectors `Data.vecs` holds
    cos_want: np.ndarray  # (interests, papers) whole-paper cosine
    cos_avoid: np.ndarray  # (avoid keys, papers) whole-paper cosine to the merged avoid direction
    sent_want: np.ndarray  # (interests, papers) best centred sentence cosine
    sent_avoid: np.ndarray  # (avoid phrases, papers)
    far_title: np.ndarray  # (interests, papers) coverage of a paper not close in meaning (partial compounds scaled)
    far_text: np.ndarray
    near_title: np.ndarray  # ... and of one close in meaning
    near_text: np.ndarray
    phrase_title: np.ndarray  # (phrases, papers) weighted share of a short phrase's units in the title
    phrase_text: np.ndarray
    phrase_topic: tuple[int, ...]  # the interest each phrase is
    avoided: np.ndarray  # (papers,) what the avoid phrases name (default weights)
    theory: np.ndarray
    applied: np.ndarray
    default_top: tuple[str, ...]  # rank_for_profile's top 15 with the default weights, for the check
    want_vecs: np.ndarray | None = None  # (interests, dim) the interests' embeddings
    avoid_vecs: np.ndarray | None = None  # (avoid phrases, dim)
    title_want: np.ndarray | None = None  # (interests, papers) centred cosine of the title alone
    sent_second: np.ndarray | None = None  # (interests, papers) the second-best centred sentence cosine


@dataclass
class Data:
    cases: list[Case]
    vecs: dict[str, np.ndarray]
    titles: dict[str, str] = field(default_factory=dict)
    sentences: dict[str, tuple[np.ndarray, np.ndarray]] = field(
        default_factory=dict
    )  # day: (rows, start of each paper)


# ---------------------------------------------------------------- building the cache


def _centred(vecs: np.ndarray, centre: np.ndarray) -> np.ndarray:
    out = np.asarray(vecs, dtype=np.float32) - centre
    norms = np.linalg.norm(out, axis=-1, keepdims=True)
    return out / np.where(norms > 1e-12, norms, np.float32(1.0))


async def day_inputs(
    core: Core, day: date
) -> tuple[list[Paper], np.ndarray, list[np.ndarray], np.ndarray, list[np.ndarray], rank.PaperFeatures]:
    """One stored day as the cases read it: its papers, their vectors, sentence matrices, the day's mean sentence,
    the matrices centred by it, and the day's paper features."""
    papers = await core.repo.papers_between(day, day, None)
    ids = [p.id for p in papers]
    vecs = await core.vectors.vectors(ids)
    found = await core.sentences.matrices(ids)
    matrices = [found[i] for i in ids]
    centre = np.concatenate(matrices).astype(np.float32).mean(axis=0)
    centred = [_centred(m, centre) for m in matrices]
    return papers, vecs, matrices, centre, centred, rank.paper_features(papers)


async def build(home: Path, data_dir: Path) -> Data:
    """Every case's terms, from a ready store at `home` (the shared days ingested with sentence vectors)."""
    papers = read_jsonl(sorted((data_dir / "arxiv").glob("*.jsonl")))
    sets = {name: load_profiles(path) for name, path in OPEN_SETS.items()}
    sets["issue"] = [ISSUE_PROFILE]
    cases: list[Case] = []
    vec_by_day: dict[str, np.ndarray] = {}
    sentence_rows: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    async with open_core(Settings(home=home)) as core:
        await store_papers(core, papers)
        days = sorted({p.announced for p in papers})
        for day in days:
            key = day.isoformat()
            day_papers, vecs, matrices, centre, centred, features = await day_inputs(core, day)
            ids = [p.id for p in day_papers]
            vec_by_day[key] = np.asarray(vecs, dtype=np.float32)
            sentence_rows[key] = (
                np.concatenate(matrices).astype(np.float32),
                np.cumsum([0] + [len(m) for m in matrices[:-1]]).astype(np.int64),
            )
            for set_name, profiles in sets.items():
                if set_name == "issue" and key != ISSUE_DAY:
                    continue
                for item in profiles:
                    profile = onboarding_profile(item, f"console:fit-{item.id}")
                    model = rank.compile_profile(profile, core.embedder.embed)
                    cases.append(
                        _case(set_name, item, key, day_papers, vecs, matrices, centre, centred, features, model)
                    )
            print(f"{key}: {len(ids)} papers", file=sys.stderr)
        titles = {p.id: p.title for p in papers}
    return Data(cases, vec_by_day, titles, sentence_rows)


def _case(
    set_name: str,
    item: HeldOutProfile,
    key: str,
    papers: list[Paper],
    vecs: np.ndarray,
    matrices: list[np.ndarray],
    centre: np.ndarray,
    centred: list[np.ndarray],
    features: rank.PaperFeatures,
    model: rank.ProfileModel,
) -> Case:
    weights = rank.DEFAULT_WEIGHTS
    n = len(papers)
    terms = rank._terms(vecs, features, [model], weights)
    for name in ("boost", "penalize", "applications", "category", "authors"):
        if getattr(terms, name).any():
            raise SystemExit(f"{item.id}: onboarding profiles hold no {name}; the rebuilt score leaves it out")
    topics = len(model.interests)
    cos_want = (model.want_vecs @ vecs.T).astype(np.float32)[:topics]
    cos_avoid = (model.avoid_mix_vecs @ vecs.T).astype(np.float32) if len(model.avoid_keys) else np.zeros((0, n))
    queries = _centred(model.want_vecs, centre)[:topics]
    sent_want = best_sentence_similarity_of(queries, centred).T
    title_want = np.stack([m[0] for m in centred]) @ queries.T
    sent_second = np.array(
        [np.sort(m @ queries.T, axis=0)[-2] if len(m) > 1 else (m @ queries.T)[0] for m in centred], dtype=np.float32
    )
    sent_avoid = (
        best_sentence_similarity_of(_centred(model.avoid_vecs, centre), centred).T
        if len(model.avoid_vecs)
        else np.zeros((0, n), dtype=np.float32)
    )
    far = [
        coverage(features, q, weights.detail_share, weights.compound_parts, np.zeros(n, bool)) for q in model.interests
    ]
    near = [
        coverage(features, q, weights.detail_share, weights.compound_parts, np.ones(n, bool)) for q in model.interests
    ]
    p_title, p_text, p_topic = [], [], []
    for phrase in model.phrases:
        total = sum(u.weight for u in phrase.units)
        title, text = np.zeros(n, np.float32), np.zeros(n, np.float32)
        for unit in phrase.units:
            hit_title, hit_text = features.units.hits(unit)
            title += np.float32(unit.weight / total) * hit_title
            text += np.float32(unit.weight / total) * hit_text
        p_title.append(title)
        p_text.append(text)
        p_topic.append(phrase.topic)
    ranked = rank.rank_for_profile(papers, vecs, model, TOP, features, weights, sentence_vecs=matrices)
    relevant = item.labels.get(key, frozenset()) | item.acceptable.get(key, frozenset())
    stack = lambda rows: np.stack(rows).astype(np.float32) if rows else np.zeros((0, n), np.float32)  # noqa: E731
    return Case(
        set_name=set_name,
        profile=item.id,
        day=key,
        ids=tuple(p.id for p in papers),
        relevant=relevant,
        vecs_key=key,
        cos_want=cos_want,
        cos_avoid=np.asarray(cos_avoid, np.float32),
        sent_want=sent_want.astype(np.float32),
        sent_avoid=sent_avoid.astype(np.float32),
        far_title=stack([c[0] for c in far]),
        far_text=stack([c[1] for c in far]),
        near_title=stack([c[0] for c in near]),
        near_text=stack([c[1] for c in near]),
        phrase_title=stack(p_title),
        phrase_text=stack(p_text),
        phrase_topic=tuple(p_topic),
        avoided=avoided_scores(features, [model], weights)[0],
        theory=terms.theory[0],
        applied=terms.applied[0],
        default_top=tuple(s.paper.id for s in ranked),
        want_vecs=np.asarray(model.want_vecs[:topics], np.float32),
        avoid_vecs=np.asarray(model.avoid_vecs, np.float32),
        title_want=title_want.T.astype(np.float32),
        sent_second=sent_second.T.astype(np.float32),
    )


def load(home: Path, data_dir: Path, rebuild: bool) -> Data:
    """The cache at `home`, built first when absent (or when `rebuild`)."""
    path = home / CACHE
    if path.exists() and not rebuild:
        version, data = pickle.loads(path.read_bytes())
        if version == CACHE_VERSION:
            _DAY_SENTENCES.update(data.sentences)
            return data
    data = asyncio.run(build(home, data_dir))
    path.write_bytes(pickle.dumps((CACHE_VERSION, data)))
    _DAY_SENTENCES.update(data.sentences)
    return data


# ---------------------------------------------------------------- the score rebuilt, and other ways


@dataclass(frozen=True)
class Method:
    """The weights of the score's terms (as `RankWeights`) and the ways of combining them tried here."""

    # the digest's own constants (`RankWeights`) unless a candidate moves them
    temperature: float = rank.DEFAULT_WEIGHTS.temperature
    sentence: float = rank.DEFAULT_WEIGHTS.sentence
    sentence_avoid: float = rank.DEFAULT_WEIGHTS.sentence_avoid
    avoid: float = rank.DEFAULT_WEIGHTS.avoid
    phrase_title: float = rank.DEFAULT_WEIGHTS.phrase_title
    phrase_text: float = rank.DEFAULT_WEIGHTS.phrase_text
    interest_title: float = rank.DEFAULT_WEIGHTS.interest_title
    interest_text: float = rank.DEFAULT_WEIGHTS.interest_text
    avoided: float = 1.0  # a multiplier of the avoid phrases' term
    # the avoids' meaning excess (sentence, whole paper) spared to a paper holding an interest whole and nothing the
    # avoid phrases name (`bot.ranking.rank.named_interest_kept`), as the digest scores
    named_avoids_only: bool = True
    novelty: float = rank.DEFAULT_WEIGHTS.novelty
    expansion: float = rank.DEFAULT_WEIGHTS.expansion
    expansion_papers: int = rank.DEFAULT_WEIGHTS.expansion_papers
    expansion_near: float = rank.DEFAULT_WEIGHTS.expansion_near
    # a compound's part counts whole in the papers closest in meaning to *that* interest (its own `expansion_near`
    # share), not to the profile as a whole; a float < 1 is the share of each interest's nearest papers instead
    near_own: float = 0.0
    dense: float = 1.0  # a multiplier of the whole-paper soft max
    # (2) reciprocal rank fusion of the dense and the lexical rankings, k; 0 = the weighted sum
    rrf_k: float = 0.0
    # (3) the top 15 shared among the interests holding clearly matching papers (xQuAD); 0 = off
    diversify: float = 0.0
    # (4) each interest's dense similarity normalised over the day (robust z-score, back in the pooled cosine
    # units) before the soft max: the share of the normalised similarity mixed in; 0 = off
    zscore: float = 0.0
    # (5) pseudo-relevance feedback per interest: each interest's own evident papers give it a direction, and the
    # soft maximum of the projections replaces the profile's one direction; 0 = off, else the temperature of the max
    per_interest_expansion: float = 0.0
    # (6) each interest's evidence summed before the maximum over interests (a paper close in meaning to one interest
    # and holding another one's words is not both): the share of that joint score mixed in; 0 = off
    joint: float = 0.0
    # (7) the sentence evidence of an interest read from the paper's two best sentences, not its one best: the
    # second's share; 0 = off
    second_sentence: float = 0.0
    # (8) "all but the top": the day's sentences' first principal directions taken out (beside their mean, as now)
    # of sentences and interests before the best-sentence cosine; how many; 0 = off
    sentence_pcs: int = 0
    # (9) an interest's similarity in meaning (whole paper and best sentence) trusted as far as the paper holds the
    # interest's words: lowered by this x (1 - the interest's coverage in title and abstract); 0 = off
    lexical_gate: float = 0.0
    # (10) score regularisation over the day's neighbourhood graph (the cluster hypothesis): each paper's score
    # mixed with the mean score of its `neighbours` nearest papers in meaning, this share; 0 = off
    smooth: float = 0.0
    neighbours: int = 10
    # (13) category feedback: the arXiv categories of the papers an interest matches most confidently that day
    # (the feedback's evident papers) as a distribution smoothed towards the day's; a paper scored by the log ratio
    # of its categories' likelihood under that distribution and the day's; this weight; 0 = off
    category: float = 0.0
    category_prior: float = 3.0  # pseudo-papers of the day's distribution mixed into the evident papers'
    category_per_interest: bool = True  # each paper judged by the interest it is matched to; else one per profile
    category_signed: bool = False  # a fitting paper lifted too; else only a paper far from the distribution damped
    category_primary: bool = False  # a paper's primary category only; else its listed categories alike
    # (13a) the same for the avoid phrases: the categories of the papers an avoid names (its words) that are near it
    # in meaning push a paper down by how much better they explain its categories than the interests' do
    category_avoid: float = 0.0
    # (14) the pseudo-relevance feedback's direction read as Fisher's discriminant: the difference of the evident
    # papers' mean from the day's, through the inverse of the day's covariance (Ledoit-Wolf shrinkage), its
    # projections put back to the spread of the centroid direction's; the share of it in the feedback; 0 = off
    whiten: float = 0.0
    # (15) hubness (CSLS, cross-domain similarity local scaling): each interest's whole-paper similarity lowered by
    # this x the paper's mean cosine to its `hub_k` nearest papers of the day, so a paper close to many papers
    # (a generic one) needs more than its level; 0 = off. `hub_unrelated`: only the day's papers outside the
    # profile's nearest `expansion_near` count as neighbours (the day's unrelated papers as negatives)
    hub: float = 0.0
    hub_k: int = 10
    hub_unrelated: bool = False
    # (16) a paper shown for an interest must be among that interest's `gate_n` best by both meaning (whole paper +
    # sentence) and words (its lexical evidence, > 0): the others lose this much; 0 = off
    gate: float = 0.0
    gate_n: int = 30
    # (17) per-interest quota: no interest (each paper counted for the interest its evidence, standardised over
    # the day, is highest) takes more than this share of the top 15 while other papers are left; 0 = off
    quota: float = 0.0
    # (18) each interest's whole-paper and sentence similarities scaled by the day's upper tail (median to the
    # mean of its 10 best) before the soft max, in pooled cosine units: the share mixed in; 0 = off
    tail: float = 0.0
    # (21) sentence hubness: a sentence's centred cosine to an interest lowered by this x its mean centred cosine to
    # its `sent_hub_k` nearest sentences of other papers that day, before the best sentence is taken; 0 = off
    sent_hub: float = 0.0
    sent_hub_k: int = 10
    # (19) the avoid excess read in units of the day: each avoid's and each interest's similarities (whole paper and
    # best sentence) as robust z-scores over the day's papers, pooled back to cosine units over both, before the
    # excess of the avoids over the interests is taken (an avoid phrase's cosines may sit lower or higher than an
    # interest line's all day long); the share of that excess mixed in; 0 = off
    avoid_z: float = 0.0
    # (23) what the paper says it does: the soft max over interests of the best centred cosine among the title and
    # the abstract sentences stating the contribution (the TL;DR reader's "we propose / show / study" sentences),
    # added with this weight; `contribution_only` replaces the best-sentence term by it instead; 0 = off
    contribution: float = 0.0
    contribution_only: bool = False
    # (24) interleaving: the interests' own rankings (the score with the paper's best interest evidence replaced by
    # that interest's) taken in turn, round-robin; each paper's place there mixed with its place by the score, this
    # share; 0 = off
    interleave: float = 0.0


def _z(x: np.ndarray) -> np.ndarray:
    """Each row as robust z-scores over the day's papers (median, 1.4826 x MAD)."""
    median = np.median(x, axis=1, keepdims=True)
    spread = 1.4826 * np.median(np.abs(x - median), axis=1, keepdims=True)
    return (x - median) / np.maximum(spread, 1e-6)


def _pooled(x: np.ndarray) -> np.ndarray:
    """Each row's robust z-scores over the day, put back in cosine units with the rows' mean median and spread:
    an interest close to every paper of the day (a broad field) no longer outranks a narrow one by its level."""
    median = np.median(x, axis=1, keepdims=True)
    spread = 1.4826 * np.median(np.abs(x - median), axis=1, keepdims=True)
    return (median.mean() + spread.mean() * _z(x)).astype(np.float32)


def _soft(x: np.ndarray, temperature: float) -> np.ndarray:
    """Log-sum-exp over rows at `temperature` less log(rows): a soft maximum in the rows' units."""
    top = x.max(axis=0)
    return (top + np.log(np.exp(temperature * (x - top)).mean(axis=0)) / temperature).astype(np.float32)


def _ranks(score: np.ndarray) -> np.ndarray:
    """1-based rank of each paper by `score`, best first (ties kept in order)."""
    out = np.empty(len(score), np.float32)
    out[np.argsort(-score, kind="stable")] = np.arange(1, len(score) + 1)
    return out


@dataclass
class Parts:
    """A case's score and the pieces the other ways of combining need."""

    score: np.ndarray
    dense_per_interest: np.ndarray  # (interests, papers)
    lexical_per_interest: np.ndarray
    dense: np.ndarray
    lexical: np.ndarray
    penalty: np.ndarray


_DAY_SENTENCES: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # day: the day's sentence rows, start of each paper
_PCS: dict[tuple[str, int], tuple[np.ndarray, ...]] = {}
_WITHOUT_PCS: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def _project(x: np.ndarray, mean: np.ndarray, directions: np.ndarray) -> np.ndarray:
    y = x - mean
    y = y - (y @ directions.T) @ directions
    return y / np.maximum(np.linalg.norm(y, axis=-1, keepdims=True), 1e-12)


def _sentences_without_pcs(case: Case, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(interests, papers) and (avoids, papers) best-sentence cosines with the day's first `count` principal
    directions of its sentences taken out, besides their mean."""
    key = (id(case), count)
    if key not in _WITHOUT_PCS:
        if (case.day, count) not in _PCS:
            rows, starts = _DAY_SENTENCES[case.day]
            mean = rows.mean(axis=0)
            _, vectors = np.linalg.eigh(np.cov((rows - mean).T))
            directions = vectors[:, ::-1][:, :count].T.astype(np.float32)
            _PCS[case.day, count] = (_project(rows, mean, directions), starts, mean, directions)
        projected, starts, mean, directions = _PCS[case.day, count]
        best = lambda q: np.maximum.reduceat(projected @ _project(q, mean, directions).T, starts, axis=0).T  # noqa: E731
        avoid = best(case.avoid_vecs) if len(case.avoid_vecs) else case.sent_avoid
        _WITHOUT_PCS[key] = (best(case.want_vecs).astype(np.float32), np.asarray(avoid, np.float32))
    return _WITHOUT_PCS[key]


_CATEGORIES: dict[str, tuple[str, ...]] = {}  # paper id: its arXiv categories, primary first
_CATEGORY_ROWS: dict[tuple[int, bool], tuple[np.ndarray, np.ndarray]] = {}


def _category_rows(case: Case, primary: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(papers, categories) each paper's categories as a distribution (its listed categories alike, or its primary
    one), and the day's mean of them."""
    key = (id(case), primary)
    if key not in _CATEGORY_ROWS:
        names = sorted({c for i in case.ids for c in _CATEGORIES.get(i, ())})
        column = {c: k for k, c in enumerate(names)}
        rows = np.zeros((len(case.ids), max(1, len(names))), np.float32)
        for j, i in enumerate(case.ids):
            cats = _CATEGORIES.get(i, ())[: 1 if primary else None]
            for c in cats:
                rows[j, column[c]] += 1.0 / len(cats)
        _CATEGORY_ROWS[key] = (rows, rows.mean(axis=0))
    return _CATEGORY_ROWS[key]


def _category_fit(rows: np.ndarray, day: np.ndarray, chosen: np.ndarray, prior: float) -> np.ndarray:
    """(papers,) log of how much likelier each paper's categories are under the `chosen` papers' distribution
    (smoothed with `prior` pseudo-papers of the day's) than under the day's."""
    dist = (rows[chosen].sum(axis=0) + prior * day) / (len(chosen) + prior)
    return np.log(np.maximum(rows @ dist, 1e-9) / np.maximum(rows @ day, 1e-9)).astype(np.float32)


def _top_agreed(score: np.ndarray, agreed: np.ndarray, papers: int) -> np.ndarray | None:
    held = np.flatnonzero(agreed)
    if len(held) < MIN_EVIDENT or len(held) >= len(score):
        return None
    return held[np.argsort(-score[held], kind="stable")[:papers]]


def category_term(
    case: Case, score: np.ndarray, evident_i: np.ndarray, near: np.ndarray, evidence_i: np.ndarray, m: Method
) -> np.ndarray:
    """(papers,) the category feedback before its weight (see `Method.category`)."""
    rows, day = _category_rows(case, m.category_primary)
    fit = np.zeros(len(score), np.float32)
    if m.category_per_interest and len(evident_i):
        fits = []
        for i in range(len(evident_i)):
            chosen = _top_agreed(score, evident_i[i] & near, m.expansion_papers)
            fits.append(None if chosen is None else _category_fit(rows, day, chosen, m.category_prior))
        matched = np.argmax(evidence_i, axis=0)
        for i, f in enumerate(fits):
            if f is not None:
                fit = np.where(matched == i, f, fit)
    elif len(evident_i):
        chosen = _top_agreed(score, evident_i.any(axis=0) & near, m.expansion_papers)
        if chosen is not None:
            fit = _category_fit(rows, day, chosen, m.category_prior)
    return fit if m.category_signed else np.minimum(fit, 0.0)


def category_avoid_term(case: Case, score: np.ndarray, evident: np.ndarray, near: np.ndarray, m: Method) -> np.ndarray:
    """(papers,) >= 0: how much likelier a paper's categories are under those of the papers the avoid phrases name
    (in words, and among the day's nearest to them in meaning) than under the interests' evident papers'."""
    if not len(case.cos_avoid):
        return np.zeros(len(score), np.float32)
    rows, day = _category_rows(case, m.category_primary)
    closeness = soft_max(case.cos_avoid, m.temperature)
    avoid_near = nearest_share(closeness[None], m.expansion_near)[0]
    named = _top_agreed(closeness, (case.avoided > 0) & avoid_near, m.expansion_papers)
    wanted = _top_agreed(score, evident & near, m.expansion_papers)
    if named is None or wanted is None:
        return np.zeros(len(score), np.float32)
    dist_a = (rows[named].sum(axis=0) + m.category_prior * day) / (len(named) + m.category_prior)
    dist_w = (rows[wanted].sum(axis=0) + m.category_prior * day) / (len(wanted) + m.category_prior)
    return np.maximum(np.log(np.maximum(rows @ dist_a, 1e-9) / np.maximum(rows @ dist_w, 1e-9)), 0.0).astype(np.float32)


_PRECISION: dict[int, np.ndarray] = {}


def whitened_feedback(score: np.ndarray, vecs: np.ndarray, papers: int, agreed: np.ndarray) -> np.ndarray | None:
    """(papers,) each paper's projection on Fisher's discriminant between the best `agreed` papers and the day
    (see `Method.whiten`), at the spread of its projection on the centroid direction; None without evidence."""
    chosen = _top_agreed(score, agreed, papers)
    if chosen is None:
        return None
    key = id(vecs)
    if key not in _PRECISION:
        from sklearn.covariance import LedoitWolf

        _PRECISION[key] = np.linalg.inv(LedoitWolf().fit(vecs).covariance_).astype(np.float32)
    direction = vecs[chosen].mean(axis=0) - vecs.mean(axis=0)
    centroid = vecs @ direction
    fisher = vecs @ (_PRECISION[key] @ direction)
    return (fisher * (centroid.std() / max(float(fisher.std()), 1e-12))).astype(np.float32)


_HUB: dict[tuple[int, int], np.ndarray] = {}
_HUB_UNRELATED: dict[tuple[str, str, str, int, float], np.ndarray] = {}
_SENT_HUB: dict[tuple[str, int], tuple[np.ndarray, ...]] = {}
_SENT_HUB_CASE: dict[tuple[str, str, str, int, float], tuple[np.ndarray, np.ndarray]] = {}


def _top_mean(sims: np.ndarray, k: int) -> np.ndarray:
    k = max(1, min(k, sims.shape[1]))
    return np.partition(sims, sims.shape[1] - k, axis=1)[:, -k:].mean(axis=1).astype(np.float32)


def paper_hubness(case: Case, vecs: np.ndarray, m: Method) -> np.ndarray:
    """(papers,) each paper's mean cosine to its `hub_k` nearest papers of the day (all, or those unrelated to the
    profile: outside its nearest `expansion_near` by the whole-paper soft max)."""
    if not m.hub_unrelated:
        key = (id(vecs), m.hub_k)
        if key not in _HUB:
            sims = vecs @ vecs.T
            np.fill_diagonal(sims, -np.inf)
            _HUB[key] = _top_mean(sims, m.hub_k)
        return _HUB[key]
    key2 = (case.set_name, case.profile, case.day, m.hub_k, m.expansion_near)
    if key2 not in _HUB_UNRELATED:
        want = soft_max(case.cos_want, m.temperature)
        far = ~nearest_share(want[None], m.expansion_near)[0]
        sims = vecs @ vecs[far].T
        sims[np.flatnonzero(far), np.arange(int(far.sum()))] = -np.inf
        _HUB_UNRELATED[key2] = _top_mean(sims, m.hub_k)
    return _HUB_UNRELATED[key2]


def _sentence_hubs(day: str, k: int) -> tuple[np.ndarray, ...]:
    """The day's centred sentence rows, where each paper's starts, each sentence's mean centred cosine to its `k`
    nearest sentences of other papers, and the centre."""
    if (day, k) not in _SENT_HUB:
        rows, starts = _DAY_SENTENCES[day]
        centre = rows.mean(axis=0)
        centred = _centred(rows, centre)
        owner = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(rows))))
        hubs = np.empty(len(rows), np.float32)
        for a in range(0, len(rows), 1024):
            block = centred[a : a + 1024] @ centred.T
            block[owner[a : a + 1024, None] == owner[None, :]] = -np.inf
            hubs[a : a + 1024] = _top_mean(block, k)
        _SENT_HUB[day, k] = (centred, starts, hubs, centre)
    return _SENT_HUB[day, k]


def sentences_without_hubs(case: Case, m: Method) -> tuple[np.ndarray, np.ndarray]:
    """(interests, papers) and (avoids, papers) best-sentence cosines with each sentence lowered by its hubness."""
    key = (case.set_name, case.profile, case.day, m.sent_hub_k, m.sent_hub)
    if key not in _SENT_HUB_CASE:
        centred, starts, hubs, centre = _sentence_hubs(case.day, m.sent_hub_k)
        lowered = np.float32(m.sent_hub) * hubs[:, None]
        best = lambda q: np.maximum.reduceat(centred @ _centred(q, centre).T - lowered, starts, axis=0).T  # noqa: E731
        avoid = best(case.avoid_vecs) if len(case.avoid_vecs) else case.sent_avoid
        _SENT_HUB_CASE[key] = (best(case.want_vecs).astype(np.float32), np.asarray(avoid, np.float32))
    return _SENT_HUB_CASE[key]


_ROLE_ROWS: dict[str, np.ndarray] = {}  # day: which sentence rows are the title or state the contribution
_CONTRIBUTION: dict[tuple[str, str, str], np.ndarray] = {}


def role_rows(papers: list[Paper], cases: list[Case]) -> None:
    """Mark, for each day, the sentence rows that are a title or an abstract sentence stating the contribution (the
    TL;DR reader's patterns for who states a contribution and how, background excluded)."""
    from bot.ingest.vectors import paper_sentences
    from bot.text.extractive import _BACKGROUND, _BUILD, _FIND, _STUDY

    by_id = {p.id: p for p in papers}
    for day, (rows, starts) in _DAY_SENTENCES.items():
        case = next(c for c in cases if c.day == day)
        mask = np.zeros(len(rows), bool)
        ends = np.append(starts[1:], len(rows))
        for k, pid in enumerate(case.ids):
            sentences = paper_sentences(by_id[pid])
            if len(sentences) != ends[k] - starts[k]:
                raise SystemExit(f"{pid}: {len(sentences)} sentences, {ends[k] - starts[k]} rows")
            mask[starts[k]] = True
            for offset, text in enumerate(sentences[1:], 1):
                stating = _BUILD.search(text) or _FIND.search(text) or _STUDY.search(text)
                if stating and not _BACKGROUND.search(text):
                    mask[starts[k] + offset] = True
        _ROLE_ROWS[day] = mask


def contribution_similarity(case: Case) -> np.ndarray:
    """(interests, papers) the best centred cosine among each paper's title and contribution sentences."""
    key = (case.set_name, case.profile, case.day)
    if key not in _CONTRIBUTION:
        centred, starts, _, centre = _sentence_hubs(case.day, 5)
        sims = centred @ _centred(case.want_vecs, centre).T
        sims[~_ROLE_ROWS[case.day]] = -np.inf
        _CONTRIBUTION[key] = np.maximum.reduceat(sims, starts, axis=0).T.astype(np.float32)
    return _CONTRIBUTION[key]


def _tail(x: np.ndarray) -> np.ndarray:
    """Each row from its day's median (0) to the mean of its 10 best (1), back in the rows' pooled units."""
    median = np.median(x, axis=1, keepdims=True)
    top = np.sort(x, axis=1)[:, -10:].mean(axis=1, keepdims=True)
    spread = np.maximum(top - median, 1e-6)
    return (median.mean() + spread.mean() * (x - median) / spread).astype(np.float32)


def parts(case: Case, vecs: np.ndarray, m: Method) -> Parts:
    """The case's score under `m` (with the default `Method`, the digest's own cold-start score)."""
    if m.hub:
        case = replace(case, cos_want=(case.cos_want - np.float32(m.hub) * paper_hubness(case, vecs, m)[None]))
    if m.sent_hub:
        sent_want, sent_avoid = sentences_without_hubs(case, m)
        case = replace(case, sent_want=sent_want, sent_avoid=sent_avoid)
    if m.tail:
        case = replace(
            case,
            cos_want=((1 - m.tail) * case.cos_want + m.tail * _tail(case.cos_want)).astype(np.float32),
            sent_want=((1 - m.tail) * case.sent_want + m.tail * _tail(case.sent_want)).astype(np.float32),
        )
    if m.sentence_pcs:
        sent_want, sent_avoid = _sentences_without_pcs(case, m.sentence_pcs)
        case = replace(case, sent_want=sent_want, sent_avoid=sent_avoid)
    want = soft_max(case.cos_want, m.temperature)
    near = nearest_share(want[None], m.expansion_near)[0]
    meant = nearest_share(case.cos_want, m.near_own) if m.near_own else near
    cov_title = np.where(meant, case.near_title, case.far_title)
    cov_text = np.where(meant, case.near_text, case.far_text)
    lexical_i = np.float32(m.interest_title) * cov_title**2 + np.float32(m.interest_text) * cov_text**2
    interest = lexical_i.max(axis=0) if len(lexical_i) else np.zeros(len(case.ids), np.float32)
    phrase_i = np.float32(m.phrase_title) * case.phrase_title**2 + np.float32(m.phrase_text) * case.phrase_text**2
    phrase = phrase_i.max(axis=0) if len(phrase_i) else np.zeros(len(case.ids), np.float32)
    sentence = soft_max(case.sent_want, m.temperature)
    sent_i = case.sent_want
    if m.second_sentence and case.sent_second is not None:
        sent_i = (1.0 - m.second_sentence) * case.sent_want + m.second_sentence * case.sent_second
    cos_i = case.cos_want
    if m.lexical_gate:
        gate = np.float32(m.lexical_gate) * (1.0 - cov_text)
        cos_i, sent_i = (cos_i - gate).astype(np.float32), (sent_i - gate).astype(np.float32)
        want_gated = soft_max(cos_i, m.temperature)
    held_sentence = soft_max(sent_i, m.temperature)
    if m.contribution:
        stated = soft_max(contribution_similarity(case), m.temperature)
        held_sentence = (
            stated if m.contribution_only else held_sentence + np.float32(m.contribution / m.sentence) * stated
        )
    dense_i = m.dense * cos_i + m.sentence * sent_i
    if m.zscore:
        normalised = _pooled(case.cos_want) * m.dense + _pooled(case.sent_want) * m.sentence
        dense_i = (1.0 - m.zscore) * dense_i + m.zscore * normalised
        want_term = (1.0 - m.zscore) * (m.dense * want + m.sentence * sentence) + m.zscore * (
            m.dense * soft_max(_pooled(case.cos_want), m.temperature)
            + m.sentence * soft_max(_pooled(case.sent_want), m.temperature)
        )
    else:
        want_term = m.dense * (want_gated if m.lexical_gate else want) + m.sentence * held_sentence
    penalty = np.zeros(len(case.ids), np.float32)
    if len(case.sent_avoid) and m.sentence_avoid:
        penalty += m.sentence_avoid * np.maximum(soft_max(case.sent_avoid, m.temperature) - sentence, 0.0)
    if len(case.cos_avoid):
        penalty += m.avoid * np.maximum(soft_max(case.cos_avoid, m.temperature) - want, 0.0)
    if m.named_avoids_only:  # as `rank.named_interest_kept`: no meaning excess on a paper holding an interest whole
        penalty[(interest >= np.float32(m.interest_text) - 1e-6) & (case.avoided <= 0.0)] = 0.0
    if m.avoid_z and len(case.sent_avoid):
        day_units = np.float32(0.0)
        for avoid_rows, want_rows, weight in (
            (case.sent_avoid, case.sent_want, m.sentence_avoid),
            (case.cos_avoid, case.cos_want, m.avoid),
        ):
            pooled = _pooled(np.concatenate([want_rows, avoid_rows]))
            wanted, avoided = pooled[: len(want_rows)], pooled[len(want_rows) :]
            excess = np.maximum(soft_max(avoided, m.temperature) - soft_max(wanted, m.temperature), 0.0)
            raw = np.maximum(soft_max(avoid_rows, m.temperature) - soft_max(want_rows, m.temperature), 0.0)
            day_units = day_units + np.float32(weight) * (excess - raw)
        penalty = (penalty + np.float32(m.avoid_z) * day_units).astype(np.float32)
    penalty += m.avoided * case.avoided
    cues = m.novelty * (case.theory - case.applied)
    lexical = phrase + interest
    if m.rrf_k:  # the lexical ranking's ties (most papers hold none of the words) broken by meaning
        fused = 1.0 / (m.rrf_k + _ranks(want_term)) + 1.0 / (m.rrf_k + _ranks(lexical + 1e-3 * want_term))
        score = (fused * m.rrf_k / 2.0).astype(np.float32) - penalty + cues  # 1.0 for a paper first in both
    else:
        score = (want_term + lexical - penalty + cues).astype(np.float32)
    if m.joint:
        phrase_of = np.zeros_like(lexical_i)
        for row, topic in enumerate(case.phrase_topic):
            phrase_of[topic] = np.maximum(phrase_of[topic], phrase_i[row])
        together = _soft(dense_i + lexical_i + phrase_of, m.temperature)
        score = (score + m.joint * (together - want_term - lexical)).astype(np.float32)
    if m.expansion and m.per_interest_expansion:
        evident_i = lexical_i >= np.float32(m.interest_text) - 1e-6
        feedback = expansion_scores(
            np.repeat(score[None], len(lexical_i), 0), vecs, m.expansion_papers, evident_i, near[None]
        )
        held = np.abs(feedback).sum(axis=1) > 0
        if held.any():
            score = score + np.float32(m.expansion) * _soft(feedback[held], m.per_interest_expansion)
    elif m.expansion:
        evident = interest >= np.float32(m.interest_text) - 1e-6
        before = score
        feedback = expansion_scores(score[None], vecs, m.expansion_papers, evident[None], near[None])[0]
        if m.whiten:
            fisher = whitened_feedback(score, vecs, m.expansion_papers, evident & near)
            if fisher is not None:
                feedback = (1.0 - m.whiten) * feedback + m.whiten * fisher
        score = score + np.float32(m.expansion) * feedback
        if m.category:
            evident_i = lexical_i >= np.float32(m.interest_text) - 1e-6
            score = score + np.float32(m.category) * category_term(
                case, before, evident_i, near, dense_i + lexical_i, m
            )
        if m.category_avoid:
            score = score - np.float32(m.category_avoid) * category_avoid_term(case, before, evident, near, m)
    phrase_per_topic = np.zeros_like(lexical_i)
    for row, topic in enumerate(case.phrase_topic):
        phrase_per_topic[topic] = np.maximum(phrase_per_topic[topic], phrase_i[row])
    return Parts(score, dense_i, lexical_i + phrase_per_topic, want_term, lexical, penalty)


_NEIGHBOURS: dict[tuple[int, int], np.ndarray] = {}


def _neighbours(vecs: np.ndarray, count: int) -> np.ndarray:
    """(papers, count) indices of each paper's nearest other papers of the day by cosine."""
    key = (id(vecs), count)
    if key not in _NEIGHBOURS:
        sims = vecs @ vecs.T
        np.fill_diagonal(sims, -np.inf)
        _NEIGHBOURS[key] = np.argsort(-sims, axis=1, kind="stable")[:, :count]
    return _NEIGHBOURS[key]


def ranking(case: Case, vecs: np.ndarray, m: Method) -> np.ndarray:
    """Paper indices best first under `m` (the top 15 greedily shared among interests when `m.diversify`)."""
    p = parts(case, vecs, m)
    if m.smooth:
        around = p.score[_neighbours(vecs, m.neighbours)].mean(axis=1)
        p = replace(p, score=((1.0 - m.smooth) * p.score + m.smooth * around).astype(np.float32))
    if m.gate:
        p = replace(p, score=p.score - np.float32(m.gate) * ~_both_agree(p, m.gate_n))
    order = np.argsort(-p.score, kind="stable")
    if m.quota and len(case.cos_want) >= 2:
        return _quota(p, order, m.quota)
    if m.interleave and len(case.cos_want) >= 2:
        return _interleaved(p, order, m.interleave)
    if not m.diversify or len(case.cos_want) < 2:
        return order
    return _xquad(p, order, m.diversify, m.interest_text)


def _interleaved(p: Parts, order: np.ndarray, share: float) -> np.ndarray:
    """Each paper's place in a round-robin of the interests' own rankings, mixed (`share`) with its place in
    `order`; best first."""
    evidence = p.dense_per_interest + p.lexical_per_interest
    own = [np.argsort(-(p.score - evidence.max(axis=0) + row), kind="stable") for row in evidence]
    place = np.empty(len(order), np.float32)
    taken = np.zeros(len(order), bool)
    cursor, n = [0] * len(own), 0
    while n < len(order):
        for k, ranking_k in enumerate(own):
            while cursor[k] < len(ranking_k) and taken[ranking_k[cursor[k]]]:
                cursor[k] += 1
            if cursor[k] < len(ranking_k):
                j = ranking_k[cursor[k]]
                taken[j], place[j] = True, n
                n += 1
    by_score = np.empty(len(order), np.float32)
    by_score[order] = np.arange(len(order))
    mixed = (1.0 - share) * by_score + share * place
    return np.argsort(mixed, kind="stable")


def _both_agree(p: Parts, n: int) -> np.ndarray:
    """(papers,) bool: among some interest's `n` best by meaning and its `n` best by words (holding any)."""
    ok = np.zeros(p.score.shape, bool)
    for dense, lexical in zip(p.dense_per_interest, p.lexical_per_interest, strict=True):
        dense_rank = _ranks(dense)
        lexical_rank = _ranks(lexical + 1e-4 * dense)
        ok |= (dense_rank <= n) & (lexical_rank <= n) & (lexical > 0)
    return ok


def _quota(p: Parts, order: np.ndarray, share: float, pool: int = 100) -> np.ndarray:
    """The top 15 taken in score order, each interest (by its highest standardised evidence) at most `share` of
    it while papers of other interests are left in the first `pool`; the skipped papers follow."""
    cap = max(1, int(np.ceil(share * TOP)))
    owner = np.argmax(_z(p.dense_per_interest + p.lexical_per_interest), axis=0)
    taken, skipped, count = [], [], np.zeros(len(p.dense_per_interest), int)
    for j in order[:pool]:
        if len(taken) == TOP:
            break
        if count[owner[j]] < cap:
            taken.append(j)
            count[owner[j]] += 1
        else:
            skipped.append(j)
    head = taken + skipped[: TOP - len(taken)]
    chosen = set(int(j) for j in head)
    return np.concatenate(
        [np.array(head, dtype=order.dtype), np.array([j for j in order if j not in chosen], dtype=order.dtype)]
    )


XQUAD_SHARE = 1.0 / 5.0  # how much of an interest one paper matching it fully covers: five papers about cover it


def _xquad(p: Parts, order: np.ndarray, strength: float, interest_text: float, pool: int = 60) -> np.ndarray:
    """xQuAD over the `pool` best papers: each next paper maximises (1 - s) x its score + s x the sum over the
    interests of P(interest) P(paper | interest) x what the papers already chosen leave of that interest, both
    read 0-1 within the pool. Only interests with clearly matching papers that day count (at least two papers of
    the pool hold the whole interest in words), so an interest matched loosely by everything cannot claim a share."""
    head = order[:pool]
    evidence = p.dense_per_interest[:, head] + p.lexical_per_interest[:, head]
    clear = (p.lexical_per_interest[:, head] >= np.float32(interest_text) - 1e-6).sum(axis=1) >= 2
    if clear.sum() < 2:
        return order
    low, high = evidence.min(axis=1, keepdims=True), evidence.max(axis=1, keepdims=True)
    likelihood = (evidence - low) / np.maximum(high - low, 1e-6) * clear[:, None]
    prior = clear / clear.sum()
    score = p.score[head]
    score = (score - score.min()) / max(float(score.max() - score.min()), 1e-6)
    left_of = np.ones(len(evidence), np.float32)
    chosen: list[int] = []
    free = np.ones(len(head), bool)
    for _ in range(min(TOP, len(head))):
        gain = (1 - strength) * score + strength * ((prior * left_of)[:, None] * likelihood).sum(axis=0)
        best = int(np.argmax(np.where(free, gain, -np.inf)))
        free[best] = False
        chosen.append(best)
        left_of *= 1.0 - XQUAD_SHARE * likelihood[:, best]
    picked = head[chosen]
    taken = set(picked.tolist())
    return np.concatenate([picked, np.array([j for j in order if j not in taken], dtype=order.dtype)])


# ---------------------------------------------------------------- measuring


def on_topic(case: Case, order: np.ndarray) -> float:
    """On-topic share of the top 15 of what exists that day (as `bench/heldout_interests.py`)."""
    if not case.relevant:
        return 1.0
    top = {case.ids[j] for j in order[:TOP]}
    return len(top & case.relevant) / min(TOP, len(case.relevant))


def per_profile(data: Data, m: Method, sets: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """{set: {profile: mean on-topic over its days}}."""
    values: dict[str, dict[str, list[float]]] = {s: {} for s in sets}
    for case in data.cases:
        if case.set_name in sets:
            order = ranking(case, data.vecs[case.vecs_key], m)
            values[case.set_name].setdefault(case.profile, []).append(on_topic(case, order))
    return {s: {p: float(np.mean(v)) for p, v in profiles.items()} for s, profiles in values.items()}


def set_means(data: Data, m: Method, sets: tuple[str, ...]) -> dict[str, tuple[float, float]]:
    """{set: (mean over profiles, min)}."""
    return {s: (float(np.mean(list(v.values()))), min(v.values())) for s, v in per_profile(data, m, sets).items()}


def objective(data: Data, m: Method, sets: tuple[str, ...]) -> float:
    """What a fit maximises on its sets: the mean over their profiles, plus a little of the weakest."""
    scores = [v for profiles in per_profile(data, m, sets).values() for v in profiles.values()]
    return float(np.mean(scores) + 0.1 * min(scores))


def coordinate_search(
    data: Data, start: Method, grid: dict[str, tuple[float, ...]], sets: tuple[str, ...], rounds: int = 2
) -> Method:
    """Each free constant in turn set to its best grid value on `sets`, keeping the others; `rounds` passes."""
    best, best_value = start, objective(data, start, sets)
    for _ in range(rounds):
        moved = False
        for name, values in grid.items():
            for value in values:
                trial = replace(best, **{name: value})
                score = objective(data, trial, sets)
                if score > best_value + 1e-9:
                    best, best_value, moved = trial, score, True
        if not moved:
            break
    return best


def check(data: Data) -> None:
    """The rebuilt default score must give `rank_for_profile`'s top 15 on every profile-day."""
    differ = []
    for case in data.cases:
        top = tuple(case.ids[j] for j in ranking(case, data.vecs[case.vecs_key], Method())[:TOP])
        if set(top) != set(case.default_top):
            differ.append(f"{case.profile} {case.day}")
    print(
        f"check: rebuilt default score = rank_for_profile's top {TOP} on {len(data.cases) - len(differ)} of "
        f"{len(data.cases)} profile-days" + (f" (differs: {', '.join(differ)})" if differ else "")
    )


SETS = tuple(OPEN_SETS)


def folds(data: Data, name: str, fit: Callable[[tuple[str, ...]], Method]) -> None:
    """Leave one set out: fit on two sets, measure on the third; print the folds against the current score, with
    what the fit gained on its own two sets and how many held-out profiles rose and fell."""
    base = set_means(data, Method(), SETS)
    base_profiles = per_profile(data, Method(), SETS)
    held, deltas = [], []
    for out in SETS:
        train = tuple(s for s in SETS if s != out)
        fitted = fit(train)
        mean, low = set_means(data, fitted, (out,))[out]
        held.append(mean)
        deltas.append(mean - base[out][0])
        fitted_train = set_means(data, fitted, train)
        gain = np.mean([fitted_train[s][0] - base[s][0] for s in train])
        moved = [v - base_profiles[out][p] for p, v in per_profile(data, fitted, (out,))[out].items()]
        up, down = sum(1 for d in moved if d > 1e-9), sum(1 for d in moved if d < -1e-9)
        changed = {k: v for k, v in fitted.__dict__.items() if v != getattr(Method(), k)}
        print(
            f"  held out {out:<11} {base[out][0]:.3f} (min {base[out][1]:.3f}) -> {mean:.3f} (min {low:.3f}), "
            f"{up} profiles up, {down} down; on its two sets {gain:+.3f}; fitted: {changed or 'the current score'}"
        )
    verdict = "passes" if np.mean(deltas) > 0 and min(deltas) >= -0.01 else "fails"
    print(
        f"  held-out mean {np.mean([base[s][0] for s in SETS]):.3f} -> {np.mean(held):.3f} (change "
        f"{np.mean(deltas):+.3f}, worst fold {min(deltas):+.3f}): {verdict} the landing rule"
    )


# ---------------------------------------------------------------- (1c) a linear model of the terms


LINEAR_POOL = 400  # the best papers of each profile-day by the current score that a linear fit learns from
LINEAR_C = (0.1, 1.0, 10.0, 100.0)  # inverse regularisation strengths, chosen by the inner fold


def _linear_rows(data: Data, case: Case) -> tuple[np.ndarray, np.ndarray]:
    """(features, current score) of one case: the terms a weight multiplies, each as the score adds it."""
    vecs = data.vecs[case.vecs_key]
    base = Method()
    p = parts(case, vecs, base)
    bare = parts(case, vecs, replace(base, expansion=0.0))
    feedback = (p.score - bare.score) / base.expansion
    want = soft_max(case.cos_want, base.temperature)
    sentence = soft_max(case.sent_want, base.temperature)
    columns = [want, sentence, p.lexical, feedback, -p.penalty, case.theory - case.applied]
    return np.stack(columns, axis=1), p.score


def fit_linear(data: Data, train: tuple[str, ...], c: float) -> Method:
    """Logistic regression of on-topic on the score's terms over `train`, read back as weights of the score: the
    lexical terms' weights kept (its coefficient is the unit), the whole-paper and sentence similarities, the
    pseudo-relevance feedback, the avoid penalties (all three scaled together) and the cues set from the rest."""
    from sklearn.linear_model import LogisticRegression

    rows, labels = [], []
    for case in data.cases:
        if case.set_name in train:
            features, score = _linear_rows(data, case)
            top = np.argsort(-score, kind="stable")[:LINEAR_POOL]
            rows.append(features[top])
            labels += [case.ids[j] in case.relevant for j in top]
    model = LogisticRegression(C=c, max_iter=5000).fit(np.concatenate(rows), np.array(labels))
    want, sentence, lexical, feedback, penalty, cues = (float(x) for x in model.coef_[0])
    base = Method()
    unit = max(lexical, 1e-6)
    scale = max(penalty / unit, 0.0)
    return replace(
        base,
        dense=round(want / unit, 2),
        sentence=round(sentence / unit, 2),
        expansion=round(max(feedback / unit, 0.0), 2),
        sentence_avoid=round(base.sentence_avoid * scale, 2),
        avoid=round(base.avoid * scale, 2),
        avoided=round(base.avoided * scale, 2),
        novelty=round(max(cues / unit, 0.0), 3),
    )


def fit_linear_nested(data: Data, train: tuple[str, ...]) -> Method:
    """`fit_linear` with its regularisation chosen on `train` alone, by leaving each of its sets out in turn."""
    best_c, best = LINEAR_C[0], -1.0
    inner = [(tuple(s for s in train if s != out), out) for out in train]
    for c in LINEAR_C:
        value = float(np.mean([set_means(data, fit_linear(data, rest, c), (out,))[out][0] for rest, out in inner]))
        if value > best:
            best_c, best = c, value
    return fit_linear(data, train, best_c)


# ---------------------------------------------------------------- the candidates

WEIGHT_GRID: dict[str, tuple[float, ...]] = {
    "sentence": (0.0, 0.25, 0.5, 0.75, 1.0, 1.5),
    "sentence_avoid": (0.0, 0.5, 1.0, 2.0),
    "avoid": (0.0, 0.15, 0.3, 0.6),
    "phrase_title": (0.0, 0.15, 0.3, 0.5),
    "phrase_text": (0.0, 0.05, 0.1, 0.2),
    "interest_title": (0.0, 0.1, 0.2, 0.3, 0.4),
    "interest_text": (0.1, 0.2, 0.3, 0.4),
    "avoided": (0.5, 1.0, 2.0),
    "novelty": (0.0, 0.025, 0.05),
    "expansion": (0.0, 0.3, 0.6, 0.9, 1.2),
    "expansion_papers": (5, 10, 15, 20),
    "expansion_near": (0.1, 0.2, 0.3),
    "temperature": (5.0, 10.0, 20.0),
    "dense": (0.5, 1.0, 1.5),
}
CATEGORY_GRID = (0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2)
BALANCE_GRID = {k: WEIGHT_GRID[k] for k in ("dense", "sentence", "expansion")}
CANDIDATES: dict[str, Callable[[Data, tuple[str, ...]], Method]] = {
    "(1a) every weight, coordinate search": lambda d, t: coordinate_search(d, Method(), WEIGHT_GRID, t),
    "(1b) whole-paper / sentence / feedback balance, coordinate search": (
        lambda d, t: coordinate_search(d, Method(), BALANCE_GRID, t)
    ),
    "(1c) weights from a logistic regression of the terms (C by inner fold)": fit_linear_nested,
    "(2) reciprocal rank fusion of dense and lexical rankings (k fitted)": (
        lambda d, t: coordinate_search(d, Method(rrf_k=60.0), {"rrf_k": (5.0, 10.0, 20.0, 60.0, 100.0)}, t)
    ),
    "(3) xQuAD over the interests with clear matches (strength fitted)": (
        lambda d, t: coordinate_search(d, Method(diversify=0.3), {"diversify": (0.1, 0.2, 0.3, 0.5, 0.7)}, t)
    ),
    "(4) per-interest normalisation over the day (share fitted)": (
        lambda d, t: coordinate_search(d, Method(zscore=0.5), {"zscore": (0.25, 0.5, 0.75, 1.0)}, t)
    ),
    "(5) pseudo-relevance feedback per interest (soft max temperature fitted)": (
        lambda d, t: coordinate_search(
            d, Method(per_interest_expansion=10.0), {"per_interest_expansion": (3.0, 10.0, 30.0, 100.0)}, t
        )
    ),
    "(6) each interest's evidence summed before the max over interests (share fitted)": (
        lambda d, t: coordinate_search(d, Method(joint=0.5), {"joint": (0.25, 0.5, 0.75, 1.0)}, t)
    ),
    "(7) an interest's two best sentences, not its best (second's share fitted)": (
        lambda d, t: coordinate_search(d, Method(second_sentence=0.25), {"second_sentence": (0.25, 0.5, 0.75)}, t)
    ),
    "(8) sentences without the day's first principal directions (how many fitted)": (
        lambda d, t: coordinate_search(d, Method(sentence_pcs=1), {"sentence_pcs": (1, 2, 3, 5, 10)}, t)
    ),
    "(9) similarity in meaning lowered where the interest's words are missing (strength fitted)": (
        lambda d, t: coordinate_search(d, Method(lexical_gate=0.05), {"lexical_gate": (0.03, 0.05, 0.1, 0.2)}, t)
    ),
    "(10) scores smoothed over the day's nearest papers in meaning (share and neighbours fitted)": (
        lambda d, t: coordinate_search(d, Method(smooth=0.1), {"smooth": (0.1, 0.2, 0.3), "neighbours": (5, 10, 20)}, t)
    ),
    "(13) category feedback per interest, far papers damped (weight fitted)": (
        lambda d, t: coordinate_search(d, Method(category=0.05), {"category": CATEGORY_GRID}, t)
    ),
    "(13p) category feedback per profile, far papers damped (weight fitted)": (
        lambda d, t: coordinate_search(
            d, Method(category=0.05, category_per_interest=False), {"category": CATEGORY_GRID}, t
        )
    ),
    "(13s) category feedback per interest, signed (weight fitted)": (
        lambda d, t: coordinate_search(d, Method(category=0.05, category_signed=True), {"category": CATEGORY_GRID}, t)
    ),
    "(13r) category feedback per interest, primary categories only, far papers damped (weight fitted)": (
        lambda d, t: coordinate_search(d, Method(category=0.05, category_primary=True), {"category": CATEGORY_GRID}, t)
    ),
    "(14) the feedback's direction as Fisher's discriminant over the day (share fitted)": (
        lambda d, t: coordinate_search(d, Method(whiten=1.0), {"whiten": (0.25, 0.5, 0.75, 1.0)}, t)
    ),
    "(15) hubness: similarity less the paper's closeness to its nearest papers of the day (CSLS; strength, k fitted)": (
        lambda d, t: coordinate_search(d, Method(hub=0.1), {"hub": (0.05, 0.1, 0.2, 0.3, 0.5), "hub_k": (5, 10, 30)}, t)
    ),
    "(15u) hubness against the day's papers unrelated to the profile (strength, k fitted)": (
        lambda d, t: coordinate_search(
            d, Method(hub=0.1, hub_unrelated=True), {"hub": (0.05, 0.1, 0.2, 0.3, 0.5), "hub_k": (5, 10, 30)}, t
        )
    ),
    "(16) shown only when among an interest's best by both meaning and words (penalty, n fitted)": (
        lambda d, t: coordinate_search(
            d, Method(gate=0.05), {"gate": (0.02, 0.05, 0.1, 0.2, 1.0), "gate_n": (15, 30, 60, 100)}, t
        )
    ),
    "(17) per-interest quota of the top 15 (share fitted)": (
        lambda d, t: coordinate_search(d, Method(quota=0.6), {"quota": (0.4, 0.5, 0.6, 0.7, 0.8)}, t)
    ),
    "(18) each interest's similarities scaled by its day's upper tail before the soft max (share fitted)": (
        lambda d, t: coordinate_search(d, Method(tail=0.5), {"tail": (0.25, 0.5, 0.75, 1.0)}, t)
    ),
    "(21) sentence hubness: a sentence close to many other papers' sentences counts less (strength, k fitted)": (
        lambda d, t: coordinate_search(
            d, Method(sent_hub=0.2), {"sent_hub": (0.1, 0.2, 0.3, 0.5, 0.8), "sent_hub_k": (5, 10, 30)}, t
        )
    ),
    "(19) the avoid excess in units of the day (share fitted)": (
        lambda d, t: coordinate_search(d, Method(avoid_z=0.5), {"avoid_z": (0.25, 0.5, 0.75, 1.0, 1.5)}, t)
    ),
    "(22) (15u), (17), (18) and (21) together (every constant fitted)": (
        lambda d, t: coordinate_search(
            d,
            Method(hub_unrelated=True),
            {
                "hub": (0.0, 0.02, 0.05, 0.1, 0.2),
                "hub_k": (5, 10, 30),
                "quota": (0.0, 0.6, 0.7, 0.8),
                "tail": (0.0, 0.25, 0.5, 0.75),
                "sent_hub": (0.0, 0.1, 0.2, 0.3, 0.5),
                "sent_hub_k": (5, 10),
            },
            t,
        )
    ),
    "(23) the title and contribution sentences as a term of their own (weight fitted)": (
        lambda d, t: coordinate_search(d, Method(contribution=0.25), {"contribution": (0.1, 0.25, 0.5, 0.75, 1.0)}, t)
    ),
    "(23r) the title and contribution sentences instead of every sentence (weight fitted)": (
        lambda d, t: coordinate_search(
            d, Method(contribution=0.5, contribution_only=True), {"sentence": (0.25, 0.5, 0.75, 1.0)}, t
        )
    ),
    "(24) interleaving the interests' own rankings, mixed with the score's (share fitted)": (
        lambda d, t: coordinate_search(d, Method(interleave=0.3), {"interleave": (0.1, 0.2, 0.3, 0.5, 0.7, 1.0)}, t)
    ),
    "(13a) category feedback of the avoid phrases (weight fitted)": (
        lambda d, t: coordinate_search(d, Method(category_avoid=0.05), {"category_avoid": CATEGORY_GRID}, t)
    ),
}


def issue_example(data: Data, methods: dict[str, Method]) -> None:
    """The issue's own profile on its day: where the papers it names stand under each method."""
    case = next((c for c in data.cases if c.set_name == "issue"), None)
    if case is None:
        return
    named = {t: next((i for i in case.ids if t.lower() in data.titles.get(i, "").lower()), None) for t in ISSUE_TITLES}
    print(
        f"issue 23's profile on {ISSUE_DAY} ({'; '.join(ISSUE_PROFILE.interests)}; avoid "
        f"{'; '.join(ISSUE_PROFILE.avoid)}): rank of"
    )
    for name, m in methods.items():
        order = ranking(case, data.vecs[case.vecs_key], m)
        position = {case.ids[j]: r for r, j in enumerate(order, 1)}
        print(f"  {name:<40} " + ", ".join(f"{t[:30]} #{position.get(i, 0)}" for t, i in named.items() if i))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a copy of a ready profiles store")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--rebuild", action="store_true", help="compute the cache again")
    parser.add_argument("--only", help="only the candidates whose name holds this text")
    args = parser.parse_args()
    data = load(args.home, args.data, args.rebuild)
    every_paper = read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl")))
    _CATEGORIES.update({p.id: tuple(p.categories) for p in every_paper})
    role_rows(every_paper, data.cases)
    check(data)
    base = set_means(data, Method(), SETS)
    print("current score: " + ", ".join(f"{s} {v[0]:.3f} (min {v[1]:.3f})" for s, v in base.items()))
    examples = {"current score": Method()}
    for name, fit in CANDIDATES.items():
        if args.only and args.only not in name:
            continue
        print(name)
        folds(data, name, lambda train, fit=fit: fit(data, train))
        examples[name[:40]] = fit(data, SETS)
    issue_example(data, examples)


if __name__ == "__main__":
    main()
