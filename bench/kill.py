"""Kill test of `paperscout run`: SIGKILL at random points of a 50-target fan-out, restart, repeat; then count.

    .venv/bin/python bench/kill.py                  # 100 kills, 50 Telegram group targets, the fake Bot API
    .venv/bin/python bench/kill.py --kills 10 --targets 20 --seed 3

Prints the kills made, targets delivered, messages received, duplicates and missing messages (both must be 0).
Needs ../shared/data next to the repository (the first 60 papers of 2025-05-26 are used).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.embeddings.embedder import LocalEmbedder
from bot.ingest.bundled import DEMO_DAY_FILE, bundled_file
from bot.ingest.jsonl import read_jsonl
from bot.ingest.limits import clean_paper
from tests.run_harness import run_kill_test


def main() -> int:
    """Run the kill test and print its counts."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--targets", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    papers = [clean_paper(p) for p in read_jsonl([bundled_file(DEMO_DAY_FILE)])[:60]]
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        report = run_kill_test(Path(tmp) / "home", papers, LocalEmbedder(), args.targets, args.kills, args.seed)
    print(f"kills: {report.kills} in {report.rounds} rounds  targets: {report.targets}  delivered: {report.delivered}")
    print(f"messages received: {report.messages}  duplicates: {report.duplicates}  missing: {report.missing}")
    print(f"most duplicates in one chat: {report.worst_chat_duplicates}")
    print(f"wall time: {time.monotonic() - started:.0f} s")
    return 0 if report.duplicates == report.missing == 0 and report.delivered == report.targets else 1


if __name__ == "__main__":
    sys.exit(main())
