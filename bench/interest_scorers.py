"""Scorers for one-line-interest profiles compared offline (issue 23), on the held-out profiles of
`bench/heldout_interests.py` and with its metric (on-topic share of each profile's top 15, of what exists that day).

`digest` is the personal digest's own cold-start score (`bot.ranking.rank`, as `personal_digest` ranks without
feedback: the same figures as `bench/heldout_interests.py`). The other rows add a sentence-level late interaction
between each interest and each paper: the paper's title and every abstract sentence (`split_sentences`) embedded
apart with the same MiniLM, each interest's best sentence found, then the soft maximum over interests as the
digest takes it over whole-paper similarities. MiniLM reads only the first 256 word pieces of a paper and averages
everything it reads into one vector; a one-line interest is short, and the sentence that states it is what
tells the paper apart. Nothing here changes the digest: this measures whether such a term is worth storing
sentence vectors for at ingest (see docs/BENCHMARKS.md, "After (4)").

    PYTHONPATH=$PWD .venv/bin/python bench/interest_scorers.py --home DIR [--profiles FILE] [--only p03]

The sentence vectors are embedded once per store (about 8.6 per paper; 13,775 for the four shared days) and kept
in DIR/interest-scorers-sentences.npz; an interrupted run continues where it stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout_interests import HeldOutProfile, add_common_arguments, load_inputs, onboarding_profile, score_day

from bot.config import Settings
from bot.core import Core, open_core
from bot.ingest.save import store_papers
from bot.models import Paper
from bot.ranking import rank
from bot.ranking.for_profile import profile_model
from bot.text.extractive import split_sentences

SENTENCE_FILE = "interest-scorers-sentences.npz"
EMBED_CHUNK = 512


@dataclass(frozen=True)
class Day:
    """One day's papers with what every scorer needs: paper vectors, features, sentence vectors and their owners."""

    papers: list[Paper]
    vecs: np.ndarray
    features: rank.PaperFeatures
    sentence_vecs: np.ndarray  # (sentences, dim): each paper's title, then its abstract's sentences
    owner: np.ndarray  # (sentences,) index of the paper in `papers`


def sentences_of(paper: Paper) -> list[str]:
    """What a paper is read as, sentence by sentence: its title, then each abstract sentence."""
    return [paper.title, *split_sentences(paper.abstract)]


async def sentence_vectors(core: Core, papers: list[Paper], path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Every paper's sentence vectors and owners, embedded once and kept at `path` (resumed when interrupted)."""
    texts, owner = [], []
    for i, paper in enumerate(papers):
        for sentence in sentences_of(paper):
            texts.append(sentence)
            owner.append(i)
    ids = np.array([p.vector_key for p in papers])
    vecs = _saved(path, ids, (len(texts), core.embedder.dim))
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths pad little
    for start in range(0, len(order), EMBED_CHUNK):
        rows = order[start : start + EMBED_CHUNK]
        if np.abs(vecs[rows]).sum(axis=1).min() > 0:
            continue
        vecs[rows] = await asyncio.to_thread(core.embedder.embed, [texts[i] for i in rows])
        np.savez(path, ids=ids, vecs=vecs)
        print(f"  sentences embedded: {min(start + EMBED_CHUNK, len(texts))} of {len(texts)}", flush=True)
    return vecs, np.array(owner)


def _saved(path: Path, ids: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The sentence vectors kept at `path` when they are of these papers' texts, else zeros (to embed)."""
    if path.exists():
        saved = np.load(path)
        if np.array_equal(saved["ids"], ids) and saved["vecs"].shape == shape:
            return np.asarray(saved["vecs"], dtype=np.float32)
    return np.zeros(shape, dtype=np.float32)


def best_sentence(want_vecs: np.ndarray, day: Day) -> np.ndarray:
    """(interests, papers): each interest's cosine with the paper's closest sentence (title included)."""
    sims = want_vecs @ day.sentence_vecs.T
    out = np.full((len(want_vecs), len(day.papers)), -1.0, dtype=np.float32)
    for row in range(len(want_vecs)):
        np.maximum.at(out[row], day.owner, sims[row])
    return out


def soft_max(similarity: np.ndarray, temperature: float) -> np.ndarray:
    """Log-mean-exp over the rows, as the cold-start score takes it over a profile's want vectors."""
    return 1.0 + np.log(np.mean(np.exp(temperature * (similarity - 1.0)), axis=0)) / temperature


Scorer = Callable[[Day, rank.ProfileModel], np.ndarray]


def digest_score(day: Day, model: rank.ProfileModel) -> np.ndarray:
    """The personal digest's cold-start score (no feedback)."""
    return late_interaction(0.0, 0.0)(day, model)


def late_interaction(added: float, blended: float) -> Scorer:
    """The digest's score with the sentence term: `added` x its soft maximum added to the whole-paper term, or the
    whole-paper similarity of each interest blended with its best sentence's (`blended` of the latter)."""
    weights = rank.DEFAULT_WEIGHTS

    def score(day: Day, model: rank.ProfileModel) -> np.ndarray:
        terms = rank._terms(day.vecs, day.features, [model], weights)
        if model.reads_lines and (added or blended):
            sentences = best_sentence(model.want_vecs, day)
            whole = model.want_vecs @ day.vecs.T
            want = soft_max((1.0 - blended) * whole + blended * sentences, weights.temperature)
            want = want + added * soft_max(sentences, weights.temperature)
            terms = dataclasses.replace(terms, want=want[None, :].astype(np.float32))
        scores = rank._combine(terms, weights)
        return rank._expanded(scores, terms, day.vecs, [model], weights)[0]

    return score


SCORERS: dict[str, Scorer] = {
    "digest": digest_score,
    "sentence max added x0.5": late_interaction(0.5, 0.0),
    "sentence max added x1.0": late_interaction(1.0, 0.0),
    "sentence max blended 0.5": late_interaction(0.0, 0.5),
}


def evaluate(days: dict[str, Day], models: dict[str, rank.ProfileModel], profiles: list[HeldOutProfile]) -> None:
    """Print each scorer's on-topic share per profile, then the mean and minimum."""
    print(f"{'scorer':<26} " + " ".join(f"{p.id:>5}" for p in profiles) + f" {'mean':>6} {'min':>6}")
    for name, scorer in SCORERS.items():
        means = []
        for item in profiles:
            values = []
            for key, day in days.items():
                order = np.argsort(-scorer(day, models[item.id]), kind="stable")
                ranked = [day.papers[j].id for j in order]
                labels, acceptable = item.labels.get(key, frozenset()), item.acceptable.get(key, frozenset())
                values.append(score_day(ranked, labels, acceptable).on_topic)
            means.append(float(np.mean(values)))
        cells = " ".join(f"{m:5.3f}" for m in means)
        print(f"{name:<26} {cells} {np.mean(means):6.3f} {min(means):6.3f}", flush=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_arguments(parser)
    args = parser.parse_args()
    papers, profiles = load_inputs(args)
    with tempfile.TemporaryDirectory() as scratch:
        home = args.home or Path(scratch)
        async with open_core(Settings(home=home)) as core:
            await store_papers(core, papers)
            sentence_vecs, owner = await sentence_vectors(core, papers, home / SENTENCE_FILE)
            days: dict[str, Day] = {}
            for announced in sorted({p.announced for p in papers}):
                rows = [i for i, p in enumerate(papers) if p.announced == announced]
                local = {row: j for j, row in enumerate(rows)}
                held = np.isin(owner, rows)
                days[announced.isoformat()] = Day(
                    papers=[papers[i] for i in rows],
                    vecs=await core.vectors.vectors([papers[i].id for i in rows]),
                    features=rank.paper_features([papers[i] for i in rows]),
                    sentence_vecs=sentence_vecs[held],
                    owner=np.array([local[int(i)] for i in owner[held]]),
                )
            models = {
                item.id: await profile_model(core, onboarding_profile(item, f"console:heldout-{item.id}"))
                for item in profiles
            }
            evaluate(days, models, profiles)


if __name__ == "__main__":
    asyncio.run(main())
