"""What the typo look-up's dictionaries cost to build after an ingest, at the four shared days and at a synthetic
archive thirty times their size.

The first typo that reaches the words only abstracts write (`bot.text.spelling._in_abstracts`, "robtics" ->
"robotics") builds the look-up of the words stored papers write; the first question with a word to check reads the
title words' vocabulary (`title_vocabulary`). Both are kept per store generation, so each ingest makes the next
question pay again. This script times, on a copy of a ready store (1,609 papers) and on a synthetic store of about
48,000 (the same papers under new ids, so the vocabulary is the four days' and only the counts grow):

- opening the store (a migration that indexes or counts the stored papers runs here, once);
- the title vocabulary, cold;
- the first look-up of a typo in the abstract words, cold, then two starting with other letters, then one warm;
- two first look-ups at once (two typo questions after an ingest): the wall time and how many times the store was
  read for them (1 when they share one build);
- an ingest of 1,609 new papers (the shared days under other ids), then the title vocabulary after it;
- an ingest that only replaces those papers (new titles, as many papers as before), then the title vocabulary
  after it: read anew (current) or kept (stale: main keyed it on the number of stored papers).

Run it from the tree to measure (PYTHONPATH decides whose code is timed):

    PYTHONPATH=$PWD .venv/bin/python bench/written_words.py [--store /tmp/final-q] [--copies 30] [--work DIR]
        [--synthetic DIR]   # DIR: `--work`'s synthetic/ of an earlier run, to time a migration at that size
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.core import Core
from bot.store.connection import open_database
from bot.store.repos import Repository
from bot.text import spelling

DB = "paperscout.sqlite3"
TYPOS = ("robtics", "manipulaton", "histopatholgy")  # one edit from words the four days' abstracts write


def _copy_store(store: Path, work: Path) -> Path:
    """The ready store's SQLite files copied into `work` (never opened where they are)."""
    work.mkdir(parents=True, exist_ok=True)
    for name in (DB, f"{DB}-wal", f"{DB}-shm"):
        if (store / name).exists():
            shutil.copy2(store / name, work / name)
    return work / DB


def _counting(repo: Repository, names: tuple[str, ...]) -> list[str]:
    """Wrap whichever of the repository's reads the look-ups use (`all_texts` before, `written_words` after) so
    each call is noted; returns the list the calls are noted in."""
    calls: list[str] = []
    for name in names:
        read = getattr(repo, name, None)
        if read is None:
            continue

        def noted(*args: Any, _read: Callable[..., Any] = read, _name: str = name) -> Any:
            calls.append(_name)
            return _read(*args)

        setattr(repo, name, noted)
    return calls


async def _timed(what: str, step: Any) -> Any:
    start = time.perf_counter()
    result = await step
    print(f"  {what:<58} {time.perf_counter() - start:8.3f} s")
    return result


async def _measure(path: Path, label: str) -> None:
    print(f"{label}")
    start = time.perf_counter()
    conn = await open_database(path)
    print(f"  {'open (and migrate) the store':<58} {time.perf_counter() - start:8.3f} s")
    repo = Repository(conn)
    try:
        core = Core(None, repo, None, None)  # type: ignore[arg-type]  # only the store and the caches are read
        print(f"  papers stored: {await repo.count_papers()}")
        await _timed("title vocabulary, cold", spelling.title_vocabulary(core))
        found = await _timed(f"first abstract-word look-up, cold ({TYPOS[0]})", spelling._in_abstracts(core, TYPOS[0]))
        print(f"    -> {found}")
        found = await _timed(f"look-up of another letter ({TYPOS[1]})", spelling._in_abstracts(core, TYPOS[1]))
        print(f"    -> {found}")
        found = await _timed(f"look-up of a third letter ({TYPOS[2]})", spelling._in_abstracts(core, TYPOS[2]))
        print(f"    -> {found}")
        found = await _timed(f"look-up, warm ({TYPOS[0]})", spelling._in_abstracts(core, TYPOS[0]))
        print(f"    -> {found}")
        core.written_words.clear()
        calls = _counting(repo, ("all_texts", "written_words"))
        both = asyncio.gather(spelling._in_abstracts(core, TYPOS[0]), spelling._in_abstracts(core, TYPOS[0]))
        found = await _timed("two first look-ups at once, cold", both)
        print(f"    -> {found}; the store read {len(calls)} time(s) for them")
        ids = sorted(await repo.all_paper_ids())
        papers = await repo.get_papers([i for i in ids if "r" not in i] or [i for i in ids if i.endswith("r0")])
        papers = [dataclasses.replace(p, id=f"{p.id}n") for p in papers]
        await _timed(f"an ingest of {len(papers)} new papers", repo.upsert_papers(papers))
        await _timed("title vocabulary after it", spelling.title_vocabulary(core))
        before = await spelling.title_vocabulary(core)
        replaced = [dataclasses.replace(p, title=f"Quantised {p.title}", version=(p.version or 1) + 1) for p in papers]
        await _timed(f"an ingest replacing those {len(papers)} papers", repo.upsert_papers(replaced))
        after = await _timed("title vocabulary after it", spelling.title_vocabulary(core))
        print(f"    -> {'read anew (current)' if after is not before else 'kept (stale)'}")
        if hasattr(spelling.TitleVocabulary, "of_titles"):  # the store keeps the counts (`title_words`)
            await _kept_counts(repo, after)
    finally:
        await repo.close()


async def _kept_counts(repo: Repository, vocabulary: spelling.TitleVocabulary) -> None:
    """Whether the vocabulary read from the store's counts is the one the titles give (in storage order: the
    order ties are broken in), and what keeping the counts adds to an ingest (in a transaction rolled back)."""
    from bot.store.repos.papers import TitleWordChanges, _write_title_words

    async with repo.conn.execute("SELECT rowid, title FROM papers ORDER BY rowid") as cursor:
        rows = [(int(r[0]), str(r[1])) async for r in cursor]
    of_titles = spelling.TitleVocabulary.of_titles(t for _, t in rows)
    same = list(vocabulary.counts.items()) == list(of_titles.counts.items())
    same = same and list(vocabulary.written.items()) == list(of_titles.written.items())
    print(f"  the store's title words are the titles' own, in order: {same}")
    for what, change in (
        ("new", lambda c, k, r, t: c.add(10**9 + k, t)),
        (
            "replaced, each losing its first word (the first stored)",
            lambda c, k, r, t: c.replace(r, t, t[t.find(" ") + 1 :]),
        ),
    ):
        await repo.conn.execute("BEGIN IMMEDIATE")
        start = time.perf_counter()
        changes = TitleWordChanges()
        for k, (rowid, title) in enumerate(rows[:1609]):
            change(changes, k, rowid, title)
        await _write_title_words(repo.conn, changes)
        print(f"  {f'title words of 1,609 titles {what}':<58} {time.perf_counter() - start:8.3f} s")
        await repo.conn.rollback()


async def _synthetic(source: Path, work: Path, copies: int) -> Path:
    """A store of the source's papers `copies` times over (new ids), built through the repository as an ingest
    stores papers (so every index the schema keeps is kept)."""
    path = work / DB
    path.unlink(missing_ok=True)
    source_conn = await open_database(source)
    source_repo = Repository(source_conn)
    try:
        papers = await source_repo.get_papers(sorted(await source_repo.all_paper_ids()))
    finally:
        await source_repo.close()
    conn = await open_database(path)
    repo = Repository(conn)
    try:
        start = time.perf_counter()
        for k in range(copies):
            await repo.upsert_papers([dataclasses.replace(p, id=f"{p.id}r{k}") for p in papers])
        print(f"  (synthetic store of {copies} x {len(papers)} papers built in {time.perf_counter() - start:.1f} s)")
    finally:
        await repo.close()
    return path


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, default=Path("/tmp/final-q"), help="a ready store (copied, not opened)")
    parser.add_argument("--copies", type=int, default=30, help="the synthetic store holds its papers this many times")
    parser.add_argument("--work", type=Path, help="where the copies go, kept (default: a temporary folder, removed)")
    parser.add_argument(
        "--synthetic", type=Path, help="a synthetic store an earlier run kept (its folder), copied instead of built"
    )
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="written-words-"))
    small = _copy_store(args.store, work / "shared-days")
    await _measure(small, "the four shared days")
    if args.synthetic:  # made by another tree's schema: opening it here times the migration at that size
        big = _copy_store(args.synthetic, work / "synthetic")
    else:
        big = await _synthetic(small, work / "synthetic", args.copies)
    await _measure(big, "synthetic store")
    if not args.work:
        shutil.rmtree(work)


if __name__ == "__main__":
    asyncio.run(main())
