"""Cold start-up cost of the `paperscout` command: every run is a fresh interpreter, as a user starts it.

Prints, per command, the median and smallest wall time and the median user+sys CPU time of several runs (the
CPU time includes the embedding helper process a question starts, which the command waits for at exit).
On a shared machine wall time grows with the other processes' load while CPU time mostly does not, so both
are printed, with the load average before and after. Targets (issue 10): `ask` on the bundled day <= 4 s and
`ask` on an empty store <= 1.5 s on the 2-core reference machine.

The state is prepared once (an empty home, and the bundled day ingested into another), and each command runs
once untimed first so that every timed run starts with the files in the OS cache, like a second start.

    .venv/bin/python bench/cold_start.py [--runs 5] [--home DIR]    # --home keeps the ingested day for re-runs

On a shared machine only figures taken side by side compare. `--against TREE` (repeatable) runs each command in
this tree and in other checkouts in turn (git worktrees of older commits, each with its own state directory ingested
by its own code, and run with this interpreter unless it has its own .venv), each going first in turn, and prints
them all. `--bytecode` lets the runs write and use the checkouts' bytecode, as an installed package has it:

    .venv/bin/python bench/cold_start.py --runs 7 --only "ask, bundled day" --against ../wt-old --against-home /tmp/h
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
    Case("ask an author, bundled day", ("ask", "--as-of", DEMO_DAY.isoformat(), "what did Lei Bai post today?"), "day"),
    Case("search, bundled day", ("search", "sparse", "mixture-of-experts", "routing"), "day"),
    Case("search, empty store", ("search", "sparse", "mixture-of-experts", "routing"), "empty"),
]


@dataclass(frozen=True)
class Run:
    wall_s: float
    cpu_s: float  # user + sys of the child process and of the processes it waited for


@dataclass(frozen=True)
class Tree:
    """A checkout whose `paperscout` is timed: its root (its `bot` is imported), interpreter and state for the day."""

    root: Path
    python: str
    day_home: Path | None = None  # None: a temporary one
    bytecode: bool = False  # may write its bytecode (see `environment`)


def tree_at(root: Path, day_home: Path | None, bytecode: bool) -> Tree:
    """The checkout at `root`, run with its own .venv when it has one, else with this interpreter."""
    own = root / ".venv" / "bin" / "python"
    return Tree(root.resolve(), str(own) if own.exists() else sys.executable, day_home, bytecode)


def environment(home: Path, root: Path = ROOT, bytecode: bool = False) -> dict[str, str]:
    """The caller's environment without any paperscout setting (so no LLM), state in `home`; with `bytecode`, the
    checkout's bytecode may be written (__pycache__, as `pip install` writes it for an installed package)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERSCOUT_")}
    env.update(PAPERSCOUT_HOME=str(home), PYTHONPATH=str(root))
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_once(args: tuple[str, ...], home: Path, tree: Tree | None = None) -> Run:
    """One fresh `paperscout ARGS` process (of `tree`, else this checkout): its wall time and its own CPU time."""
    root, python, bytecode = (tree.root, tree.python, tree.bytecode) if tree else (ROOT, sys.executable, False)
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        child = subprocess.Popen(
            [python, "-c", ENTRY, *args],
            env=environment(home, root, bytecode),
            cwd=root,
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


def prepare_day(home: Path, tree: Tree | None = None) -> None:
    """Ingest the bundled day into `home` (with `tree`'s code) unless it is there already."""
    if (home / "paperscout.sqlite3").exists():
        return
    print(f"ingesting the bundled day {DEMO_DAY} into {home} (once) ...", flush=True)
    run_once(("ingest", "--jsonl", str(bundled_file(DEMO_DAY_FILE))), home, tree)


def summary(label: str, runs: list[Run], target_s: float | None = None) -> str:
    """One row: median and smallest wall time, median CPU time (and the target)."""
    wall = statistics.median(r.wall_s for r in runs)
    cpu = statistics.median(r.cpu_s for r in runs)
    target = f"<= {target_s:g} s" if target_s else ""
    return f"{label:<34} {wall:10.2f}s {min(r.wall_s for r in runs):8.2f}s {cpu:10.2f}s  {target}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command (default 5)")
    parser.add_argument("--home", type=Path, help="state directory for the ingested day (kept; default temporary)")
    parser.add_argument("--only", action="append", help="time only the command of this label (repeatable)")
    parser.add_argument(
        "--against", type=Path, action="append", default=[], help="another checkout, timed in turn (repeatable)"
    )
    parser.add_argument(
        "--against-home",
        type=Path,
        action="append",
        default=[],
        help="the state directory for the day of each --against, in order (kept; default temporary)",
    )
    parser.add_argument(
        "--bytecode",
        action="store_true",
        help="let the untimed run write the checkouts' bytecode, as an installed package has it (without it, under "
        "PYTHONDONTWRITEBYTECODE=1, every run compiles paperscout's own modules from source)",
    )
    args = parser.parse_args()
    cases = [c for c in CASES if not args.only or c.label in args.only]
    if not cases:
        parser.error(f"--only takes one of: {', '.join(c.label for c in CASES)}")

    with tempfile.TemporaryDirectory(prefix="paperscout-cold-") as scratch:
        against_homes = args.against_home + [None] * (len(args.against) - len(args.against_home))
        trees = [tree_at(ROOT, args.home, args.bytecode)]
        trees += [tree_at(root, home, args.bytecode) for root, home in zip(args.against, against_homes, strict=True)]
        homes: dict[tuple[int, str], Path] = {}
        for n, tree in enumerate(trees):
            homes[n, "empty"] = Path(scratch) / f"empty-{n}"
            homes[n, "day"] = tree.day_home or Path(scratch) / f"day-{n}"
            prepare_day(homes[n, "day"], tree)
        load_before = os.getloadavg()
        compiled = (
            "bytecode written and used"
            if args.bytecode or not os.environ.get("PYTHONDONTWRITEBYTECODE")
            else ("PYTHONDONTWRITEBYTECODE set: paperscout's modules compiled from source unless cached before")
        )
        print(
            f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f} (1 min) before the runs; {args.runs} runs each;"
            f" {compiled}"
        )
        if len(trees) > 1:
            print("\n".join(f"tree {n}: {t.root} ({t.python})" for n, t in enumerate(trees)))
        print(f"{'command':<34} {'wall median':>11} {'wall min':>9} {'CPU median':>11}  target (wall)")
        for case in cases:
            runs: list[list[Run]] = [[] for _ in trees]
            for n, tree in enumerate(trees):  # untimed: files into the OS cache, SQLite schema created
                run_once(case.args, homes[n, case.state], tree)
            for turn in range(args.runs):
                order = list(enumerate(trees))
                order = order[turn % len(order) :] + order[: turn % len(order)]  # each goes first in turn
                for n, tree in order:
                    runs[n].append(run_once(case.args, homes[n, case.state], tree))
            for n, timed in enumerate(runs):
                label = case.label if len(trees) == 1 else f"{case.label} (tree {n})"
                print(summary(label, timed, case.target_s))
        print(f"load average {os.getloadavg()[0]:.2f} (1 min) after the runs")


if __name__ == "__main__":
    main()
