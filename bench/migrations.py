"""What opening an older store costs: each migration's time when a store made before schema `--from` + 1 is opened.

The store (`--store`: a folder holding paperscout.sqlite3, e.g. the synthetic store `bench/title_look_up.py` keeps)
is copied, taken back to schema `--from` (what each later migration added dropped: `tests/old_stores.py`), vacuumed,
then opened with `open_database` as every command opens it, `--runs` times on fresh copies; each migration's time
(wall and this process's CPU: the machine is shared) is the time to its log line from the previous one, the first
counted from the start of the open (its integrity check in it).

    PYTHONPATH=$PWD .venv/bin/python bench/migrations.py --store /tmp/NAME-tl/synthetic --work /tmp/NAME-mig
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shutil
import sqlite3
import sys
import time
from pathlib import Path

from bot.store.connection import open_database

DB = "paperscout.sqlite3"


class _Times(logging.Handler):
    """Each migration's time: from the handler's start (or the previous migration) to its log line."""

    def __init__(self) -> None:
        super().__init__()
        self.last = time.perf_counter(), time.process_time()
        self.times: list[tuple[str, float, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        now = time.perf_counter(), time.process_time()
        self.times.append((record.getMessage(), now[0] - self.last[0], now[1] - self.last[1]))
        self.last = now


def _older(store: Path, work: Path, version: int) -> Path:
    """A copy of `store`'s database at schema `version`, vacuumed (made once, then copied per run)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.old_stores import undo_migrations

    work.mkdir(parents=True, exist_ok=True)
    older = work / f"schema{version}.sqlite3"
    if not older.exists():
        with sqlite3.connect(store / DB) as source, sqlite3.connect(older) as copy:
            source.backup(copy)
        undo_migrations(older, version)
        with sqlite3.connect(older) as raw:
            raw.execute("VACUUM")
    return older


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", type=Path, required=True, help="a folder holding a store at the latest schema")
    parser.add_argument("--work", type=Path, required=True, help="where the older copies go (kept)")
    parser.add_argument("--from", dest="version", type=int, default=11, help="the schema the copy is taken back to")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    older = _older(args.store, args.work, args.version)
    logger = logging.getLogger("bot.store.connection")
    logger.setLevel(logging.INFO)
    for run in range(args.runs):
        run_dir = args.work / f"run{run}"
        shutil.rmtree(run_dir, ignore_errors=True)
        run_dir.mkdir(parents=True)
        shutil.copy2(older, run_dir / DB)
        times = _Times()
        logger.addHandler(times)
        start = time.perf_counter(), time.process_time()
        conn = await open_database(run_dir / DB)
        total = time.perf_counter() - start[0], time.process_time() - start[1]
        await conn.close()
        logger.removeHandler(times)
        each = ", ".join(f"{message}: {wall:.2f} s, CPU {cpu:.2f} s" for message, wall, cpu in times.times)
        print(f"run {run + 1}: open {total[0]:.2f} s, CPU {total[1]:.2f} s ({each})")
        shutil.rmtree(run_dir)


if __name__ == "__main__":
    asyncio.run(main())
