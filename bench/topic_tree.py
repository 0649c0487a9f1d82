"""The week as a topic tree (issue 24): agreement with human conference notes, headings side by side, and speed.

1. Conference notes (`conferences/icml-2025-orals.jsonl`: papers with the human's topic path): each paper is embedded
   as paperscout stores papers (title and abstract excerpt, plus title) and grouped by `bot.topictree`. The top level
   is compared with the human's top-level topics by adjusted mutual information (AMI), beside k-means on the same
   MiniLM vectors with k = the number of human topics (mean of 10 seeds) and with the tree's own k. Then each of our
   topics beside the human headings of its papers. `neurips-2025-highlights.jsonl` has no topics: its headings only.
   Leave-out: the same on 40 random two-thirds of the notes (18 papers each), mean AMI, beside k-means at each
   subset's tree count. A second split nobody labelled for this: the four arXiv days' papers whose primary category
   is neither cs.LG nor cs.AI (categories with 10 papers or more: cs.CL, cs.CV, stat.ML, cs.RO, ...), random sets of
   40 and 120 (25 each), the top level against the primary category.
2. LLM headings and notes (`bot.topictree.llm_names`): the one request's size for the ICML tree and for trees of the
   week's first 100 and 2,000 papers, prompt tokens as estimated before sending (`estimate_message_tokens`, checked
   against server-shaped counts in issue 16) and the completion tokens it allows.
3. Speed: 2,000 papers of a week (the four shared arXiv days, 1,609 papers, and the first 391 again), vectors
   computed once and cached (`--cache`), their one lines (extractive TL;DRs) written first as a stored week has
   them, grouped and named with `build_topic_tree`: wall and CPU seconds, median of `--runs`.

    .venv/bin/python bench/topic_tree.py [--data ../shared/data] [--cache DIR] [--runs 3] [--skip-speed]
        [--skip-splits]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import time
from collections import Counter
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_mutual_info_score

from bot.embeddings.embedder import MINILM_NAME, LocalEmbedder
from bot.llm.prompts import load_prompts
from bot.text.extractive import extractive_tldr
from bot.text.terms import phrase_key
from bot.topictree.areas import Areas, fit_areas
from bot.topictree.build import as_paper, build_topic_tree, paper_text_vectors
from bot.topictree.llm_names import request_tokens
from bot.topictree.tree import PaperText, TopicTree
from bot.topictree.words import HEADING_STOP, phrase_sets

FIELD_WIDE = 0.05  # a heading phrase in at least this share of the four arXiv days' papers is field-wide

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
WEEK_SIZE = 2000


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def conference_papers(rows: list[dict]) -> list[PaperText]:
    return [
        PaperText(str(i), r["title"], r.get("quote") or r.get("abstract") or r["title"]) for i, r in enumerate(rows)
    ]


def kmeans_ami(vectors: np.ndarray, truth: list[str], k: int, seeds: int = 10) -> float:
    scores = [
        adjusted_mutual_info_score(truth, KMeans(k, n_init=10, random_state=s).fit_predict(vectors))
        for s in range(seeds)
    ]
    return float(np.mean(scores))


def top_labels(tree: TopicTree, papers: list[PaperText]) -> list[int]:
    labels = tree.labels()
    return [labels[p.id] for p in papers]


def split_scores(
    label: str, sets: list[tuple[list[PaperText], np.ndarray, list[str]]], areas: Areas | bool = True
) -> None:
    """Mean AMI of the tree's top level over `sets` (with `areas`, and without research areas), beside k-means (one
    seed, 10 starts) at each set's tree count."""
    ours, plain, theirs, counts = [], [], [], []
    for papers, vectors, truth in sets:
        tree = build_topic_tree(papers, vectors, areas=areas)
        ours.append(adjusted_mutual_info_score(truth, top_labels(tree, papers)))
        alone = build_topic_tree(papers, vectors, areas=False)
        plain.append(adjusted_mutual_info_score(truth, top_labels(alone, papers)))
        k = max(2, len(tree.topics))
        theirs.append(adjusted_mutual_info_score(truth, KMeans(k, n_init=10, random_state=0).fit_predict(vectors)))
        counts.append(len(tree.topics))
    print(
        f"  {label}: {len(sets)} sets, tree {statistics.mean(counts):.1f} topics, human"
        f" {statistics.mean(len(set(t)) for _, _, t in sets):.1f}: AMI tree {statistics.mean(ours):.3f},"
        f" without areas {statistics.mean(plain):.3f}, k-means same k {statistics.mean(theirs):.3f}"
    )


def leave_out(rows: list[dict], papers: list[PaperText], vectors: np.ndarray, sets: int = 40) -> None:
    rng = np.random.default_rng(1)
    truth = [r["topic"][0] for r in rows]
    keep = 2 * len(papers) // 3
    chosen = [sorted(rng.choice(len(papers), keep, replace=False)) for _ in range(sets)]
    split_scores(
        f"ICML leave-out ({keep} of {len(papers)})",
        [([papers[i] for i in idx], vectors[idx], [truth[i] for i in idx]) for idx in chosen],
    )


def primaries(
    papers: list[PaperText], vectors: np.ndarray, primary: list[str], days: list[str], held_out: bool = True
) -> None:
    """The second split: sets of the week's papers against their arXiv primary category (not cs.LG, cs.AI). The
    shipped research areas were learnt from these four days (without their categories); with `held_out`, also areas
    learnt from two of the days, the sets drawn from the other two (both ways)."""
    counts = Counter(primary)
    pool = [i for i, c in enumerate(primary) if c not in ("cs.LG", "cs.AI") and counts[c] >= 10]
    rng = np.random.default_rng(1)
    print(f"arXiv primary categories ({len(pool)} papers of the four days outside cs.LG and cs.AI):")
    for size in (40, 120):
        chosen = [sorted(rng.choice(pool, size, replace=False)) for _ in range(25)]
        split_scores(
            f"sets of {size}", [([papers[i] for i in idx], vectors[idx], [primary[i] for i in idx]) for idx in chosen]
        )
    if not held_out:
        return
    names = sorted(set(days))
    for learnt in (names[:2], names[2:]):
        fitted = [i for i, d in enumerate(days) if d in learnt]
        areas = fit_areas(vectors[fitted], MINILM_NAME)
        rest = [i for i in pool if days[i] not in learnt]
        print(f"  areas learnt from {', '.join(learnt)} only ({len(fitted)} papers), sets from the other days:")
        for size in (40, 120):
            chosen = [sorted(rng.choice(rest, size, replace=False)) for _ in range(25)]
            split_scores(
                f"  sets of {size}",
                [([papers[i] for i in idx], vectors[idx], [primary[i] for i in idx]) for idx in chosen],
                areas,
            )


def side_by_side(tree: TopicTree, rows: list[dict]) -> list[str]:
    lines = ["| our heading (papers) | human headings of its papers |", "| --- | --- |"]
    for topic in tree.topics:
        for depth, group in [(0, topic), *((1, sub) for sub in topic.subtopics)]:
            humans = Counter(" > ".join(rows[int(p.id)]["topic"]) for p in group.all_papers())
            shown = "; ".join(f"{name} ({n})" if n > 1 else name for name, n in humans.most_common())
            name = f"{topic.name} > {group.name}" if depth else f"**{group.name}**"
            lines.append(f"| {name} ({len(group.all_papers())}) | {shown} |")
    return lines


def heading_key(heading: str) -> str:
    """A heading's phrase key (as `bot.topictree.words` matches phrases): lowercase, plurals folded."""
    return " ".join(phrase_key(w) for w in heading.lower().replace("-", " ").split() if w not in ("and", "…"))


def heading_words(heading: str) -> set[str]:
    return {w for w in heading_key(heading).split() if w not in HEADING_STOP}


def heading_agreement(tree: TopicTree, rows: list[dict], embedder: LocalEmbedder) -> None:
    """For each human top-level topic, the heading of our top-level topic holding most of its papers: word overlap
    (Jaccard of folded content words) and MiniLM cosine with the human heading; means over the human topics."""
    holder = {p.id: topic.name for topic in tree.topics for p in topic.all_papers()}
    humans = sorted({r["topic"][0] for r in rows})
    ours = [
        Counter(holder[str(i)] for i, r in enumerate(rows) if r["topic"][0] == h).most_common(1)[0][0] for h in humans
    ]
    vectors = np.asarray(embedder.embed(humans + ours))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    cosines = [float(vectors[i] @ vectors[len(humans) + i]) for i in range(len(humans))]
    overlaps = []
    for human, heading in zip(humans, ours, strict=True):
        a, b = heading_words(human), heading_words(heading)
        overlaps.append(len(a & b) / len(a | b) if a | b else 0.0)
    pairs = "; ".join(f"{h} -> {o}" for h, o in zip(humans, ours, strict=True))
    print(f"  headings vs human top level ({len(humans)} human topics): word overlap {statistics.mean(overlaps):.3f},")
    print(f"    MiniLM cosine {statistics.mean(cosines):.3f}  [{pairs}]")


def field_wide(label: str, tree: TopicTree, document_share: dict[str, float]) -> None:
    """The share of a tree's headings (top level, and all) that are field-wide: in at least FIELD_WIDE (and twice
    that) of the four days' papers."""
    top = [t.name for t in tree.topics]
    every = top + [s.name for t in tree.topics for s in t.subtopics]
    for floor in (FIELD_WIDE, 2 * FIELD_WIDE):
        wide = [h for h in every if document_share.get(heading_key(h), 0.0) >= floor]
        top_wide = [h for h in top if h in wide]
        print(
            f"  field-wide headings ({label}; in >= {floor:.0%} of the four days' papers): top level"
            f" {len(top_wide)}/{len(top)}, all {len(wide)}/{len(every)}: {', '.join(dict.fromkeys(wide))}"
        )


def document_shares(data: Path) -> dict[str, float]:
    """Each phrase key's share of the four arXiv days' papers (title or abstract)."""
    rows = week_rows(data)
    found: Counter[str] = Counter()
    for row in rows:
        title, abstract = phrase_sets(row["title"], row["abstract"])
        found.update(title | abstract)
    return {key: n / len(rows) for key, n in found.items()}


PROMPTS = Path(__file__).resolve().parents[1] / "prompts"


def llm_tokens(label: str, tree: TopicTree) -> None:
    prompt, completion = request_tokens(load_prompts(PROMPTS).topics, tree)
    groups = len(tree.topics) + sum(len(t.subtopics) for t in tree.topics)
    per_100 = (prompt + completion) * 100 / tree.paper_count
    print(
        f"  LLM headings, {label}: {tree.paper_count} papers, {groups} groups: prompt {prompt:,} + completion <="
        f" {completion:,} tokens ({per_100:,.0f} per 100 papers)"
    )


def conference(embedder: LocalEmbedder, data: Path, shares: dict[str, float], splits: bool = True) -> None:
    rows = read_lines(data / "conferences" / "icml-2025-orals.jsonl")
    papers = conference_papers(rows)
    vectors = paper_text_vectors(embedder.embed, papers)
    tree = build_topic_tree(papers, vectors)
    labels = tree.labels()
    truth = [r["topic"][0] for r in rows]
    ours = adjusted_mutual_info_score(truth, [labels[p.id] for p in papers])
    alone = build_topic_tree(papers, vectors, areas=False)
    plain = adjusted_mutual_info_score(truth, top_labels(alone, papers))
    k_human = len(set(truth))
    print(f"ICML 2025 orals: {len(rows)} papers, {k_human} human top-level topics, our tree {len(tree.topics)}")
    print(f"  AMI topic tree (top level)          {ours:.3f}")
    print(f"  AMI without research areas ({len(alone.topics)})    {plain:.3f}")
    print(f"  AMI k-means, k={k_human} (human's)        {kmeans_ami(vectors, truth, k_human):.3f}")
    print(f"  AMI k-means, k={len(tree.topics)} (the tree's)      {kmeans_ami(vectors, truth, len(tree.topics)):.3f}")
    if splits:
        leave_out(rows, papers, vectors)
    llm_tokens("ICML orals", tree)
    heading_agreement(tree, rows, embedder)
    field_wide("ICML", tree, shares)
    print()
    print("\n".join(side_by_side(tree, rows)))
    print()
    rows = read_lines(data / "conferences" / "neurips-2025-highlights.jsonl")
    papers = conference_papers(rows)
    tree = build_topic_tree(papers, paper_text_vectors(embedder.embed, papers))
    print(f"NeurIPS 2025 highlights (titles only, no human topics): {len(rows)} papers")
    for topic in tree.topics:
        subs = " | ".join(f"{s.name} ({len(s.papers)})" for s in topic.subtopics)
        print(f"  {topic.name} ({len(topic.all_papers())})" + (f": {subs}" if subs else ""))
    field_wide("NeurIPS", tree, shares)
    print()


def week_rows(data: Path) -> list[dict]:
    return [row for path in sorted((data / "arxiv").glob("*.jsonl")) for row in read_lines(path)]


def week_days(data: Path) -> list[str]:
    """The file (announcement day) of each of `week_rows`."""
    return [path.stem for path in sorted((data / "arxiv").glob("*.jsonl")) for _ in read_lines(path)]


def week(embedder: LocalEmbedder, data: Path, cache: Path) -> tuple[list[PaperText], np.ndarray]:
    rows = week_rows(data)
    papers = [PaperText(r["id"], r["title"], r["abstract"]) for r in rows]
    cached = cache / f"week-{len(papers)}-vectors.npy"
    if cached.exists():
        vectors = np.load(cached)
    else:
        print(f"embedding {len(papers)} papers once (cached in {cached}) ...", flush=True)
        vectors = paper_text_vectors(embedder.embed, papers)
        cache.mkdir(parents=True, exist_ok=True)
        np.save(cached, vectors)
    extra = WEEK_SIZE - len(papers)
    papers += [PaperText(f"{p.id}-again", p.title, p.abstract) for p in papers[:extra]]
    return papers, np.vstack([vectors, vectors[:extra]])


def speed(papers: list[PaperText], vectors: np.ndarray, runs: int, shares: dict[str, float]) -> None:
    llm_tokens("the week's first 100", build_topic_tree(papers[:100], vectors[:100]))
    # a stored week has its TL;DRs stored too (the weekly digest passes them): the one lines are written before
    wall, cpu = time.perf_counter(), time.process_time()
    papers = [dataclasses.replace(p, line=extractive_tldr(as_paper(p))) for p in papers]
    print(f"  one lines (extractive TL;DRs, stored in a real week): wall {time.perf_counter() - wall:.2f} s,", end="")
    print(f" CPU {time.process_time() - cpu:.2f} s")
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        tree = build_topic_tree(papers, vectors)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    subtopics = sum(len(t.subtopics) for t in tree.topics)
    print(f"Speed: {len(papers)} papers -> {len(tree.topics)} topics, {subtopics} subtopics")
    print(f"  first run (background corpus read): wall {walls[0]:.2f} s, CPU {cpus[0]:.2f} s")
    print(f"  median of {runs}: wall {statistics.median(walls):.2f} s, CPU {statistics.median(cpus):.2f} s")
    print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    llm_tokens("the week", tree)
    for topic in tree.topics:
        subs = " | ".join(f"{s.name} ({len(s.papers)})" for s in topic.subtopics)
        print(f"  {topic.name} ({len(topic.all_papers())})" + (f": {subs}" if subs else ""))
    field_wide("the week", tree, shares)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "paperscout-bench")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-splits", action="store_true", help="no leave-out and arXiv category sets")
    args = parser.parse_args()
    embedder = LocalEmbedder()
    shares = document_shares(args.data)
    conference(embedder, args.data, shares, splits=not args.skip_splits)
    papers, vectors = week(embedder, args.data, args.cache)
    if not args.skip_splits:
        count = len(week_rows(args.data))
        rows = week_rows(args.data)
        primaries(papers[:count], vectors[:count], [r["categories"][0] for r in rows], week_days(args.data))
        print()
    if not args.skip_speed:
        speed(papers, vectors, args.runs, shares)


if __name__ == "__main__":
    main()
