"""Where the open search sets' missed relevant papers are, and why (issue 22).

Runs every open search set as `bench/heldout_questions.py` does (`search_papers`, the chat's arguments, the item's
days) and, for each relevant paper outside a query's first 10, says whether it was a candidate at all (the dense pool
of POOL nearest whole-paper vectors, the papers holding the topic's words, or those holding a piece as typed) and, if
it was, where the fused ranking put it; then why, from the paper's own text against the query's words:

- `all words`: title or abstract holds every content word of the query (Porter stems), `title` / `abstract only`;
- `some words`: at least one, not all;
- `variant`: a word held only once hyphens are dropped or joined ("pre-training" / "pretraining") or British
  spellings are read as American ("optimisation");
- `acronym`: a query word written in capitals that the paper does not hold;
- `none`: no content word of the query (the topic in other words: a synonym or a neighbouring concept);
with the paper's whole-paper and best-sentence dense ranks among the window's papers.

    PYTHONPATH=$PWD .venv/bin/python bench/search_pool.py --home DIR [--set bench/search16 ...] [-v]

`DIR` is a copy of a store holding the four shared days with their sentence vectors. Never the sealed sets 3 to 6.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import snowballstemmer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout_misses import CALLS, _instrument
from heldout_questions import HERE, SHARED_DATA, _load, ensure_store, search_window

import bot.questions.retrieval as retrieval
from bot.chat.questions import MAX_LIST
from bot.config import Settings
from bot.core import open_core
from bot.ingest.jsonl import read_jsonl
from bot.questions.search import search_papers
from bot.questions.topics import FILLER, META
from bot.store.sentences import best_sentence_similarity_of

OPEN = ["heldout", "heldout/sealed", "heldout/sealed2", "search11", "search13", "search14", "search15", "search16"]
STEM = snowballstemmer.stemmer("porter")
_WORD = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
_BRITISH = [(re.compile(r"is(e|ed|es|ing|ation|ations|er|ers)\b"), r"iz\1"), (re.compile(r"our\b"), "or")]


def american(word: str) -> str:
    """A British spelling read as the American one ("optimisation" -> "optimization", "behaviour" -> "behavior")."""
    for pattern, repl in _BRITISH:
        word = pattern.sub(repl, word)
    return word


def stems(text: str, variants: bool = False) -> set[str]:
    """The Porter stems of `text`'s words; with `variants`, also each hyphenated word joined and split, and British
    spellings read as American."""
    found = set()
    for token in _WORD.findall(text):
        lower = token.lower()
        pieces = [lower]
        if variants:
            pieces = [lower, lower.replace("-", ""), *lower.split("-"), american(lower.replace("-", ""))]
        for piece in pieces:
            found.update(STEM.stemWord(p) for p in piece.split("-") if p)
    return found


def query_words(topic: str) -> list[str]:
    """The topic's content words as typed."""
    return [w for w in _WORD.findall(topic) if w.lower() not in FILLER and w.lower() not in META]


def why(topic: str, title: str, abstract: str) -> str:
    """The word cause for a missed paper (see the module docstring)."""
    words = query_words(topic)
    if not words:
        return "no words"
    wanted = [STEM.stemWord(w.lower().replace("-", "")) for w in words]
    split = [{STEM.stemWord(p) for p in w.lower().split("-") if p} for w in words]
    plain_t, plain_a = stems(title), stems(abstract)
    loose = stems(f"{title} {abstract}", variants=True)

    def held(bag: set[str]) -> list[bool]:
        return [w in bag or s <= bag for w, s in zip(wanted, split, strict=True)]

    in_title, in_any = held(plain_t), held(plain_t | plain_a)
    if all(in_title):
        return "all words, title"
    if all(in_any):
        return "all words, abstract"
    varied = held(loose)
    if sum(varied) > sum(in_any):
        return "variant (hyphen/spelling)"
    missing = [w for w, h in zip(words, in_any, strict=True) if not h]
    if any(re.fullmatch(r"[A-Z][A-Za-z]*[A-Z]s?", w) for w in missing):
        return "acronym"
    return "some words" if any(in_any) else "none"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--set", action="append", help="a folder under bench/ holding search.jsonl (repeatable)")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    papers = read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl")))
    by_id = {p.id: p for p in papers}
    last_day = max(p.announced for p in papers)
    queries: list[np.ndarray] = []
    candidates = retrieval._candidates

    async def _candidates(core, filters, query_vector, loose):
        queries.append(query_vector)
        return await candidates(core, filters, query_vector, loose)

    retrieval._candidates = _candidates
    _instrument()  # the pool recorder, around the query recorder
    causes: Counter = Counter()
    places: Counter = Counter()
    async with open_core(Settings(home=args.home, llm_base_url=None, llm_api_key=None)) as core:
        await ensure_store(core, papers)
        ids = [p.id for p in papers]
        vectors = await core.vectors.found_vectors(ids)
        matrix = np.stack([vectors[i] for i in ids])
        sentences = await core.sentences.matrices(ids)
        for name in args.set or OPEN:
            for item in _load(HERE / name / "search.jsonl"):
                CALLS.clear()
                queries.clear()
                since, until = search_window(item, last_day)
                found = await search_papers(core, item["query"], since=since, until=until, limit=MAX_LIST, cut=True)
                listed = [h.paper.id for h in (*found.hits, *found.more)]
                missed = sorted(set(item["relevant"]) - set(listed[:10]))
                if not missed:
                    continue
                call, query = (CALLS[0] if CALLS else None), (queries[0] if queries else None)
                inside = [i for i, p in enumerate(papers) if (since is None or p.announced >= since)]
                inside = [i for i in inside if papers[i].announced <= until]
                dense_rank, sentence_rank = {}, {}
                if query is not None:
                    dense = matrix[inside] @ query
                    best = best_sentence_similarity_of(query[None, :], [sentences.get(ids[i]) for i in inside])[:, 0]
                    for order, target in ((np.argsort(-dense), dense_rank), (np.argsort(-best), sentence_rank)):
                        for n, k in enumerate(order):
                            target[ids[inside[k]]] = n + 1
                topic = found.query or item["query"]
                if args.verbose and call is not None:
                    good = set(item["relevant"]) | set(item["acceptable"])
                    marks = []
                    for n, h in enumerate([*found.hits, *found.more][:10]):
                        label = "R" if h.paper.id in item["relevant"] else "a" if h.paper.id in good else "-"
                        at = call.ranked.index(h.paper.id) + 1 if h.paper.id in call.ranked else 0
                        page = "|" if n == len(found.hits) else ""
                        marks.append(f"{page}{label}{at}{'' if h.by_words else '~'}")
                    print(f"{name:<16} {item['id']:<4} first ten: {' '.join(marks)}")
                for paper_id in missed:
                    paper = by_id[paper_id]
                    if call is None or paper_id not in call.candidates:
                        where = "not in pool"
                    elif paper_id in listed:
                        where = "listed after 10"
                    elif paper_id in call.ranked:
                        where = "in pool, not listed"
                    else:
                        where = "in pool, dropped"
                    reason = why(topic, paper.title, paper.abstract)
                    causes[(where, reason)] += 1
                    places[where] += 1
                    if args.verbose:
                        fused = call.ranked.index(paper_id) + 1 if call and paper_id in call.ranked else "-"
                        print(
                            f"{name:<16} {item['id']:<4} {where:<19} {reason:<26} fused {fused!s:>4} dense "
                            f"{dense_rank.get(paper_id, '-')!s:>4} sent {sentence_rank.get(paper_id, '-')!s:>4} "
                            f"| {item['query'][:40]:<40} | {paper.title[:60]}"
                        )
    print("| where | " + " | ".join(sorted({r for _, r in causes})) + " | all |")
    reasons = sorted({r for _, r in causes})
    for where in sorted(places):
        cells = " | ".join(str(causes[(where, r)]) for r in reasons)
        print(f"| {where} | {cells} | {places[where]} |")


if __name__ == "__main__":
    asyncio.run(main())
