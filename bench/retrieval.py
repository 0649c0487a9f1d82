"""Retrieval latency with 100,000 stored papers: the dense (Chroma, date-filtered), lexical (SQLite FTS5 BM25)
and fused hybrid steps of question answering, p50/p95 over many queries. Target (issue 4): p95 <= 30 ms.

Vectors are synthetic (random unit vectors, as the issue allows); texts reuse real titles and abstracts from the
shared week so BM25 sees realistic term statistics; papers are spread over 250 announcement days (400 a day).
The query embedding is computed once up front: the model's time is not part of the retrieval step.

It also prints what the first windowed search costs a fresh process (a CLI `ask` or `search`): each window is
searched in a new Python process that opens the store, so the window index loads only that window's days; "all"
loads the whole store first, as every windowed search did before the index loaded on demand; "no window" is an
unfiltered search (Chroma's HNSW index, no window index), i.e. what Chroma's own first read costs. Memory: the peak
resident set during that first search, and the resident set after it, minus the one before it; every cold figure
is the median of --cold-runs processes.

    .venv/bin/python bench/retrieval.py [--papers 100000] [--queries 200] [--home DIR] [--cold-runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime as dt
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bot.config import Settings
from bot.core import open_core
from bot.ingest.bundled import bundled_file
from bot.ingest.jsonl import read_jsonl
from bot.models import day_to_int
from bot.questions.retrieval import lexical_groups
from bot.store.vectors import VectorStore, day_range_filter

FIRST_DAY = dt.date(2024, 9, 2)
PER_DAY = 400
WINDOWS = (1, 5, 30)  # days in the date filter: one day, a week of announcements, a month
# first search in a fresh process: windows of 1, 5, 30 days; 0: the whole store loaded first (as before on-demand
# loading); -1: no window (Chroma's HNSW index, no window index: what Chroma's own first read costs)
COLD = (1, 5, 30, 0, -1)
QUERIES = [
    "mixture of experts",
    "quantization of large language models",
    "graph neural networks",
    "diffusion",
    "federated learning privacy",
    "kv cache compression",
    "protein structure",
    "in-context learning theory",
]


class NoModel:
    """Stands in for the embedder: this benchmark stores precomputed synthetic vectors and never embeds text."""

    name = "synthetic"
    dim = 384

    def embed(self, texts: list[str]) -> np.ndarray:
        raise RuntimeError("the retrieval benchmark must not embed text")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


def _status_mb(key: str) -> float:
    """A figure of this process from /proc/self/status (VmRSS, VmHWM), in MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        match = re.search(rf"^{key}:\s+(\d+) kB", status.read(), re.MULTILINE)
    return int(match.group(1)) / 1024 if match else float("nan")


def _reset_peak() -> None:
    """Start VmHWM (the peak resident set) again from the current resident set (Linux's clear_refs 5)."""
    with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
        refs.write("5")


async def cold_search(home: Path, days: int, last_day: dt.date) -> dict[str, float]:
    """In this (fresh) process: open the store, then time the first search of the last `days` days (0: the whole
    store loaded first; -1: no window) and the median of five more; the memory the first search took at its peak
    and kept (resident set minus the one before it)."""
    store = VectorStore(Settings(home=home), NoModel())  # type: ignore[arg-type]
    started = time.perf_counter()
    await store.collection()
    opened = time.perf_counter() - started
    vector = np.random.default_rng(abs(days)).standard_normal(384).astype(np.float32)
    since: dt.date | None = last_day - dt.timedelta(days=max(days, 1) - 1)
    until: dt.date | None = last_day
    if days < 0:
        since = until = None
    before = _status_mb("VmRSS")
    _reset_peak()
    started = time.perf_counter()
    if not days:
        await store.window_index()
    await store.search_window(vector, 120, since, until)
    first = time.perf_counter() - started
    peak, after = _status_mb("VmHWM"), _status_mb("VmRSS")
    again = []
    for _ in range(5):
        started = time.perf_counter()
        await store.search_window(vector, 120, since, until)
        again.append((time.perf_counter() - started) * 1000)
    vectors = len(store._index) if store._index is not None else 0
    return {
        "open": opened,
        "first": first,
        "again": statistics.median(again),
        "vectors": vectors,
        "peak": peak - before,
        "kept": after - before,
    }


def cold_table(home: Path, papers: int, runs: int) -> None:
    """Print the median cold figures of each window in COLD, each run in a new process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    print(
        f"{'first windowed search, new process':<36} {'window':>7} {'open s':>7} {'first s':>8} "
        f"{'again ms':>9} {'vectors':>8} {'peak MB':>8} {'kept MB':>8}"
    )
    for days in COLD:
        results = []
        for _ in range(runs):
            command = [sys.executable, __file__, "--home", str(home), "--papers", str(papers), "--cold", str(days)]
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        median = {key: statistics.median(r[key] for r in results) for key in results[0]}
        label = {0: "window index: whole store, then", -1: "no window: Chroma HNSW"}.get(
            days, "window index: on demand"
        )
        window = {0: "1 d", -1: "-"}.get(days, f"{days} d")
        print(
            f"{label:<36} {window:>7} {median['open']:7.2f} {median['first']:8.2f} "
            f"{median['again']:9.1f} {int(median['vectors']):8d} {median['peak']:8.0f} {median['kept']:8.0f}"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--home", type=Path, help="reuse a state dir filled by an earlier run")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--cold-runs", type=int, default=3, help="fresh processes per window for the cold figures")
    parser.add_argument("--cold", type=int, help=argparse.SUPPRESS)  # one cold run, in a process of its own
    args = parser.parse_args()
    last_day = FIRST_DAY + dt.timedelta(days=(args.papers - 1) // PER_DAY)
    if args.cold is not None:
        print(json.dumps(await cold_search(args.home, args.cold, last_day)))
        return
    sources = read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl")) or [bundled_file("arxiv-2025-05-26.jsonl")])
    rng = np.random.default_rng(7)

    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(home=args.home or Path(scratch))
        async with open_core(settings, NoModel()) as core:  # type: ignore[arg-type]
            if await core.repo.count_papers() < args.papers:
                started = time.perf_counter()
                for start in range(0, args.papers, 5000):
                    batch = []
                    for i in range(start, min(start + 5000, args.papers)):
                        source = sources[i % len(sources)]
                        day = FIRST_DAY + dt.timedelta(days=i // PER_DAY)
                        batch.append(
                            dataclasses.replace(source, id=f"{2400 + i // 90000}.{i % 90000:05d}", announced=day)
                        )
                    vectors = rng.standard_normal((len(batch), 384)).astype(np.float32)
                    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
                    await core.repo.upsert_papers(batch)
                    await core.vectors.upsert(batch, vectors)
                print(f"stored {args.papers} papers in {time.perf_counter() - started:.0f} s")
            print(
                f"papers: {await core.repo.count_papers()}, vectors: {await core.vectors.count()}, "
                f"days {FIRST_DAY}..{last_day}"
            )

            if args.cold_runs:
                cold_table(settings.home, args.papers, args.cold_runs)
            query_vectors = rng.standard_normal((args.queries, 384)).astype(np.float32)
            query_vectors /= np.linalg.norm(query_vectors, axis=1, keepdims=True)
            await core.vectors.query(query_vectors[0], 10)  # open and warm Chroma's index
            loading = time.perf_counter()
            await core.vectors.window_index()
            print(f"window index loaded from Chroma in {time.perf_counter() - loading:.1f} s")
            print(f"{'step':<28} {'window':>8} {'p50 ms':>8} {'p95 ms':>8}")
            for days in WINDOWS:
                since: dt.date = last_day - dt.timedelta(days=days - 1)
                timings: dict[str, list[float]] = {
                    "dense: Chroma where filter": [],
                    "dense: window index": [],
                    "lexical: FTS5 BM25": [],
                    "hybrid (retrieval step)": [],
                }
                for i in range(args.queries):
                    text = QUERIES[i % len(QUERIES)]
                    vector = query_vectors[i]
                    steps = {
                        "dense: Chroma where filter": lambda v=vector, s=since: core.vectors.query(
                            v, 120, where=day_range_filter(day_to_int(s), day_to_int(last_day))
                        ),
                        "dense: window index": lambda v=vector, s=since: core.vectors.search_window(
                            v, 120, s, last_day
                        ),
                        "lexical: FTS5 BM25": lambda t=text, s=since: core.repo.lexical_search(
                            lexical_groups(t), s, last_day, 120
                        ),
                        "hybrid (retrieval step)": lambda v=vector, t=text, s=since: asyncio.gather(
                            core.vectors.search_window(v, 120, s, last_day),
                            core.repo.lexical_search(lexical_groups(t), s, last_day, 120),
                        ),
                    }
                    for name, step in steps.items():
                        if name.startswith("dense: Chroma") and i >= args.queries // 4:
                            continue  # slow and only shown for comparison: a quarter of the queries is enough
                        started = time.perf_counter()
                        await step()
                        timings[name].append((time.perf_counter() - started) * 1000)
                for name, values in timings.items():
                    print(
                        f"{name:<28} {str(days) + ' d':>8} {statistics.median(values):8.1f} "
                        f"{percentile(values, 95):8.1f}"
                    )


if __name__ == "__main__":
    asyncio.run(main())
