"""One-line member interests (issue 14): each a one-topic personal profile ranked on each shared arXiv day.

For every interest of `bench/questions_phrasings.py` (and, with --held-out, the interests below that the ranker
was not tuned on) and every day, the papers whose title matches the interest's pattern are the expected ones.
The cell is the precision of the top 10 where the day has >= 10 of them, else the recall of all of them in the
top 10 (the target: >= 0.8 per interest). `R-prec` is stricter: the share of expected papers among the top R,
R = min(10, expected), averaged over the days that have any; it drops when an off-topic paper ("Linear-Mixture
MDPs" for "sparse mixture-of-experts") ranks above an expected one even if both are in the top 10.

    .venv/bin/python bench/interests.py [--home DIR] [--data ../shared/data] [--held-out] [--acronyms] [-v]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
from pathlib import Path

import numpy as np
from qa import SHARED_DATA
from questions_phrasings import INTERESTS, Interest

from bot.config import Settings
from bot.core import Core, open_core
from bot.ingest.jsonl import read_jsonl
from bot.ingest.save import store_papers
from bot.models import Paper, Profile, Topic
from bot.ranking.for_profile import profile_model, sentence_matrices
from bot.ranking.rank import ProfileModel, rank_for_profile

# Other short interests a member might type, written before the ranker changed and never run while tuning it.
# After the first run two patterns were corrected, not the ranker: "merging|merge" also matched "emergence", and
# "interpretab|circuit" every "interpretable <application>" and electrical circuit (docs/BENCHMARKS.md has both).
HELD_OUT = [
    Interest("LoRA fine-tuning", r"\bLoRA\b|low[- ]rank adapt"),
    Interest("in-context learning", r"in[- ]context learning|\bICL\b"),
    Interest("reward models", r"reward model"),
    Interest("knowledge distillation", r"distill"),
    Interest("model merging", r"\bmerg(e|es|ed|ing)\b"),
    Interest("out-of-distribution detection", r"out[- ]of[- ]distribution|\bOOD\b"),
    Interest("quantization of LLMs", r"quantiz"),
    Interest("multi-agent reinforcement learning", r"multi[- ]agent reinforcement|\bMARL\b"),
    Interest("neural radiance fields", r"radiance field|\bNeRFs?\b"),
    Interest("direct preference optimization", r"preference optimi|\bDPO\b"),
    Interest("world models", r"world model"),
    Interest("mechanistic interpretability", r"mechanistic|interpretability"),
    Interest("symbolic regression", r"symbolic regression"),
]

_PATTERN = {i.text: i.pattern for i in INTERESTS}
# The same interests as a member might type them with acronyms (used while choosing to spell acronyms out for the
# embedding, so not held out).
ACRONYMS = [
    Interest("sparse MoE", _PATTERN["sparse mixture-of-experts"]),
    Interest("MoE", _PATTERN["sparse mixture-of-experts"]),
    Interest("RAG", _PATTERN["retrieval-augmented generation"]),
    Interest("SSMs", _PATTERN["state space models"]),
    Interest("CoT reasoning", _PATTERN["chain-of-thought reasoning"]),
    Interest("GNNs", _PATTERN["graph neural networks"]),
    Interest("PINNs", _PATTERN["physics-informed neural networks"]),
    Interest("VLA models", _PATTERN["vision-language-action models"]),
    Interest("KV cache", _PATTERN["KV cache compression"]),
    Interest("GPs", _PATTERN["Gaussian processes"]),
    Interest("BO", _PATTERN["Bayesian optimization"]),
    Interest("SAEs", _PATTERN["sparse autoencoders"]),
]


async def day_ranking(core: Core, day: list[Paper], model: ProfileModel) -> tuple[list[Paper], list[Paper]]:
    """The day's papers that have vectors, and all of them in the profile's order, best first."""
    found = await core.vectors.found_vectors([p.id for p in day])
    day = [p for p in day if p.id in found]
    sentences = await sentence_matrices(core, day, model)
    ranked = rank_for_profile(day, np.stack([found[p.id] for p in day]), model, len(day), sentence_vecs=sentences)
    return day, [r.paper for r in ranked]


def score_day(ranked: list[Paper], pattern: re.Pattern[str]) -> tuple[float, float | None, int]:
    """(precision@10 or recall in the top 10, R-precision or None when nothing is expected, expected count)."""
    expected = {p.id for p in ranked if pattern.search(p.title)}
    top = [p.id for p in ranked[:10]]
    if len(expected) >= 10:
        value = sum(1 for i in top if i in expected) / 10
    else:
        value = len(expected & set(top)) / len(expected) if expected else 1.0
    r = min(10, len(expected))
    r_precision = sum(1 for i in top[:r] if i in expected) / r if r else None
    return value, r_precision, len(expected)


async def run_interests(
    core: Core, papers: list[Paper], interests: list[Interest], verbose: bool = False, title: str = "one-line interest"
) -> list[float]:
    """Print the per-interest table for `interests` and return each interest's mean value."""
    days = sorted({p.announced for p in papers})
    print(f"{title:<34} " + " ".join(f"{d.isoformat()[5:]:>9}" for d in days) + f" {'mean':>6} {'R-prec':>6}")
    means, r_means = [], []
    for interest in interests:
        pattern = re.compile(interest.pattern, re.IGNORECASE)
        cells, values, r_values = [], [], []
        profile = Profile(name=f"bench:{interest.text}", topics=(Topic(name=interest.text, want=interest.text),))
        model = await profile_model(core, profile)
        notes = []
        for day in days:
            _, ranked = await day_ranking(core, [p for p in papers if p.announced == day], model)
            value, r_precision, expected = score_day(ranked, pattern)
            values.append(value)
            if r_precision is not None:
                r_values.append(r_precision)
            cells.append(f"{value:5.2f}{'p' if expected >= 10 else 'r'}{expected:>2}")
            if verbose:
                for rank, paper in enumerate(ranked[:10], 1):
                    mark = "+" if pattern.search(paper.title) else "-"
                    notes.append(f"    {day.isoformat()[5:]} {rank:>3} {mark} {paper.title[:100]}")
                notes += [
                    f"    {day.isoformat()[5:]} {rank:>3} MISS {paper.title[:100]}"
                    for rank, paper in enumerate(ranked, 1)
                    if rank > 10 and pattern.search(paper.title)
                ]
        means.append(float(np.mean(values)))
        r_means.append(float(np.mean(r_values)) if r_values else 1.0)
        print(
            f"{interest.text[:34]:<34} " + " ".join(f"{c:>9}" for c in cells) + f" {means[-1]:6.2f} {r_means[-1]:6.2f}"
        )
        for note in notes:
            print(note)
    below = sum(1 for m in means if m < 0.8)
    print(
        f"mean over {len(interests)} interests: {np.mean(means):.3f}, min {min(means):.2f}, "
        f"{below} below 0.8; R-precision mean {np.mean(r_means):.3f}, min {min(r_means):.2f}"
    )
    print("(cell: value, p = precision@10 (day has >= 10 such papers) or r = recall in top 10, then their number)")
    return means


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="state dir to reuse (ingested once); default a temp dir")
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--held-out", action="store_true", help="also the interests the ranker was not tuned on")
    parser.add_argument("--acronyms", action="store_true", help="also interests typed as acronyms")
    parser.add_argument("--only", help="only interests containing this text")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each day's top 10 and the misses")
    args = parser.parse_args()
    papers = read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl")))
    chosen = [i for i in INTERESTS if not args.only or args.only.lower() in i.text.lower()]
    held = [i for i in HELD_OUT if not args.only or args.only.lower() in i.text.lower()]
    with tempfile.TemporaryDirectory() as scratch:
        async with open_core(Settings(home=args.home or Path(scratch))) as core:
            await store_papers(core, papers)
            if chosen:
                await run_interests(core, papers, chosen, args.verbose)
            if args.held_out and held:
                print()
                await run_interests(core, papers, held, args.verbose, "held-out interest")
            if args.acronyms:
                print()
                await run_interests(core, papers, ACRONYMS, args.verbose, "typed as acronyms")


if __name__ == "__main__":
    asyncio.run(main())
