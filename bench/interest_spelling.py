"""What the interest corrector changes in the open labelled profiles (issue 23): a correctly typed interest should
come back as typed, so the corrected profiles rank as `bench/heldout_interests.py` measures them.

Every interest and avoid phrase of the three open sets (development, `sealed/`, `sealed2/`) is corrected as onboarding
corrects what a member types (`bot.ranking.interest_spelling`), against a store of the shared days; each one changed
is printed, then the count. Phrases given on the command line are corrected too (made-up typos, to see them read).

    cp -r /tmp/final-i DIR     # a ready profiles store (the shared days)
    PYTHONPATH=$PWD .venv/bin/python bench/interest_spelling.py --home DIR ["reinforcment learnig" ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from bot.config import Settings
from bot.core import open_core
from bot.ranking.interest_spelling import corrected_interest

ROOT = Path(__file__).resolve().parent.parent
OPEN_SETS = {
    "development": ROOT / "bench" / "heldout" / "profiles.jsonl",
    "sealed": ROOT / "bench" / "heldout" / "sealed" / "profiles.jsonl",
    "sealed2": ROOT / "bench" / "heldout" / "sealed2" / "profiles.jsonl",
}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True, help="a store of the shared days (a copy)")
    parser.add_argument("typed", nargs="*", help="more phrases to correct")
    args = parser.parse_args()
    async with open_core(Settings(home=args.home)) as core:
        total = changed = 0
        for name, path in OPEN_SETS.items():
            for line in path.read_text(encoding="utf-8").splitlines():
                profile = json.loads(line)
                for text in [*profile["interests"], *profile.get("avoid", [])]:
                    total += 1
                    read = await corrected_interest(core, text)
                    if read != text:
                        changed += 1
                        print(f"{name} {profile['id']}: {text!r} -> {read!r}")
        print(f"open sets: {changed} of {total} interests and avoid phrases changed")
        for text in args.typed:
            print(f"{text!r} -> {await corrected_interest(core, text)!r}")


if __name__ == "__main__":
    asyncio.run(main())
