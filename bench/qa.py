"""Question answering quality on the shared arXiv week (2025-05-26..30).

Each question has expected papers defined by a regular expression on titles, evaluated inside the window the
question names. For each answer we measure recall (expected papers among the papers the answer lists: its
citations, then those it offers with /more), on-topic share (citations whose title or abstract matches the
pattern) and listed papers outside the window (must be 0).
Targets (issue 4): mean recall >= 0.8, mean on-topic >= 0.7, 0 outside the window.

    .venv/bin/python bench/qa.py [--home DIR] [--data ../shared/data] [-v]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bot.config import Settings
from bot.core import Core, open_core
from bot.ingest.jsonl import read_jsonl
from bot.ingest.save import store_papers
from bot.models import Paper
from bot.questions.rag import ask

AS_OF = dt.date(2025, 5, 30)


@dataclass(frozen=True)
class Question:
    text: str
    pattern: str  # expected papers: titles matching this (case-insensitive) inside the window
    authors: tuple[str, ...] = ()  # or: papers with an author matching each of these regexes


def author_match(question: Question, paper: Paper) -> bool:
    """The paper has, for every author regex of the question, an author matching it."""
    return all(any(re.search(a, name) for name in paper.authors) for a in question.authors)


def expected_ids(question: Question, papers: list[Paper], start: dt.date, end: dt.date) -> set[str]:
    """The papers a question should cite inside [start, end]: by title pattern, or by author."""
    pattern = re.compile(question.pattern, re.IGNORECASE)
    inside = [p for p in papers if start <= p.announced <= end]
    if question.authors:
        return {p.id for p in inside if author_match(question, p)}
    return {p.id for p in inside if pattern.search(p.title)}


def is_on_topic(question: Question, paper: Paper) -> bool:
    """A citation is on topic when its title or abstract matches the pattern (or the authors match)."""
    if question.authors:
        return author_match(question, paper)
    pattern = re.compile(question.pattern, re.IGNORECASE)
    return bool(pattern.search(paper.title) or pattern.search(paper.abstract))


QUESTIONS = [
    Question("what MoE papers this week?", r"mixture[- ]of[- ]experts?|MoE"),
    Question("any quantization papers since Wednesday?", r"quantiz"),
    Question("graph neural network papers this week", r"graph neural|\bGNNs?\b"),
    Question("what's new on pruning this week?", r"\bprun"),
    Question("KV cache papers this week", r"KV[- ]cache|key-value cache"),
    Question("LoRA papers in the last 3 days", r"\bLoRA|low-rank adaptation"),
    Question("in-context learning papers this week", r"in-context learning"),
    Question("papers about hallucination on Monday", r"hallucinat"),
    Question("protein papers this week", r"protein"),
    Question("machine unlearning papers this week", r"unlearn"),
    Question("anything on tabular data this week?", r"tabular"),
    Question("watermarking papers this week", r"watermark"),
    Question("scaling laws this week", r"scaling law"),
    Question("federated learning papers today", r"federated"),
    Question("time series papers yesterday", r"time[- ]series"),
    Question("what about knowledge distillation since Wednesday?", r"distill"),
    Question("contrastive learning papers this week", r"contrastive"),
    Question("uncertainty quantification papers on Wednesday", r"uncertainty"),
    Question("papers on causality this week", r"causal"),
    Question("fairness papers in May", r"fairness|unfair"),
    Question("sparse autoencoders this week", r"sparse autoencoder"),
    Question("what about optimizers like SGD or Adam this week?", r"optimi[sz]er|\bSGD\b|\bAdam"),
    # added with the alternatives rule ("A or B", "X like A"), written before it was run on them
    Question("pruning or quantization papers since Wednesday", r"prun|quantiz"),
    Question("what about RLHF or DPO this week?", r"RLHF|human feedback|\bDPO\b|direct preference"),
    Question("papers on watermarking, unlearning or copyright this week", r"watermark|unlearn|copyright"),
]


SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="state dir to reuse (ingested once); default a temp dir")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("-v", "--verbose", action="store_true", help="print misses and off-topic citations")
    args = parser.parse_args()
    papers = read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl")))
    with tempfile.TemporaryDirectory() as scratch:
        home = args.home or Path(scratch)
        async with open_core(Settings(home=home)) as core:
            await store_papers(core, papers)
            rows = [await run_question(core, q, papers, args.verbose) for q in QUESTIONS]
    print(f"{'question':<52} {'expect':>6} {'cited':>5} {'recall':>6} {'on-topic':>8} {'outside':>7}")
    for q, (expected, cited, recall, on_topic, outside) in zip(QUESTIONS, rows, strict=True):
        print(f"{q.text[:52]:<52} {expected:>6} {cited:>5} {recall:6.2f} {on_topic:8.2f} {outside:>7}")
    n = len(rows)
    print(
        f"{'mean over ' + str(n) + ' questions':<52} {'':>6} {'':>5} {sum(r[2] for r in rows) / n:6.3f} "
        f"{sum(r[3] for r in rows) / n:8.3f} {sum(r[4] for r in rows):>7}"
    )


async def run_question(
    core: Core, question: Question, papers: list[Paper], verbose: bool
) -> tuple[int, int, float, float, int]:
    answer = await ask(core, question.text, today=AS_OF)
    start, end = answer.window
    expected = expected_ids(question, papers, start, end)
    cited = [p.id for p in answer.citations]
    # recall counts what the answer lists: the papers it shows, then the ones it offers with /more (issue 22)
    listed = cited + [p.id for p in answer.more]
    by_id = {p.id: p for p in papers}
    on_topic = [i for i in cited if is_on_topic(question, by_id[i])]
    outside = sum(1 for i in listed if not start <= by_id[i].announced <= end)
    recall = len(expected & set(listed)) / len(expected) if expected else 1.0
    share = len(on_topic) / len(cited) if cited else (1.0 if not expected else 0.0)
    if verbose:
        for i in sorted(expected - set(listed)):
            print(f"  miss    [{question.text[:30]}] {i} {by_id[i].title[:90]}")
        for i in cited:
            if i not in on_topic:
                print(f"  off     [{question.text[:30]}] {i} {by_id[i].title[:90]}")
    return len(expected), len(cited), recall, share, outside


if __name__ == "__main__":
    asyncio.run(main())
