"""`paperscout eval --train` over many thumbs-down draws: did the ranking change, or only the draw?

`paperscout eval --train` plays one reader of the labelled days: every pick of the training days is a thumbs up,
and as many non-picks, drawn with seed 0 from the day's cold-start top 150, are thumbs down
(`bot.ranking.evaluate.skim_reactions`). Which non-picks are drawn depends on which papers make that top 150: a
change that moves a few non-picks in or out of it draws every thumbs down anew, and the printed figures move by about
their spread over draws without the ranking being better or worse. This prints the figures of draws (seeds)
0 .. N-1, their mean and standard deviation; draw 0 is what `paperscout eval --train` prints.

    PAPERSCOUT_HOME=DIR .venv/bin/python bench/feedback_draws.py [--draws 20] [--cue-idioms off]

DIR is the home `paperscout eval` uses (the store is DIR/eval, so both share one): papers missing there are stored
and embedded first, as the eval does. `--cue-idioms off` counts a cue word inside a set phrase ("proof-of-concept",
"theory of mind") as a cue again, as the ranker did before d53a3ed, to compare the two on the same draws.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.config import Settings
from bot.core import open_core
from bot.ingest.save import store_papers
from bot.ranking import rank
from bot.ranking.evaluate import DayArrays, day_arrays, day_metrics, load_labelled_days, mean_metrics, train_on_days
from bot.ranking.learn import personal_scores
from bot.ranking.profiles import load_profile

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
COLUMNS = ("auc", "recall@50", "recall@100", "recall@150")


async def labelled_arrays(settings: Settings, data: Path, profile_file: Path) -> list[DayArrays]:
    """Every labelled day ranked cold for the profile, with its paper vectors, from the eval's store."""
    profile = load_profile(profile_file)
    days = load_labelled_days(data)
    async with open_core(settings) as core:
        for day in days:
            await store_papers(core, day.papers)
        return [await day_arrays(core, day, profile) for day in days]


def draw_figures(arrays: list[DayArrays], seed: int) -> dict[str, float]:
    """Mean figures of the 3-days -> 4th folds for one thumbs-down draw, as `evaluate_personalised` computes them."""
    per_day = {}
    for test in arrays:
        model = train_on_days([a for a in arrays if a is not test], frozenset(test.ids), seed)
        scores = personal_scores(test.cold, test.vecs, model, model.n_reactions if model else 0)
        per_day[test.day.isoformat()] = day_metrics(scores, test.labels.astype(np.int8))
    return mean_metrics(per_day)


def line(label: str, values: dict[str, float] | np.ndarray) -> str:
    numbers = [values[k] for k in COLUMNS] if isinstance(values, dict) else list(values)
    return f"{label:<18} " + " / ".join(f"{v:.3f}" for v in numbers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with arxiv/, labels/, profiles/")
    parser.add_argument("--profile", type=Path, default=None, help="profile TOML (default: foundations.toml)")
    parser.add_argument("--draws", type=int, default=20, help="thumbs-down draws, seeds 0 .. N-1 (default 20)")
    parser.add_argument("--cue-idioms", choices=("on", "off"), default="on", help="off: as before d53a3ed")
    args = parser.parse_args()
    if args.cue_idioms == "off":
        rank.CUE_IDIOMS = {}  # read by rank.paper_features when it computes a day's cue hits

    settings = Settings()
    settings = settings.model_copy(update={"home": settings.home / "eval", "chroma_url": None})
    profile_file = args.profile or args.data / "profiles" / "foundations.toml"
    arrays = asyncio.run(labelled_arrays(settings, args.data, profile_file))
    print("command: python bench/feedback_draws.py " + " ".join(sys.argv[1:]))
    print(f"{'':<18} " + " / ".join(COLUMNS))
    cold = mean_metrics({a.day.isoformat(): day_metrics(a.cold, a.labels.astype(np.int8)) for a in arrays})
    print(line("cold start", cold))
    draws = []
    for seed in range(args.draws):
        draws.append(draw_figures(arrays, seed))
        print(line(f"draw {seed}", draws[-1]), flush=True)
    table = np.array([[d[k] for k in COLUMNS] for d in draws])
    print(line(f"mean of {args.draws}", table.mean(axis=0)))
    print(line("sd of one draw", table.std(axis=0)))


if __name__ == "__main__":
    main()
