"""Markdown and JSON renderings of a digest, and the extractive TL;DR."""

from __future__ import annotations

import datetime as dt
import json

from bot.models import Digest, Paper, ScoredPaper
from bot.text.extractive import extractive_tldr
from bot.views.model import paper_view
from bot.views.render import answer_text, digest_json, digest_markdown, digest_text, escape_markdown

PAPER = Paper(
    id="2505.17639",
    title="Routing *everything* with [MoE](http://evil.example)",
    authors=tuple(f"Author {i}" for i in range(9)),
    abstract=(
        "Large models are expensive. However, existing routers are brittle. "
        "We propose StableRoute, a mixture-of-experts router that balances load without auxiliary losses. "
        "Experiments on five benchmarks show gains."
    ),
    categories=("cs.LG",),
    announced=dt.date(2025, 5, 26),
)


def _digest(items: tuple[ScoredPaper, ...]) -> Digest:
    return Digest(
        day=dt.date(2025, 5, 26),
        profile_name="ML foundations",
        scanned=444,
        items=items,
        notes=("LLM budget reached; ranked locally.",),
    )


def test_markdown_has_header_link_scores_and_escaped_untrusted_text() -> None:
    item = ScoredPaper(
        PAPER,
        0.71,
        9.0,
        7.0,
        reasons=("topic: Model architecture", "keyword: MoE"),
        author_hits=("Author 3",),
        tldr=extractive_tldr(PAPER),
    )
    text = digest_markdown(_digest((item,)))
    assert "Scanned 444 papers, picked 1." in text
    assert "[arXiv:2505.17639](https://arxiv.org/abs/2505.17639)" in text
    assert "#1 of 444 papers on 2025-05-26 (top 1%)" in text
    assert "Novelty" not in text and "novelty" not in text  # the ranker's cue-word novelty is never shown
    assert r"\[MoE\](http://evil.example)" in text  # no link injected by a title
    assert r"\*everything\*" in text
    assert "et al. (9 authors)" in text
    assert "Author watch: Author 3" in text
    assert "LLM budget reached" in text


def test_json_rendering_is_complete_and_parseable() -> None:
    item = ScoredPaper(PAPER, 0.5, 6.0, 5.0, tldr="x")
    data = json.loads(digest_json(_digest((item,))))
    assert data["picked"] == 1 and data["scanned"] == 444
    assert data["papers"][0]["url"] == "https://arxiv.org/abs/2505.17639"
    assert data["papers"][0]["rank"] == 1


def test_empty_digest_says_so() -> None:
    assert "No papers matched" in digest_markdown(_digest(()))


def test_extractive_tldr_picks_the_contribution_sentence() -> None:
    assert extractive_tldr(PAPER).startswith("We propose StableRoute")
    assert len(extractive_tldr(PAPER, limit=40)) <= 40


def test_escape_markdown_leaves_plain_text_alone() -> None:
    assert escape_markdown("plain words, 3.5 percent") == "plain words, 3.5 percent"


def test_llm_judgement_is_shown_only_when_an_llm_gave_it() -> None:
    cold = ScoredPaper(PAPER, 0.7, 10.0, 9.0)
    judged = ScoredPaper(PAPER, 0.7, 8.0, 7.0, comment="solid routing idea", judged=True)
    assert "/10" not in digest_markdown(_digest((cold,)))
    text = digest_markdown(_digest((judged,)))
    assert "LLM relevance 8/10, novelty 7/10" in text and "Comment: solid routing idea" in text
    data = json.loads(digest_json(_digest((cold,))))["papers"][0]
    assert data["relevance"] is None and data["novelty"] is None and data["standing"].startswith("#1 of 444")


def test_plain_text_digest_has_no_markdown() -> None:
    item = ScoredPaper(PAPER, 0.71, 9.0, 7.0, reasons=("topic: MoE",), tldr="Routes tokens.")
    text = digest_text(_digest((item,)))
    assert "###" not in text and "**" not in text and "\\" not in text
    assert " 1. Routing *everything* with [MoE](http://evil.example)" in text
    assert "TL;DR Routes tokens." in text and "https://arxiv.org/abs/2505.17639" in text


def test_an_extractive_answer_lists_each_title_once() -> None:
    views = [paper_view(PAPER, number=1)]
    listed = f"1 paper about routing announced on 2025-05-26:\n[1] {PAPER.title} — Routes tokens."
    text = answer_text(listed, views)
    assert text.count(PAPER.title) == 1 and "[1] https://arxiv.org/abs/2505.17639" in text
    written = answer_text("StableRoute balances load [1].", views)  # an LLM answer: sources listed under it
    assert f"[1] {PAPER.title} https://arxiv.org/abs/2505.17639" in written
