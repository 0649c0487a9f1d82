"""`retrieval.FUSED_DEPTH` chosen by leave-one-set-out over the eight older open search sets (issue 22).

Runs every open search set as `bench/heldout_questions.py --only search` does, once per depth (0: the list as it was
before `_fused_first`, carriers of the query's words first), each query's ranking read once and reused (the depth
changes only how `retrieve` lists it). Prints recall@10 / on-topic@5 per set and depth, then each fold: the depth
with the best mean recall@10 (then on-topic@5) over seven of the older sets, measured on the eighth; `search17`,
written after the depth was chosen, is reported beside them and never chosen on.

    PYTHONPATH=$PWD .venv/bin/python bench/search_depth_folds.py --home DIR [--depths 0,10,12,15,20]

`DIR` is a copy of a store holding the four shared days with their sentence vectors. Never the sealed sets 3 to 6.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout_questions import HERE, SHARED_DATA, _load, ensure_store, run_searches

import bot.questions.retrieval as retrieval
from bot.config import Settings
from bot.core import open_core
from bot.ingest.jsonl import read_jsonl

OLDER = ["heldout", "heldout/sealed", "heldout/sealed2", "search11", "search13", "search14", "search15", "search16"]
NEWER = ["search17"]


def _cached_ranking() -> None:
    """Each distinct query's ranking read once: the depth does not change it."""
    inner, cache = retrieval.ranked, {}

    async def ranked(core, filters, **options):
        key = repr(filters) + repr(options.get("profile"))
        if key not in cache:
            cache[key] = await inner(core, filters, **options)
        return cache[key]

    retrieval.ranked = ranked


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--depths", default="0,10,12,13,15,17,20")
    args = parser.parse_args()
    depths = [int(d) for d in args.depths.split(",")]
    _cached_ranking()
    papers = read_jsonl(sorted((SHARED_DATA / "arxiv").glob("*.jsonl")))
    by_id = {p.id: p for p in papers}
    figures: dict[tuple[int, str], tuple[float, float]] = {}
    async with open_core(Settings(home=args.home, llm_base_url=None, llm_api_key=None)) as core:
        await ensure_store(core, papers)
        for depth in depths:
            retrieval.FUSED_DEPTH = depth
            cells = []
            for name in [*OLDER, *NEWER]:
                rows = await run_searches(core, _load(HERE / name / "search.jsonl"), by_id, False)
                figures[(depth, name)] = (sum(r[1] for r in rows) / len(rows), sum(r[2] for r in rows) / len(rows))
                cells.append(f"{figures[(depth, name)][0]:.3f}/{figures[(depth, name)][1]:.3f}")
            print(f"depth {depth:>3}: " + " ".join(cells), flush=True)
    print("sets: " + " ".join([*OLDER, *NEWER]))

    def chosen(sets: list[str]) -> int:
        return max(depths, key=lambda d: (sum(figures[(d, s)][0] for s in sets), sum(figures[(d, s)][1] for s in sets)))

    held_out = []
    for held in OLDER:
        depth = chosen([s for s in OLDER if s != held])
        held_out.append(figures[(depth, held)][0])
        base, got = figures[(depths[0], held)], figures[(depth, held)]
        print(f"{held:<16} chosen {depth:>3}: {base[0]:.3f}/{base[1]:.3f} -> {got[0]:.3f}/{got[1]:.3f}")
    before = sum(figures[(depths[0], s)][0] for s in OLDER) / len(OLDER)
    print(f"mean held-out recall@10 {sum(held_out) / len(held_out):.4f} (depth {depths[0]}: {before:.4f})")
    depth = chosen(OLDER)
    for name in NEWER:
        base, got = figures[(depths[0], name)], figures[(depth, name)]
        print(f"{name:<16} at {depth} (chosen on all eight): {base[0]:.3f}/{base[1]:.3f} -> {got[0]:.3f}/{got[1]:.3f}")


if __name__ == "__main__":
    asyncio.run(main())
