"""Build time and size of the static web archive (`paperscout site build`, issue 15) for the bundled days.

Stores the shared arXiv days (../shared/data/arxiv, four days, 1,609 papers; the package's one bundled day when
that folder is missing), then measures three builds:

1. preview: nothing posted yet, so every stored day's digest is built for the example profile (ranking included);
2. posted: a channel is sent each day's digest through the real delivery path (frozen in the ledger), then the
   site is built from the ledger, once more with nothing changed (no file rewritten), and into a second folder to
   check that two builds are byte for byte the same;
3. a year: the posted digests repeated over 250 announcement days, the size of a year of one channel.

    .venv/bin/python bench/site.py [--data ../shared/data] [--home DIR]

`--home` starts from a copy of an existing state directory that holds those days (skips the embedding).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime as dt
import filecmp
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bot.config import Settings
from bot.core import Core, open_core
from bot.digests.delivery import deliver_digest, digest_from_json, digest_to_json
from bot.ingest.bundled import EXAMPLE_PROFILE_FILE, bundled_file
from bot.ingest.jsonl import read_jsonl
from bot.ingest.save import store_papers
from bot.models import Digest, Target
from bot.ranking.profiles import load_profile
from bot.site.build import SiteReport, build_site

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
YEAR_DAYS = 250


class CountingPoster:
    """A poster that accepts every message (the bench measures the site, not a platform)."""

    platform = "telegram"

    def __init__(self) -> None:
        self.sent = 0

    def digest_messages(self, target: Target, digest: Digest) -> Sequence[object]:
        return [digest.items[i : i + 5] for i in range(0, len(digest.items), 5)] or [()]

    async def send_digest_message(
        self, target: Target, message: object, position: int, sent: Sequence[str], nonce: str
    ) -> str:
        self.sent += 1
        return str(self.sent)


def folder_bytes(folder: Path) -> tuple[int, int, int, int]:
    """(files, total bytes, search index bytes, largest page bytes) of a built site."""
    files = [p for p in folder.rglob("*") if p.is_file() and p.name != ".paperscout-site"]
    pages = [p.stat().st_size for p in files if p.suffix == ".html"]
    return len(files), sum(p.stat().st_size for p in files), (folder / "search-index.js").stat().st_size, max(pages)


def same_tree(a: Path, b: Path) -> bool:
    """True when both folders hold the same files with the same bytes."""
    names_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    names_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    return names_a == names_b and all(filecmp.cmp(a / n, b / n, shallow=False) for n in names_a)


async def timed_build(core: Core, out: Path) -> tuple[SiteReport, float]:
    profile = load_profile(bundled_file(EXAMPLE_PROFILE_FILE))
    start = time.perf_counter()
    report = await build_site(core, out, profile)
    return report, time.perf_counter() - start


def line(name: str, report: SiteReport, seconds: float, out: Path) -> str:
    files, total, index, largest = folder_bytes(out)
    return (
        f"{name:<26} {seconds:6.2f} s  {report.day_pages:4d} day pages  {files:4d} files  {total / 1024:7.0f} KiB"
        f"  (search index {index / 1024:5.0f} KiB, largest page {largest / 1024:4.0f} KiB, {report.changed} written)"
    )


async def post_a_year(core: Core, target: Target) -> None:
    """Repeat the channel's posted digests over YEAR_DAYS weekdays, as if it had been running for a year."""
    assert target.id is not None
    frozen = [await core.repo.frozen_digest(target.id, day) for day in await core.repo.announcement_days()]
    day = dt.date(2024, 6, 3)
    for n in range(YEAR_DAYS):
        while day.weekday() >= 5:
            day += dt.timedelta(days=1)
        digest = dataclasses.replace(digest_from_json(frozen[n % len(frozen)]), day=day)
        await core.repo.claim_post(target.id, day)
        await core.repo.freeze_digest(target.id, day, digest_to_json(digest))
        await core.repo.mark_sent(target.id, day, [i.paper.id for i in digest.items])
        day += dt.timedelta(days=1)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--home", type=Path, help="copy this state directory instead of ingesting")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        home = work / "home"
        if args.home:
            shutil.copytree(args.home, home)
        settings = Settings(home=home, chroma_url=None)
        async with open_core(settings) as core:
            if not args.home:
                files = sorted((args.data / "arxiv").glob("*.jsonl")) or [bundled_file("arxiv-2025-05-26.jsonl")]
                start = time.perf_counter()
                stored = await store_papers(core, read_jsonl(files))
                print(f"ingest (not part of the build): {time.perf_counter() - start:.1f} s, {stored.line()}")
            days = await core.repo.announcement_days()
            print(f"store: {await core.repo.count_papers()} papers on {len(days)} days ({days[0]} .. {days[-1]})")

            report, seconds = await timed_build(core, work / "preview")
            print(line("preview (nothing posted)", report, seconds, work / "preview"))

            profile = load_profile(bundled_file(EXAMPLE_PROFILE_FILE))
            await core.repo.save_profile("telegram:-100", profile)
            target = Target("telegram", "-100", profile.name, digest_size=15)
            target = dataclasses.replace(target, id=await core.repo.save_target(target, "telegram:-100"))
            poster = CountingPoster()
            start = time.perf_counter()
            for day in days:
                result = await deliver_digest(core, poster, target, profile, day)  # type: ignore[arg-type]
                assert result.status == "sent", result
            print(f"posting {len(days)} digests (not part of the build): {time.perf_counter() - start:.1f} s")
            report, seconds = await timed_build(core, work / "posted")
            print(line("posted", report, seconds, work / "posted"))
            report, seconds = await timed_build(core, work / "posted")
            print(line("posted, rebuilt unchanged", report, seconds, work / "posted"))
            await timed_build(core, work / "posted-again")
            print(f"two builds byte for byte the same: {same_tree(work / 'posted', work / 'posted-again')}")

            await post_a_year(core, target)
            report, seconds = await timed_build(core, work / "year")
            print(line(f"a year ({YEAR_DAYS} + {len(days)} days)", report, seconds, work / "year"))


if __name__ == "__main__":
    asyncio.run(main())
