"""A learned re-ranker of one-line-interest profiles, judged leave-one-set-out over the open profiles (issue 23).

Each profile-day's `--pool` best papers by the digest's cold-start score are re-ranked by a logistic regression of
on-topic on features of the paper, each standardised within that profile-day's pool (listwise, so a day's or a
profile's level does not count): the score itself and its terms (whole-paper and sentence similarity, word credit,
feedback, avoid penalty, cues), the word coverage in title and abstract, the paper's closeness to the day's papers
unrelated to the profile (hubness), the title's and the contribution sentences' similarity, the second-best
sentence, how far down both the meaning and the word ranking of its best interest it stands, and for how many
interests it is among the 30 nearest. The model is fitted on all open sets but one (its regularisation by an inner
leave-one-set-out on those) and measured on the one left out, for each set in turn; `--nested` also chooses the
features inside each fold (greedy forward selection by the inner folds), so no choice sees the held-out set.

    cp -a /tmp/final-i DIR
    PYTHONPATH=$PWD .venv/bin/python bench/rerank_profiles.py --home DIR [--pool 100] [--features a,b] [--nested]

The terms come from `bench/fit_profiles.py`'s cache (built there first when absent).

`--measure PROFILES` (for the lead, on a set nobody tuned for) fits the model once on all the open sets (its
regularisation by leave-one-set-out over them) and prints the on-topic mean and minimum of that file's profiles
before and after the re-ranking, in `bench/heldout_interests.py`'s terms.

`--export PATH` fits that same model (all the open sets, the features chosen, its C as `--measure` chooses it)
and writes it as the product's re-ranker (`bot/ranking/rerank_weights.json`, read by `bot.ranking.rerank`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fit_profiles as fp
from heldout_interests import as_onboarding_reads

from bot.config import Settings
from bot.core import open_core
from bot.ingest.jsonl import read_jsonl
from bot.ranking import rank
from bot.ranking.rerank import NAMES, ranks

C_GRID = (0.001, 0.01, 0.1, 1.0)

Row = tuple[fp.Case, np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # case, order, pool, features, on topic


def features(data: fp.Data, case: fp.Case, base: fp.Method | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(papers, len(NAMES)) the features of every paper of the case, and the score (the current one, or `base`'s)."""
    vecs = data.vecs[case.vecs_key]
    base = base or fp.Method()
    p = fp.parts(case, vecs, base)
    feedback = (p.score - fp.parts(case, vecs, replace(base, expansion=0.0)).score) / base.expansion
    want = fp.soft_max(case.cos_want, base.temperature)
    near = fp.nearest_share(want[None], base.expansion_near)[0]
    meant = fp.nearest_share(case.cos_want, base.near_own) if base.near_own else near
    agree = np.full(len(case.ids), 1e9, np.float32)
    breadth = np.zeros(len(case.ids), np.float32)
    for dense, lexical in zip(p.dense_per_interest, p.lexical_per_interest, strict=True):
        by_meaning, by_words = ranks(dense), ranks(lexical + 1e-4 * dense)
        agree = np.minimum(agree, np.maximum(by_meaning, by_words))
        breadth += by_meaning <= 30
    columns = {
        "score": p.score,
        "want": want,
        "sentence": fp.soft_max(case.sent_want, base.temperature),
        "lexical": p.lexical,
        "feedback": feedback,
        "penalty": p.penalty,
        "cues": case.theory - case.applied,
        "cov_title": np.where(meant, case.near_title, case.far_title).max(axis=0),
        "cov_text": np.where(meant, case.near_text, case.far_text).max(axis=0),
        "hub": fp.paper_hubness(case, vecs, fp.Method(hub_unrelated=True, hub_k=5)),
        "contribution": fp.soft_max(fp.contribution_similarity(case), base.temperature),
        "second": fp.soft_max(case.sent_second, base.temperature),
        "agree": np.log(agree),
        "breadth": breadth,
        "title_cos": fp.soft_max(case.title_want, base.temperature),
    }
    return np.stack([columns[n] for n in NAMES], axis=1).astype(np.float32), p.score


def build_rows(data: fp.Data, pool: int, cases: list[fp.Case] | None = None) -> list[Row]:
    """Each open case's pool (or each of `cases`'), standardised features and labels."""
    rows = []
    for case in data.cases if cases is None else cases:
        if cases is None and case.set_name not in fp.SETS:
            continue
        every, score = features(data, case)
        order = np.argsort(-score, kind="stable")
        chosen = order[:pool]
        x = every[chosen]
        x = (x - x.mean(axis=0)) / np.maximum(x.std(axis=0), 1e-6)
        rows.append((case, order, chosen, x, np.array([case.ids[j] in case.relevant for j in chosen])))
    return rows


def fit(rows: list[Row], sets: tuple[str, ...], cols: list[int], c: float):
    """A logistic regression of on-topic on the `cols` features of the pools of `sets`."""
    from sklearn.linear_model import LogisticRegression

    x = np.concatenate([r[3][:, cols] for r in rows if r[0].set_name in sets])
    y = np.concatenate([r[4] for r in rows if r[0].set_name in sets])
    return LogisticRegression(C=c, max_iter=5000).fit(x, y)


def measure(rows: list[Row], sets: tuple[str, ...], model=None, cols: list[int] | None = None) -> dict[str, float]:
    """{set: on-topic mean over its profiles}, each pool re-ranked by `model` (the current score when None)."""
    per: dict[str, dict[str, list[float]]] = {}
    for case, order, pool, x, _ in rows:
        if case.set_name not in sets:
            continue
        ranked = order
        if model is not None:
            ranked = np.concatenate(
                [pool[np.argsort(-model.decision_function(x[:, cols]), kind="stable")], order[len(pool) :]]
            )
        per.setdefault(case.set_name, {}).setdefault(case.profile, []).append(fp.on_topic(case, ranked))
    return {s: float(np.mean([np.mean(v) for v in profiles.values()])) for s, profiles in per.items()}


def inner_value(rows: list[Row], train: tuple[str, ...], cols: list[int], c: float, base: dict[str, float]) -> float:
    """The mean gain over the inner folds of `train` (fit on all but one of its sets, measure on that one)."""
    pairs = [(tuple(s for s in train if s != b), b) for b in train]
    return float(np.mean([measure(rows, (b,), fit(rows, a, cols, c), cols)[b] - base[b] for a, b in pairs]))


async def measured_cases(home: Path, path: Path) -> list[fp.Case]:
    """The cases of the profiles in `path` on the store's days, built as `bench/fit_profiles.py` builds its own but
    with the interests' typos read as onboarding (and `bench/heldout_interests.py`) reads them: the profile the
    digest ranks. (The open sets hold no interest that reading changes, so their cache is the same either way.)"""
    profiles = fp.load_profiles(path)
    cases = []
    async with open_core(Settings(home=home)) as core:
        for key in sorted(fp._DAY_SENTENCES):
            papers, vecs, matrices, centre, centred, features_of_day = await fp.day_inputs(
                core, date.fromisoformat(key)
            )
            for item in profiles:
                read = await as_onboarding_reads(core, item)  # the interests the product ranks, typos read
                model = rank.compile_profile(
                    fp.onboarding_profile(read, f"console:rerank-{item.id}"), core.embedder.embed
                )
                cases.append(
                    fp._case("measured", item, key, papers, vecs, matrices, centre, centred, features_of_day, model)
                )
    return cases


def fit_all(rows: list[Row], cols: list[int]) -> tuple[object, float]:
    """The model fitted on all the open sets, its C chosen by leave-one-set-out over them, and that C."""
    folds = [(tuple(s for s in fp.SETS if s != out), out) for out in fp.SETS]
    c = max(C_GRID, key=lambda c: np.mean([measure(rows, (o,), fit(rows, t, cols, c), cols)[o] for t, o in folds]))
    return fit(rows, fp.SETS, cols, c), c


def export(rows: list[Row], pool: int, cols: list[int], path: Path) -> None:
    """Write the model `--measure` uses as the product's re-ranker weights (JSON)."""
    model, c = fit_all(rows, cols)
    counts = {s: sum(1 for r in rows if r[0].set_name == s) for s in fp.SETS}
    made = {
        "about": "The product's re-ranker of a one-line-interest profile's best papers (bot/ranking/rerank.py): a "
        "logistic regression of on-topic on the features below, each standardised within the profile-day's pool "
        "(the `pool` best papers by the cold-start score). Written by `bench/rerank_profiles.py --home DIR "
        "--export PATH` (a copy of the ready profiles store): fitted once on the open labelled profile sets "
        f"({', '.join(f'{s} {n} profile-days' for s, n in counts.items())}), C {c} chosen by leave-one-set-out "
        "over them; no other set was read. Refit after a change to the cold-start score.",
        "pool": pool,
        "C": c,
        "features": [NAMES[k] for k in cols],
        "weights": [round(float(w), 6) for w in model.coef_[0]],
        "intercept": round(float(model.intercept_[0]), 6),
    }
    path.write_text(json.dumps(made, indent=1) + "\n", encoding="utf-8")
    print(
        f"wrote {path}: C {c}, "
        + ", ".join(f"{n} {w:+.3f}" for n, w in zip(made["features"], made["weights"], strict=True))
    )


def measure_file(data: fp.Data, rows: list[Row], pool: int, cols: list[int], path: Path, home: Path) -> None:
    """Fit on all the open sets, re-rank the profiles of `path`, print their figures before and after."""
    model, _ = fit_all(rows, cols)
    target = build_rows(data, pool, asyncio.run(measured_cases(home, path)))
    for name, chosen in (("before", None), ("after", model)):
        per: dict[str, list[float]] = {}
        for case, order, chosen_pool, x, _ in target:
            ranked = order
            if chosen is not None:
                picked = np.argsort(-chosen.decision_function(x[:, cols]), kind="stable")
                ranked = np.concatenate([chosen_pool[picked], order[len(chosen_pool) :]])
            per.setdefault(case.profile, []).append(fp.on_topic(case, ranked))
        means = [float(np.mean(v)) for v in per.values()]
        print(f"{name}: mean over {len(means)} profiles: on-topic {np.mean(means):.3f} (min {min(means):.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a copy of a ready profiles store")
    parser.add_argument("--data", type=Path, default=fp.SHARED_DATA)
    parser.add_argument("--pool", type=int, default=100, help="the best papers of each profile-day re-ranked")
    parser.add_argument("--features", help="comma-separated subset of the features (default: all)")
    parser.add_argument("--nested", action="store_true", help="choose the features inside each fold")
    parser.add_argument(
        "--measure", type=Path, help="a profiles file to re-rank with the model fitted on every open set"
    )
    parser.add_argument("--export", type=Path, help="write the model fitted on every open set as the weights")
    args = parser.parse_args()
    # the cache is pickled by `bench/fit_profiles.py` run as a script, so its classes are looked up in __main__
    sys.modules["__main__"].Data, sys.modules["__main__"].Case = fp.Data, fp.Case
    data = fp.load(args.home, args.data, False)
    fp.role_rows(read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl"))), data.cases)
    rows = build_rows(data, args.pool)
    base = measure(rows, fp.SETS)
    fixed = [NAMES.index(n) for n in args.features.split(",")] if args.features else list(range(len(NAMES)))
    if args.export:
        export(rows, args.pool, fixed, args.export)
        return
    if args.measure:
        measure_file(data, rows, args.pool, fixed, args.measure, args.home)
        return
    changes = []
    for out in fp.SETS:
        train = tuple(s for s in fp.SETS if s != out)
        cols = fixed
        if args.nested:
            cols = [NAMES.index("score")]
            current = max(inner_value(rows, train, cols, c, base) for c in (0.1, 1.0))
            while True:
                trials = [
                    (max(inner_value(rows, train, [*cols, k], c, base) for c in (0.1, 1.0)), k)
                    for k in range(len(NAMES))
                    if k not in cols
                ]
                value, k = max(trials) if trials else (current, -1)
                if value <= current + 1e-4:
                    break
                cols, current = [*cols, k], value
        c = max(C_GRID, key=lambda c: inner_value(rows, train, cols, c, base))
        model = fit(rows, train, cols, c)
        held = measure(rows, (out,), model, cols)[out]
        changes.append(held - base[out])
        weights = ", ".join(f"{NAMES[k]} {w:+.2f}" for k, w in zip(cols, model.coef_[0], strict=True))
        print(f"  held out {out:<11} {base[out]:.3f} -> {held:.3f} (C {c}): {weights}", flush=True)
    verdict = "passes" if np.mean(changes) > 0 and min(changes) >= -0.01 else "fails"
    print(
        f"  pool {args.pool}: held-out mean change {np.mean(changes):+.4f}, worst fold {min(changes):+.4f}: {verdict}"
    )


if __name__ == "__main__":
    main()
