"""Held-out questions and searches (issue 22): recall and on-topic per kind, on sets written without the code.

Runs `bench/heldout/questions.jsonl` and `bench/heldout/search.jsonl` over a store built from the four shared days
(`arxiv/` of `--data`: by default `../shared/data` beside the repository, found from this file's own location as the
other bench scripts find it, so the script runs from any directory without `--data`), offline (no LLM), through the
same calls the chat makes:

- a question goes to `bot.questions.rag.ask` as the chat's `ChatController.answer` calls it (a conversation id, no
  profile), with `today` = the question's `as_of`; a follow-up (`follows`) is asked in its first question's
  conversation, right after it, so it sees that answer as the previous turn;
- a search goes to `bot.questions.search.search_papers` with the arguments of the chat's `/search` (until the last
  stored day, `limit` = the chat's page size, `cut=True`).

How it counts, per question:

- listed = the papers the answer cites, followed by the papers it offers to show next (`Answer.more`, what the
  answer's "more" offer lists) when it makes that offer; an answer without the offer lists only its citations;
- recall = share of `relevant` among the listed papers (1.0 when `relevant` is empty and nothing is listed, 0.0
  when it is empty but something is listed);
- on-topic = share of the papers shown in the answer itself (its citations) that are in `relevant` or `acceptable`
  (1.0 for an empty answer to an empty `relevant`); `on-topic(all)` is the same share over everything listed;
- a question with `expect_no_day` passes "day named" when its answer names the missing day (its ISO date or its
  weekday) and cites nothing.

Per search, counted as for questions: listed = the search's first page followed by the rest it offers with /more,
in its order; recall@10 = share of `relevant` in the first 10 listed; on-topic@5 = share of the first
min(5, first page) results of the first page that are in `relevant` or `acceptable` (1.0 when nothing is returned
and nothing relevant exists); `page-1 recall` = share of `relevant` on the first page alone; capped recall@10 (a
second line, beside the unchanged recall@10) = relevant in the first 10 / min(10, relevant). Figures are means over
items; a kind's figure is the mean over its questions.

    .venv/bin/python bench/heldout_questions.py [--home DIR] [--data DIR] [-v] [--only questions|search]
        [--set bench/heldout] [--kind follow_up] [--wrap 'papers on {}'] [--interest LINE ... --avoid LINE ...]
        [--embedder torch|command]

`--interest` (and `--avoid`) ask every question as a member whose profile onboarding made from those lines (no
held-out set asks with a profile): its ranking's share of each answer is the member's digest score.

`--embedder command` embeds the questions and queries as the one-shot commands do (`bot.embeddings.query`: NumPy
for a short text, without torch) instead of with torch as the chat does; the store itself is built with torch.

`--wrap` puts each search query into a request ("papers on {}", "any recent work about {}?"): a search must find
the same papers whatever words a request puts around its topic.

`--set` is a folder holding `questions.jsonl`, `search.jsonl` or both: the parts it holds are run (`--only` one of
them, which must then be there).

`--kind` runs the questions of one kind, each follow-up with the question it follows (asked first, as always, and
reported under its own kind); the table then covers only those questions.

The store is built once under `--home` (default: a directory in the system temp dir) and reused by later runs. A
store built before sentence vectors existed lacks them (the run says how many papers have them): fill it from the
bench file with `bench/sentence_retrieval.py --fill-only`, or `paperscout db --refresh-vectors` (about 30 min).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import tempfile
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from bot.chat.questions import MAX_LIST
from bot.config import Settings
from bot.core import Core, command_embedder, open_core
from bot.days import stored_days_note
from bot.embeddings.query import QueryEmbedder
from bot.ingest.jsonl import read_jsonl
from bot.ingest.save import store_papers
from bot.models import Paper, Profile
from bot.questions.rag import ask
from bot.questions.search import search_papers

HERE = Path(__file__).resolve().parent
SHARED_DATA = HERE.parents[1] / "shared" / "data"
DEFAULT_HOME = Path(tempfile.gettempdir()) / "paperscout-heldout-store"
KIND_ORDER = [
    "wordy",
    "benchmark",
    "day_summary",
    "author",
    "compound",
    "exact_name",
    "exclusion",
    "typo",
    "plain_topic",
    "follow_up",
]


@dataclass(frozen=True, slots=True)
class Scored:
    """One question's figures."""

    recall: float
    on_topic: float
    on_topic_all: float
    shown: int
    listed: int
    day_named: bool | None


def _load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _share(ids: list[str], good: set[str], empty: float) -> float:
    return sum(1 for i in ids if i in good) / len(ids) if ids else empty


def score(item: dict, shown: list[str], listed: list[str], text: str) -> Scored:
    """Recall over everything listed, on-topic over what is shown (see the module docstring)."""
    relevant, good = set(item["relevant"]), set(item["relevant"]) | set(item["acceptable"])
    recall = len(relevant & set(listed)) / len(relevant) if relevant else float(not listed)
    nothing_wanted = 0.0 if relevant else 1.0
    day_named = None
    if item.get("expect_no_day"):
        as_of = dt.date.fromisoformat(item["as_of"])
        missing = _weekday_dates(item["question"], as_of)
        named = any(d.isoformat() in text or d.strftime("%A") in text for d in missing)
        day_named = named and not shown
    return Scored(
        recall,
        _share(shown, good, nothing_wanted),
        _share(listed, good, nothing_wanted),
        len(shown),
        len(listed),
        day_named,
    )


def _weekday_dates(question: str, as_of: dt.date) -> list[dt.date]:
    """The dates in the week up to `as_of` whose weekday the question names (the day it expects to be named)."""
    words = question.lower()
    return [
        as_of - dt.timedelta(days=back)
        for back in range(7)
        if (as_of - dt.timedelta(days=back)).strftime("%A").lower() in words
    ]


def of_kind(items: list[dict], kind: str | None) -> list[dict]:
    """The items of `kind` (all when None), each follow-up preceded by the question it follows, in the set's order."""
    if kind is None:
        return items
    wanted = {i["id"] for i in items if i["kind"] == kind}
    wanted |= {i["follows"] for i in items if i["id"] in wanted and i.get("follows")}
    return [i for i in items if i["id"] in wanted]


async def ensure_store(core: Core, papers: list[Paper]) -> None:
    """Ingest the shared days unless the store already holds them (a reused --home)."""
    if await core.repo.count_papers() >= len(papers):
        return
    started = time.perf_counter()
    await store_papers(core, papers)
    print(f"built the store in {time.perf_counter() - started:.0f} s")


async def run_questions(
    core: Core, items: list[dict], by_id: dict[str, Paper], verbose: bool, profile: Profile | None = None
) -> dict[str, Scored]:
    """Every question through `ask` (asked by a member holding `profile`, when given), follow-ups in their first
    question's conversation; figures by question id."""
    results: dict[str, Scored] = {}
    # conversations of their own: a reused store keeps the last run's turns for followup_minutes, and a first
    # question must not be read as a follow-up of its own previous run
    run = uuid.uuid4().hex[:8]
    for item in items:
        conversation = f"heldout:{run}:{item.get('follows') or item['id']}"
        as_of = dt.date.fromisoformat(item["as_of"])
        answer = await ask(core, item["question"], today=as_of, conversation_id=conversation, profile=profile)
        text = answer.text if answer.citations else f"{answer.text}\n{await stored_days_note(core)}"
        shown = [p.id for p in answer.citations]
        offered = [p.id for p in getattr(answer, "more", ())]
        listed = list(dict.fromkeys(shown + offered))
        results[item["id"]] = scored = score(item, shown, listed, text)
        if verbose:
            print(
                f"{item['id']} {item['kind']:<11} R {scored.recall:.2f} on {scored.on_topic:.2f} "
                f"shown {scored.shown:>2} listed {scored.listed:>3} | {item['question'][:70]}"
            )
            print(f"    topic={answer.filters.topic!r} window={answer.window} authors={answer.filters.authors}")
            for i in sorted(set(item["relevant"]) - set(listed)):
                print(f"    miss {i} {_title(by_id, i)}")
            good = set(item["relevant"]) | set(item["acceptable"])
            for i in shown:
                if i not in good:
                    print(f"    off  {i} {_title(by_id, i)}")
    return results


def _title(by_id: dict[str, Paper], paper_id: str) -> str:
    """A paper's title for a verbose line; '?' for a paper outside the labelled days (the store may hold others)."""
    paper = by_id.get(paper_id)
    return paper.title[:90] if paper else "?"


def search_window(item: dict, last_day: dt.date) -> tuple[dt.date | None, dt.date]:
    """The days a search is labelled over (`days`, first to last; a writer may scope a query to one day, its other
    days' papers unlabelled), or every stored day up to `last_day` when it names none."""
    days = sorted(dt.date.fromisoformat(d) for d in item.get("days", ()))
    return (days[0], days[-1]) if days else (None, last_day)


async def run_searches(
    core: Core, items: list[dict], by_id: dict[str, Paper], verbose: bool, wrap: str = "{}"
) -> list[tuple]:
    """Every query as the chat's /search runs it, put into `wrap` ("papers on {}"): (id, recall@10, on-topic@5,
    results)."""
    last_day = max(p.announced for p in by_id.values())
    rows = []
    for item in items:
        since, until = search_window(item, last_day)
        found = await search_papers(
            core, wrap.format(item["query"]), since=since, until=until, limit=MAX_LIST, cut=True
        )
        page = [h.paper.id for h in found.hits]
        ids = [*page, *(h.paper.id for h in found.more)]
        relevant, good = set(item["relevant"]), set(item["relevant"]) | set(item["acceptable"])
        recall = len(relevant & set(ids[:10])) / len(relevant) if relevant else float(not ids)
        # ten places hold at most ten of a query's relevant papers: the share of what they can hold
        capped = len(relevant & set(ids[:10])) / min(10, len(relevant)) if relevant else float(not ids)
        first = len(relevant & set(page)) / len(relevant) if relevant else float(not page)
        top = page[:5]
        on_topic = _share(top, good, 1.0 if not relevant else 0.0)
        rows.append((item["id"], recall, on_topic, len(page), first, len(ids), capped, len(relevant)))
        if verbose:
            print(
                f"{item['id']} R@10 {recall:.2f} on@5 {on_topic:.2f} page-1 R {first:.2f} hits {len(page):>2}"
                f"/{len(ids):>3} | {item['query']}"
            )
            for i in sorted(relevant - set(ids[:10])):
                print(f"    miss {i} {_title(by_id, i)}")
            for i in top:
                if i not in good:
                    print(f"    off  {i} {_title(by_id, i)}")
    return rows


def report_questions(items: list[dict], results: dict[str, Scored]) -> None:
    """The per-kind table."""
    by_kind: dict[str, list[Scored]] = defaultdict(list)
    for item in items:
        by_kind[item["kind"]].append(results[item["id"]])
    print(f"{'kind':<12} {'n':>3} {'recall':>7} {'on-topic':>8} {'on(all)':>8} {'shown':>6} {'listed':>7}")
    kinds = [k for k in KIND_ORDER if k in by_kind] + sorted(set(by_kind) - set(KIND_ORDER))
    every = [s for k in kinds for s in by_kind[k]]
    for label, rows in [*((k, by_kind[k]) for k in kinds), ("all", every)]:
        n = len(rows)
        print(
            f"{label:<12} {n:>3} {sum(r.recall for r in rows) / n:7.3f} {sum(r.on_topic for r in rows) / n:8.3f} "
            f"{sum(r.on_topic_all for r in rows) / n:8.3f} {sum(r.shown for r in rows) / n:6.1f} "
            f"{sum(r.listed for r in rows) / n:7.1f}"
        )
    days = [(i["id"], results[i["id"]].day_named) for i in items if i.get("expect_no_day")]
    for qid, named in days:
        print(f"no stored day named ({qid}): {'yes' if named else 'no'}")


def report_searches(rows: list[tuple]) -> None:
    """The search summary."""
    n = len(rows)
    recall, on_topic = sum(r[1] for r in rows) / n, sum(r[2] for r in rows) / n
    results, first, listed = sum(r[3] for r in rows) / n, sum(r[4] for r in rows) / n, sum(r[5] for r in rows) / n
    print(
        f"search: {n} queries, recall@10 {recall:.3f}, on-topic@5 {on_topic:.3f}, page-1 recall {first:.3f}, "
        f"mean first page {results:.1f}, mean listed {listed:.1f}"
    )
    over = sum(1 for r in rows if r[7] > 10)
    capped = sum(r[6] for r in rows) / n
    # beside the unchanged figure: a query with more than ten relevant papers cannot reach 1.0 in ten places
    print(f"search: capped recall@10 (hits / min(10, relevant)) {capped:.3f}; {over} queries over 10 relevant")


PARTS = {"questions": "questions.jsonl", "search": "search.jsonl"}


def parts(folder: Path, only: str | None) -> list[str]:
    """The parts of the set in `folder` to run: `only`, or every part whose file the folder holds (a set of searches
    alone, such as `bench/search11`, holds no questions.jsonl). FileNotFoundError when `only`'s file is missing or
    the folder holds none."""
    wanted = [only] if only else list(PARTS)
    held = [part for part in wanted if (folder / PARTS[part]).is_file()]
    if not held or (only and only not in held):
        names = " or ".join(PARTS[part] for part in wanted)
        raise FileNotFoundError(f"{folder} holds no {names}")
    return held


def asker_profile(interests: list[str], avoids: list[str]) -> Profile:
    """The profile onboarding saves for a member who answers with `interests` (one a line) and `avoids`."""
    from heldout_interests import HeldOutProfile, onboarding_profile  # beside this script

    return onboarding_profile(HeldOutProfile("asker", tuple(interests), tuple(avoids), {}, {}), "console:asker")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=DEFAULT_HOME, help=f"store built once, reused ({DEFAULT_HOME})")
    parser.add_argument("--data", type=Path, default=SHARED_DATA, help=f"folder with arxiv/*.jsonl ({SHARED_DATA})")
    parser.add_argument("--only", choices=["questions", "search"], help="run one part")
    parser.add_argument("--set", type=Path, default=HERE / "heldout", help="folder of questions.jsonl, search.jsonl")
    parser.add_argument("-v", "--verbose", action="store_true", help="each item, its misses and off-topic papers")
    parser.add_argument(
        "--wrap", default="{}", help='each search query put into this ("papers on {}"): the same labels must hold'
    )
    parser.add_argument("--kind", help="only the questions of this kind (follow-ups with the question they follow)")
    parser.add_argument(
        "--interest",
        action="append",
        default=[],
        help="every question asked by a member whose profile onboarding made from these interests (repeatable)",
    )
    parser.add_argument("--avoid", action="append", default=[], help="... and these avoids (repeatable)")
    parser.add_argument(
        "--embedder",
        choices=["torch", "command"],
        default="torch",
        help="the questions' and queries' vectors: torch, as the chat computes them (default), or as `paperscout "
        "ask` and `search` do (bot.core.command_embedder: NumPy for short texts); the store is built with torch",
    )
    args = parser.parse_args()
    try:
        parts(args.set, args.only)
    except FileNotFoundError as missing:
        parser.error(str(missing))
    profile = asker_profile(args.interest, args.avoid) if args.interest else None
    papers = read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl")))
    by_id = {p.id: p for p in papers}
    args.home.mkdir(parents=True, exist_ok=True)
    async with open_core(Settings(home=args.home, llm_base_url=None, llm_api_key=None)) as core:
        await ensure_store(core, papers)
        if args.embedder == "command":
            core.embedder = command_embedder(core.settings)
        stored, current = await core.sentences.coverage()  # without them no paper is offered for its best sentence
        print(f"sentence vectors: {current} of {stored} papers")
        run = parts(args.set, args.only)
        if "questions" in run:
            items = of_kind(_load(args.set / "questions.jsonl"), args.kind)
            report_questions(items, await run_questions(core, items, by_id, args.verbose, profile))
        if "search" in run:
            searches = _load(args.set / "search.jsonl")
            report_searches(await run_searches(core, searches, by_id, args.verbose, args.wrap))
        if isinstance(core.embedder, QueryEmbedder):
            core.embedder.close()


if __name__ == "__main__":
    asyncio.run(main())
