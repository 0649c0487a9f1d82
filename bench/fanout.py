"""Fan-out of one day's digest to many Telegram chats against the fake Bot API enforcing Telegram's flood limits.

    .venv/bin/python bench/fanout.py                  # 1,000 group chats, 30 msg/s overall, 1/s per chat
    .venv/bin/python bench/fanout.py --chats 200

The real `paperscout run` pieces do the work: the Telegram front end (python-telegram-bot with AIORateLimiter and
our per-chat pacing) as the poster, and one digest tick of the scheduler, which owes every chat its digest.
Prints messages sent, the achieved rate against the 30 msg/s limit, and how many sends the fake answered with 429
(the target is >= 90% of 30 msg/s with no 429 at all).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.config import Settings
from bot.core import open_core
from bot.embeddings.embedder import LocalEmbedder
from bot.frontends.telegram.app import start_telegram
from bot.ingest.bundled import DEMO_DAY_FILE, bundled_file
from bot.ingest.jsonl import read_jsonl
from bot.ingest.limits import clean_paper
from bot.ops.scheduler import DigestJobs
from tests.fakes.telegram_server import FakeTelegram, RatePolicy
from tests.run_harness import chat_ids, prepare_archive


async def fan_out(home: Path, chats: int) -> None:
    """Prepare the archive, start the Telegram front end against the fake, run one digest tick, report."""
    embedder = LocalEmbedder()
    papers = [clean_paper(p) for p in read_jsonl([bundled_file(DEMO_DAY_FILE)])[:60]]
    with FakeTelegram() as fake:
        await prepare_archive(home, papers, embedder, chats, fake)
        fake.set_rate_policy(RatePolicy.telegram())
        settings = Settings(
            home=home,
            telegram_token=SecretStr(fake.token),
            telegram_base_url=fake.url,
            arxiv_rss_url="http://127.0.0.1:9/rss/",
        )
        async with open_core(settings, embedder) as core:
            handle = await start_telegram(core, settings)
            try:
                jobs = DigestJobs(core, {"telegram": handle.poster}, catchup_hours=6)
                started = time.monotonic()
                results = await jobs.tick()
                elapsed = time.monotonic() - started
            finally:
                await handle.stop()
        sends = [c for c in fake.calls("sendMessage") if int(c.params.get("chat_id", 0)) in set(chat_ids(chats))]
        ok = [c for c in sends if c.status == 200]
        limited = [c for c in sends if c.status == 429]
        span = (ok[-1].at - ok[0].at) if len(ok) > 1 else elapsed
    sent = sum(1 for r in results if r.status == "sent")
    print(f"chats: {chats}  digests sent: {sent}  messages: {len(ok)}  answered 429: {len(limited)}")
    print(
        f"first to last message: {span:.1f} s  achieved: {len(ok) / span:.1f} msg/s = {len(ok) / span / 30:.0%} of 30"
    )
    print(f"whole tick (ranking + rendering + sending): {elapsed:.1f} s")


def main() -> int:
    """Run the fan-out benchmark."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chats", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(fan_out(Path(tmp) / "home", args.chats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
