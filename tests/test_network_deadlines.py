"""No network call outlives its deadline, whatever the server does: a server that trickles its answer one byte at a
time (no read ever times out) ends `ingest --ids` with one line at the timeout, and `paperscout run` stopped by
SIGTERM while its arXiv lookup trickles exits and leaves the archive free for the next writer."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.cli import main
from tests.fakes.arxiv_server import FakeArxiv, Fault
from tests.test_cli import home, one_error_line  # noqa: F401 - the fixture is used by name


def paper_line(paper_id: str, announced: dt.date) -> str:
    return json.dumps(
        {
            "id": paper_id,
            "title": "Sparse routing",
            "authors": ["Ada Lovelace"],
            "abstract": "We route tokens to experts.",
            "categories": ["cs.LG"],
            "announced": announced.isoformat(),
        }
    )


def test_ingest_ids_from_a_trickling_api_ends_at_the_timeout_in_one_line(
    fake_arxiv: FakeArxiv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, value in fake_arxiv.settings_overrides(timeout_seconds=1).items():
        monkeypatch.setenv(f"PAPERSCOUT_{name.upper()}", str(value))
    monkeypatch.setenv("PAPERSCOUT_HOME", str(tmp_path / "home"))
    fake_arxiv.always(Fault.trickle(0.2))
    assert main(["ingest", "--ids", "2505.00001"]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert "did not answer within 1 s" in line, line


@pytest.mark.slow
def test_run_stopped_while_the_arxiv_api_trickles_exits_and_frees_the_archive(
    fake_arxiv: FakeArxiv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, log = tmp_path / "home", tmp_path / "run.log"
    data = tmp_path / "old.jsonl"
    # a day stored ten days ago: the start-up catch-up asks the API for the days since
    data.write_text(paper_line("2505.00001", dt.date.today() - dt.timedelta(days=10)) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERSCOUT_")}
    env.update({f"PAPERSCOUT_{k.upper()}": str(v) for k, v in fake_arxiv.settings_overrides().items()})
    env.update(
        PAPERSCOUT_HOME=str(state),
        PAPERSCOUT_HTTP_TIMEOUT_SECONDS="600",  # only the stop can end the trickle in time
        PYTHONPATH=str(Path(__file__).resolve().parents[1]),
    )
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert main(["ingest", "--jsonl", str(data)]) == 0
    fake_arxiv.always(Fault.trickle(2.0))
    with open(log, "ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "-v", "run"], env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 120
        while not [r for r in fake_arxiv.requests if r.endpoint == "api"] and time.monotonic() < deadline:
            assert process.poll() is None, log.read_text()
            time.sleep(0.05)
        assert [r for r in fake_arxiv.requests if r.endpoint == "api"], log.read_text()
        process.send_signal(signal.SIGTERM)
        # the bound only tells a stop from a hang (it hung until killed); the exit is well inside 20 s
        assert process.wait(timeout=90) == 0, log.read_text()[-3000:]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    fake_arxiv.always(None)
    assert main(["ingest", "--jsonl", str(data)]) == 0  # the writer lock is free


@pytest.mark.parametrize(
    ("platform", "settings", "expected"),
    [
        (
            "Telegram",
            {"TELEGRAM_TOKEN": "123456:ABCdefGHIjklMNOpqr", "TELEGRAM_BASE_URL": "http://127.0.0.1:9/bot"},
            "cannot reach Telegram at http://127.0.0.1:9/bot: httpx.ConnectError: All connection attempts failed",
        ),
        (
            "Discord",
            {
                "DISCORD_TOKEN": "abcdefghijklmnopqrstuvwx.abcdef.abcdefghijklmnopqrstuvwxyz1",
                "DISCORD_API_URL": "http://127.0.0.1:9/api/v10",
                "DISCORD_GATEWAY_URL": "ws://127.0.0.1:9/",
            },
            "cannot reach Discord at http://127.0.0.1:9/api/v10: Cannot connect to host 127.0.0.1:9",
        ),
    ],
)
def test_run_with_a_platform_unreachable_at_start_is_one_line(
    home: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    platform: str,
    settings: dict[str, str],
    expected: str,
) -> None:
    """Three chained tracebacks were logged before the error line (run logs at INFO)."""
    for name, value in settings.items():
        monkeypatch.setenv(f"PAPERSCOUT_{name}", value)
    assert main(["run"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    [line] = [line for line in err.splitlines() if line.startswith("paperscout: error:")]
    assert line.startswith(f"paperscout: error: {expected}"), line
