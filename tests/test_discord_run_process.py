"""`paperscout run` as a real process with Discord as its platform (the Discord fake on 127.0.0.1): killed with
SIGKILL inside the fan-out, each time while Discord has posted a message but not yet answered (the worst moment),
and restarted: every channel gets its digest once, every message once."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from bot.config import Settings
from bot.core import open_core
from bot.embeddings.embedder import paper_vectors
from bot.ingest.limits import clean_paper
from bot.models import Paper, Target
from bot.text.extractive import extractive_tldr
from tests.fakes.discord_server import DiscordFake
from tests.run_harness import PROFILE, delivered, past_post_time
from tests.test_discord_run import received
from tests.word_vectors import WordEmbedder


async def prepare(home: Path, papers: list[Paper], embed: WordEmbedder, channels: list[int]) -> None:
    """Today's announcement stored half an hour before its post time, which passed (an hour ago, or at midnight
    in the day's first hour)."""
    now = dt.datetime.now(dt.UTC)
    dated = [replace(p, announced=now.date()) for p in papers]
    settings = Settings(home=home, arxiv_rss_url="http://127.0.0.1:9/rss/", arxiv_delay_seconds=0)
    async with open_core(settings, embed) as core:
        await core.repo.upsert_papers(dated)
        tldrs = {p.id: extractive_tldr(p) for p in dated}
        await core.repo.set_tldrs(tldrs, "extractive")
        await core.vectors.upsert(dated, paper_vectors(embed.embed, dated), [tldrs[p.id] for p in dated])
        post = past_post_time(now).strftime("%H:%M")
        for channel in channels:
            owner = f"discord:{channel}"
            await core.repo.save_profile(owner, PROFILE)
            await core.repo.save_target(
                Target("discord", str(channel), PROFILE.name, ("cs.LG", "cs.AI"), post, "UTC", 12), owner
            )
        stamp = (past_post_time(now) - dt.timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
        await core.repo.conn.execute("UPDATE papers SET created_at=?", (stamp,))
        await core.repo.conn.commit()


def start(home: Path, fake: DiscordFake, log: Path) -> subprocess.Popen[bytes]:
    """`paperscout run` in its own process, talking to the fake and to nothing else; it embeds with the test embedder
    (`tests.word_vectors`: what is tested is the ledger, not the ranking), so a start does not load torch."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERSCOUT_")}
    env.update(
        PAPERSCOUT_HOME=str(home),
        PAPERSCOUT_DISCORD_TOKEN=fake.token,
        PAPERSCOUT_DISCORD_API_URL=fake.api_base,
        PAPERSCOUT_DISCORD_GATEWAY_URL=fake.gateway_url,
        PAPERSCOUT_ARXIV_RSS_URL="http://127.0.0.1:9/rss/",
        PAPERSCOUT_ARXIV_API_URL="http://127.0.0.1:9/api/query",
        PAPERSCOUT_ARXIV_DELAY_SECONDS="0",
        PYTHONPATH=str(Path(__file__).resolve().parents[1]),
    )
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "tests.word_vectors", "-v", "run", "--wait"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


@pytest.mark.slow
def test_killed_inside_the_fan_out_every_discord_digest_arrives_once(tmp_path: Path, demo_papers: list[Paper]) -> None:
    papers = [clean_paper(p) for p in demo_papers[:60]]
    home, log = tmp_path / "home", tmp_path / "run.log"
    with DiscordFake() as fake:
        channels = [fake.add_channel(f"digest-{n}") for n in range(20)]
        asyncio.run(prepare(home, papers, WordEmbedder(), channels))
        kills, cut_short = 0, 0  # kills, and kills that left some channel without its digest
        for answered in (0, 3, 6):  # the first, fourth and seventh message of a run is posted, its answer held
            fake.hold_answers("send_message", after=answered)
            process = start(home, fake, log)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and process.poll() is None and not fake.held:
                time.sleep(0.02)
            assert fake.held, log.read_text()[-3000:]
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)
            fake.release()
            kills += 1
            cut_short += delivered(home) < len(channels)
        starts = log.read_text().count("paperscout run: ") if log.exists() else 0
        process = start(home, fake, log)
        deadline = time.monotonic() + 300
        # until everything went out and this run is up (its SIGTERM handler is installed)
        while time.monotonic() < deadline and (
            delivered(home) < len(channels) or log.read_text().count("paperscout run: ") <= starts
        ):
            time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0, log.read_text()[-3000:]
        shown = [received(fake, c) for c in channels]
    assert kills == cut_short == 3  # every kill landed inside the fan-out
    assert delivered(home) == len(channels)
    assert all(len(s) == len(set(s)) == 3 for s in shown), [len(s) for s in shown]
