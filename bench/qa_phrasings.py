"""Question understanding across phrasings (issue 14), on the shared arXiv week (2025-05-26..30).

The intents of `bench/questions_phrasings.py`, each asked in four phrasings, are answered by `bot.questions.rag.ask` and
scored as `bench/qa.py` scores its questions (recall, on-topic share, citations outside the window), then
averaged per phrasing style. Also: /search precision@5 on each intent's search phrasings (on-topic hits among
the top five, out of the on-topic papers that exist when fewer than five do), and for one-line member interests
the precision of the top 10 of each shared day's personal ranking by title pattern (recall of all of them in the
top 10 when the day has fewer than 10).
Targets: recall >= 0.9 and on-topic >= 0.9 for every style, 0 outside; /search P@5 >= 0.9; interests >= 0.8.

    .venv/bin/python bench/qa_phrasings.py [--data ../shared/data] [--only PART] [-v]
    .venv/bin/python bench/qa_phrasings.py --heldout [-v]   # bench/questions_heldout.py, written after the code
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
from interests import run_interests
from qa import AS_OF, SHARED_DATA, Question, is_on_topic, run_question
from questions_heldout import HELDOUT, HELDOUT_2, HELDOUT_SEARCH
from questions_phrasings import INTENTS, INTERESTS, STYLES, Intent

from bot.config import Settings
from bot.core import Core, open_core
from bot.ingest.jsonl import read_jsonl
from bot.ingest.save import store_papers
from bot.models import Paper
from bot.questions.search import search_papers

Row = tuple[int, int, float, float, int]


def kind_of(intent: Intent) -> str:
    """author, compound or topic."""
    return "author" if intent.authors else ("compound" if intent.compound else "topic")


async def questions(core: Core, papers: list[Paper], verbose: bool) -> None:
    by_style: dict[str, list[Row]] = defaultdict(list)
    by_kind: dict[str, list[Row]] = defaultdict(list)
    for intent in INTENTS:
        for style, text in zip(STYLES, intent.phrasings, strict=True):
            row = await run_question(core, Question(text, intent.pattern, intent.authors), papers, verbose)
            by_style[style].append(row)
            by_kind[kind_of(intent)].append(row)
            if verbose:
                print(f"  {style:<14} {text[:60]:<60} exp {row[0]:>2} cited {row[1]:>2} R {row[2]:.2f} on {row[3]:.2f}")
    print(f"{'phrasing style':<20} {'questions':>9} {'recall':>7} {'on-topic':>8} {'outside':>7}")
    for label, rows in [*by_style.items(), *((f"({k} intents)", r) for k, r in by_kind.items())]:
        n = len(rows)
        recall = sum(r[2] for r in rows) / n
        share = sum(r[3] for r in rows) / n
        print(f"{label:<20} {n:>9} {recall:7.3f} {share:8.3f} {sum(r[4] for r in rows):>7}")


async def search_precision(core: Core, papers: list[Paper], verbose: bool) -> None:
    values = []
    for intent in INTENTS:
        question = Question("", intent.pattern)
        available = sum(1 for p in papers if is_on_topic(question, p))
        for query in intent.search:
            hits = (await search_papers(core, query, cut=True)).hits  # the first page
            top = hits[:5]
            good = sum(1 for h in top if is_on_topic(question, h.paper))
            value = good / min(5, available) if available else (1.0 if not top else 0.0)
            values.append(min(value, 1.0))
            if verbose:
                print(f"  search {query[:40]:<40} hits {len(hits):>2} P@5 {values[-1]:.2f}")
                for h in top:
                    if not is_on_topic(question, h.paper):
                        print(f"      off  {h.paper.title[:90]}")
    print(f"/search precision@5 over {len(values)} queries: mean {np.mean(values):.3f}, min {min(values):.2f}")


async def heldout(core: Core, papers: list[Paper], verbose: bool) -> None:
    """The held-out questions and searches (written after the code changed), reported apart."""
    for label, questions in (("held-out questions", HELDOUT), ("held-out questions, second list", HELDOUT_2)):
        rows = []
        for question in questions:
            rows.append(await run_question(core, question, papers, verbose))
            if verbose:
                r = rows[-1]
                print(f"  held-out {question.text[:50]:<50} exp {r[0]:>2} cited {r[1]:>2} R {r[2]:.2f} on {r[3]:.2f}")
        n = len(rows)
        recall, share = sum(r[2] for r in rows) / n, sum(r[3] for r in rows) / n
        print(f"{label}: {n}, recall {recall:.3f}, on-topic {share:.3f}, outside {sum(r[4] for r in rows)}")
    values = []
    for question in HELDOUT_SEARCH:
        available = sum(1 for p in papers if is_on_topic(question, p))
        top = (await search_papers(core, question.text, cut=True)).hits[:5]
        good = sum(1 for h in top if is_on_topic(question, h.paper))
        values.append(min(good / min(5, available), 1.0) if available else float(not top))
        if verbose:
            print(f"  held-out search {question.text[:40]:<40} hits {len(top):>2} P@5 {values[-1]:.2f}")
    print(f"held-out /search precision@5 over {len(values)} queries: mean {np.mean(values):.3f}, min {min(values):.2f}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="state dir to reuse (ingested once); default a temp dir")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--only", choices=["questions", "search", "interests"], help="run one part")
    parser.add_argument("--heldout", action="store_true", help="only the held-out questions and searches")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each question, misses, off-topic")
    args = parser.parse_args()
    papers = read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl")))
    print(f"as of {AS_OF}; {len(INTENTS)} intents x {len(STYLES)} phrasings; {len(INTERESTS)} interests")
    with tempfile.TemporaryDirectory() as scratch:
        async with open_core(Settings(home=args.home or Path(scratch))) as core:
            await store_papers(core, papers)
            if args.heldout:
                await heldout(core, papers, args.verbose)
                return
            if args.only in (None, "questions"):
                await questions(core, papers, args.verbose)
            if args.only in (None, "search"):
                await search_precision(core, papers, args.verbose)
            if args.only in (None, "interests"):
                await run_interests(core, papers, INTERESTS, args.verbose)


if __name__ == "__main__":
    asyncio.run(main())
