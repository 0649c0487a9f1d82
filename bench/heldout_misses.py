"""Where each missed relevant paper of the held-out questions and searches was lost (issue 22).

Runs a held-out set as `bench/heldout_questions.py` does (same store, same calls) and, for every relevant paper a
question's answer does not list (or a search does not put in its first 10), names the stage that lost it by
recording what each step of `bot.questions.retrieval` kept:

- `day window`: the paper's day is outside the window the question was read with;
- `first answer`: a follow-up picks among the previous answer's papers and that answer did not list it;
- `not a candidate`: neither among the dense nearest (POOL) nor among the papers holding the topic's words;
- `exclusion` / `contribution kind`: removed by the question's exclusion or by "introduces a benchmark or data set";
- `no vector`: a candidate without a stored vector;
- `below the cut`: ranked, but `select` neither shows nor offers it;
- `cut at MAX_MORE`: shown or offered by `select`, past the answer's longest offer;
- `narrowing`: kept by the request, dropped by a constraint or a follow-up's narrowing of it;
- `listed after 10` (searches): offered with /more, past the first 10 that recall@10 counts.

Also prints, per kind, the recall counted over the answer's first page plus its first /more page (the first
MAX_LIST offered), next to the bench's recall over everything listed.

    PYTHONPATH=$PWD .venv/bin/python bench/heldout_misses.py [--set bench/heldout] --home DIR [-v]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from heldout_questions import DEFAULT_HOME, HERE, KIND_ORDER, SHARED_DATA, _load, ensure_store, parts

import bot.questions.retrieval as retrieval
from bot.chat.questions import MAX_LIST
from bot.config import Settings
from bot.core import open_core
from bot.ingest.jsonl import read_jsonl
from bot.questions.rag import ask
from bot.questions.search import search_papers


@dataclass
class Call:
    """What one ranking of a question's papers kept at each step."""

    restricted: bool
    contribution: bool
    candidates: set[str] = field(default_factory=set)
    lexical: set[str] = field(default_factory=set)
    excluded: set[str] = field(default_factory=set)
    not_kind: set[str] = field(default_factory=set)
    no_vector: set[str] = field(default_factory=set)
    ranked: list[str] = field(default_factory=list)
    scores: dict[str, str] = field(default_factory=dict)  # each ranked paper's evidence, as printed
    rows: list[dict] = field(default_factory=list)  # each ranked paper's evidence, for --dump
    selected: list[str] = field(default_factory=list)


CALLS: list[Call] = []


def _instrument() -> None:
    """Wrap the retrieval steps so each records what it kept into the last `Call`."""
    candidates, without, admitted = retrieval._candidates, retrieval.without_excluded, retrieval._admitted
    vectors, select = retrieval._with_vectors, retrieval._selected

    async def _candidates(core, filters, query_vector, loose):
        papers, lexical = await candidates(core, filters, query_vector, loose)
        CALLS.append(
            Call(bool(filters.restrict_to), bool(filters.contribution), {p.id for p in papers}, set(lexical or ()))
        )
        return papers, lexical

    async def _without_excluded(core, filters, papers, readings=None):
        kept = await without(core, filters, papers, readings)
        if CALLS:
            CALLS[-1].excluded = {p.id for p in papers} - {p.id for p in kept}
        return kept

    async def _admitted(core, filters, papers, readings=None):
        kept = await admitted(core, filters, papers, readings)
        if CALLS:
            CALLS[-1].not_kind = {p.id for p in papers} - {p.id for p in kept} - CALLS[-1].excluded
        return kept

    async def _with_vectors(core, filters, papers):
        kept, found = await vectors(core, filters, papers)
        if CALLS:
            CALLS[-1].no_vector = {p.id for p in papers} - {p.id for p in kept}
        return kept, found

    def _select(results, filters, spread=0.0, **options):
        shown, carrying, moved = select(results, filters, spread, **options)
        if CALLS:
            CALLS[-1].ranked = [r.paper.id for r in results]
            CALLS[-1].scores = {
                r.paper.id: f"dense {r.dense:.2f} sent {r.sentence:.2f} rel {r.relevance:.2f} words "
                f"{'T' if r.in_title else '-'}{'A' if r.in_abstract else '-'}{'P' if r.every_part else '-'}"
                f"{'F' if r.firm else '-'}{'S' if r.shows else '-'}"
                for r in results
            }
            CALLS[-1].rows = [
                {
                    "id": r.paper.id,
                    "dense": r.dense,
                    "sentence": r.sentence,
                    "relevance": r.relevance,
                    "title": r.in_title,
                    "abstract": r.in_abstract,
                    "every_part": r.every_part,
                    "firm": r.firm,
                    "shows": r.shows,
                    "rarest": r.rarest,
                    "named": r.named,
                }
                for r in results
            ]
            CALLS[-1].selected = [r.paper.id for r in (*shown, *carrying)]
        return shown, carrying, moved

    retrieval._candidates, retrieval.without_excluded, retrieval._admitted = _candidates, _without_excluded, _admitted
    retrieval._with_vectors, retrieval._selected = _with_vectors, _select


def cause(paper_id: str, calls: list[Call], day: dt.date, window: tuple[dt.date, dt.date]) -> str:
    """The stage that lost `paper_id` (see the module docstring)."""
    if not window[0] <= day <= window[1]:
        return "day window"
    if not calls:
        return "not a candidate"
    first = calls[0]
    if paper_id not in first.candidates:
        if first.restricted:
            return "first answer"
        return "contribution kind" if first.contribution else "not a candidate"
    if paper_id in first.excluded:
        return "exclusion"
    if paper_id in first.not_kind:
        return "contribution kind"
    if paper_id in first.no_vector:
        return "no vector"
    if paper_id not in first.selected:
        return "below the cut"
    if len(calls) > 1 and any(paper_id not in c.selected for c in calls[1:]):
        return "narrowing"
    return "cut at MAX_MORE"


def _detail(paper_id: str, calls: list[Call]) -> str:
    if not calls or paper_id not in calls[0].ranked:
        lexical = bool(calls) and paper_id in calls[0].lexical
        return "lexical" if lexical else ""
    call = (
        calls[0]
        if paper_id in calls[0].selected or len(calls) == 1
        else next((c for c in calls[1:] if paper_id in c.ranked and paper_id not in c.selected), calls[0])
    )
    rank = f"rank {call.ranked.index(paper_id) + 1}/{len(call.ranked)}" if paper_id in call.ranked else ""
    return f"{rank} {call.scores.get(paper_id, '')}".strip()


DUMP: list[dict] = []


async def questions(core, items, by_id, verbose: bool) -> tuple[Counter, dict[str, list[tuple[float, float]]]]:
    """Every question through `ask` as the bench asks it; the causes of its misses, and per kind the recall over
    everything listed and over the first page plus one /more page."""
    causes: Counter = Counter()
    recalls: dict[str, list[tuple[float, float]]] = defaultdict(list)
    run = uuid.uuid4().hex[:8]
    for item in items:
        CALLS.clear()
        conversation = f"misses:{run}:{item.get('follows') or item['id']}"
        answer = await ask(
            core, item["question"], today=dt.date.fromisoformat(item["as_of"]), conversation_id=conversation
        )
        shown = [p.id for p in answer.citations]
        offered = [p.id for p in answer.more]
        listed = set(shown + offered)
        seen = set(shown + offered[:MAX_LIST])
        relevant = set(item["relevant"])
        if relevant:
            recalls[item["kind"]].append((len(relevant & listed) / len(relevant), len(relevant & seen) / len(relevant)))
        else:  # as the bench counts it: nothing wanted, nothing to list
            recalls[item["kind"]].append((float(not listed), float(not seen)))
        if CALLS:
            DUMP.append(
                {
                    "id": item["id"],
                    "kind": item["kind"],
                    "relevant": item["relevant"],
                    "acceptable": item["acceptable"],
                    "shown": shown,
                    "offered": offered,
                    "ranked": CALLS[0].rows,
                    "selected": CALLS[0].selected,
                    "calls": len(CALLS),
                    "restricted": CALLS[0].restricted,
                    "contribution": CALLS[0].contribution,
                }
            )
        for paper_id in sorted(relevant - listed):
            why = cause(paper_id, list(CALLS), by_id[paper_id].announced, answer.window)
            causes[(item["kind"], why)] += 1
            if verbose:
                print(
                    f"{item['id']} {item['kind']:<11} {why:<17} {_detail(paper_id, CALLS):<40} "
                    f"{paper_id} {by_id[paper_id].title[:70]}"
                )
    return causes, recalls


async def searches(core, items, by_id, verbose: bool) -> Counter:
    """Every search as the chat's /search runs it; the causes of the relevant papers missing from its first 10."""
    causes: Counter = Counter()
    last_day = max(p.announced for p in by_id.values())
    for item in items:
        CALLS.clear()
        found = await search_papers(core, item["query"], until=last_day, limit=MAX_LIST, cut=True)
        ids = [h.paper.id for h in (*found.hits, *found.more)]
        for paper_id in sorted(set(item["relevant"]) - set(ids[:10])):
            if paper_id in ids:
                why = "listed after 10"
            else:
                why = cause(paper_id, list(CALLS), by_id[paper_id].announced, (dt.date.min, dt.date.max))
            causes[("search", why)] += 1
            if verbose:
                at = f"at {ids.index(paper_id) + 1}" if paper_id in ids else _detail(paper_id, CALLS)
                print(f"{item['id']} search      {why:<17} {at:<40} {paper_id} {by_id[paper_id].title[:70]}")
    return causes


def report(causes: Counter, recalls: dict[str, list[tuple[float, float]]]) -> None:
    """The table of causes per kind, and the two recalls."""
    names = sorted({c for _, c in causes}, key=lambda c: -sum(n for (_, k), n in causes.items() if k == c))
    kinds = [k for k in [*KIND_ORDER, "search"] if any(kind == k for kind, _ in causes)]
    print("| kind | " + " | ".join(names) + " | recall (listed) | recall (page 1 + one /more page) |")
    print("|---|" + "--:|" * (len(names) + 2))
    for kind in kinds:
        pairs = recalls.get(kind, [])
        listed = f"{sum(a for a, _ in pairs) / len(pairs):.3f}" if pairs else ""
        seen = f"{sum(b for _, b in pairs) / len(pairs):.3f}" if pairs else ""
        print(f"| {kind} | " + " | ".join(str(causes[(kind, c)]) for c in names) + f" | {listed} | {seen} |")
    print("| all | " + " | ".join(str(sum(n for (_, k), n in causes.items() if k == c)) for c in names) + " | | |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=DEFAULT_HOME)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--set", type=Path, default=HERE / "heldout")
    parser.add_argument("--only", choices=["questions", "search"])
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per missed paper")
    parser.add_argument("--dump", type=Path, help="write each question's ranked candidates and labels here (JSONL)")
    parser.add_argument("--ids", nargs="*", help="only these question and search ids (and what they follow)")
    args = parser.parse_args()
    _instrument()
    run = parts(args.set, args.only)  # before the store opens: a set of questions alone holds no search.jsonl
    papers = read_jsonl(sorted((args.data / "arxiv").glob("*.jsonl")))
    by_id = {p.id: p for p in papers}
    async with open_core(Settings(home=args.home, llm_base_url=None, llm_api_key=None)) as core:
        await ensure_store(core, papers)
        causes: Counter = Counter()
        recalls: dict[str, list[tuple[float, float]]] = {}
        if "questions" in run:
            items = _load(args.set / "questions.jsonl")
            if args.ids:
                wanted = set(args.ids) | {i["follows"] for i in items if i["id"] in args.ids and i.get("follows")}
                items = [i for i in items if i["id"] in wanted]
            found, recalls = await questions(core, items, by_id, args.verbose)
            causes.update(found)
        if "search" in run:
            items = [i for i in _load(args.set / "search.jsonl") if not args.ids or i["id"] in args.ids]
            causes.update(await searches(core, items, by_id, args.verbose))
        report(causes, recalls)
    if args.dump:
        args.dump.write_text("".join(json.dumps(d) + "\n" for d in DUMP), encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
