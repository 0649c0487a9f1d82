"""Ingest + embed + rank one 1,000-paper day, then ingest it again; print time and peak memory.

Targets (issue 2): first pass <= 60 s on 2 cores with peak RSS <= 1.5 GB; second ingest <= 5 s (nothing
re-embedded). The day is made of the shared labelled days' papers (../shared/data/arxiv), relabelled as one
announcement day, so it has the length and text of real arXiv abstracts.

    .venv/bin/python bench/pipeline.py [--papers 1000] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime as dt
import resource
import sys
import tempfile
import time
from pathlib import Path

from bot.config import Settings
from bot.core import open_core
from bot.digests.build import build_digest
from bot.ingest.bundled import bundled_file
from bot.ingest.jsonl import read_jsonl
from bot.ingest.save import store_papers
from bot.models import Paper
from bot.ranking.profiles import load_profile

DAY = dt.date(2025, 6, 2)


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_day(data: Path, count: int) -> list[Paper]:
    """`count` real papers relabelled as announced on one day."""
    files = sorted((data / "arxiv").glob("*.jsonl")) or [bundled_file("arxiv-2025-05-26.jsonl")]
    papers = read_jsonl(files)
    if len(papers) < count:
        print(f"note: only {len(papers)} papers available in {data}; measuring with those", file=sys.stderr)
    return [dataclasses.replace(p, announced=DAY) for p in papers[:count]]


SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=1000)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    args = parser.parse_args()
    papers = load_day(args.data, args.papers)
    profile = load_profile(bundled_file("example_profile.toml"))

    with tempfile.TemporaryDirectory() as home:
        settings = Settings(home=Path(home))
        async with open_core(settings) as core:
            start = time.perf_counter()
            first = await store_papers(core, papers)
            ingested = time.perf_counter()
            digest = await build_digest(core, profile, DAY, size=15)
            ranked = time.perf_counter()
            second = await store_papers(core, papers)
            again = time.perf_counter()

    print(f"papers in the day:            {len(papers)}")
    print(f"first ingest + embed:         {ingested - start:6.1f} s  ({first.line()})")
    print(
        f"rank + digest:                {ranked - ingested:6.1f} s  ({digest.scanned} scanned, {digest.picked} picked)"
    )
    print(f"ingest + embed + rank total:  {ranked - start:6.1f} s  (target <= 60 s)")
    print(f"second ingest of the day:     {again - ranked:6.2f} s  ({second.line()}; target <= 5 s)")
    print(f"peak RSS:                     {peak_rss_mb():6.0f} MB (target <= 1536 MB)")


if __name__ == "__main__":
    asyncio.run(main())
