"""One-line interests read as the question reader reads a topic: does its evidence pick a digest's papers? (issue 23)

For every open profile set, each profile is built as onboarding builds it (`bench/heldout_interests.py`), each
shared day is ranked by the personal digest (its whole order kept), and each interest line is asked over that day
as an answer asks a topic (`bot.questions.retrieval`: `parse_question` reads the line, the window is the day, the
papers ranked by the fused order and cut by `select` as an answer's first page is): per paper its evidence tier
(the topic in its title, named twice in its abstract, once in its abstract, none) and whether the answer's first
page shows it. Everything is cached in `--home` (`interest-questions-cache.pkl`), then ways of composing the top 15
from the two are measured per set, in `bench/heldout_interests.py`'s terms (on-topic share of the top 15 of what
exists that day; mean and minimum over the set's profiles).

    cp -a /tmp/final-i DIR
    PYTHONPATH=$PWD .venv/bin/python bench/interest_questions.py --home DIR [--sets development,sealed,...] [-v]

No rule here is fitted: every set is measured as it is, so each is held out.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import pickle
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout_interests import (  # beside this script
    SHARED_DATA,
    TOP,
    HeldOutProfile,
    as_onboarding_reads,
    load_profiles,
    onboarding_profile,
)

from bot.config import Settings
from bot.core import Core, open_core
from bot.ingest.jsonl import read_jsonl
from bot.ingest.save import store_papers
from bot.members.personal import personal_digest
from bot.members.settings import profile_owner
from bot.questions.rag import parse_question
from bot.questions.retrieval import SPREAD, _selected, descriptive_compounds, ranked
from bot.questions.timewords import TimeWindow

ROOT = Path(__file__).resolve().parents[1]
SETS = {
    "development": ROOT / "bench" / "heldout" / "profiles.jsonl",
    "sealed": ROOT / "bench" / "heldout" / "sealed" / "profiles.jsonl",
    "sealed2": ROOT / "bench" / "heldout" / "sealed2" / "profiles.jsonl",
    "profiles11a": ROOT / "bench" / "profiles11a" / "profiles.jsonl",
    "profiles11b": ROOT / "bench" / "profiles11b" / "profiles.jsonl",
    "profiles12": ROOT / "bench" / "profiles12" / "profiles.jsonl",
}
CACHE = "interest-questions-cache.pkl"


@dataclass
class Asked:
    """One interest asked over one day: the answer's first page and each candidate's evidence, in fused order."""

    topic: str
    shown: list[str]
    order: list[str]
    tier: dict[str, int]  # 3 title, 2 abstract twice, 1 abstract once, 0 none
    shows: dict[str, bool]
    relevance: dict[str, float]


@dataclass
class Day:
    digest: list[str]
    asked: list[Asked]
    labels: frozenset[str]
    acceptable: frozenset[str]


@dataclass
class Profiled:
    id: str
    interests: tuple[str, ...]
    days: dict[str, Day] = field(default_factory=dict)


async def ask_interest(core: Core, line: str, day: dt.date) -> Asked:
    """`line` read as a question's topic and answered over `day` (ranked and cut as an answer's first page)."""
    filters = parse_question(line, day)
    window = TimeWindow(day, day, "")
    filters = type(filters)(**{**{s: getattr(filters, s) for s in filters.__slots__}, "window": window})
    if not filters.topic:
        return Asked("", [], [], {}, {}, {})
    descriptive = await descriptive_compounds(core, filters.topic)
    results, _ = await ranked(core, filters, descriptive=descriptive)
    shown, _carrying, _ = _selected(results, filters, SPREAD, stating=True, descriptive=descriptive)
    tier = {}
    for r in results:
        if r.in_title:
            tier[r.paper.id] = 3
        elif r.firm:
            tier[r.paper.id] = 2
        elif r.in_abstract:
            tier[r.paper.id] = 1
        else:
            tier[r.paper.id] = 0
    return Asked(
        filters.topic,
        [r.paper.id for r in shown],
        [r.paper.id for r in results],
        tier,
        {r.paper.id: r.shows for r in results},
        {r.paper.id: r.relevance for r in results},
    )


async def build(core: Core, days: list[dt.date], name: str, profiles: list[HeldOutProfile]) -> list[Profiled]:
    out = []
    for item in profiles:
        user_key = f"console:iq-{name}-{item.id}"
        read = await as_onboarding_reads(core, item)
        profile = onboarding_profile(read, user_key)
        await core.repo.save_profile(profile_owner(user_key), profile)
        got = Profiled(item.id, read.interests)
        for day in days:
            key = day.isoformat()
            digest = await personal_digest(core, user_key, day, size=1000, profile=profile, channel_targets=[])
            asked = [await ask_interest(core, line, day) for line in read.interests]
            got.days[key] = Day(
                [i.paper.id for i in digest.items],
                asked,
                item.labels.get(key, frozenset()),
                item.acceptable.get(key, frozenset()),
            )
        print(f"  {name} {item.id} done", flush=True)
        out.append(got)
    return out


def on_topic(order: list[str], day: Day) -> float:
    relevant = day.labels | day.acceptable
    if not relevant:
        return 1.0
    return len(set(order[:TOP]) & relevant) / min(TOP, len(relevant))


def _round_robin(heads: list[list[str]], digest: list[str]) -> list[str]:
    """The heads' papers taken in turn (the member's order of lines), then the digest's order."""
    first: list[str] = []
    seen: set[str] = set()
    for n in range(max((len(h) for h in heads), default=0)):
        for h in heads:
            if n < len(h) and h[n] not in seen:
                seen.add(h[n])
                first.append(h[n])
    return first + [i for i in digest if i not in seen]


def compose(day: Day, rule: str) -> list[str]:
    """The digest's order under `rule`:
    - `digest`: as it is;
    - `page`: each interest's answer first page, in turn across interests, then the digest fills the 15;
    - `tierN`: each interest's papers of evidence tier >= N in the answer's fused order, in turn, then the digest;
      `tierN-digest`: the same papers in the digest's order;
    - `demoteN-F[p]`: of the digest's first N papers, those with evidence tier >= F for some interest (and with
      `p`, those an answer's first page shows) before the others, each part in the digest's order."""
    if rule == "digest":
        return day.digest
    if rule == "page":
        return _round_robin([list(a.shown) for a in day.asked], day.digest)
    if rule.startswith("tier"):
        floor = int(rule[4])
        heads = [[i for i in a.order if a.tier.get(i, 0) >= floor] for a in day.asked]
        if rule.endswith("-digest"):
            position = {i: n for n, i in enumerate(day.digest)}
            heads = [sorted(h, key=lambda i: position.get(i, 10**6)) for h in heads]
        return _round_robin(heads, day.digest)
    if rule.startswith("demote"):
        depth, evidence = rule[6:].split("-")
        floor = int(evidence[0])
        held = {i for a in day.asked for i, t in a.tier.items() if t >= floor}
        if evidence.endswith("p"):
            held |= {i for a in day.asked for i in a.shown}
        top = day.digest[: int(depth)]
        return [i for i in top if i in held] + [i for i in top if i not in held] + day.digest[int(depth) :]
    raise ValueError(f"unknown rule {rule}")


def tier_name(day: Day, paper: str) -> str:
    """The paper's strongest evidence over the interests ("title", "twice", "once", "none"), "+page" when an
    answer's first page shows it."""
    tier = max((a.tier.get(paper, 0) for a in day.asked), default=0)
    page = any(paper in a.shown for a in day.asked)
    return ("none", "once", "twice", "title")[tier] + ("+page" if page else "")


def profile_means(profs: list[Profiled], rule: str) -> list[float]:
    return [float(np.mean([on_topic(compose(d, rule), d) for d in p.days.values()])) for p in profs]


def report(data: dict[str, list[Profiled]], rules: list[str], verbose: bool) -> None:
    """Per rule and set: on-topic mean (min); with `verbose`, the profiles that move, the evidence of the top 15
    and of the labelled papers left out."""
    print(f"{'rule':<16} " + " ".join(f"{s:>15}" for s in data) + "   mean change, worst set")
    base = {name: profile_means(profs, "digest") for name, profs in data.items()}
    for rule in rules:
        means = {name: profile_means(profs, rule) for name, profs in data.items()}
        change = [np.mean(means[n]) - np.mean(base[n]) for n in data]
        cells = " ".join(f"{np.mean(m):.3f} ({min(m):.3f})" for m in means.values())
        print(f"{rule:<16} {cells}   {np.mean(change):+.4f} {min(change):+.3f}")
        if verbose and rule != "digest":
            for name, profs in data.items():
                moved = [
                    f"{p.id} {b:.2f}->{m:.2f}"
                    for p, b, m in zip(profs, base[name], means[name], strict=True)
                    if abs(m - b) > 0.005
                ]
                if moved:
                    print(f"    {name}: {', '.join(moved)}")
    if not verbose:
        return
    print("evidence of the digest's top 15 (papers, share on topic) and of the labelled papers it leaves out on days")
    print("short of what exists (papers, by the digest's rank)")
    for name, profs in data.items():
        shown: dict[str, list[int]] = {}
        missed: dict[str, int] = {}
        for p in profs:
            for d in p.days.values():
                relevant = d.labels | d.acceptable
                for i in d.digest[:TOP]:
                    shown.setdefault(tier_name(d, i), []).append(i in relevant)
                if len(set(d.digest[:TOP]) & relevant) >= min(TOP, len(relevant)):
                    continue
                position = {i: n for n, i in enumerate(d.digest)}
                for i in relevant - set(d.digest[:TOP]):
                    rank = position.get(i, 10**6)
                    band = "16-30" if rank < 30 else "31-100" if rank < 100 else ">100"
                    key = f"{tier_name(d, i).split('+')[0]} {band}"
                    missed[key] = missed.get(key, 0) + 1
        print(f"  {name} top 15: " + ", ".join(f"{k} {len(v)} ({np.mean(v):.2f})" for k, v in sorted(shown.items())))
        print(f"  {name} missed: " + ", ".join(f"{k} {v}" for k, v in sorted(missed.items())))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--sets", default="development,sealed,sealed2,profiles11a,profiles11b")
    parser.add_argument("--rules", default="digest,page,tier3,tier2,tier2-digest,demote20-2p,demote20-1p,demote20-1")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    names = [s for s in args.sets.split(",") if s]
    path = args.home / CACHE
    cached: dict[str, list[Profiled]] = pickle.loads(path.read_bytes()) if path.exists() and not args.rebuild else {}
    missing = [n for n in names if n not in cached]
    if missing:
        papers = read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl")))
        days = sorted({p.announced for p in papers})
        async with open_core(Settings(home=args.home)) as core:
            await store_papers(core, papers)
            for name in missing:
                cached[name] = await build(core, days, name, load_profiles(SETS[name]))
                path.write_bytes(pickle.dumps(cached))
    report({n: cached[n] for n in names}, [r for r in args.rules.split(",") if r], args.verbose)


if __name__ == "__main__":
    asyncio.run(main())
