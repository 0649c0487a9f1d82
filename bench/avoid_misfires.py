"""What the avoid phrases of one-line-interest profiles keep out of the top 15, rightly or not (issue 23).

For every profile-day of the open sets whose profile has avoid phrases, the digest's order is built as
`bench/open_profiles.py` builds it (the cold-start score from `bench/fit_profiles.py`'s cache, the pool re-ranked by
the shipped re-ranker), with what the avoid phrases name (contribution kinds, topic words) read by this tree's code
rather than the cache's. A paper outside the top 15 that enters it when *its own* avoid penalty is taken away (the
best-sentence and whole-paper avoid excess and the avoid phrases' kinds and words, for that paper only) is *kept out
by its avoid*: a labelled or acceptable paper so kept out is a misfire, an unlabelled one a right removal. Each is
classed by how the avoid reached it: `kind` (a contribution kind the avoid names), `title` (the avoid's topic whole in
the title), `partial` (part of the avoid's topic), `abstract` (the avoid's topic only in the abstract), `meaning`
(nearer an avoid phrase in meaning than the interests, no word of it); `+shared` marks an avoid whose words shared
with an interest were dropped from its topic ("RL for LLMs" read as "LLMs" for a member who wants RL).

    rm -rf DIR && cp -a /tmp/final-i DIR
    PYTHONPATH=$PWD .venv/bin/python bench/avoid_misfires.py --home DIR [-v]       # ~5 min
    PYTHONPATH=$PWD .venv/bin/python bench/avoid_misfires.py --home DIR --sets-only  # the per-set figures, ~20 s

The cache is built in DIR first when absent. Never name a sealed set that is not open.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fit_profiles as fp
import open_profiles as op
import rerank_profiles as rp
from heldout_interests import HeldOutProfile

from bot.ingest.jsonl import read_jsonl
from bot.models import Paper
from bot.ranking import rank
from bot.ranking.interest_units import interest_query
from bot.ranking.one_line import AvoidPhrase, avoid_phrase, avoided_scores
from bot.ranking.rerank import default_model

TOP = fp.TOP
WEIGHTS = rank.DEFAULT_WEIGHTS


class _Avoids:
    """What `avoided_scores` reads of a profile model: its avoid phrases."""

    def __init__(self, avoids: tuple[AvoidPhrase, ...]) -> None:
        self.avoids = avoids


def order_of(data: fp.Data, case: fp.Case, method: fp.Method | None = None) -> tuple[np.ndarray, fp.Parts]:
    """The case's papers in the digest's order (the shipped re-ranker over the cold-start score's pool)."""
    method = method or fp.Method()
    every, score = rp.features(data, case, method)
    model = default_model()
    order = np.argsort(-score, kind="stable")
    pool = order[: model.pool]
    x = every[pool]
    x = (x - x.mean(axis=0)) / np.maximum(x.std(axis=0), 1e-6)
    decision = x.astype(np.float64) @ model.weights + model.intercept
    ranked = np.concatenate([pool[np.argsort(-decision, kind="stable")], order[len(pool) :]])
    return ranked, fp.parts(case, data.vecs[case.vecs_key], method)


def tree_cases(data: fp.Data, papers: list[Paper], profiles: dict[tuple[str, str], HeldOutProfile]) -> list[fp.Case]:
    """The cache's cases with what the avoid phrases name read by this tree's code (`avoided_scores`)."""
    by_day: dict[str, list[Paper]] = {}
    for paper in papers:
        by_day.setdefault(paper.announced.isoformat(), []).append(paper)
    features = {day: rank.paper_features(day_papers) for day, day_papers in by_day.items()}
    out = []
    for case in data.cases:
        item = profiles.get((case.set_name, case.profile))
        if item is None or not item.avoid:
            out.append(case)
            continue
        if tuple(p.id for p in by_day[case.day]) != case.ids:
            raise SystemExit(f"{case.day}: the cache's papers are not the day's; rebuild it")
        interests = tuple(interest_query(t) for t in item.interests)
        phrases = tuple(avoid_phrase(a, interests) for a in item.avoid if a.strip())
        out.append(replace(case, avoided=avoided_scores(features[case.day], [_Avoids(phrases)], WEIGHTS)[0]))
    return out


def _without_own(case: fp.Case, j: int) -> fp.Case:
    """The case with paper `j`'s avoid penalty taken away (every other paper's kept)."""
    sent, whole, named = case.sent_avoid.copy(), case.cos_avoid.copy(), case.avoided.copy()
    sent[:, j] = -1.0
    if len(whole):
        whole[:, j] = -1.0
    named[j] = 0.0
    return replace(case, sent_avoid=sent, cos_avoid=whole, avoided=named)


def how_reached(case: fp.Case, j: int, item: HeldOutProfile) -> str:
    """How the avoid reached paper `j`: kind, title, partial, abstract or meaning (+shared, see the module)."""
    named = float(case.avoided[j])
    if named >= WEIGHTS.avoid_kind - 1e-6:
        return "kind"
    if named >= WEIGHTS.avoid_title - 1e-6:
        how = "title"
    elif abs(named - WEIGHTS.avoid_text) < 1e-6:
        how = "abstract"
    elif named > 0:
        how = "partial"
    else:
        return "meaning"
    interests = tuple(interest_query(t) for t in item.interests)
    shared = any(
        avoid_phrase(a, interests).topic.alternatives != avoid_phrase(a, ()).topic.alternatives for a in item.avoid
    )
    return how + ("+shared" if shared else "")


def kept_out(data: fp.Data, cases: list[fp.Case], profiles: dict, verbose: bool) -> None:
    """Count (and with `verbose` list) the papers each avoid keeps out of the top 15, by set and by how."""
    per_set: dict[str, Counter[str]] = {}
    per_how: Counter[tuple[str, str]] = Counter()
    for case in cases:
        item = profiles.get((case.set_name, case.profile))
        if item is None or not item.avoid:
            continue
        order, parts = order_of(data, case)
        top = set(order[:TOP].tolist())
        labels = item.labels.get(case.day, frozenset())
        for j in np.flatnonzero(parts.penalty > 1e-6):
            if j in top:
                continue
            alone, _ = order_of(data, _without_own(case, int(j)))
            if j not in set(alone[:TOP].tolist()):
                continue
            pid = case.ids[j]
            kind = "label" if pid in labels else ("acceptable" if pid in case.relevant else "off-topic")
            how = how_reached(case, int(j), item)
            per_set.setdefault(case.set_name, Counter())[kind] += 1
            per_how[("misfire" if kind != "off-topic" else "right", how)] += 1
            if verbose and kind != "off-topic":
                sent = int(np.argmax(case.sent_avoid[:, j])) if len(case.sent_avoid) else 0
                print(
                    f"{case.set_name:<11} {case.profile} {case.day[5:]} {kind:<10} {how:<16} "
                    f"#{int(np.flatnonzero(order == j)[0]) + 1} -> #{int(np.flatnonzero(alone == j)[0]) + 1} "
                    f"penalty {parts.penalty[j]:.3f} (named {case.avoided[j]:.3f}) | {data.titles[pid][:80]} | "
                    f"nearest avoid '{item.avoid[sent]}'"
                )
    for name, tally in per_set.items():
        print(f"{name:<12} " + ", ".join(f"{k} {tally[k]}" for k in ("label", "acceptable", "off-topic")))
    total = sum(per_set.values(), Counter())
    print("all          " + ", ".join(f"{k} {total[k]}" for k in ("label", "acceptable", "off-topic")))
    hows = sorted({h for _, h in per_how})
    print("how reached: " + "; ".join(f"{h} {per_how['misfire', h]} / {per_how['right', h]}" for h in hows))
    print("(misfires, labelled or acceptable / right removals, unlabelled)")


def set_figures(data: fp.Data, cases: list[fp.Case]) -> None:
    """Each open set's on-topic mean (min) over its profiles, in this tree's order."""
    per: dict[str, dict[str, list[float]]] = {}
    for case in cases:
        order, _ = order_of(data, case)
        per.setdefault(case.set_name, {}).setdefault(case.profile, []).append(fp.on_topic(case, order))
    for name, profiles in per.items():
        means = [float(np.mean(v)) for v in profiles.values()]
        below = ", ".join(f"{p} {np.mean(v):.2f}" for p, v in profiles.items() if np.mean(v) < 0.75)
        print(f"{name:<12} {np.mean(means):.3f} ({min(means):.3f})  below 0.75: {below or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a fresh copy of a ready profiles store")
    parser.add_argument("--sets-only", action="store_true", help="only each set's on-topic mean (min)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list each labelled paper kept out")
    args = parser.parse_args()
    fp.OPEN_SETS.update({name: path for name, path in op.MORE_SETS.items() if path.exists()})
    fp.SETS = tuple(fp.OPEN_SETS)
    # the cache is pickled by `bench/fit_profiles.py` run as a script, so its classes are looked up in __main__
    sys.modules["__main__"].Data, sys.modules["__main__"].Case = fp.Data, fp.Case
    data = fp.load(args.home, fp.SHARED_DATA, False)
    papers = read_jsonl(sorted((fp.SHARED_DATA / "arxiv").glob("*.jsonl")))
    fp.role_rows(papers, data.cases)
    profiles = {(name, p.id): p for name, path in fp.OPEN_SETS.items() for p in fp.load_profiles(path)}
    cases = [c for c in tree_cases(data, papers, profiles) if c.set_name in fp.SETS]
    set_figures(data, cases)
    if not args.sets_only:
        kept_out(data, cases, profiles, args.verbose)


if __name__ == "__main__":
    main()
