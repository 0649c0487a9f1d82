"""Tokens the LLM path spends on each shared day, next to the reference cascade's (issue 3).

    .venv/bin/python bench/llm_tokens.py                  # per day: shortlist recall, tokens, ratio to reference
    .venv/bin/python bench/llm_tokens.py --text-proxy     # also: ranking signal kept by each compact paper text

Each labelled day of ../shared/data goes through the real digest path (`build_digest` with an LLM configured,
the real openai client) against the OpenAI-compatible fake on 127.0.0.1. The fake answers like a compliant
model: valid JSON, a [N, relevance, novelty] triple per paper, a ~10-word comment for papers with relevance 8
or more and ~20-word TL;DRs. Its grades come from the day's labels (an oracle: picks get their labelled grades,
other papers a deterministic 2-7), so the number of comments matches the number of picks. Token counts are
`bot.llm.client.count_tokens_estimate` of the message text (4 characters per token), the same for every run.

Targets: prompt + completion tokens <= 20% of `reference_run.total_tokens`, with the shortlist keeping >= 90%
of the day's picks. Paper vectors are built from <emb-dir>/emb_DAY.npy and title_DAY.npy when present (rows
in JSONL order).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime as dt
import hashlib
import json
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.config import Settings
from bot.core import Core, open_core
from bot.digests.build import build_digest
from bot.embeddings.embedder import combine_vectors, paper_vectors
from bot.ingest.jsonl import read_jsonl
from bot.ingest.limits import clean_paper
from bot.llm.prompts import clean_untrusted
from bot.models import Paper
from bot.ranking import llm_score as score
from bot.ranking.for_profile import rank_papers
from bot.ranking.metrics import roc_auc
from bot.ranking.profiles import load_profile
from bot.text import tldr as summarize
from bot.text.extractive import extractive_tldr
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.paperscout_llm import PaperscoutResponder

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TARGET_RATIO = 0.20
TARGET_RECALL = 0.90
RECALL_KS = (120, 150, 160, 170, 180, 200)


class OracleResponder(PaperscoutResponder):
    """Grades from the labels: picks get their labelled relevance and novelty, others a deterministic 2-7."""

    def __init__(self, papers: list[Paper], picks: dict[str, dict[str, Any]]) -> None:
        super().__init__()
        self.by_title = {clean_untrusted(p.title): p.id for p in papers}
        self.picks = picks

    def paper_id(self, text: str) -> str | None:
        """The id of the paper a prompt line ("title: opening") is about."""
        parts = text.split(": ")
        for cut in range(len(parts), 0, -1):  # titles may contain ": " themselves
            found = self.by_title.get(": ".join(parts[:cut]))
            if found:
                return found
        return None

    def grade(self, request: dict[str, Any], text: str) -> tuple[int, int, str]:
        _, _, topic = super().grade(request, text)
        paper_id = self.paper_id(text)
        pick = self.picks.get(paper_id or "")
        if pick:  # author-watch picks carry no grades: as if the model liked them just enough
            return int(pick.get("relevance") or 8), int(pick.get("novelty") or 7), topic
        unit = int.from_bytes(hashlib.sha256((paper_id or text).encode()).digest()[:4], "little") / 2**32
        return 2 + int(6 * unit), 2 + int(6 * (unit * 7 % 1)), topic


async def store_day(core: Core, papers: list[Paper], emb_dir: Path, day: str) -> None:
    """Store a day's papers; reuse cached MiniLM vectors when their rows match, else embed."""
    from bot.ingest.save import store_papers

    text_cache, title_cache = emb_dir / f"emb_{day}.npy", emb_dir / f"title_{day}.npy"
    vecs = None
    if text_cache.exists() and title_cache.exists():
        vecs = combine_vectors(
            np.load(text_cache), np.load(title_cache)
        )  # as bot.embeddings.embedder.paper_vectors makes them
    if vecs is not None and vecs.shape[0] == len(papers):
        cleaned = [clean_paper(p) for p in papers]
        same = [i for i, (a, b) in enumerate(zip(papers, cleaned, strict=True)) if a.text == b.text]
        await core.repo.upsert_papers(cleaned)
        await core.repo.set_tldrs({p.id: extractive_tldr(p) for p in cleaned}, "extractive")
        await core.vectors.upsert([cleaned[i] for i in same], vecs[same].astype(np.float32))
    await store_papers(core, papers)  # embeds whatever the cache did not cover


async def run_day(core: Core, fake: FakeOpenAI, data: Path, day: str, size: int) -> dict[str, Any]:
    """One day through the LLM path; returns the figures for the table."""
    labels = json.loads((data / "labels" / f"{day}.json").read_text(encoding="utf-8"))
    picks = labels["picks"]
    papers = read_jsonl([data / "arxiv" / f"{day}.jsonl"])
    fake.responder = OracleResponder(papers, picks)
    profile = load_profile(data / "profiles" / "foundations.toml")
    date = dt.date.fromisoformat(day)

    ranked = await rank_papers(core, await core.repo.papers_on(date), profile)
    shortlist = [i.paper.id for i in ranked[: core.settings.llm_shortlist_size]]
    kept = len(set(shortlist) & set(picks)) / len(picks)
    found = np.cumsum([i.paper.id in picks for i in ranked])
    k90 = int(np.argmax(found >= np.ceil(TARGET_RECALL * len(picks)))) + 1
    recall_at = {k: float(found[min(k, len(found)) - 1] / len(picks)) for k in RECALL_KS}

    before = len(fake.chat_requests())
    started = time.perf_counter()
    digest = await build_digest(core, profile, date, size=size, categories=())
    seconds = time.perf_counter() - started
    requests = len(fake.chat_requests()) - before
    again = await build_digest(core, profile, date, size=size, categories=())
    rerun_requests = len(fake.chat_requests()) - before - requests
    in_digest = sum(i.paper.id in picks for i in digest.items)
    return {
        "day": day,
        "papers": len(papers),
        "picks": len(picks),
        "shortlist": len(shortlist),
        "kept": kept,
        "k90": k90,
        "recall_at": recall_at,
        "usage": digest.usage,
        "requests": requests,
        "rerun_tokens": int(again.usage.get("total_tokens", 0)),
        "rerun_requests": rerun_requests,
        "reference": labels["reference_run"],
        "seconds": seconds,
        "digest_picks": in_digest,
        "digest_size": digest.picked,
        "notes": digest.notes,
    }


def print_table(rows: list[dict[str, Any]]) -> bool:
    """The per-day table; True when every day meets both targets."""
    ok = True
    print(
        f"{'day':<11} {'papers':>6} {'short':>5} {'picks kept':>10} {'calls':>5} {'score p+c':>13} {'TL;DR p+c':>11}"
        f" {'total':>6} {'reference':>9} {'ratio':>6} {'re-run':>6}"
    )
    for r in rows:
        u = r["usage"]
        total = int(u.get("total_tokens", 0))
        ratio = total / r["reference"]["total_tokens"]
        ok &= ratio <= TARGET_RATIO and r["kept"] >= TARGET_RECALL
        score_pc = f"{int(u.get('score.prompt_tokens', 0))}+{int(u.get('score.completion_tokens', 0))}"
        tldr_pc = f"{int(u.get('tldr.prompt_tokens', 0))}+{int(u.get('tldr.completion_tokens', 0))}"
        print(
            f"{r['day']:<11} {r['papers']:6d} {r['shortlist']:5d} {r['kept']:10.1%} {r['requests']:5d}"
            f" {score_pc:>13} {tldr_pc:>11} {total:6d} {r['reference']['total_tokens']:9d} {ratio:6.1%}"
            f" {r['rerun_tokens']:6d}"
        )
        for note in r["notes"]:
            print(f"{'':11} note: {note}")
    totals = [int(r["usage"].get("total_tokens", 0)) for r in rows]
    refs = [r["reference"]["total_tokens"] for r in rows]
    print(f"{'all days':<11} {'':>6} {'':>5} {'':>10} {'':>5} {'':>13} {'':>11} {sum(totals):6d} {sum(refs):9d}")
    print(
        f"\nshortlist size: smallest K keeping >= {TARGET_RECALL:.0%} of the picks, and the share kept at K"
        f"\n{'day':<11} {'K90':>4} " + " ".join(f"{'@' + str(k):>6}" for k in RECALL_KS)
    )
    for r in rows:
        print(f"{r['day']:<11} {r['k90']:4d} " + " ".join(f"{r['recall_at'][k]:6.1%}" for k in RECALL_KS))
    print(
        "\nscoring only (comparable to the reference, which writes no TL;DRs): "
        + ", ".join(
            f"{r['day']} {int(r['usage'].get('score.total_tokens', 0)) / r['reference']['total_tokens']:.1%}"
            for r in rows
        )
    )
    print(
        "cost at the configured prices (gpt-4o-mini list price by default): "
        + ", ".join(f"{r['day']} ${r['usage'].get('cost_usd', 0.0):.4f}" for r in rows)
        + "; reference (gpt-4o): "
        + ", ".join(f"${r['reference']['cost_usd']:.2f}" for r in rows)
    )
    print(
        "oracle picks in the digest (sanity check of the parse -> combine path, not a quality figure): "
        + ", ".join(f"{r['day']} {r['digest_picks']}/{r['digest_size']}" for r in rows)
    )
    return ok


def _opening(paper: Paper, limit: int) -> str:
    return clean_untrusted(paper.abstract, limit)


async def text_proxy(core: Core, data: Path, days: list[str]) -> None:
    """How much ranking signal each compact paper text keeps, by the ranker re-run on that text alone.

    Within each day's shortlist, papers are re-embedded from the compact text and ranked again; the AUC of picks
    against the rest says how much of the judgement the text still supports. A proxy, not an LLM measurement.
    """
    variants = {
        "title only": lambda p: "",
        "title + extractive key sentence": extractive_tldr,
        **{f"title + abstract opening {n}": partial(_opening, limit=n) for n in (40, 60, 100, 150)},
        "title + whole abstract": lambda p: p.abstract,
    }
    profile = load_profile(data / "profiles" / "foundations.toml")
    from bot.ranking.for_profile import profile_model
    from bot.ranking.rank import paper_features, rank_for_profile

    model = await profile_model(core, profile)
    print(
        f"\n{'compact text (within the shortlist)':<34} {'chars':>6} "
        + " ".join(f"{d[5:]:>6}" for d in days)
        + "   mean"
    )
    for name, extra in variants.items():
        aucs, chars = [], []
        for day in days:
            picks = json.loads((data / "labels" / f"{day}.json").read_text(encoding="utf-8"))["picks"]
            ranked = await rank_papers(core, await core.repo.papers_on(dt.date.fromisoformat(day)), profile)
            top = [i.paper for i in ranked[: core.settings.llm_shortlist_size]]
            compact = [dataclasses.replace(p, abstract=extra(p)) for p in top]
            chars.append(np.mean([len(p.title) + len(p.abstract) for p in compact]))
            vecs = await asyncio.to_thread(paper_vectors, core.embedder.embed, compact)
            again = rank_for_profile(compact, vecs, model, len(compact), paper_features(compact))
            by_id = {i.paper.id: i.score for i in again}
            aucs.append(roc_auc([by_id[p.id] for p in top], [p.id in picks for p in top]))
        print(f"{name:<34} {np.mean(chars):6.0f} " + " ".join(f"{a:6.3f}" for a in aucs) + f" {np.mean(aucs):6.3f}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with arxiv/, labels/, profiles/")
    parser.add_argument("--emb-dir", type=Path, default=Path("/tmp"), help="folder with cached emb_DAY.npy")
    parser.add_argument("--size", type=int, default=15, help="papers per digest (default 15)")
    parser.add_argument("--shortlist", type=int, help="override llm_shortlist_size")
    parser.add_argument("--batch-size", type=int, help="override llm_score_batch_size")
    parser.add_argument("--abstract-chars", type=int, help="override score.ABSTRACT_CHARS (exploration)")
    parser.add_argument("--tldr-chars", type=int, help="override summarize.TLDR_ABSTRACT_CHARS (exploration)")
    parser.add_argument("--text-proxy", action="store_true", help="also measure the compact-text proxy")
    args = parser.parse_args()
    if args.abstract_chars is not None:
        score.ABSTRACT_CHARS = args.abstract_chars
    if args.tldr_chars is not None:
        summarize.TLDR_ABSTRACT_CHARS = args.tldr_chars
    days = sorted(p.stem for p in (args.data / "labels").glob("*.json"))

    print("command: .venv/bin/python bench/llm_tokens.py " + " ".join(sys.argv[1:]))
    # Usage as our estimate, so the figures stay comparable with the recorded ones (see the docstring).
    with FakeOpenAI(usage_counting="estimate") as fake, tempfile.TemporaryDirectory() as home:
        overrides: dict[str, Any] = {"home": Path(home), "llm_base_url": fake.base_url, "llm_daily_budget_usd": 100.0}
        if args.shortlist:
            overrides["llm_shortlist_size"] = args.shortlist
        if args.batch_size:
            overrides["llm_score_batch_size"] = args.batch_size
        settings = Settings(**overrides)
        print(
            f"shortlist {settings.llm_shortlist_size}, batch {settings.llm_score_batch_size}, abstract opening"
            f" {score.ABSTRACT_CHARS} chars, TL;DR input {summarize.TLDR_ABSTRACT_CHARS} chars, digest {args.size}\n"
        )
        async with open_core(settings) as core:
            for day in days:
                await store_day(core, read_jsonl([args.data / "arxiv" / f"{day}.jsonl"]), args.emb_dir, day)
            rows = [await run_day(core, fake, args.data, day, args.size) for day in days]
            ok = print_table(rows)
            if args.text_proxy:
                await text_proxy(core, args.data, days)
    verdict = "met" if ok else "NOT met"
    print(f"\ntargets (<= {TARGET_RATIO:.0%} of reference tokens, shortlist keeps >= {TARGET_RECALL:.0%}): {verdict}")


if __name__ == "__main__":
    asyncio.run(main())
