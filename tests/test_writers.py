"""One writer per archive, across real processes (issue 17): two `paperscout ingest` started together on one home,
readers during a write, and `paperscout db --repair` on a store broken the ways two unlocked writers broke it.

Every command runs as its own process, as an admin would run them; nothing here shares Chroma's in-process state
with the test. The commands embed with `tests.word_vectors` instead of MiniLM (what is tested is the locking and the
repair, not the vectors), and a writer is held in the middle of its write at a gate file for as long as the test needs
it there, so what runs during a write does not depend on how fast anything is.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA
from tests.word_vectors import GATE_ENV

ARXIV = SHARED_DATA / "arxiv"
pytestmark = pytest.mark.skipif(not ARXIV.is_dir(), reason="needs ../shared/data/arxiv")
PAPERS_PER_DAY = 60
HOLDER = re.compile(
    r"^paperscout: error: the archive in \S+ is being written by pid (\d+) \(ingest, since "
    r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\); run this again when it is done, or add --wait$"
)


def env_for(home: Path, gate: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERSCOUT_")}
    if gate is not None:
        env[GATE_ENV] = str(gate)
    env.update(
        PAPERSCOUT_HOME=str(home),
        PAPERSCOUT_ARXIV_RSS_URL="http://127.0.0.1:9/rss/",
        PAPERSCOUT_ARXIV_API_URL="http://127.0.0.1:9/api/query",
        PYTHONPATH=str(Path(__file__).resolve().parents[1]),
    )
    return env


def start(home: Path, *args: str, gate: Path | None = None) -> subprocess.Popen[str]:
    """`paperscout ARGS` started; with `gate`, its first embedding waits until the file `gate` exists."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.word_vectors", *args],
        env=env_for(home, gate),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.word_vectors", *args],
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=600,
    )


def day_file(tmp_path: Path, day: str, count: int = PAPERS_PER_DAY) -> Path:
    lines = (ARXIV / f"{day}.jsonl").read_text(encoding="utf-8").splitlines()[:count]
    path = tmp_path / f"{day}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def db_lines(home: Path) -> dict[str, str]:
    done = cli(home, "db")
    assert done.returncode == (1 if "mismatch:" in done.stdout else 0), (done.stdout, done.stderr)
    return {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in done.stdout.splitlines() if ":" in line)}


def assert_consistent(home: Path, papers: int) -> None:
    """papers = vectors, no mismatch, and a windowed search and a question work."""
    shown = db_lines(home)
    assert "mismatch" not in shown, shown
    assert shown["papers"].startswith(f"{papers} (") and shown["vectors"] == str(papers), shown
    for args in (("search", "graph", "--since", "2025-05-01"), ("ask", "language model papers in May 2025")):
        done = cli(home, *args)
        assert done.returncode == 0 and "error" not in done.stderr, (args, done.stderr)
        assert "arxiv.org/abs/2505." in done.stdout, (args, done.stdout)


@pytest.mark.slow
def test_two_ingests_at_once_one_runs_the_other_names_the_holder_or_waits(tmp_path: Path) -> None:
    home = tmp_path / "home"
    days = [day_file(tmp_path, day) for day in ("2025-05-28", "2025-05-29", "2025-05-30")]

    # Both started together, without --wait: one runs (held in its write at the gate), the other is refused in one
    # line naming the first.
    gate = tmp_path / "gate"
    first = start(home, "ingest", "--jsonl", str(days[0]), gate=gate)
    second = start(home, "ingest", "--jsonl", str(days[1]), gate=gate)
    refused_process = wait_for_one_exit(first, second)
    gate.touch()
    results = {p.pid: (p.wait(timeout=600), *p.communicate()) for p in (first, second)}
    codes = sorted(code for code, _, _ in results.values())
    assert codes == [0, 1], results
    [(ran, (_, out, _))] = [(pid, r) for pid, r in results.items() if r[0] == 0]
    [(refused, (_, _, err))] = [(pid, r) for pid, r in results.items() if r[0] == 1]
    assert refused == refused_process.pid
    assert f"{PAPERS_PER_DAY} papers: {PAPERS_PER_DAY} new" in out
    [line] = [line for line in err.splitlines() if line.strip()]
    holder = HOLDER.match(line)
    assert holder and int(holder.group(1)) == ran, line
    refused_day = days[0] if refused == first.pid else days[1]

    # With --wait, the second waits for the first and then runs; readers keep working meanwhile (the first writer is
    # held in its write until the readers are done).
    gate = tmp_path / "gate-2"
    writers = [
        start(home, "ingest", "--wait", "--jsonl", str(days[2]), gate=gate),
        start(home, "ingest", "--wait", "--jsonl", str(refused_day), gate=gate),
    ]
    wait_for_file(gate.with_name(gate.name + ".waiting"), writers)
    for args in (
        ("search", "graph", "--since", "2025-05-01"),
        ("ask", "what language model papers this month?", "--as-of", "2025-05-30"),
    ):
        done = cli(home, *args)
        assert done.returncode == 0 and "error" not in done.stderr, (args, done.stderr)
    assert all(w.poll() is None for w in writers), "a writer finished while held at the gate"
    gate.touch()
    for writer in writers:
        out, err = writer.communicate(timeout=600)
        assert writer.returncode == 0, err
        assert f"{PAPERS_PER_DAY} papers: {PAPERS_PER_DAY} new" in out
    assert_consistent(home, 3 * PAPERS_PER_DAY)


def wait_for_one_exit(*processes: subprocess.Popen[str]) -> subprocess.Popen[str]:
    """The first of `processes` to exit (each must exit or be held at a gate: no time limit but the test's)."""
    while True:
        for process in processes:
            if process.poll() is not None:
                return process
        time.sleep(0.02)


def wait_for_file(path: Path, processes: list[subprocess.Popen[str]]) -> None:
    """Until `path` exists; fails at once, with their output, if one of `processes` exits first."""
    while not path.exists():
        for process in processes:
            assert process.poll() is None, process.communicate()
        time.sleep(0.02)


def break_by_racing(home: Path, attempts: int = 4) -> bool:
    """Two lock-ignoring writers at once, until the store lists vectors it cannot read (True) or attempts run out."""
    for attempt in range(attempts):
        tags = (2 * attempt + 1, 2 * attempt + 2)
        first = subprocess.Popen(
            [sys.executable, "-m", "tests.store_breaker", "race", str(home), str(tags[0]), "1600", "0.3"],
            env=env_for(home),
        )
        time.sleep(1.0)
        second = subprocess.run(
            [sys.executable, "-m", "tests.store_breaker", "race", str(home), str(tags[1]), "1600", "0.2"],
            env=env_for(home),
            timeout=600,
        )
        assert first.wait(timeout=600) == 0 and second.returncode == 0
        if "cannot be read back" in db_lines(home).get("mismatch", ""):
            return True
    return False


def drop_vector_copies(home: Path) -> None:
    """Forget the SQLite copies of the papers' vectors (as in a store made before they were kept), so that a window
    is read from the vector store itself."""
    with sqlite3.connect(home / "paperscout.sqlite3") as conn:
        conn.execute("DELETE FROM paper_vectors")


@pytest.mark.slow
def test_db_repair_rebuilds_a_broken_store_from_sqlite(tmp_path: Path) -> None:
    home = tmp_path / "home"
    papers = 40
    assert cli(home, "ingest", "--jsonl", str(day_file(tmp_path, "2025-05-28", papers))).returncode == 0
    assert_consistent(home, papers)

    assert break_by_racing(home), "two unlocked writers did not break the store in 4 attempts"
    damaged = subprocess.run(
        [sys.executable, "-m", "tests.store_breaker", "damage", str(home)], env=env_for(home), timeout=600
    )
    assert damaged.returncode == 0
    mismatch = db_lines(home)["mismatch"]
    for problem in (
        "3 papers without a vector",
        "vectors of papers that are not stored",
        "2 vectors made from another text or recipe",
    ):
        assert problem in mismatch, mismatch
    assert "cannot be read back or searched" in mismatch
    # the state issue 17 found; the window reaches the racers' day (2024-01-02): the window index reads only its days,
    # from the vector store once they have no copies
    drop_vector_copies(home)
    failed = cli(home, "search", "graph", "--since", "2024-01-01")
    # Chroma names the broken rows it meets first: the id ("Error finding id") or their vector ("Error getting
    # embedding"), depending on where the racers' writes interleaved
    assert failed.returncode == 1 and "db --repair" in failed.stderr, failed.stderr
    assert "Error finding id" in failed.stderr or "Error getting embedding" in failed.stderr, failed.stderr

    repaired = cli(home, "db", "--repair")
    assert repaired.returncode == 0, repaired.stderr
    assert f"now: {papers} papers, {papers} vectors, consistent" in repaired.stdout, repaired.stdout
    assert "5 papers embedded again" in repaired.stdout or "rebuilt" in repaired.stdout, repaired.stdout
    assert_consistent(home, papers)

    # A store damaged beyond single vectors (its database overwritten) is set aside and rebuilt from SQLite.
    (home / "chroma" / "chroma.sqlite3").write_bytes(b"not a database" * 100)
    assert "cannot be read" in db_lines(home)["mismatch"]
    repaired = cli(home, "db", "--repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "rebuilt the vector store from SQLite (it could not be read)" in repaired.stdout
    assert [p.name for p in home.iterdir() if p.name.startswith("chroma.damaged-")]
    assert_consistent(home, papers)


@pytest.mark.slow
def test_search_and_ask_without_the_vector_store_say_so_and_answer_from_the_words(tmp_path: Path) -> None:
    """The vector store gone (or being rebuilt): not 'No stored paper matches' with exit 0, but a note saying what is
    wrong, and the papers the full-text index finds."""
    home = tmp_path / "home"
    assert cli(home, "ingest", "--jsonl", str(day_file(tmp_path, "2025-05-28"))).returncode == 0
    shutil.rmtree(home / "chroma")
    drop_vector_copies(home)  # with them, a window's question never needs the vector store (tests/test_vector_copies)
    found = cli(home, "search", "reinforcement learning", "--since", "2025-01-01")
    assert found.returncode == 0, found.stderr
    assert "only 0 of the" in found.stderr and "db --repair" in found.stderr, found.stderr
    assert "arxiv.org/abs/" in found.stdout and "No stored paper matches" not in found.stdout, found.stdout
    answered = cli(home, "ask", "reinforcement learning", "--as-of", "2025-05-28")
    assert answered.returncode == 0, answered.stderr
    assert answered.stdout.startswith("Note: only 0 of the") and "[1] https://arxiv.org/abs/" in answered.stdout
