"""Cold start-up cost of the `paperscout` command: every run is a fresh interpreter, as a user starts it.

Prints, per command, the median and smallest wall time and the median user+sys CPU time of several runs (the
CPU time includes the embedding helper process a question starts, which the command waits for at exit).
On a shared machine wall time grows with the other processes' load while CPU time mostly does not, so both
are printed, with the load average before and after. Targets (issue 10): `ask` on the bundled day <= 4 s and
`ask` on an empty store <= 1.5 s on the 2-core reference machine.

The state is prepared once (an empty home, and the bundled day ingested into another), and each command runs
once untimed first so that every timed run starts with the files in the OS cache, like a second start.

    .venv/bin/python bench/cold_start.py [--runs 5] [--home DIR]    # --home keeps the ingested day for re-runs
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.ingest.bundled import DEMO_DAY, DEMO_DAY_FILE, bundled_file  # noqa: E402

# what the `paperscout` console script runs, with this checkout's `bot` first on the path
ENTRY = "import sys; from bot.cli import main; sys.exit(main())"


@dataclass(frozen=True)
class Case:
    label: str
    args: tuple[str, ...]
    state: str  # "empty" or "day"
    target_s: float | None = None


CASES = [
    Case("paperscout --help", ("--help",), "empty"),
    Case("ask, empty store", ("ask", "what MoE papers this week?"), "empty", 1.5),
    Case("ask, bundled day", ("ask", "--as-of", DEMO_DAY.isoformat(), "what MoE papers today?"), "day", 4.0),
    Case("search, bundled day", ("search", "sparse", "mixture-of-experts", "routing"), "day"),
    Case("search, empty store", ("search", "sparse", "mixture-of-experts", "routing"), "empty"),
]


@dataclass(frozen=True)
class Run:
    wall_s: float
    cpu_s: float  # user + sys of the child process and of the processes it waited for


def environment(home: Path) -> dict[str, str]:
    """The caller's environment without any paperscout setting (so no LLM), state in `home`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERSCOUT_")}
    env.update(PAPERSCOUT_HOME=str(home), PYTHONPATH=str(ROOT))
    return env


def run_once(args: tuple[str, ...], home: Path) -> Run:
    """One fresh `paperscout ARGS` process: its wall time and its own CPU time."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-c", ENTRY, *args],
            env=environment(home),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4; tell Popen so it does not wait
        if child.returncode != 0:
            errors.seek(0)
            raise SystemExit(f"paperscout {' '.join(args)} failed ({child.returncode}):\n{errors.read().decode()}")
    return Run(wall, usage.ru_utime + usage.ru_stime)


def prepare_day(home: Path) -> None:
    """Ingest the bundled day into `home` unless it is there already."""
    if (home / "paperscout.sqlite3").exists():
        return
    print(f"ingesting the bundled day {DEMO_DAY} into {home} (once) ...", flush=True)
    run_once(("ingest", "--jsonl", str(bundled_file(DEMO_DAY_FILE))), home)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command (default 5)")
    parser.add_argument("--home", type=Path, help="state directory for the ingested day (kept; default temporary)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="paperscout-cold-") as scratch:
        homes = {"empty": Path(scratch) / "empty", "day": args.home or Path(scratch) / "day"}
        prepare_day(homes["day"])
        load_before = os.getloadavg()
        print(
            f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f} (1 min) before the runs; {args.runs} runs each"
        )
        print(f"{'command':<22} {'wall median':>11} {'wall min':>9} {'CPU median':>11}  target (wall)")
        for case in CASES:
            run_once(case.args, homes[case.state])  # untimed: files into the OS cache, SQLite schema created
            runs = [run_once(case.args, homes[case.state]) for _ in range(args.runs)]
            wall = statistics.median(r.wall_s for r in runs)
            cpu = statistics.median(r.cpu_s for r in runs)
            target = f"<= {case.target_s:g} s" if case.target_s else ""
            print(f"{case.label:<22} {wall:10.2f}s {min(r.wall_s for r in runs):8.2f}s {cpu:10.2f}s  {target}")
        print(f"load average {os.getloadavg()[0]:.2f} (1 min) after the runs")


if __name__ == "__main__":
    main()
