"""Every open profile set at once, in memory: the digest's cold-start score and the shipped re-ranker (issue 23).

`bench/fit_profiles.py`'s cache (every term of the cold-start score per profile-day) is built for the open sets
named below, and each profile-day's pool is put in the shipped re-ranker's order (`bot/ranking/rerank_weights.json`,
as `bot.ranking.rerank.reranked_order` does). It prints, per set, the on-topic mean (min) of the cold score and of
the re-ranked order, and the profiles below 0.75: the figures of `bench/heldout_interests.py` (checked equal on the
seven sets of the fourteenth session), for all the sets in a few minutes instead of half an hour.

    rm -rf DIR && cp -a /tmp/final-i DIR
    PYTHONPATH=$PWD .venv/bin/python bench/open_profiles.py --home DIR [--json OUT]

The cache is written into DIR; use a fresh copy after a change to the ranker. Never name a sealed set here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fit_profiles as fp
import rerank_profiles as rp

from bot.ingest.jsonl import read_jsonl
from bot.ranking.rerank import default_model

ROOT = Path(__file__).resolve().parents[1]
MORE_SETS = {name: ROOT / "bench" / name / "profiles.jsonl" for name in (*(f"profiles{k}" for k in range(12, 21)),)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a fresh copy of a ready profiles store")
    parser.add_argument("--json", type=Path, help="write each profile's figures here")
    args = parser.parse_args()
    fp.OPEN_SETS.update({name: path for name, path in MORE_SETS.items() if path.exists()})
    fp.SETS = tuple(fp.OPEN_SETS)
    # the cache is pickled by `bench/fit_profiles.py` run as a script, so its classes are looked up in __main__
    sys.modules["__main__"].Data, sys.modules["__main__"].Case = fp.Data, fp.Case
    data = fp.load(args.home, fp.SHARED_DATA, False)
    fp.role_rows(read_jsonl(sorted((fp.SHARED_DATA / "arxiv").glob("*.jsonl"))), data.cases)
    rows = rp.build_rows(data, default_model().pool)
    model = default_model()
    out: dict[str, dict[str, dict[str, float]]] = {}
    for name in fp.SETS:
        cold: dict[str, list[float]] = {}
        reranked: dict[str, list[float]] = {}
        for case, order, pool, x, _ in rows:
            if case.set_name != name:
                continue
            decision = x.astype(np.float64) @ model.weights + model.intercept
            ranked = np.concatenate([pool[np.argsort(-decision, kind="stable")], order[len(pool) :]])
            cold.setdefault(case.profile, []).append(fp.on_topic(case, order))
            reranked.setdefault(case.profile, []).append(fp.on_topic(case, ranked))
        means = {
            kind: {p: float(np.mean(v)) for p, v in d.items()} for kind, d in (("cold", cold), ("rerank", reranked))
        }
        out[name] = means
        c, r = means["cold"], means["rerank"]
        below = ", ".join(f"{p} {v:.2f}" for p, v in r.items() if v < 0.75)
        print(
            f"{name:<12} cold {np.mean(list(c.values())):.3f} ({min(c.values()):.3f})  re-ranked "
            f"{np.mean(list(r.values())):.3f} ({min(r.values()):.3f})  below 0.75: {below or 'none'}"
        )
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
