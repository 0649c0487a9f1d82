"""A scripted `paperscout run` against the Telegram fake, killed at random points: shared by the kill test in
tests/test_run_process.py and bench/kill.py (which runs it 100 times and prints the counts).

The archive holds one announcement day dated today, whose post time passed an hour ago for every target, so the
first digest tick of each start owes every target its digest (the catch-up on start)."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bot.config import Settings
from bot.core import open_core
from bot.embeddings.embedder import Embedder, paper_vectors
from bot.models import Paper, Profile, Target, Topic
from bot.text.extractive import extractive_tldr
from tests.fakes.telegram_server import FakeTelegram

PROFILE = Profile(
    name="reading group", topics=(Topic("graphs", "graph neural networks"), Topic("llm", "language models"))
)
FIRST_CHAT = -1001000000000


@dataclass(frozen=True, slots=True)
class KillReport:
    """What the chats received after the kills and a final run to completion."""

    kills: int
    targets: int
    delivered: int  # targets whose digest is recorded as sent
    messages: int
    duplicates: int  # messages a chat received twice
    missing: int  # messages of a recorded digest a chat never received
    rounds: int = 1  # times every target was owed a digest (a new round starts once all went out)
    worst_chat_duplicates: int = 0  # the most messages one chat received twice


def past_post_time(now: dt.datetime) -> dt.datetime:
    """A post time of today (UTC) that has passed: an hour ago, or midnight in the day's first hour (an hour
    before 00:30 is yesterday's 23:30, which today has not reached yet)."""
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return max(now - dt.timedelta(hours=1), midnight)


def chat_ids(count: int) -> list[int]:
    """The group chats the digests go to."""
    return [FIRST_CHAT - i for i in range(count)]


async def prepare_archive(
    home: Path, papers: Sequence[Paper], embed: Embedder, targets: int, fake: FakeTelegram
) -> None:
    """Store `papers` as today's announcement and `targets` Telegram group targets posting an hour ago (UTC)."""
    now = dt.datetime.now(dt.UTC)
    today = now.date()
    dated = [replace(p, announced=today) for p in papers]
    settings = Settings(home=home, arxiv_rss_url="http://127.0.0.1:9/rss/", arxiv_delay_seconds=0)
    async with open_core(settings, embed) as core:  # type: ignore[arg-type]
        await core.repo.upsert_papers(dated)
        tldrs = {p.id: extractive_tldr(p) for p in dated}
        await core.repo.set_tldrs(tldrs, "extractive")
        await core.vectors.upsert(dated, paper_vectors(embed.embed, dated), [tldrs[p.id] for p in dated])
        post = past_post_time(now).strftime("%H:%M")
        for chat in chat_ids(targets):
            fake.add_group(chat, f"group {chat}")
            owner = f"telegram:{chat}"
            await core.repo.save_profile(owner, PROFILE)
            target = Target("telegram", str(chat), PROFILE.name, ("cs.LG", "cs.AI"), post, "UTC", digest_size=8)
            await core.repo.save_target(target, owner)
        # the day counts as stored half an hour before its post time
        stamp = (past_post_time(now) - dt.timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
        await core.repo.conn.execute("UPDATE papers SET created_at=?", (stamp,))
        await core.repo.conn.commit()


def run_env(home: Path, fake: FakeTelegram) -> dict[str, str]:
    """The environment of a `paperscout run` that talks to the fake and to nothing else."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERSCOUT_")}
    env.update(
        PAPERSCOUT_HOME=str(home),
        PAPERSCOUT_TELEGRAM_TOKEN=fake.token,
        PAPERSCOUT_TELEGRAM_BASE_URL=fake.url,
        PAPERSCOUT_ARXIV_RSS_URL="http://127.0.0.1:9/rss/",
        PAPERSCOUT_ARXIV_API_URL="http://127.0.0.1:9/api/query",
        PAPERSCOUT_ARXIV_DELAY_SECONDS="0",
        PYTHONPATH=str(Path(__file__).resolve().parents[1]),
    )
    return env


def start_run(home: Path, fake: FakeTelegram, log: Path, module: str = "bot.cli") -> subprocess.Popen[bytes]:
    """Start `paperscout run` (`python -m MODULE run`) in its own process, logging to `log`."""
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", module, "-v", "run", "--wait"],
            env=run_env(home, fake),
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def delivered(home: Path) -> int:
    """Targets whose digest the ledger records as sent."""
    with sqlite3.connect(home / "paperscout.sqlite3", timeout=30) as db:
        return int(db.execute("SELECT COUNT(*) FROM ledger WHERE status='sent'").fetchone()[0])


def digest_runs(home: Path) -> int:
    """How many digest ticks have finished in this archive (a started `paperscout run` makes one at once)."""
    with sqlite3.connect(home / "paperscout.sqlite3", timeout=30) as db:
        row = db.execute("SELECT COUNT(*) FROM job_runs WHERE job='digests' AND finished_at IS NOT NULL").fetchone()
    return int(row[0])


def kill_and_restart(
    home: Path, fake: FakeTelegram, targets: int, kills: int, seed: int, log: Path, module: str = "bot.cli"
) -> KillReport:
    """Kill `paperscout run` with SIGKILL `kills` times at random points of the fan-out, restarting after each.

    Work comes in rounds: a round ends when every target's digest is recorded as sent, after a final run stopped
    with SIGTERM (which must exit 0); its messages are then counted, and the ledger is emptied so the next round
    owes every target a digest again, as a new announcement day would. `module` is what `python -m` runs
    (`tests.word_vectors` for paperscout with the test embedder).
    """
    rng = random.Random(seed)
    done_kills = rounds = messages = duplicates = missing = worst = 0
    while done_kills < kills or rounds == 0:
        baseline = {chat: len(fake.sent(chat)) for chat in chat_ids(targets)}
        while done_kills < kills and delivered(home) < targets:
            before = sum(len(fake.sent(c)) for c in chat_ids(targets))
            process = start_run(home, fake, log, module)
            # wait until this run has begun sending (start-up costs seconds), then kill inside the fan-out
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and process.poll() is None:
                if sum(len(fake.sent(c)) for c in chat_ids(targets)) > before:
                    break
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 0.5))  # inside the fan-out even on a quiet machine
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
            done_kills += 1
        runs_before = digest_runs(home)
        process = start_run(home, fake, log, module)
        deadline = time.monotonic() + 300
        # until every digest is out and this process is up (its first digest tick ran: signals are handled)
        while (delivered(home) < targets or digest_runs(home) <= runs_before) and time.monotonic() < deadline:
            time.sleep(0.1)
        process.send_signal(signal.SIGTERM)  # a clean stop: exit code 0
        code = process.wait(timeout=60)
        if code != 0:
            raise RuntimeError(f"paperscout run exited {code} on SIGTERM; see {log}")
        rounds += 1
        counted = count(home, fake, targets, baseline)
        messages, duplicates, missing = messages + counted[0], duplicates + counted[1], missing + counted[2]
        worst = max(worst, counted[3])
        if delivered(home) < targets:
            break
        if done_kills < kills:
            with sqlite3.connect(home / "paperscout.sqlite3", timeout=30) as db:
                db.execute("DELETE FROM ledger_messages")
                db.execute("DELETE FROM ledger_papers")
                db.execute("DELETE FROM ledger")
    return KillReport(done_kills, targets, delivered(home), messages, duplicates, missing, rounds, worst)


def count(home: Path, fake: FakeTelegram, targets: int, baseline: dict[int, int]) -> tuple[int, int, int, int]:
    """This round's (messages, duplicates, missing, most duplicates in one chat), against the ledger."""
    with sqlite3.connect(home / "paperscout.sqlite3", timeout=30) as db:
        recorded = {
            int(chat): int(n)
            for chat, n in db.execute(
                "SELECT t.chat_id, COUNT(m.seq) FROM targets t LEFT JOIN ledger_messages m ON m.target_id = t.id"
                " GROUP BY t.id"
            )
        }
    duplicates = missing = messages = worst = 0
    for chat in chat_ids(targets):
        texts = [m.text for m in fake.sent(chat)[baseline.get(chat, 0) :]]
        messages += len(texts)
        duplicates += len(texts) - len(set(texts))
        worst = max(worst, len(texts) - len(set(texts)))
        missing += max(0, recorded.get(chat, 0) - len(set(texts)))
    return messages, duplicates, missing, worst


def run_kill_test(
    home: Path,
    papers: Sequence[Paper],
    embed: Embedder,
    targets: int,
    kills: int,
    seed: int,
    module: str = "bot.cli",
) -> KillReport:
    """The whole kill test in a fresh home (`module`: see `kill_and_restart`; the run must embed as `embed` does)."""
    with FakeTelegram() as fake:
        asyncio.run(prepare_archive(home, papers, embed, targets, fake))
        return kill_and_restart(home, fake, targets, kills, seed, home / "run.log", module)
