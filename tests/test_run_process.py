"""`paperscout run` as a real process against the Telegram fake: killed with SIGKILL at random points of the
fan-out and restarted, every target still gets its digest, each message once but for the one a kill may catch
between Telegram's answer and the journal; SIGTERM stops it cleanly. (bench/kill.py runs it with 100 kills.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.ingest.limits import clean_paper
from bot.models import Paper
from tests.run_harness import run_kill_test
from tests.word_vectors import WordEmbedder


@pytest.mark.slow
def test_killed_at_random_points_every_digest_arrives_once(tmp_path: Path, demo_papers: list[Paper]) -> None:
    papers = [clean_paper(p) for p in demo_papers[:60]]
    # the runs embed with the test embedder (what is tested is the ledger, not the ranking): no torch in each start
    report = run_kill_test(
        tmp_path / "home", papers, WordEmbedder(), targets=50, kills=3, seed=11, module="tests.word_vectors"
    )
    assert report.kills == 3
    assert report.delivered == 50
    assert report.missing == 0 and report.messages >= 50
    # Telegram has no idempotency key: a kill after Telegram accepted a message and before the journal noted it
    # (microseconds on a quiet machine, longer on a loaded one) sends that one message again. Never a whole digest
    # again: a chat gets at most its one message in flight repeated per kill.
    assert report.worst_chat_duplicates <= report.kills
