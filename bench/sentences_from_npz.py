"""Store the sentence vectors `bench/interest_scorers.py` kept (DIR/interest-scorers-sentences.npz) in a bench
store's sentence vectors (`bot.store.sentences`), so a bench that ranks with them does not embed the four shared
days' 13,775 sentences again (about 30 minutes on the shared cores under load):

    PYTHONPATH=$PWD .venv/bin/python bench/sentences_from_npz.py --npz /tmp/ph-int4/interest-scorers-sentences.npz \
        --home DIR

They are the vectors ingest makes: the same MiniLM, the same sentences (each paper's title, then `split_sentences`
of its abstract). The file lists papers by `Paper.vector_key` and their sentences in order; every paper it names
must be stored in DIR. A few papers are embedded again as a check, and a file whose sentences no longer line up
with today's splitting is refused.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bot.config import Settings
from bot.core import Core, open_core
from bot.ingest.vectors import MAX_SENTENCES
from bot.models import Paper
from bot.text.extractive import split_sentences

CHECKED = 3  # papers embedded again to compare with the file
SAVE_CHUNK = 200


def every_sentence(paper: Paper) -> list[str]:
    """What `bench/interest_scorers.py` embedded for a paper (no cap on the count)."""
    return [paper.title, *split_sentences(paper.abstract)]


async def store_from_npz(core: Core, path: Path, papers: Sequence[Paper]) -> int:
    """Give the papers of `papers` that the store holds their sentence vectors from `path`, which must list only
    papers of `papers` (their sentences walked in its order); returns how many papers were given them."""
    saved = np.load(path)
    keys, vecs = [str(k) for k in saved["ids"]], np.asarray(saved["vecs"], dtype=np.float32)
    by_key = {p.vector_key: p for p in papers}
    unknown = [k for k in keys if k not in by_key]
    if unknown:
        raise SystemExit(f"{len(unknown)} papers of {path} are not among the papers given (first: {unknown[0]})")
    held = {p.id for p in await core.repo.get_papers([p.id for p in papers])}
    chosen, matrices, start = [], [], 0
    for key in keys:
        paper = by_key[key]
        count = len(every_sentence(paper))
        if paper.id in held:
            chosen.append(paper)
            matrices.append(vecs[start : start + count][:MAX_SENTENCES])
        start += count
    if start != len(vecs):
        raise SystemExit(f"the file holds {len(vecs)} sentences, today's splitting gives {start}: embed again")
    for paper, matrix in list(zip(chosen, matrices, strict=True))[:: max(1, len(chosen) // CHECKED)][:CHECKED]:
        fresh = core.embedder.embed(every_sentence(paper)[:MAX_SENTENCES])
        if float(np.min(np.sum(fresh * matrix, axis=1))) < 0.99:
            raise SystemExit(f"the file's sentences of {paper.id} are not what embedding them gives now")
    for begin in range(0, len(chosen), SAVE_CHUNK):
        await core.sentences.save(chosen[begin : begin + SAVE_CHUNK], matrices[begin : begin + SAVE_CHUNK])
    return len(chosen)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--npz", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True)
    args = parser.parse_args()
    async with open_core(Settings(home=args.home)) as core:
        stored = [p for day in await core.repo.announcement_days() for p in await core.repo.papers_on(day)]
        count = await store_from_npz(core, args.npz, stored)
        have, current = await core.sentences.coverage()
        print(f"stored the sentence vectors of {count} papers; {current} of {have} current")


if __name__ == "__main__":
    asyncio.run(main())
