"""The `paperscout` command. Each subcommand parses its arguments, calls the core and prints the result."""

from __future__ import annotations

import argparse
import asyncio
import atexit
import datetime as dt
import gc
import json
import logging
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.days import stored_days_note, stored_today
from bot.errors import InputError, PaperscoutError, explained, thread_refused
from bot.ingest.bundled import DEMO_DAY, DEMO_DAY_FILE, EXAMPLE_PROFILE_FILE, bundled_file
from bot.models import Profile
from bot.ops.logs import configure_logging, elapsed_ms, json_logging, log_event, redact
from bot.ops.progress import Progress
from bot.store.archive_lock import hold_archive

if TYPE_CHECKING:  # the core (pydantic, numpy, SQLite, Chroma) loads only once a command runs, not for --help
    from bot.config import Settings
    from bot.core import Core

log = logging.getLogger("paperscout")

DEMO_QUERY = "sparse mixture-of-experts routing"


def parse_day(text: str) -> dt.date:
    """Parse YYYY-MM-DD for argparse, with a readable error."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argparse type for a whole number between `low` and `high`, with a readable error."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range; use {low} to {high}")
        return value

    return parse


def _load_profile_arg(path: str | None) -> Profile:
    from bot.ranking.profiles import load_profile

    return load_profile(path or bundled_file(EXAMPLE_PROFILE_FILE))


# --- subcommands ---


async def cmd_ingest(core: Core, args: argparse.Namespace) -> int:
    """Store papers from JSONL files, today's RSS, arXiv ids, or an API backfill range."""
    from bot.ingest.save import store_papers

    if args.jsonl:
        from bot.ingest.jsonl import read_jsonl

        papers = read_jsonl(args.jsonl)
    elif args.ids:
        from bot.ingest.arxiv_api import fetch_by_ids

        papers = await fetch_by_ids(core.settings, args.ids)
    elif args.since:
        from bot.ingest.announce import latest_announcement_day
        from bot.ingest.arxiv_api import fetch_range

        backfill = await fetch_range(
            core.settings,
            args.categories or core.settings.categories,
            args.since,
            args.until or latest_announcement_day(dt.datetime.now(dt.UTC)),
            args.max_results,
        )
        papers = backfill.papers
        print(backfill.line())
    else:
        from bot.ingest.rss import fetch_rss

        rss_day = await fetch_rss(core.settings, args.categories or core.settings.categories)
        papers = rss_day.papers
        print(f"arXiv RSS: {len(papers)} new and cross-listed papers announced {rss_day.announced}")
    report = await store_papers(core, papers, Progress("embedding"))
    print(report.line())
    return 0


async def cmd_digest(core: Core, args: argparse.Namespace) -> int:
    """Build and print the digest of one day for a profile file."""
    from bot.digests.build import build_digest
    from bot.views.render import digest_json, digest_markdown, digest_text

    profile = _load_profile_arg(args.profile)
    day = args.date or await stored_today(core)
    if day is None:
        raise InputError("no papers stored yet; run `paperscout ingest` first")
    digest = await build_digest(core, profile, day, size=args.size, target=f"cli:{profile.name}")
    render = {"json": digest_json, "md": digest_markdown, "text": digest_text}[args.format]
    print(render(digest), end="")
    return 0


async def cmd_usage(core: Core, args: argparse.Namespace) -> int:
    """LLM tokens and dollars recorded in the state directory, grouped as asked."""
    from dataclasses import asdict

    from bot.llm.usage import utc_today

    since = utc_today() - dt.timedelta(days=args.days - 1)
    totals = await core.repo.llm_usage_totals(by=args.by, since=since)
    if args.json:
        print(json.dumps({k: {**asdict(t), "total_tokens": t.total_tokens} for k, t in totals.items()}))
        return 0
    if not totals:
        print(f"No LLM calls recorded since {since}.")
        return 0
    print(f"LLM usage since {since} (UTC) by {args.by}")
    print(f"{args.by:<24} {'calls':>6} {'prompt':>10} {'completion':>11} {'cost USD':>10}")
    for key, t in totals.items():
        print(f"{key[:24]:<24} {t.calls:6d} {t.prompt_tokens:10,d} {t.completion_tokens:11,d} {t.cost_usd:10.4f}")
    print(f"spent today: ${await core.repo.llm_spent_on(utc_today()):.4f} of ${core.settings.llm_daily_budget_usd:.2f}")
    return 0


def _print_hits(hits: Sequence[Any], first: int = 1) -> None:
    from bot.views.render import authors_line

    for i, hit in enumerate(hits, first):
        paper = hit.paper
        print(f"{i:2}. [{paper.id}] {paper.title}")
        print(f"    {authors_line(paper.authors, 3)} · {paper.announced} · {paper.url}")


def _print_search(found: Any, page: int, size: int, next_page: str) -> None:
    """A search's page: how many matched, the page's papers numbered in the whole list, and how to see the next."""
    hits = found.page(page, size)
    if not hits and page <= 1 and found.more:
        # none made the first page (an author's papers on none of the words asked for): the rest is still listed
        print(f"{found.counted()}, none closely enough to list first: {next_page}")
        return
    if not hits:
        print(f"{found.matched} stored papers match; page {page} is past the last one.")
        return
    from bot.questions.rag import more_offer

    before = 0 if page <= 1 else len(found.hits) + (page - 2) * size
    listed = [*found.hits, *found.more]
    later = listed[before + len(hits) :]
    print(found.counted() + (f", {before + 1}-{before + len(hits)} here" if found.more else "") + ":")
    _print_hits(hits, before + 1)
    if later:
        later_meaning = sum(1 for h in later if not h.by_words)
        print(more_offer(len(later) - later_meaning, later_meaning, next_page, cut=found.cut))


async def cmd_search(core: Core, args: argparse.Namespace) -> int:
    """Hybrid search over stored papers: one page of the matches (--page for the next), with the total."""
    from bot.questions.search import search_note, search_papers

    query = " ".join(args.query)
    found = await search_papers(core, query, since=args.since, until=args.until, limit=args.limit)
    note = await search_note(core, found)
    if note:
        print(f"paperscout: {note}", file=sys.stderr)
    hits = found.page(args.page, args.limit)
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "id": h.paper.id,
                        "title": h.paper.title,
                        "url": h.paper.url,
                        "announced": h.paper.announced.isoformat(),
                        "score": round(h.score, 5),
                    }
                    for h in hits
                ],
                ensure_ascii=False,
                indent=2,
            )
        )
    elif not found.total:
        print("No stored paper matches; try other words or a wider --since.")
    else:
        _print_search(found, args.page, args.limit, f"add --page {max(args.page, 1) + 1}")
    return 0


async def cmd_eval(core: Core, args: argparse.Namespace) -> int:
    """Evaluate the ranker on labelled days."""
    from bot.ranking.evaluate import evaluate_cold_start, evaluate_personalised, load_labelled_days

    profile = _load_profile_arg(args.profile)
    days = load_labelled_days(Path(args.data))
    if args.train:
        # never trains on an evaluated day: leave-one-day-out when --train and --data hold the same days
        train_days = load_labelled_days(Path(args.train))
        report = await evaluate_personalised(core, days, train_days, profile, Progress("embedding"))
    else:
        report = await evaluate_cold_start(core, days, profile, Progress("embedding"))
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{'day':<12} {'AUC':>6} " + " ".join(f"{k:>10}" for k in ("recall@50", "recall@100", "recall@150")))
    rows = {**report["days"], "mean": report["mean"]}
    for name, m in rows.items():
        print(
            f"{name:<12} {m['auc']:6.3f} "
            + " ".join(f"{m[k]:10.3f}" for k in ("recall@50", "recall@100", "recall@150"))
        )
    for name, t in report.get("train", {}).items():
        learned = ", ".join(t["days"]) or "nothing (cold start)"
        print(f"{name} learned from {learned}: {t['up']} thumbs up, {t['down']} thumbs down")
    return 0


async def cmd_console(core: Core, args: argparse.Namespace) -> int:
    """Chat on the terminal: onboarding, personal digest, thumbs up/down, export and forget."""
    from bot.frontends.console import run_console

    return await run_console(core, user=args.user)


async def cmd_ask(core: Core, args: argparse.Namespace) -> int:
    """Answer a question from stored papers, citing them."""
    from bot.questions.rag import ask

    profile = _load_profile_arg(args.profile) if args.profile else None
    today = args.as_of or await stored_today(core)
    answer = await ask(core, " ".join(args.question), today=today, conversation_id=args.conversation, profile=profile)
    if args.json:
        print(json.dumps(answer.to_dict(), ensure_ascii=False))
        return 0
    from bot.views.model import paper_view, usage_line
    from bot.views.render import answer_text

    text = answer.text if answer.citations else f"{answer.text}\n{await stored_days_note(core)}"
    citations = [paper_view(p, number=n) for n, p in enumerate(answer.citations, 1)]
    cost = usage_line(answer.usage)
    print(answer_text(text, citations) + (f"\n\n{cost}" if cost else ""))
    return 0


async def cmd_paper(core: Core, args: argparse.Namespace) -> int:
    """Show a stored paper's card."""
    from bot.views.cards import paper_card
    from bot.views.render import item_to_dict, paper_text

    card = await paper_card(core, args.id)
    print(json.dumps(item_to_dict(card), ensure_ascii=False, indent=2) if args.json else paper_text(card, indent=""))
    return 0


async def cmd_why(core: Core, args: argparse.Namespace) -> int:
    """Explain a paper's score for a profile."""
    from bot.views.cards import explain_paper

    explanation = await explain_paper(core, args.id, _load_profile_arg(args.profile))
    print(explanation)
    return 0


async def cmd_run(core: Core, args: argparse.Namespace) -> int:
    """Run the bot: the configured front ends and the schedule, until SIGTERM or Ctrl-C."""
    from bot.ops.runner import run_until_stopped

    return await run_until_stopped(core, core.settings)


async def cmd_status(core: Core, args: argparse.Namespace) -> int:
    """Next runs, the last run of each job, and the ledger of the latest stored day."""
    from bot.ops.scheduler import utc_now
    from bot.ops.status import status_report, status_text

    report = await status_report(core, utc_now())
    print(json.dumps(report, ensure_ascii=False, indent=2) if args.json else status_text(report))
    return 0


async def print_sentence_coverage(core: Core, hint: bool) -> None:
    """The `sentences:` line of `paperscout db`: how many papers have current sentence vectors, and how to fill in
    the rest (they are informative: a paper without them is ranked by its whole-paper vector)."""
    if not core.settings.sentence_vectors:
        print("sentences:       not kept (PAPERSCOUT_SENTENCE_VECTORS is off)")
        return
    papers, current = await core.sentences.coverage()
    print(f"sentences:       {current} of {papers} papers have sentence vectors")
    if hint and current < papers:
        print("                 run paperscout db --refresh-vectors to embed the rest (newest days first)")


async def print_copy_coverage(core: Core, hint: bool) -> None:
    """The `copies:` line of `paperscout db`: how many papers have a current copy of their vector in SQLite (a
    question about a window whose papers all have one does not open the vector store)."""
    from bot.store.vector_copies import VectorCopies

    papers, current = await VectorCopies(core.repo, core.embedder).coverage()
    print(f"copies:          {current} of {papers} papers have their vector copied in SQLite")
    if hint and current < papers:
        print("                 run paperscout db --refresh-vectors to copy the rest (nothing is embedded for that)")


async def cmd_db(core: Core, args: argparse.Namespace) -> int:
    """Show what the state directory holds, check the vector store against SQLite, and repair it on request."""
    from bot.store.migrations import LATEST_VERSION
    from bot.store.repair import check_store, repair_store

    days = await core.repo.announcement_days()
    print(f"state directory: {core.settings.home}")
    print(f"schema version:  {LATEST_VERSION}")
    print(
        f"papers:          {await core.repo.count_papers()} ({len(days)} announcement days"
        + (f", {days[0]} .. {days[-1]})" if days else ")")
    )
    if args.repair:
        report = await repair_store(core, Progress("embedding"))
        print(f"vectors:         {report.after.vectors}")
        print(f"targets:         {len(await core.repo.targets(enabled_only=False))}")
        for line in report.lines():
            print(f"repair:          {line}")
        return 0 if report.after.consistent else 1
    check = await check_store(core)
    print(f"vectors:         {check.vectors}")
    await print_sentence_coverage(core, not args.refresh_vectors)
    await print_copy_coverage(core, not args.refresh_vectors)
    print(f"targets:         {len(await core.repo.targets(enabled_only=False))}")
    if not check.consistent and not args.refresh_vectors:
        # Said, not hidden: a store written by two processes at once loses vectors (issue 17).
        print(f"mismatch:        {check.papers} papers but {check.vectors} vectors: {'; '.join(check.problems())}")
        print("                 run paperscout db --repair to rebuild what disagrees from the stored papers")
    if args.refresh_vectors:
        from bot.ingest.vectors import refresh_vectors

        seen, embedded = await refresh_vectors(core, Progress("embedding"))
        print(f"vectors refreshed: {embedded.phrase(f'of {seen} papers embedded again')}, the rest were current")
        await print_copy_coverage(core, True)  # what it copied without embedding, which the line above does not count
        return 0
    return 0 if check.consistent else 1  # a script or healthcheck running `paperscout db` learns of it too


async def cmd_users(core: Core, args: argparse.Namespace) -> int:
    """List members, or export or forget one (for privacy requests that reach the admin, not the bot)."""
    from bot.members.privacy import export_user, forget_user
    from bot.members.settings import check_user_key, describe_settings, profile_owner

    if args.action == "list":
        members = await core.repo.all_users()
        if not members:
            print("No members yet: they appear after onboarding, a reaction or a question in chat.")
            return 0
        print(f"{'user':<32} {'name':<20} {'profile':<8} {'reactions':>9}  personal digest")
        for user, reactions in members:
            has_profile = await core.repo.get_profile(profile_owner(user.key)) is not None
            print(
                f"{user.key[:32]:<32} {user.display_name[:20]:<20} {'yes' if has_profile else 'no':<8} "
                f"{reactions:>9}  {describe_settings(user)}"
            )
        return 0
    if not args.key:
        raise InputError(f"users {args.action} needs a user key, e.g. paperscout users {args.action} telegram:123")
    key = check_user_key(args.key)
    exported = await export_user(core, key)
    if not exported["stored"]:
        raise InputError(f"nothing is stored about {key} (see paperscout users)")
    if args.action == "export":
        print(json.dumps(exported, ensure_ascii=False, indent=2))
        return 0
    if not args.yes:
        raise InputError(
            f"this deletes {key}'s profile, {len(exported['feedback'])} reactions, settings and questions;"
            " add --yes to confirm"
        )
    counts = await forget_user(core, key)
    print(f"Deleted everything stored about {key}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if v))
    return 0


async def cmd_reactions(core: Core, args: argparse.Namespace) -> int:
    """A member's reactions, the latest first and numbered; undo one or reset them all (the admin's side of
    /reactions in chat)."""
    from bot.members import reactions
    from bot.members.privacy import export_user
    from bot.members.settings import check_user_key

    key = check_user_key(args.user)
    if not (await export_user(core, key))["stored"]:  # a mistyped key is no member, not one without thumbs
        raise InputError(f"there is no member {key}: nothing is stored about them (paperscout users lists members)")
    if args.undo:
        if not await reactions.reactions_of(core, key):
            raise InputError(f"{key} has no reactions to undo")
        try:
            effect = await reactions.undo(core, key, args.undo)
        except reactions.NoSuchReaction as missing:
            listing = f"paperscout reactions --user {key} lists them"
            if missing.number is None:
                raise InputError(f"{key} has no reaction to {missing.which!r}; {listing}, numbered") from None
            plural = "" if missing.count == 1 else "s"
            raise InputError(
                f"{key} has {missing.count} reaction{plural}: --undo 1 to {missing.count} (1 is the latest); {listing}"
            ) from None
        print(reactions.describe_undo_to_operator(effect, key))
        return 0
    if args.reset:
        rows = await reactions.reactions_of(core, key)
        if not rows:
            raise InputError(f"{key} has no reactions to reset")
        if not args.yes:
            raise InputError(f"this deletes {key}'s {len(rows)} reactions and what was learned from them; add --yes")
        count = await reactions.reset(core, key)
        print(
            f"Deleted {count} reaction{'' if count == 1 else 's'} of {key} and what was learned from them;"
            f" {key}'s next digest is ranked by their profile alone."
        )
        return 0
    rows = await reactions.reactions_of(core, key)
    flags = f"paperscout reactions --user {key} --undo N takes one back; --reset --yes deletes them all."
    print(
        reactions.describe_reactions(
            rows, limit=10_000, how_to_undo=flags, none=f"{key} has no reactions.", whose=f"{key}'s"
        )
    )
    return 0


async def cmd_site(core: Core, args: argparse.Namespace) -> int:
    """Build the static web archive: a page per channel per day, monthly overviews, an index and search."""
    from bot.site.build import build_site

    extra = _load_profile_arg(args.profile) if args.profile else None
    report = await build_site(core, Path(args.out), _load_profile_arg(None), extra)
    print(report.line())
    if not report.day_pages and args.demo:
        print("the demo has stored no papers yet: run `paperscout demo` first, then build again")
    elif not report.day_pages:
        print("no papers are stored yet: `paperscout ingest` first, or `paperscout site build OUT --demo` after a demo")
    print(f"open {Path(args.out) / 'index.html'} in a browser, or serve the folder with any static web server")
    return 0


async def cmd_demo(core: Core, args: argparse.Namespace) -> int:
    """Offline demo: ingest the bundled real day, print its digest and one search."""
    from bot.digests.build import build_digest
    from bot.ingest.jsonl import read_jsonl
    from bot.ingest.save import store_papers
    from bot.questions.search import search_papers
    from bot.views.render import digest_text

    papers = read_jsonl([bundled_file(DEMO_DAY_FILE)])
    print(f"paperscout demo: {len(papers)} real cs.LG/cs.AI papers announced {DEMO_DAY}, state in {core.settings.home}")
    report = await store_papers(core, papers, Progress("embedding"))
    print(report.line(), end="\n\n")
    profile = _load_profile_arg(None)
    digest = await build_digest(core, profile, DEMO_DAY, size=args.size, use_llm=False)  # offline, as promised
    print(digest_text(digest))
    print(f'Search: "{DEMO_QUERY}"')
    later = f'PAPERSCOUT_HOME={core.settings.home} paperscout search "{DEMO_QUERY}" --limit 5 --page 2'
    _print_search(await search_papers(core, DEMO_QUERY, since=DEMO_DAY, limit=5), 1, 5, later)
    print(
        "\nNext: `paperscout console` to set up your own profile and ask questions (it starts from this bundled day),"
        " `paperscout ingest` to fetch today's papers into your archive, `paperscout --help` for everything else."
        f"\nThe demo keeps its state apart in {core.settings.home}, so your archive starts empty."
    )
    return 0


# --- wiring ---


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(
        prog="paperscout",
        description="Find, rank and discuss the day's arXiv papers. State lives in PAPERSCOUT_HOME.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="offline demo on a bundled real arXiv day (no keys, no network)")
    demo.add_argument("--size", type=bounded_int(1, 100), default=15, help="papers in the digest (default 15)")
    demo.set_defaults(handler=cmd_demo, demo=True, writes=True)  # it ingests the bundled day

    ingest = sub.add_parser("ingest", help="fetch and store papers (default: today's arXiv RSS)")
    source = ingest.add_mutually_exclusive_group()
    source.add_argument(
        "--jsonl",
        nargs="+",
        metavar="FILE",
        help="JSON lines files, one paper a line: id, title, authors, abstract, categories, comment, announced",
    )
    source.add_argument("--ids", nargs="+", metavar="ID", help="arXiv ids to look up through the API")
    source.add_argument("--since", type=parse_day, metavar="D", help="API backfill from this announcement day")
    ingest.add_argument(
        "--until", type=parse_day, metavar="D", help="last announcement day of a backfill (default: latest)"
    )
    ingest.add_argument("--categories", nargs="+", metavar="CAT", help="arXiv categories (default from settings)")
    ingest.add_argument(
        "--max-results", type=bounded_int(1, 30000), default=2000, help="cap for a backfill (default 2000)"
    )
    ingest.add_argument("--wait", action="store_true", help="wait for another writer of the archive to finish")
    ingest.set_defaults(handler=cmd_ingest, writes=True)

    digest = sub.add_parser("digest", help="print a day's ranked digest for a profile")
    digest.add_argument("--date", type=parse_day, metavar="D", help="announcement day (default: latest stored)")
    digest.add_argument("--profile", metavar="FILE", help="TOML profile (default: the bundled example)")
    digest.add_argument(
        "--format",
        choices=("text", "md", "json"),
        default="text",
        help="text for a terminal (default), md for Markdown (a file, a wiki), json for scripts",
    )
    digest.add_argument("--size", type=bounded_int(1, 100), help="papers in the digest (default from settings)")
    digest.set_defaults(handler=cmd_digest)

    search = sub.add_parser("search", help="search stored papers (dense + full-text)")
    search.add_argument("query", nargs="+", help="words to search for")
    search.add_argument("--since", type=parse_day, metavar="D", help="only papers announced on or after D")
    search.add_argument("--until", type=parse_day, metavar="D", help="only papers announced on or before D")
    search.add_argument("--limit", type=bounded_int(1, 200), default=10, help="papers per page")
    search.add_argument(
        "--page", type=bounded_int(1, 1000), default=1, help="page N of the matches (1: the best; the total is shown)"
    )
    search.add_argument("--json", action="store_true", help="print JSON")
    search.set_defaults(handler=cmd_search, embeds_once=True)

    evaluate = sub.add_parser("eval", help="measure ranking quality on labelled days (AUC, recall@K)")
    evaluate.add_argument("--data", required=True, metavar="DIR", help="folder with arxiv/*.jsonl and labels/*.json")
    evaluate.add_argument("--profile", metavar="FILE", help="TOML profile (default: the bundled example)")
    evaluate.add_argument("--train", metavar="DIR", help="learn from DIR's picks as thumbs up (personalisation)")
    evaluate.add_argument("--json", action="store_true", help="print exactly one JSON object")
    evaluate.set_defaults(handler=cmd_eval, eval=True)

    usage = sub.add_parser("usage", help="LLM tokens and cost recorded per day, target, purpose or run")
    usage.add_argument(
        "--by", choices=("day", "target", "purpose", "run", "model"), default="day", help="group by (default: day)"
    )
    usage.add_argument(
        "--days", type=bounded_int(1, 36500), default=7, help="how many days back, today included (default 7)"
    )
    usage.add_argument("--json", action="store_true", help="print JSON")
    usage.set_defaults(handler=cmd_usage)

    console = sub.add_parser("console", help="chat on the terminal: your profile, personal digest and feedback")
    console.add_argument("--user", metavar="NAME", help="who you are (default: your login name)")
    console.set_defaults(handler=cmd_console)

    ask = sub.add_parser("ask", help="ask a question answered from stored papers, with citations")
    ask.add_argument("question", nargs="+", help='e.g. "what MoE papers this week?"')
    ask.add_argument("--as-of", type=parse_day, metavar="D", help="treat D as today for time words (default: today)")
    ask.add_argument("--conversation", metavar="ID", help="keep context across questions under this id")
    ask.add_argument("--profile", metavar="FILE", help="re-rank answers by this TOML profile")
    ask.add_argument("--json", action="store_true", help="print exactly one JSON object")
    ask.set_defaults(handler=cmd_ask, embeds_once=True)

    paper = sub.add_parser(
        "paper", help="show a stored paper: title, authors, TL;DR, abstract, day, categories, arXiv comment, link"
    )
    paper.add_argument("id", help="arXiv id, e.g. 2505.17639")
    paper.add_argument("--json", action="store_true", help="print JSON")
    paper.set_defaults(handler=cmd_paper)

    why = sub.add_parser("why", help="why a paper got its score for a profile")
    why.add_argument("id", help="arXiv id, e.g. 2505.17639")
    why.add_argument("--profile", metavar="FILE", help="TOML profile (default: the bundled example)")
    why.set_defaults(handler=cmd_why)

    users = sub.add_parser("users", help="members: list them, export or forget one (privacy requests)")
    users.add_argument(
        "action", nargs="?", choices=("list", "export", "forget"), default="list", help="what to do (default: list)"
    )
    users.add_argument("key", nargs="?", metavar="USER", help="user key for export/forget, e.g. telegram:123")
    users.add_argument("--yes", action="store_true", help="confirm forget")
    users.set_defaults(handler=cmd_users)

    reacted = sub.add_parser("reactions", help="a member's 👍/👎, the latest first: list them, undo one or reset all")
    reacted.add_argument("--user", required=True, metavar="USER", help="whose, e.g. telegram:123 or console:ada")
    undo_or_reset = reacted.add_mutually_exclusive_group()
    undo_or_reset.add_argument("--undo", metavar="N", help="take back reaction N of the list (or an arXiv id's)")
    undo_or_reset.add_argument("--reset", action="store_true", help="delete all of them (with --yes)")
    reacted.add_argument("--yes", action="store_true", help="confirm --reset")
    reacted.set_defaults(handler=cmd_reactions)

    run_cmd = sub.add_parser(
        "run", help="run the bot: front ends for the configured tokens, ingest and digests on schedule"
    )
    run_cmd.add_argument("--wait", action="store_true", help="wait for another writer of the archive to finish")
    run_cmd.set_defaults(handler=cmd_run, writes=True)

    status = sub.add_parser("status", help="next runs, last job runs and today's digests (sent, pending, paused)")
    status.add_argument("--json", action="store_true", help="print JSON")
    status.set_defaults(handler=cmd_status)

    site = sub.add_parser("site", help="build the static web archive of posted digests (HTML, no server needed)")
    site.add_argument("action", choices=("build",), help="build: write the site into OUT")
    site.add_argument("out", metavar="OUT", help="folder for the site (created; a previous build there is replaced)")
    site.add_argument(
        "--profile", metavar="FILE", help="also add a preview archive of every stored day for this TOML profile"
    )
    site.add_argument("--demo", action="store_true", help="build from the state `paperscout demo` keeps apart")
    site.set_defaults(handler=cmd_site)

    doctor = sub.add_parser(
        "doctor", help="check the configuration and every configured connection; exit 0 when nothing failed"
    )
    doctor.add_argument(
        "--offline",
        action="store_true",
        help="skip the checks that reach the internet (arXiv, LLM, Discord, Telegram, Slack)",
    )
    doctor.add_argument(
        "--running",
        action="store_true",
        help="only check that a paperscout run is alive in this state directory (for container healthchecks)",
    )

    topics = sub.add_parser(
        "topics", help="group any papers (JSON lines) into a two-level tree of named topics; nothing is stored"
    )
    topics.add_argument(
        "--jsonl", required=True, metavar="FILE", help="one JSON object a line: 'id' and 'title'+'abstract' or 'text'"
    )
    topics.add_argument("--json", action="store_true", help="print the tree as JSON")
    topics.add_argument(
        "--llm",
        action="store_true",
        help="headings and a one-line note per topic from the configured LLM (its usage is recorded and budgeted)",
    )

    db = sub.add_parser("db", help="what the state directory holds; check, refresh or repair its vectors")
    db.add_argument(
        "--refresh-vectors",
        action="store_true",
        help="embed again every paper whose vector or sentence vectors are missing or were made another way (after an"
        " upgrade), newest days first",
    )
    db.add_argument(
        "--repair",
        action="store_true",
        help="check the vector store against the stored papers and rebuild what disagrees (takes the writer lock)",
    )
    db.add_argument("--wait", action="store_true", help="wait for another writer of the archive to finish")
    db.set_defaults(handler=cmd_db)
    return parser


def topics_main(args: argparse.Namespace, settings: Settings) -> int:
    """`paperscout topics`: read the papers, embed them, group them and print the tree."""
    from bot.core import make_embedder
    from bot.topictree.build import build_topic_tree, paper_text_vectors
    from bot.topictree.papers_file import read_papers
    from bot.views.topic_tree import tree_text

    papers = read_papers(args.jsonl)
    embedder = make_embedder(settings)
    vectors = paper_text_vectors(embedder.embed, papers)
    tree = build_topic_tree(papers, vectors, model=embedder.name)
    if args.llm:
        tree = asyncio.run(_llm_named(settings, tree))
    print(json.dumps(tree.as_json(), ensure_ascii=False, indent=2) if args.json else tree_text(tree))
    return 0


async def _llm_named(settings: Settings, tree: Any) -> Any:
    """The tree named by the configured LLM (the state directory keeps its usage and daily budget)."""
    from bot.core import open_core
    from bot.llm.usage import budget_today
    from bot.topictree.llm_names import llm_named_tree

    async with open_core(settings) as core:
        if core.llm is None:
            raise InputError("--llm needs an LLM: set PAPERSCOUT_LLM_BASE_URL (and a key if it needs one)")
        named, note = await llm_named_tree(
            core.llm.client, core.llm.prompts.topics, tree, lambda: budget_today(core.repo, core.settings)
        )
    if note:
        print(f"paperscout: {note}", file=sys.stderr)
    return named


def settings_for(args: argparse.Namespace, settings: Settings) -> Settings:
    """Demo and eval keep their own state below the home directory so they never mix with real data."""
    if getattr(args, "demo", False):
        return settings.model_copy(update={"home": settings.home / "demo", "chroma_url": None})
    if getattr(args, "eval", False):
        return settings.model_copy(update={"home": settings.home / "eval", "chroma_url": None})
    return settings


async def run(args: argparse.Namespace, settings: Settings) -> int:
    """Open the core and run the chosen subcommand."""
    from bot.core import command_embedder, open_core

    handler: Callable[[Core, argparse.Namespace], Awaitable[int]] = args.handler
    settings = settings_for(args, settings)
    writes = any(getattr(args, flag, False) for flag in ("writes", "refresh_vectors", "repair"))
    # a question embeds one short text, if any: in NumPy, without importing torch (bot.embeddings.query); whatever
    # the stores embed is torch's (its `bulk`), so every stored vector comes from one computation
    query = command_embedder(settings) if getattr(args, "embeds_once", False) else None
    with hold_archive(settings, args.command, wait=getattr(args, "wait", False)) if writes else nullcontext():
        try:
            async with open_core(settings, query.bulk if query else None, query) as core:
                return await handler(core, args)
        finally:
            if query is not None:
                query.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `paperscout` console script."""
    args = build_parser().parse_args(argv)
    service = args.command == "run"
    configure_logging(args.verbose, service=service)
    # CPython's last garbage collections at exit walk every object the libraries built (torch, Chroma, pydantic
    # schemas): 1.5 s of a cold `ask` on two cores, freeing memory the OS takes back anyway. Frozen objects are
    # skipped. Nothing relies on them: run() has closed the database and the vector store by then, and the
    # interpreter still flushes the standard streams. In-process callers (tests) only have it at their own exit.
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    started = time.monotonic()
    code = _main(args, service)
    log_event(
        log,
        "command finished",
        event="command",
        command=args.command,
        outcome={0: "ok", 130: "interrupted", 143: "stopped"}.get(code, "error"),
        exit_code=code,
        duration_ms=elapsed_ms(started),
    )
    return code


class Terminated(KeyboardInterrupt):
    """SIGTERM (`timeout`, `kill`, a service manager) asking a one-shot command to stop. A KeyboardInterrupt, so that
    asyncio re-raises it from whichever task it lands in and the command winds down as after Ctrl-C."""


def _stop_on_sigterm(signum: int, frame: object) -> None:
    # a second SIGTERM ends the process at once, should winding down itself hang
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise Terminated


def _main(args: argparse.Namespace, service: bool) -> int:
    # Python's own SIGTERM ends the process without a word, in the middle of an ingest's chunk; this says what became
    # of the work instead (the service installs its own handler for a clean stop, bot.ops.runner)
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set a handler
        return _run_command(args, service)
    previous = signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        return _run_command(args, service)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run_command(args: argparse.Namespace, service: bool) -> int:
    from bot.config import load_settings

    try:
        if args.command == "doctor":  # reads the settings itself: a bad setting is one of its findings
            from bot.ops.doctor import doctor_main

            return doctor_main(offline=args.offline, running=args.running, verbose=args.verbose)
        settings = load_settings()
        configure_logging(args.verbose, settings, service=service)  # now with the configured secrets to mask
        if args.command == "topics":  # opens no store: the papers come from the file and nothing is kept
            return topics_main(args, settings)
        return asyncio.run(run(args, settings))
    except PaperscoutError as exc:  # one wrapping a refused thread says so (`explained`), not only what it stopped
        _error(f"paperscout: error: {one_line_error(explained(exc))}")
        return 1
    except Terminated:
        _error(
            "paperscout: stopped by SIGTERM; everything finished before it is stored, "
            "and running the same command again continues from there"
        )
        return 143  # what a shell reports for a process ended by SIGTERM
    except KeyboardInterrupt:
        _error("paperscout: interrupted; everything finished before the interrupt is stored")
        return 130
    except BrokenPipeError:  # the reader of stdout went away (`paperscout doctor | head -3`): nothing to report
        _discard_stdout()
        return 141  # what a shell reports for a process ended by SIGPIPE
    except OSError as exc:  # a path that is a directory, a home that is a file, a full disk
        log.info("OS error", exc_info=True)
        refused = thread_refused(exc)
        if refused is not None:
            _error(f"paperscout: error: {refused}")
            return 1
        in_the_way = _file_in_the_way(exc)
        if in_the_way:
            _error(f"paperscout: error: {in_the_way} is a file where a folder is needed (is PAPERSCOUT_HOME right?)")
            return 1
        where = f"{exc.filename}: " if exc.filename else ""
        _error(f"paperscout: error: {where}{exc.strerror or exc}; check the path and its permissions")
        return 1
    except Exception as exc:  # the last line of defence: one line, never a traceback
        log.info("unexpected error", exc_info=True)
        refused = thread_refused(exc)
        if refused is not None:
            _error(f"paperscout: error: {refused}")
            return 1
        hint = "run with -v for details"
        if type(exc).__module__.startswith("chromadb"):  # e.g. InternalError "Error finding id" (issue 17)
            hint = "the vector store may be damaged: paperscout db shows it, paperscout db --repair rebuilds it"
        _error(f"paperscout: error: {exc.__class__.__name__}: {one_line_error(exc)} ({hint})")
        return 1


def _file_in_the_way(exc: OSError) -> str:
    """The file that stands where `exc`'s path needs a folder (a home that is a file, or under one); '' if none."""
    if not isinstance(exc, FileExistsError | NotADirectoryError) or not exc.filename:
        return ""
    path = Path(exc.filename)
    return next((str(p) for p in (path, *path.parents) if p.is_file()), "")


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush does not fail on the closed pipe again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (a test's capture)
        pass


def _error(line: str) -> None:
    """The one error line on stderr, with secrets masked; a JSON log record instead when logs are JSON, so a log
    collector reading stderr sees nothing but JSON."""
    if json_logging():
        log.error(line)
    else:
        print(redact(line), file=sys.stderr)


def one_line_error(exc: BaseException) -> str:
    """The error's message on one line, cleaned, bounded and without URL credentials, for stderr."""
    from bot.text.safetext import clean_text

    text = redact(" ".join(clean_text(str(exc)).split()))
    return clean_text(text, 500) or exc.__class__.__name__


if __name__ == "__main__":
    sys.exit(main())
