"""Held-out one-line-interest profiles (issue 23): how much of each member's first daily digests is on topic.

For each profile of `bench/heldout/profiles.jsonl` (written and labelled by someone who never read the code), the
member's profile is built as chat onboarding builds it from the one-line interests and avoids (the answers split
by `split_items`, their typos read as onboarding reads them against the stored papers' words
(`bot.ranking.interest_spelling.corrected_items`; `--as-typed` skips that), a `Draft` made into a profile by
`build_profile`; no authors, no categories, no ratings), saved
as a personal profile, and each shared day is ranked by `personal_digest` (the personal daily digest: cold start,
no feedback, no LLM). Per profile and day it prints the on-topic share of the top 15, a paper being on topic when
it is in the day's `labels` or `acceptable`, divided by min(15, number of such papers that day) ("of what exists
that day"), and the recall of the day's `labels` in the top 15, divided by min(15, number of labels). Targets: mean
on-topic >= 0.85, every profile >= 0.75.

    .venv/bin/python bench/heldout_interests.py [--home DIR] [--data ../shared/data] [--only p03] [-v] [--floors 2,3]
        [--as-typed]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from bot.config import Settings
from bot.core import Core, open_core
from bot.ingest.jsonl import read_jsonl
from bot.ingest.save import store_papers
from bot.members.onboarding.drafts import build_profile, profile_name
from bot.members.onboarding.hygiene import split_items
from bot.members.onboarding.state import Draft
from bot.members.personal import personal_digest
from bot.members.settings import profile_owner
from bot.models import Paper, Profile, ScoredPaper
from bot.ranking.interest_spelling import corrected_items

ROOT = Path(__file__).resolve().parents[1]
PROFILES = ROOT / "bench" / "heldout" / "profiles.jsonl"
SHARED_DATA = ROOT.parent / "shared" / "data"
TOP = 15
MANY = 100  # interests or avoids an answer may hold here; onboarding's own limits are lower than any profile needs


@dataclass(frozen=True)
class HeldOutProfile:
    """One labelled profile: what the member typed and, per day, the papers that match."""

    id: str
    interests: tuple[str, ...]
    avoid: tuple[str, ...]
    labels: dict[str, frozenset[str]]
    acceptable: dict[str, frozenset[str]]


def load_profiles(path: Path = PROFILES) -> list[HeldOutProfile]:
    """The held-out profiles, in file order."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        out.append(
            HeldOutProfile(
                id=row["id"],
                interests=tuple(row["interests"]),
                avoid=tuple(row.get("avoid", [])),
                labels={d: frozenset(ids) for d, ids in row["labels"].items()},
                acceptable={d: frozenset(ids) for d, ids in row.get("acceptable", {}).items()},
            )
        )
    return out


def onboarding_profile(item: HeldOutProfile, user_key: str) -> Profile:
    """The profile onboarding saves when a member answers with these interests (one a line) and avoids."""
    draft = Draft()
    draft.interests = split_items("\n".join(item.interests), MANY)
    draft.avoid = split_items("\n".join(item.avoid), MANY)
    return build_profile(draft, profile_name(item.id, user_key))


@dataclass(frozen=True)
class DayScore:
    on_topic: float
    recall: float
    relevant: int  # labels + acceptable that day
    labelled: int


def score_day(ranked: list[str], labels: frozenset[str], acceptable: frozenset[str]) -> DayScore:
    """On-topic share of the top 15 and recall of the labels there, each of what exists that day."""
    top = set(ranked[:TOP])
    relevant = labels | acceptable
    on_topic = len(top & relevant) / min(TOP, len(relevant)) if relevant else 1.0
    recall = len(top & labels) / min(TOP, len(labels)) if labels else 1.0
    return DayScore(on_topic, recall, len(relevant), len(labels))


@dataclass
class FloorTally:
    """What a score floor would leave of the top 15: a paper is shown when its score stands `z` robust standard
    deviations (1.4826 x the median absolute deviation) above the median score of that day for that profile."""

    z: float
    shown: list[int]
    precision: list[float]  # on-topic share of what is shown
    on_topic: list[float]  # as `score_day`, of what exists that day

    def add(self, ranked: list[ScoredPaper], relevant: frozenset[str]) -> None:
        """Count one profile-day: `ranked` is every candidate of the day, best first."""
        scores = np.array([item.score for item in ranked])
        median = float(np.median(scores))
        spread = 1.4826 * float(np.median(np.abs(scores - median))) or 1e-9
        shown = [item.paper.id for item in ranked[:TOP] if (item.score - median) / spread >= self.z]
        self.shown.append(len(shown))
        self.precision.append(sum(1 for i in shown if i in relevant) / len(shown) if shown else 1.0)
        held = sum(1 for i in shown if i in relevant)
        self.on_topic.append(held / min(TOP, len(relevant)) if relevant else 1.0)


async def as_onboarding_reads(core: Core, item: HeldOutProfile) -> HeldOutProfile:
    """The profile's interests and avoids with their typos read as onboarding reads a member's answers."""
    interests, _ = await corrected_items(core, list(item.interests))
    avoid, _ = await corrected_items(core, list(item.avoid))
    return replace(item, interests=tuple(interests), avoid=tuple(avoid))


async def run(
    core: Core,
    papers: list[Paper],
    profiles: list[HeldOutProfile],
    verbose: bool,
    floors: Sequence[float] = (),
    *,
    as_typed: bool = False,
) -> None:
    """Rank every day for every profile and print the table (and, with `floors`, what each score floor leaves)."""
    days = sorted({p.announced for p in papers})
    by_id = {p.id: p for p in papers}
    print(f"{'profile':<8} " + " ".join(f"{d.isoformat()[5:]:>11}" for d in days) + f" {'on-topic':>8} {'recall':>6}")
    means, recalls = [], []
    tallies = [FloorTally(z, [], [], []) for z in floors]
    off_topic = padding = 0
    for item in profiles:
        user_key = f"console:heldout-{item.id}"
        profile = onboarding_profile(item if as_typed else await as_onboarding_reads(core, item), user_key)
        await core.repo.save_profile(profile_owner(user_key), profile)
        cells, values, day_recalls, notes = [], [], [], []
        for day in days:
            key = day.isoformat()
            labels, acceptable = item.labels.get(key, frozenset()), item.acceptable.get(key, frozenset())
            count = sum(1 for p in papers if p.announced == day)
            digest = await personal_digest(core, user_key, day, size=count, profile=profile, channel_targets=[])
            ranked = [i.paper.id for i in digest.items]
            score = score_day(ranked, labels, acceptable)
            off_topic += sum(1 for i in ranked[:TOP] if i not in labels | acceptable)
            padding += max(0, min(TOP, len(ranked)) - score.relevant)
            for tally in tallies:
                tally.add(list(digest.items), labels | acceptable)
            values.append(score.on_topic)
            day_recalls.append(score.recall)
            cells.append(f"{score.on_topic:4.2f}/{score.recall:4.2f}")
            if verbose:
                notes += _day_notes(day, ranked, labels, acceptable, by_id)
        means.append(float(np.mean(values)))
        recalls.append(float(np.mean(day_recalls)))
        print(f"{item.id:<8} " + " ".join(f"{c:>11}" for c in cells) + f" {means[-1]:8.3f} {recalls[-1]:6.3f}")
        for note in notes:
            print(note)
    below = [p.id for p, m in zip(profiles, means, strict=True) if m < 0.75]
    print(
        f"mean over {len(profiles)} profiles: on-topic {np.mean(means):.3f} (min {min(means):.3f}, "
        f"{len(below)} below 0.75{': ' + ', '.join(below) if below else ''}); label recall {np.mean(recalls):.3f} "
        f"(min {min(recalls):.3f})"
    )
    print(f"(cell: on-topic share of the top {TOP} / recall of the labels there, each of what exists that day)")
    print(
        f"off-topic papers in the top {TOP}: {off_topic} of {TOP * len(profiles) * len(days)} (on-topic share "
        f"{1 - off_topic / (TOP * len(profiles) * len(days)):.3f}), {padding} of them on days with fewer than {TOP} "
        "on-topic papers (padding a score floor could leave out)"
    )
    for tally in tallies:
        print(
            f"score floor z >= {tally.z:g}: {np.mean(tally.shown):.1f} papers shown on average (min "
            f"{min(tally.shown)}), on-topic share of what is shown {np.mean(tally.precision):.3f}, on-topic of what "
            f"exists {np.mean(tally.on_topic):.3f}"
        )


def _day_notes(
    day: dt.date, ranked: list[str], labels: frozenset[str], acceptable: frozenset[str], by_id: dict[str, Paper]
) -> list[str]:
    notes = []
    for rank, paper_id in enumerate(ranked[:TOP], 1):
        mark = "+" if paper_id in labels else ("~" if paper_id in acceptable else "-")
        notes.append(f"    {day.isoformat()[5:]} {rank:>3} {mark} {paper_id} {by_id[paper_id].title[:90]}")
    position = {paper_id: rank for rank, paper_id in enumerate(ranked, 1)}
    for paper_id in sorted(labels - set(ranked[:TOP]), key=lambda i: position.get(i, 10**6)):
        title = by_id[paper_id].title[:90] if paper_id in by_id else "?"
        notes.append(f"    {day.isoformat()[5:]} {position.get(paper_id, 0):>3} MISS {paper_id} {title}")
    return notes


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments every bench over the held-out profiles takes: store, data, profiles, which ones."""
    parser.add_argument("--home", type=Path, help="state dir to reuse (ingested once); default a temp dir")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--profiles", type=Path, default=PROFILES)
    parser.add_argument("--only", help="only profiles whose id contains this text")


def load_inputs(args: argparse.Namespace) -> tuple[list[Paper], list[HeldOutProfile]]:
    """The shared days' papers and the profiles `--profiles` and `--only` select."""
    papers = read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl")))
    profiles = [p for p in load_profiles(args.profiles) if not args.only or args.only in p.id]
    return papers, profiles


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_arguments(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="print each day's top 15 and missed labels")
    parser.add_argument(
        "--floors", default="", help="comma-separated z values: what a score floor relative to the day would leave"
    )
    parser.add_argument(
        "--as-typed", action="store_true", help="rank the interests as written, without onboarding's typo reading"
    )
    args = parser.parse_args()
    papers, profiles = load_inputs(args)
    with tempfile.TemporaryDirectory() as scratch:
        async with open_core(Settings(home=args.home or Path(scratch))) as core:
            await store_papers(core, papers)
            floors = [float(z) for z in args.floors.split(",") if z.strip()]
            await run(core, papers, profiles, args.verbose, floors, as_typed=args.as_typed)


if __name__ == "__main__":
    asyncio.run(main())
