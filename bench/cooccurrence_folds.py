"""The topic in other words by the store's own co-occurrence statistics, measured by leave-one-set-out (issue 22).

Search misses at the unseen sets are mostly papers saying the topic in other words. Word feedback (RM3, the first
pass's three best papers), sentence feedback, the nearest papers' words and single-word vectors were measured before
(docs/BENCHMARKS.md, "Search misses by cause"). This is the one query-side method not measured: a term association
learned from the whole store. The papers of the store holding every word of the topic (full-text terms, porter
stems) are the topic's context; a term is associated with the topic by how much more often those papers hold it than
the store does (document-level lift, weighted by its share in them: P(t|F) log(P(t|F)/P(t)), the term's contribution to
the KL divergence of the context from the store, as in Carpineto et al.'s divergence-based expansion). The most
associated terms, with the topic's own, make an expanded query; every candidate is scored by BM25F over it
(`bot.questions.expansion.bm25f`) and the scores are one more ranking in the reciprocal rank fusion (weight W).

Unlike RM3 the context is every stored paper naming the topic (not the three first-pass papers, which for a topic few
papers name are often papers without its words), and terms are weighted by their lift over the store (not by their
raw likelihood, which favours words every paper uses).

    PYTHONPATH=$PWD .venv/bin/python bench/cooccurrence_folds.py --home DIR [--weights 0,0.5,1,2] [--terms 30]

`DIR` a copy of a store holding the four shared days. Every open search set is run once per configuration in one
process; the folds hold out one set at a time, choose the configuration best on the others (mean recall@10, then
on-topic@5) and report it on the held-out set.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout_questions import HERE, SHARED_DATA, _load, ensure_store, run_searches

from bot.config import Settings
from bot.core import open_core
from bot.ingest.jsonl import read_jsonl
from bot.questions import expansion, retrieval

SETS = {
    "dev": HERE / "heldout",
    "sealed": HERE / "heldout" / "sealed",
    "sealed2": HERE / "heldout" / "sealed2",
    "search11": HERE / "search11",
    "search13": HERE / "search13",
    "search14": HERE / "search14",
    "search15": HERE / "search15",
    "search16": HERE / "search16",
}
MIN_CONTEXT = 2  # papers holding every topic term needed to read an association from
MIN_SUPPORT = 2  # context papers a term must be in (--support)
SMOOTHING = (
    0.0  # Dirichlet prior (in papers) pulling a term's share in the context toward its share in the store (--smooth)
)


class Store:
    """Each stored paper's set of full-text terms, and each term's document frequency."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.terms = [set(expansion.index_terms(t)) for t in texts]
        self.df: Counter[str] = Counter(t for terms in self.terms for t in terms)
        self.total = len(texts)

    def associated(self, topic_terms: Sequence[str], count: int) -> dict[str, float]:
        """The `count` terms most associated with `topic_terms` (weights summing to 1), or {} without a context."""
        own = [t for t in dict.fromkeys(topic_terms) if t in self.df]
        if not own:
            return {}
        context = [terms for terms in self.terms if all(t in terms for t in own)]
        if len(context) < MIN_CONTEXT:
            # no paper holds all of them: the rarest half of them (a topic said whole by few papers)
            rare = sorted(own, key=lambda t: self.df[t])[: max(1, len(own) // 2)]
            context = [terms for terms in self.terms if all(t in terms for t in rare)]
        if len(context) < MIN_CONTEXT:
            return {}
        inside: Counter[str] = Counter(t for terms in context for t in terms)
        n = len(context)
        scores = {}
        for term, k in inside.items():
            if k < MIN_SUPPORT or term in own or self.df[term] > expansion.COMMON_SHARE * self.total:
                continue
            p_all = self.df[term] / self.total
            p_in = (k + SMOOTHING * p_all) / (n + SMOOTHING)
            if p_in > p_all:
                scores[term] = p_in * math.log(p_in / p_all)
        top = sorted(scores.items(), key=lambda kv: -kv[1])[:count]
        mass = sum(s for _, s in top)
        return {t: s / mass for t, s in top} if mass else {}


STATE: dict[str, object] = {"weight": 0.0, "terms": 30, "store": None, "scores": {}}


def _install() -> None:
    original_scores = retrieval.expansion_scores
    original_fused = retrieval._Scored.fused

    async def expansion_scores(core, papers, feedback, topic):  # type: ignore[no-untyped-def]
        result = await original_scores(core, papers, feedback, topic)
        store: Store = STATE["store"]  # type: ignore[assignment]
        weight = float(STATE["weight"])  # type: ignore[arg-type]
        scores = STATE["scores"]
        assert isinstance(scores, dict)
        scores.clear()
        if weight:
            terms = expansion.index_terms(topic)
            model = store.associated(terms, int(STATE["terms"]))  # type: ignore[arg-type]
            if model:
                query = expansion.expanded_query(terms, model)
                bags = expansion.Bags.of(papers)
                scores["of"] = (papers, expansion.bm25f(bags, query, store.df, store.total))
        return result

    def fused(self, bm25, expanded=None):  # type: ignore[no-untyped-def]
        base = original_fused(self, bm25, expanded)
        scores = STATE["scores"]
        assert isinstance(scores, dict)
        held = scores.get("of")
        extra = held[1] if held is not None and held[0] is self.papers else None
        weight = float(STATE["weight"])  # type: ignore[arg-type]
        if extra is None or not weight:
            return base
        add = retrieval.reciprocal_rank_fusion([extra], [weight])  # one more ranking, as the fusion adds each
        return base + add

    retrieval.expansion_scores = expansion_scores
    retrieval._Scored.fused = fused


async def main() -> None:
    global MIN_SUPPORT, SMOOTHING
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--weights", default="0,0.5,1,2")
    parser.add_argument("--terms", default="30")
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--support", type=int, default=MIN_SUPPORT, help="context papers a term must be in")
    parser.add_argument("--smooth", type=float, default=SMOOTHING, help="Dirichlet prior of a term's context share")
    args = parser.parse_args()
    MIN_SUPPORT, SMOOTHING = args.support, args.smooth
    papers = read_jsonl(sorted((SHARED_DATA / "arxiv").glob("*.jsonl")))
    by_id = {p.id: p for p in papers}
    STATE["store"] = Store([f"{p.title}\n{p.abstract}" for p in papers])
    _install()
    configs = [(float(w), int(t)) for w in args.weights.split(",") for t in args.terms.split(",")]
    configs = list(dict.fromkeys((w, t if w else 0) for w, t in configs))
    names = args.sets.split(",")
    figures: dict[tuple[float, int], dict[str, tuple[float, float, float]]] = {}
    async with open_core(Settings(home=args.home, llm_base_url=None, llm_api_key=None)) as core:
        await ensure_store(core, papers)
        for weight, terms in configs:
            STATE["weight"], STATE["terms"] = weight, terms
            figures[(weight, terms)] = {}
            for name in names:
                rows = await run_searches(core, _load(SETS[name] / "search.jsonl"), by_id, False)
                recall = sum(r[1] for r in rows) / len(rows)
                on_topic = sum(r[2] for r in rows) / len(rows)
                first = sum(r[4] for r in rows) / len(rows)
                figures[(weight, terms)][name] = (recall, on_topic, first)
            line = "  ".join(f"{n} {r:.3f}/{o:.3f}/{f:.3f}" for n, (r, o, f) in figures[(weight, terms)].items())
            print(f"w {weight} terms {terms}: {line}", flush=True)
    base = figures[configs[0]]
    print("folds (held out: chosen config, recall@10 / on-topic@5 held out, baseline):")
    for held in names:
        others = [n for n in names if n != held]

        def mean(config: tuple[float, int], sets: list[str] = others) -> tuple[float, float]:
            rows = [figures[config][n] for n in sets]
            return sum(r[0] for r in rows) / len(rows), sum(r[1] for r in rows) / len(rows)

        chosen = max(configs, key=mean)
        r, o, _ = figures[chosen][held]
        print(f"  {held}: {chosen} -> {r:.3f} / {o:.3f} (baseline {base[held][0]:.3f} / {base[held][1]:.3f})")


if __name__ == "__main__":
    asyncio.run(main())
