"""Personal interest profiles that learn from thumbs up/down.

A user's score for a paper is the cold-start score (bot/ranking/rank.py) plus a learned correction:

    personal(x) = cold(x) + weight(n) * (w . x)

where x is the paper's stored embedding, w a ridge logistic regression trained on the user's reactions (+1 / -1)
and n the number of reactions. The logistic model sees the user's thumbs up and down (classes balanced) and, as
weak negatives, a sample of the papers announced on the days the user reacted on, so a user who only ever
upvotes still gets a direction ("more like these than like the rest of the day") and the model is not thrown by
feedback that covers only the top of a ranking. `weight(n)` converts logits into cosine units and grows with n;
its constants were chosen by measurement (bench/learning_curve.py, docs/BENCHMARKS.md).

Training is a damped Newton method over at most a few hundred reactions in 384 dimensions: tens of milliseconds,
run in a worker thread. Trained models are cached per user on the Core and replaced after every reaction.
Scoring many users at once is one matrix product of the users' stacked weight vectors with the paper vectors.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import zlib
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace

import numpy as np

from bot.core import Core
from bot.errors import InputError
from bot.models import InvalidPaperId, Paper, Profile, ScoredPaper, split_arxiv_id
from bot.ranking.for_profile import rank_with_vectors
from bot.text.safetext import short_phrase

log = logging.getLogger(__name__)

MIN_REACTIONS = 2  # one click (or a misclick) is not yet a direction
L2 = 0.3  # ridge penalty on w; the loss is summed over reactions, so the data outweighs it as reactions grow
BACKGROUND_WEIGHT = 0.3  # total weight of the weak negatives, relative to the total weight of the reactions
BACKGROUND_SIZE = 256  # weak negatives sampled from the days the user reacted on
BACKGROUND_DAYS = 3  # most recent reaction days the weak negatives are drawn from
MAX_WEIGHT = 0.07  # cosine units per logit once many reactions are in
HALF_WEIGHT_AT = 5  # reactions at which the learned part has half of MAX_WEIGHT
# A reacted paper is named in a reason only when it is among the closest pairs of the day's papers (top 1%).
CLOSE_QUANTILE = 0.99
CLOSE_SAMPLE = 400  # papers whose pairwise similarities set the threshold (a day's worth)
REASON_MIN_SHIFT = 0.02  # cosine units (about 0.6 relevance points): feedback moved the paper noticeably
_NEWTON_STEPS = 30


@dataclass(frozen=True)
class Reaction:
    """One thumbs up (+1) or down (-1) of a user on a paper."""

    paper_id: str
    value: int


@dataclass(frozen=True, eq=False)
class FeedbackModel:
    """A user's learned preference: a direction in embedding space (logit units) and a bias."""

    weights: np.ndarray  # (dim,) float32
    bias: float
    n_up: int
    n_down: int

    @property
    def n_reactions(self) -> int:
        """How many reactions the model was trained on."""
        return self.n_up + self.n_down


def fusion_weight(n_reactions: int) -> float:
    """How much the learned part counts after `n_reactions` reactions (0 below MIN_REACTIONS)."""
    if n_reactions < MIN_REACTIONS:
        return 0.0
    return MAX_WEIGHT * n_reactions / (n_reactions + HALF_WEIGHT_AT)


def train_feedback_model(
    vectors: np.ndarray,
    values: np.ndarray,
    *,
    background: np.ndarray | None = None,
    l2: float = L2,
    background_weight: float = BACKGROUND_WEIGHT,
) -> FeedbackModel | None:
    """Fit the ridge logistic model on reaction vectors (rows) and values (+1/-1); None when too few reactions.

    `background` holds vectors of papers the user saw but did not react to; they count as weak negatives.
    Pure and deterministic; about 20 ms for 500 reactions.
    """
    x = np.asarray(vectors, dtype=np.float64)
    y = np.sign(np.asarray(values, dtype=np.float64)).ravel()
    if x.ndim != 2 or x.shape[0] != y.shape[0]:
        raise ValueError(f"{x.shape[0] if x.ndim else 0} vectors for {y.shape[0]} values")
    keep = (y != 0) & np.isfinite(x).all(axis=1)
    x, y = x[keep], y[keep]
    n = len(y)
    if n < MIN_REACTIONS:
        return None
    up = int((y > 0).sum())
    down = n - up
    # Balanced classes: each class carries half of the total weight n (all of it when only one class is present).
    up_w = n / (2 * up) if up and down else 1.0
    down_w = n / (2 * down) if up and down else 1.0
    sample_w = np.where(y > 0, up_w, down_w)
    if background is not None and len(background) and background_weight > 0:
        bg = np.asarray(background, dtype=np.float64)
        bg = bg[np.isfinite(bg).all(axis=1)]
        x = np.vstack([x, bg])
        y = np.concatenate([y, -np.ones(len(bg))])
        sample_w = np.concatenate([sample_w, np.full(len(bg), background_weight * n / max(len(bg), 1))])
    theta = _newton_logistic(x, y, sample_w, l2)
    return FeedbackModel(weights=theta[:-1].astype(np.float32), bias=float(theta[-1]), n_up=up, n_down=down)


def _newton_logistic(x: np.ndarray, y: np.ndarray, sample_w: np.ndarray, l2: float) -> np.ndarray:
    """Minimise sum w_i log(1 + exp(-y_i (theta . [x_i, 1]))) + l2/2 |theta|^2 by Newton steps with backtracking."""
    a = np.hstack([x, np.ones((len(x), 1))])
    penalty = np.full(a.shape[1], l2)
    penalty[-1] = l2 * 1e-2  # the bias is nearly free, but a small penalty keeps one-class feedback finite

    def objective(t: np.ndarray) -> float:
        return float(sample_w @ np.logaddexp(0.0, -y * (a @ t)) + 0.5 * penalty @ (t * t))

    theta = np.zeros(a.shape[1])
    value = objective(theta)
    for _ in range(_NEWTON_STEPS):
        p = 0.5 * (1.0 - np.tanh(0.5 * y * (a @ theta)))  # sigmoid(-margin), without overflow
        grad = penalty * theta - a.T @ (sample_w * y * p)
        hess = (a.T * (sample_w * p * (1.0 - p))) @ a
        hess[np.diag_indices_from(hess)] += penalty
        step = np.linalg.solve(hess, grad)
        size = 1.0
        while True:
            candidate = theta - size * step
            new_value = objective(candidate)
            if new_value <= value - 1e-4 * size * float(grad @ step) or size < 1e-4:
                break
            size *= 0.5
        theta, value = candidate, new_value
        if np.abs(size * step).max() < 1e-6:
            break
    return theta


def personal_scores(
    cold: np.ndarray, paper_vecs: np.ndarray, model: FeedbackModel | None, n_reactions: int
) -> np.ndarray:
    """Cold-start scores plus the user's learned part, weighted by `fusion_weight(n_reactions)`.

    With no model (or too few reactions) this is exactly `cold`.
    """
    out = np.array(cold, dtype=np.float32, copy=True)
    weight = fusion_weight(n_reactions)
    if model is None or weight == 0.0 or len(out) == 0:
        return out
    out += np.float32(weight) * (np.asarray(paper_vecs, dtype=np.float32) @ model.weights)
    return out


def feedback_matrix(models: Sequence[FeedbackModel | None], dim: int) -> np.ndarray:
    """(users, dim) float32: each row the user's weights times their fusion weight (zeros without a model)."""
    matrix = np.zeros((len(models), dim), dtype=np.float32)
    for i, model in enumerate(models):
        if model is not None:
            matrix[i] = fusion_weight(model.n_reactions) * model.weights
    return matrix


def personal_scores_many(cold: np.ndarray, paper_vecs: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Personal scores of many users at once: `cold` (users, papers) plus one product (users, dim) x (dim, papers)."""
    out = np.asarray(matrix, dtype=np.float32) @ np.asarray(paper_vecs, dtype=np.float32).T
    out += cold
    return out


# ---------------------------------------------------------------- per-user state on the Core


@dataclass(eq=False)
class _UserFeedback:
    """A user's reactions, their vectors, the weak negatives and the model trained on them (None: not trained)."""

    version: int = 0
    model: FeedbackModel | None = None
    trained_version: int = -1
    reactions: tuple[Reaction, ...] = ()
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    background: np.ndarray | None = None
    background_days: tuple[dt.date, ...] = ()
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def _entry(core: Core, user_key: str) -> _UserFeedback:
    entry = core.feedback_models.get(user_key)
    if entry is None:
        entry = core.feedback_models[user_key] = _UserFeedback()
    return entry


def _normal_id(paper_id: str) -> str:
    try:
        return split_arxiv_id(paper_id)[0]
    except InvalidPaperId:
        return paper_id.strip()


async def _refresh_background(
    core: Core, user_key: str, entry: _UserFeedback, reactions: Sequence[Reaction] | None = None
) -> np.ndarray | None:
    """Sample weak negatives from the latest days the user reacted on (kept until those days change); `reactions`
    defaults to the stored ones."""
    reactions = entry.reactions if reactions is None else reactions
    papers = await core.repo.get_papers([r.paper_id for r in reactions])
    days = tuple(sorted({p.announced for p in papers}, reverse=True)[:BACKGROUND_DAYS])
    if days == entry.background_days and entry.background is not None:
        return entry.background
    ids = [p.id for day in days for p in await core.repo.papers_on(day)]
    reacted = {r.paper_id for r in reactions}
    ids = [i for i in ids if i not in reacted]
    if len(ids) > BACKGROUND_SIZE:
        rng = np.random.default_rng(zlib.crc32(user_key.encode("utf-8")))
        ids = [ids[i] for i in sorted(rng.choice(len(ids), BACKGROUND_SIZE, replace=False))]
    found = await core.vectors.found_vectors(ids)
    entry.background = np.stack(list(found.values())) if found else None
    entry.background_days = days
    return entry.background


async def _train_user(core: Core, user_key: str) -> _UserFeedback:
    """Bring the user's cached model up to date with the stored reactions; training runs in a worker thread."""
    entry = _entry(core, user_key)
    async with entry.lock:
        if entry.trained_version == entry.version:
            return entry
        version = entry.version
        rows = await core.repo.user_feedback_rows(user_key)
        entry.reactions = tuple(Reaction(row.paper_id, row.value) for row in rows)
        missing = [r.paper_id for r in entry.reactions if r.paper_id not in entry.vectors]
        if missing:
            entry.vectors.update(await core.vectors.found_vectors(missing))
        usable = [r for r in entry.reactions if r.paper_id in entry.vectors]
        model = None
        if len(usable) >= MIN_REACTIONS:
            await _refresh_background(core, user_key, entry)
            vectors = np.stack([entry.vectors[r.paper_id] for r in usable])
            values = np.array([r.value for r in usable], dtype=np.float32)
            model = await asyncio.to_thread(train_feedback_model, vectors, values, background=entry.background)
        entry.model = model
        entry.trained_version = version
        log.debug("feedback model for %s: %d reactions, trained=%s", user_key, len(usable), model is not None)
        return entry


async def record_reaction(core: Core, user_key: str, paper_id: str, value: int) -> None:
    """Store a thumbs up (+1) or down (-1); the same paper again replaces the earlier reaction (a change of mind).

    The user's cached model is invalidated and retrained in a worker thread, so the event loop stays free.
    """
    await record_reactions(core, user_key, {paper_id: value})


async def record_reactions(core: Core, user_key: str, reactions: Mapping[str, int]) -> None:
    """Store several reactions at once (the ratings of onboarding) and retrain once; see `record_reaction`."""
    bad = [v for v in reactions.values() if v not in (1, -1)]
    if bad:
        raise InputError(f"a reaction is +1 or -1, not {bad[0]!r}")
    if not user_key.strip():
        raise InputError("a reaction needs a user")
    if not reactions:
        return
    await core.repo.add_feedback_many(user_key, {_normal_id(pid): value for pid, value in reactions.items()})
    _entry(core, user_key).version += 1
    await _train_user(core, user_key)


async def remove_reaction(core: Core, user_key: str, paper_id: str) -> bool:
    """Delete the user's reaction to one paper and retrain without it; False when there was none."""
    removed = await core.repo.delete_reaction(user_key, _normal_id(paper_id))
    if not removed:
        return False
    _entry(core, user_key).version += 1
    await _train_user(core, user_key)
    return True


async def learned_part(
    core: Core, user_key: str, vecs: np.ndarray, reactions: Sequence[Reaction] | None = None
) -> tuple[np.ndarray, int]:
    """What the learner adds to the user's scores of papers with vectors `vecs` (rows): `weight(n) * (w . x)`, and
    n, the reactions it learned from (zeros and 0 when it is not in use yet).

    With `reactions`, the model is trained on those instead of the stored ones, with the same weak negatives,
    as the learner would: the stored reactions without one (or with one changed) show what that one did.
    """
    entry = await _train_user(core, user_key)
    out = np.zeros(len(vecs), dtype=np.float32)
    if reactions is None:
        model = entry.model
    else:
        missing = [r.paper_id for r in reactions if r.paper_id not in entry.vectors]
        if missing:
            entry.vectors.update(await core.vectors.found_vectors(missing))
        usable = [r for r in reactions if r.paper_id in entry.vectors]
        model = None
        if len(usable) >= MIN_REACTIONS:
            x = np.stack([entry.vectors[r.paper_id] for r in usable])
            y = np.array([r.value for r in usable], dtype=np.float32)
            background = await _refresh_background(core, user_key, entry, usable)
            model = await asyncio.to_thread(train_feedback_model, x, y, background=background)
    if model is None or not len(out):
        return out, 0
    return personal_scores(out, vecs, model, model.n_reactions), model.n_reactions


async def rank_for_user(
    core: Core, user_key: str, profile: Profile, papers: Sequence[Paper], top_k: int | None = None
) -> list[ScoredPaper]:
    """Rank `papers` for one user: the profile's cold-start score plus what their reactions taught, best first.

    Without reactions this is the cold-start ranking. Papers that feedback lifted (or sank) say so in their reasons.
    """
    if not papers:
        return []
    ranked, vecs = await rank_with_vectors(core, papers, profile)
    entry = await _train_user(core, user_key)
    model = entry.model
    if model is None:
        return ranked[: top_k or len(ranked)]
    row = {p.id: i for i, p in enumerate(papers)}
    order = [row[item.paper.id] for item in ranked]
    cold = np.array([item.score for item in ranked], dtype=np.float32)
    scores = personal_scores(cold, vecs[order], model, model.n_reactions)
    # the learned part moves every paper by some common amount too; only the movement relative to the day counts
    shift = scores - cold
    shift -= np.median(shift)
    best = np.argsort(-scores, kind="stable")[: top_k or len(ranked)]
    titles = await _reaction_titles(core, entry, papers)
    close = close_similarity(vecs)
    out = []
    for j in best:
        item = ranked[int(j)]
        reasons = item.reasons
        if abs(float(shift[j])) >= REASON_MIN_SHIFT:
            reason = _feedback_reason(
                entry, titles, vecs[order[int(j)]], up=bool(shift[j] > 0), paper_id=item.paper.id, close=close
            )
            if reason:
                reasons = (reason, *reasons)
        out.append(replace(item, score=float(scores[j]), reasons=reasons))
    return out


async def _reaction_titles(core: Core, entry: _UserFeedback, papers: Sequence[Paper]) -> dict[str, str]:
    """Titles of the reacted papers, from the database or else from the papers being ranked."""
    ids = [r.paper_id for r in entry.reactions if r.paper_id in entry.vectors]
    wanted = set(ids)
    titles = {p.id: p.title for p in papers if p.id in wanted}
    titles.update({p.id: p.title for p in await core.repo.get_papers(ids)})
    return titles


def close_similarity(vecs: np.ndarray, quantile: float = CLOSE_QUANTILE) -> float:
    """The cosine similarity above which two of these papers count as really close: the `quantile` of the
    similarities between pairs of them, so it follows the embedding model and the day."""
    sample = np.asarray(vecs, dtype=np.float32)[:CLOSE_SAMPLE]
    if len(sample) < 2:
        return 1.0
    sims = sample @ sample.T
    return float(np.quantile(sims[np.triu_indices(len(sample), k=1)], quantile))


def _feedback_reason(
    entry: _UserFeedback, titles: dict[str, str], vec: np.ndarray, up: bool, *, paper_id: str, close: float
) -> str:
    """'like papers you upvoted: <title>' naming the most similar reacted paper of the matching sign, never the paper
    itself and only when it is really close (`close`); else 'ranked higher by your feedback'."""
    sign = 1 if up else -1
    ids = [r.paper_id for r in entry.reactions if r.value == sign and r.paper_id in titles and r.paper_id != paper_id]
    sims = np.stack([entry.vectors[i] for i in ids]) @ np.asarray(vec, dtype=np.float32) if ids else np.zeros(0)
    if not ids or float(sims.max()) < close:
        return "ranked higher by your feedback" if up else "ranked lower by your feedback"
    title = titles[ids[int(np.argmax(sims))]]
    return f"like papers you {'upvoted' if up else 'downvoted'}: {short_phrase(title, 80)}"


@asynccontextmanager
async def forgetting(core: Core, user_key: str) -> AsyncIterator[None]:
    """Hold the user's model while their feedback is deleted inside the block, then drop every cached model and
    vector of theirs: no retrain can cache what the deleted rows taught."""
    entry = _entry(core, user_key)
    async with entry.lock:
        try:
            yield
        finally:
            core.feedback_models.pop(user_key, None)


async def forget_feedback(core: Core, user_key: str) -> int:
    """Delete the user's reactions and every cached model and vector of theirs; returns how many rows were deleted."""
    async with forgetting(core, user_key):
        return await core.repo.delete_feedback(user_key)
