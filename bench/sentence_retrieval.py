"""Question and search retrieval with each paper's best sentence, measured offline (issue 22).

Whole-paper MiniLM reads only the first 256 word pieces of a paper and averages them into one vector, so a paper
whose one sentence states the topic in other words is diluted and ranked 30th or lower. `bot.questions.retrieval`
reads each candidate's best sentence's cosine with the question's topic vector (`core.sentences`, title and abstract
sentences embedded apart at ingest) and offers a paper without the topic's words when it reaches SENTENCE_NEAR. Each
configuration below runs the held-out searches and/or questions of `bench/heldout_questions.py` with its metric:
SENTENCE_NEAR as set, and optionally the best-sentence similarity as one more ranking in the reciprocal rank fusion.

    PYTHONPATH=$PWD .venv/bin/python bench/sentence_retrieval.py --home DIR --sentences FILE
        [--set bench/heldout] [--only questions|search] [--kind KIND] [--configs 'off;near 0.55'] [-v]
        [--where | --buckets]

`FILE` is the sentence file of `bench/interest_scorers.py` (`interest-scorers-sentences.npz`: the four shared days'
papers in the order `read_jsonl` gives them, each its title then its abstract sentences); the store `DIR` (a copy
holding the four days: follow-up turns are written to it) gets its sentence vectors from it through
`core.sentences.save` when it lacks them, so nothing is embedded here (30 min under load otherwise).
`--fill-only` only gives the store's papers their sentence vectors (a store of some of the four days, such as the
bundled day's of `bench/cold_start.py --home`, ingested with PAPERSCOUT_SENTENCE_VECTORS=false) and exits.
`--where` prints where each search's missed papers rank (dense, best sentence, fused, listed); `--buckets` how often
the searches' candidates are relevant by where the query's words are and by their best sentence's cosine.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout_questions import (
    HERE,
    SHARED_DATA,
    _load,
    ensure_store,
    of_kind,
    report_questions,
    report_searches,
    run_questions,
    run_searches,
)
from sentences_from_npz import store_from_npz

from bot.chat.questions import MAX_LIST
from bot.config import Settings
from bot.core import Core, open_core
from bot.ingest.jsonl import read_jsonl
from bot.models import Paper
from bot.questions import retrieval
from bot.questions.filters import Filters
from bot.questions.spelling import corrected
from bot.questions.timewords import TimeWindow
from bot.questions.topics import topic_of

# name -> (SENTENCE_NEAR, weight of the best-sentence ranking in the fusion)
CONFIGS: dict[str, tuple[float, float]] = {
    "off": (1.1, 0.0),  # no paper is offered for its best sentence alone (a cosine never exceeds 1)
    "near 0.55": (0.55, 0.0),
    "near 0.6": (0.6, 0.0),
    "near 0.65": (0.65, 0.0),
    "fused": (1.1, 1.0),
    "fused x2": (1.1, 2.0),
    "near 0.55, fused": (0.55, 1.0),
}
ORIGINAL_FUSED = retrieval._Scored.fused


def fused_with_sentences(weight: float) -> Callable[..., np.ndarray]:
    """`_Scored.fused` with the best-sentence ranking as one more list (reciprocal rank fusion adds up per list)."""

    def fused(self: retrieval._Scored, bm25: dict[str, int], expanded: np.ndarray | None = None) -> np.ndarray:
        scores = ORIGINAL_FUSED(self, bm25, expanded)
        if weight and self.sentence is not None:
            scores = scores + retrieval.reciprocal_rank_fusion([self.sentence], [weight])
        return scores

    return fused


async def store_sentences(core: Core, papers: list[Paper], path: Path) -> None:
    """Give the store's papers (those of `papers` it holds) their sentence vectors from the bench file, unless it
    holds them all already."""
    held = await core.repo.get_papers([p.id for p in papers])
    _, current = await core.sentences.coverage()
    if current >= len(held):
        return
    print(f"stored the sentence vectors of {await store_from_npz(core, path, papers)} papers from {path}", flush=True)


async def where(core: Core, items: list[dict], by_id: dict[str, Paper]) -> None:
    """For each search's relevant papers missing from its first 10 listed: where each ranking puts them among the
    candidates (dense, best sentence, fused order) and whether they carry the query's words."""
    last_day = max(p.announced for p in by_id.values())
    for item in items:
        query = topic_of(await corrected(core, item["query"])) or item["query"]
        filters = Filters(topic=query, window=TimeWindow(dt.date.min, last_day, ""))
        results, _ = await retrieval.ranked(core, filters)
        first, rest = await retrieval.retrieve(core, filters, limit=MAX_LIST)
        listed = [r.paper.id for r in (*first, *rest)]
        dense = sorted(results, key=lambda r: -r.dense)
        sentence = sorted(results, key=lambda r: -np.nan_to_num(r.sentence, nan=-1.0))
        for paper_id in item["relevant"]:
            if paper_id in listed[:10]:
                continue
            at = {r.paper.id: n for n, r in enumerate(results)}
            if paper_id not in at:
                print(f"{item['id']} not a candidate: {by_id[paper_id].title[:70]} | {item['query']}")
                continue
            r = results[at[paper_id]]
            d = next(n for n, x in enumerate(dense) if x.paper.id == paper_id)
            s = next(n for n, x in enumerate(sentence) if x.paper.id == paper_id)
            place = listed.index(paper_id) + 1 if paper_id in listed else "-"
            words = "title" if r.in_title else "abstract" if r.in_abstract else "none"
            print(
                f"{item['id']} listed {place} fused {at[paper_id] + 1} dense {d + 1} ({r.dense:.2f}) sentence "
                f"{s + 1} ({r.sentence:.2f}) words {words} of {len(results)} | {by_id[paper_id].title[:60]} "
                f"| {item['query']}"
            )


async def buckets(core: Core, items: list[dict], by_id: dict[str, Paper]) -> None:
    """How often a search's candidates are relevant (and relevant or acceptable), by where the query's words are
    (title, abstract only, neither) and by their best sentence's cosine: is a close sentence evidence?"""
    last_day = max(p.announced for p in by_id.values())
    counts: dict[tuple[str, float], list[int]] = {}
    for item in items:
        query = topic_of(await corrected(core, item["query"])) or item["query"]
        results, _ = await retrieval.ranked(core, Filters(topic=query, window=TimeWindow(dt.date.min, last_day, "")))
        relevant, good = set(item["relevant"]), set(item["relevant"]) | set(item["acceptable"])
        for r in results:
            words = "title" if r.in_title else "abstract" if r.in_abstract else "none"
            cell = counts.setdefault((words, min(0.7, np.floor(r.sentence * 20) / 20)), [0, 0, 0])
            cell[0] += 1
            cell[1] += r.paper.id in relevant
            cell[2] += r.paper.id in good
    print(f"{'words':<9} {'sentence':>8} {'papers':>6} {'relevant':>8} {'+accept':>8}")
    for (words, low), (n, rel, ok) in sorted(counts.items()):
        print(f"{words:<9} {low:8.2f} {n:6d} {rel / n:8.2f} {ok / n:8.2f}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a store holding the four shared days (a copy)")
    parser.add_argument("--sentences", type=Path, required=True, help="interest-scorers-sentences.npz")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--set", type=Path, default=HERE / "heldout", help="folder of questions.jsonl, search.jsonl")
    parser.add_argument("--only", choices=["questions", "search"], help="run one part")
    parser.add_argument("--kind", help="only the questions of this kind (follow-ups with the question they follow)")
    parser.add_argument("--configs", default="off;near 0.55", help="names of CONFIGS, separated by ;")
    parser.add_argument("--where", action="store_true", help="where the searches' missed papers rank, per list")
    parser.add_argument("--fill-only", action="store_true", help="store the sentence vectors of --home's papers, exit")
    parser.add_argument("--buckets", action="store_true", help="the searches' candidates' precision by evidence")
    parser.add_argument("-v", "--verbose", action="store_true", help="each item, its misses and off-topic papers")
    args = parser.parse_args()
    papers = read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl")))
    by_id = {p.id: p for p in papers}
    async with open_core(Settings(home=args.home, llm_base_url=None, llm_api_key=None)) as core:
        if args.fill_only:  # a store of some of the days (`bench/cold_start.py --home`): its sentence vectors only
            await store_sentences(core, papers, args.sentences)
            return
        await ensure_store(core, papers)
        await store_sentences(core, papers, args.sentences)
        for name in args.configs.split(";"):
            retrieval.SENTENCE_NEAR, weight = CONFIGS[name]
            retrieval._Scored.fused = fused_with_sentences(weight)  # type: ignore[method-assign]
            print(f"== {name}: SENTENCE_NEAR {retrieval.SENTENCE_NEAR}, fused x{weight}", flush=True)
            if args.buckets:
                await buckets(core, _load(args.set / "search.jsonl"), by_id)
            elif args.where:
                await where(core, _load(args.set / "search.jsonl"), by_id)
            elif args.only in (None, "search"):
                searches = _load(args.set / "search.jsonl")
                report_searches(await run_searches(core, searches, by_id, args.verbose))
            if args.only in (None, "questions"):
                items = of_kind(_load(args.set / "questions.jsonl"), args.kind)
                report_questions(items, await run_questions(core, items, by_id, args.verbose))
            sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main())
