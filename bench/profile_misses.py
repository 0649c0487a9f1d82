"""Where the re-ranked digest of one-line interests misses its labelled papers, and whether the line's specific part
is what it misses (issue 23).

Over the older open profile sets (every set `bench/open_profiles.py` reads but the newest, `--newest` adds it), each
profile-day's pool is put in the shipped re-ranker's order (`bot/ranking/rerank_weights.json`) and this prints:

- where the labelled papers outside the top 15 stand in the cold order (its top 15, the rest of the pool, beyond);
- on the days with such a miss, the mean standardised feature of the missed papers and of the unlabelled papers the
  top 15 holds instead ("intruders"), each times its weight: which features put the intruders ahead;
- the share of kept, missed and intruding papers holding the rarest word (by the day's document frequency) of an
  alternative of one of the profile's interests, the word that tells the interest from its neighbours.

`--causes` sorts the misses and the intruders by cause instead: where a missed labelled paper stands (put out of
the cold top 15, in the pool, beyond it) against how it holds its nearest interest in words (every word of a reading
with each pair the member typed side by side written side by side, every word but scattered, part of the words,
none), the same for the unlabelled papers of the top 15, and how the top 15's places are shared among a member's
interests (each paper to the interest it is nearest by the day's z of meaning and words): the days one interest
holds 12 or more places, the places each interest holds beside its share of the day's labelled papers.

`--candidates` also measures two features of the line's specific part, each added to the shipped decision at a few
shares and as a sixteenth feature in leave-one-set-out refits (against the refit without it):
`pool_idf`, the interest's word coverage (`bot.ranking.one_line.coverage`) with each word's rarity counted among the
pool (the neighbouring field the pool is) instead of the day; `word_out`, for the interest the paper is closest to,
the mean over the line's content words of cos(paper, line) - cos(paper, line without the word) (each part of the
line must pull the paper closer).

    rm -rf DIR && cp -a /tmp/final-i DIR
    PYTHONPATH=$PWD .venv/bin/python bench/profile_misses.py --home DIR [--candidates]

The cache is `bench/fit_profiles.py`'s (written into DIR when absent). Never name a sealed set here.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fit_profiles as fp
import open_profiles as op
import rerank_profiles as rp

from bot.config import Settings
from bot.core import open_core
from bot.ingest.jsonl import read_jsonl
from bot.models import Paper
from bot.ranking import rank
from bot.ranking.interest_units import interest_query
from bot.ranking.one_line import compound_unit, coverage
from bot.ranking.rerank import NAMES, default_model

TOP = 15
NEWEST = "profiles19"
SHARES = (0.1, 0.2, 0.35, 0.5)
_STOP = frozenset("a an the of for in on and or to with via from using by as at its their into under over".split())


def shipped(row: rp.Row) -> np.ndarray:
    """The shipped re-ranker's decision over the row's pool."""
    model = default_model()
    return row[3].astype(np.float64) @ model.weights + model.intercept


def means(rows: list[rp.Row], decide: Callable[[rp.Row], np.ndarray]) -> dict[str, dict[str, float]]:
    """{set: {profile: on-topic mean over its days}} with each pool in the order of `decide`."""
    per: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        case, order, pool, _, _ = row
        ranked = np.concatenate([pool[np.argsort(-decide(row), kind="stable")], order[len(pool) :]])
        per.setdefault(case.set_name, {}).setdefault(case.profile, []).append(fp.on_topic(case, ranked))
    return {s: {p: float(np.mean(v)) for p, v in d.items()} for s, d in per.items()}


def report(name: str, got: dict[str, dict[str, float]], base: dict[str, dict[str, float]]) -> None:
    """One line: the mean of set means, profiles up/down against `base`, each set's mean (min)."""
    up = sum(got[s][p] > base[s][p] + 1e-9 for s in got for p in got[s])
    down = sum(got[s][p] < base[s][p] - 1e-9 for s in got for p in got[s])
    sets = " ".join(f"{np.mean(list(d.values())):.3f} ({min(d.values()):.2f})" for d in got.values())
    print(f"{name:<30} {np.mean([np.mean(list(d.values())) for d in got.values()]):.4f} {up:>3}/{down:<3} {sets}")


def diagnose(rows: list[rp.Row], papers: dict[str, Paper]) -> None:
    """The three counts of the module's docstring."""
    where = {"cold top 15, put out": 0, "cold 16-pool": 0, "beyond the pool": 0}
    missed, intruders = [], []
    held = {"kept": [0, 0], "missed": [0, 0], "intruders": [0, 0]}
    features: dict[str, rank.PaperFeatures] = {}
    for row in rows:
        case, order, pool, x, y = row
        placed = np.argsort(-shipped(row), kind="stable")
        top = set(pool[placed[:TOP]].tolist())
        cold = set(order[:TOP].tolist())
        relevant = {j for j, i in enumerate(case.ids) if i in case.relevant}
        in_pool = set(pool.tolist())
        for j in relevant - top:
            where["cold top 15, put out" if j in cold else "cold 16-pool" if j in in_pool else "beyond the pool"] += 1
        if relevant - top & in_pool:
            missed += [x[k] for k in range(len(pool)) if y[k] and pool[k] not in top]
            intruders += [x[k] for k in range(len(pool)) if not y[k] and pool[k] in top]
        day = features.setdefault(case.day, rank.paper_features([papers[i] for i in case.ids]))
        rare = np.zeros(len(case.ids), bool)
        for query in map(interest_query, case_interests(case)):
            scope = {u.key for u in query.scope}
            for units in query.alternatives:
                rare |= day.units.hits(max([u for u in units if u.key not in scope] or units, key=day.idf))[1]
        for j in pool:
            kind = "kept" if j in relevant and j in top else "missed" if j in relevant else "intruders"
            if kind != "intruders" or j in top:
                held[kind][0] += 1
                held[kind][1] += int(rare[j])
    print("labelled papers outside the re-ranked top 15: " + ", ".join(f"{k} {v}" for k, v in where.items()))
    weights = default_model().weights
    a, b = np.mean(intruders, axis=0), np.mean(missed, axis=0)
    print(f"days with a miss in the pool: {len(missed)} missed, {len(intruders)} intruders; standardised features")
    for k in np.argsort(-(a - b) * weights):
        print(
            f"  {NAMES[k]:<13} intruders {a[k]:+.2f}  missed {b[k]:+.2f}  weight {weights[k]:+.2f}  "
            f"intruders ahead by {(a[k] - b[k]) * weights[k]:+.3f}"
        )
    print(
        "holding the rarest word of an alternative: "
        + ", ".join(f"{k} {h / n:.2f} of {n}" for k, (n, h) in held.items())
    )


def how_held(case: fp.Case, day: rank.PaperFeatures) -> np.ndarray:
    """(papers,) how each paper holds the profile's interests in words, the best over them: 3 every word of a
    reading with each typed pair written side by side, 2 every word, 1 at least 0.3 of the reading, 0 less."""
    n = len(case.ids)
    said = np.zeros(n, bool)
    for line in case_interests(case):
        query = interest_query(line)
        if query.together:
            together = np.ones(n, bool)
            for first, second in query.together:
                together &= day.units.hits(compound_unit(first, second))[1]
            said |= together
    whole = (case.far_text >= 0.99).any(axis=0)
    part = (case.near_text > 0.3).any(axis=0)
    return np.where(whole & said, 3, np.where(whole, 2, np.where(part, 1, 0)))


HELD = ("none", "part", "scattered", "together")


def causes(rows: list[rp.Row], papers: dict[str, Paper]) -> None:
    """The three tallies of `--causes` (see the module's docstring)."""
    from collections import Counter

    missed: Counter[tuple[str, str]] = Counter()
    top_held: Counter[tuple[str, bool]] = Counter()
    flooded = flooded_missing = days = 0
    share_gap: list[tuple[float, float, bool]] = []
    days_features: dict[str, rank.PaperFeatures] = {}
    for row in rows:
        case, order, pool, _, _ = row
        day = days_features.setdefault(case.day, rank.paper_features([papers[i] for i in case.ids]))
        held = how_held(case, day)
        placed = pool[np.argsort(-shipped(row), kind="stable")]
        top, cold, in_pool = set(placed[:TOP].tolist()), set(order[:TOP].tolist()), set(pool.tolist())
        relevant = {j for j, i in enumerate(case.ids) if i in case.relevant}
        for j in relevant - top:
            where = "put out of the cold 15" if j in cold else "in the pool" if j in in_pool else "beyond the pool"
            missed[(where, HELD[held[j]])] += 1
        for j in top:
            top_held[(HELD[held[j]], j in relevant)] += 1
        if len(case.cos_want) < 2 or not relevant:
            continue
        days += 1
        z = lambda a: (a - a.mean(axis=1, keepdims=True)) / np.maximum(a.std(axis=1, keepdims=True), 1e-6)  # noqa: E731
        owner = np.argmax(z(case.cos_want) + z(case.near_text), axis=0)
        places = np.bincount(owner[list(top)], minlength=len(case.cos_want))
        wanted = np.bincount(owner[list(relevant)], minlength=len(case.cos_want))
        lost = np.bincount(owner[list(relevant - top)], minlength=len(case.cos_want))
        if places.max() >= 12:
            flooded += 1
            flooded_missing += int(any(lost[k] for k in range(len(places)) if k != places.argmax()))
        for k in range(len(places)):
            share_gap.append((places[k] / TOP, wanted[k] / len(relevant), bool(lost[k])))
    print("missed labelled papers, where they stand x how they hold the interest in words:")
    for where in ("put out of the cold 15", "in the pool", "beyond the pool"):
        print(f"  {where:<24}" + "  ".join(f"{h} {missed[(where, h)]:>3}" for h in HELD))
    print("the top 15's papers by how they hold the interest (labelled / unlabelled, precision):")
    for h in HELD:
        good, bad = top_held[(h, True)], top_held[(h, False)]
        print(f"  {h:<10} {good:>5} / {bad:<5} {good / max(1, good + bad):.2f}")
    print(f"profile-days of 2+ interests with a labelled paper: {days}; one interest holding 12+ places: {flooded},")
    print(f"  of them with another interest's labelled paper missed: {flooded_missing}")
    for lost in (True, False):
        chosen = [(a, b) for a, b, m in share_gap if m == lost]
        places, labelled = np.mean([a for a, _ in chosen]), np.mean([b for _, b in chosen])
        print(
            f"  interests {'with' if lost else 'without'} a miss: {len(chosen)}, share of the places {places:.2f}, "
            f"share of the day's labelled papers {labelled:.2f}"
        )


_INTERESTS: dict[tuple[str, str], tuple[str, ...]] = {}


def case_interests(case: fp.Case) -> tuple[str, ...]:
    """The case's interest lines, from its profile file."""
    if not _INTERESTS:
        for name, path in fp.OPEN_SETS.items():
            for item in fp.load_profiles(path):
                _INTERESTS[(name, item.id)] = tuple(item.interests)
    return _INTERESTS[(case.set_name, case.profile)]


class _PoolRarity:
    """A day's paper features whose word rarity is counted among the pool's papers only."""

    def __init__(self, features: rank.PaperFeatures, pool: np.ndarray) -> None:
        self._features = features
        self._mask = np.zeros(len(features), bool)
        self._mask[pool] = True

    def __getattr__(self, name: str) -> object:
        return getattr(self._features, name)

    def __len__(self) -> int:
        return len(self._features)

    def idf(self, unit: object) -> float:
        held = int((self._features.units.hits(unit)[1] & self._mask).sum())
        size = int(self._mask.sum())
        return float(np.log(1.0 + (size - held + 0.5) / (held + 0.5)))


def content_words(line: str) -> list[str]:
    """The line's head (before a parenthesis or colon) as content words, hyphenated words kept whole."""
    head = re.split(r"[(:]", line)[0]
    return [w for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9\-']*", head) if w.lower() not in _STOP]


def without(line: str, word: str) -> str:
    """The line with one occurrence of `word` taken out."""
    out = re.sub(r"(?<![A-Za-z0-9\-])" + re.escape(word) + r"(?![A-Za-z0-9\-])", "", line, count=1)
    return re.sub(r"\s+", " ", out).strip()


def candidates(rows: list[rp.Row], papers: dict[str, Paper], data: fp.Data, home: Path) -> None:
    """The two features of the line's specific part, measured as the docstring says."""
    weights = rank.DEFAULT_WEIGHTS
    lines = sorted({line for row in rows for line in case_interests(row[0])})
    texts = sorted({t for line in lines for t in (line, *(without(line, w) for w in content_words(line)))})

    async def embedded() -> np.ndarray:
        async with open_core(Settings(home=home)) as core:
            return np.asarray(core.embedder.embed(texts), np.float32)

    vecs = asyncio.run(embedded())
    vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    vector = dict(zip(texts, vecs, strict=True))
    days: dict[str, rank.PaperFeatures] = {}
    made: dict[str, dict[int, np.ndarray]] = {"pool_idf": {}, "word_out": {}}
    for row in rows:
        case, _, pool, _, _ = row
        day = days.setdefault(case.day, rank.paper_features([papers[i] for i in case.ids]))
        local = _PoolRarity(day, pool)
        meant = np.zeros(len(case.ids), bool)
        meant[pool] = True
        cover = [
            coverage(local, interest_query(line), weights.detail_share, weights.compound_parts, meant)[1]
            for line in case_interests(case)
        ]
        made["pool_idf"][id(row)] = np.max(cover, axis=0)[pool]
        paper_vecs = data.vecs[case.vecs_key][pool]
        whole = np.stack([vector[line] for line in case_interests(case)]) @ paper_vecs.T
        pulls = []
        for k, line in enumerate(case_interests(case)):
            words = content_words(line)
            drops = [whole[k] - vector[without(line, w)] @ paper_vecs.T for w in words] if len(words) > 1 else []
            pulls.append(np.mean(drops, axis=0) if drops else np.zeros(len(pool), np.float32))
        made["word_out"][id(row)] = np.asarray(pulls)[whole.argmax(axis=0), np.arange(len(pool))]
    from sklearn.linear_model import LogisticRegression

    base = means(rows, shipped)
    report("shipped", base, base)
    sets = sorted({row[0].set_name for row in rows})

    def refit(extra: dict[int, np.ndarray] | None) -> dict[str, dict[str, float]]:
        def x(row: rp.Row) -> np.ndarray:
            return row[3] if extra is None else np.column_stack([row[3], extra[id(row)]])

        models = {}
        for out in sets:
            train = [row for row in rows if row[0].set_name != out]
            models[out] = LogisticRegression(C=1.0, max_iter=5000).fit(
                np.concatenate([x(r) for r in train]), np.concatenate([r[4] for r in train])
            )
        return means(rows, lambda row: models[row[0].set_name].decision_function(x(row)))

    report("refit, leave-one-set-out", refit(None), base)
    for name, values in made.items():
        z = {k: (v - v.mean()) / max(float(v.std()), 1e-6) for k, v in values.items()}
        for share in SHARES:
            report(f"{name} + {share}", means(rows, lambda row, s=share, z=z: shipped(row) + s * z[id(row)]), base)
        report(f"refit with {name}", refit(z), base)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a fresh copy of a ready profiles store")
    parser.add_argument("--newest", action="store_true", help=f"read {NEWEST} too")
    parser.add_argument("--candidates", action="store_true", help="measure the two specific-part features")
    parser.add_argument("--causes", action="store_true", help="the misses and intruders by cause (see above)")
    args = parser.parse_args()
    more = {n: p for n, p in op.MORE_SETS.items() if p.exists() and (args.newest or n != NEWEST)}
    fp.OPEN_SETS.update(more)
    fp.SETS = tuple(fp.OPEN_SETS)
    sys.modules["__main__"].Data, sys.modules["__main__"].Case = fp.Data, fp.Case
    data = fp.load(args.home, fp.SHARED_DATA, False)
    shared = read_jsonl(sorted((fp.SHARED_DATA / "arxiv").glob("*.jsonl")))
    fp.role_rows(shared, data.cases)
    rows = [row for row in rp.build_rows(data, default_model().pool) if row[0].set_name in fp.SETS]
    papers = {p.id: p for p in shared}
    if args.causes:
        causes(rows, papers)
        return
    diagnose(rows, papers)
    if args.candidates:
        candidates(rows, papers, data, args.home)


if __name__ == "__main__":
    main()
