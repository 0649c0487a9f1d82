"""Readable TL;DRs (issue 23): LaTeX made text, no leading connective, no cut inside a clause, the contribution
sentence rather than the background, and the same cleaned text wherever a TL;DR is shown."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from bot.core import Core
from bot.ingest.jsonl import read_jsonl
from bot.models import Digest, Paper, ScoredPaper
from bot.text.extractive import (
    TLDR_MAX,
    drop_connective,
    drop_pointing_clause,
    drop_pointing_frame,
    extractive_tldr,
    fit_sentence,
)
from bot.text.latex import latex_to_text
from bot.text.tldr import parse_tldrs, shown_tldrs
from bot.views.model import digest_view, paper_view
from tests.conftest import SHARED_DATA

DAY = dt.date(2025, 5, 30)


def _paper(abstract: str, title: str = "NeuroTrails: sparse multi-head ensembles", pid: str = "2505.30001") -> Paper:
    return Paper(id=pid, title=title, authors=("A. Author",), abstract=abstract, categories=("cs.LG",), announced=DAY)


def test_latex_becomes_unicode_text() -> None:
    assert latex_to_text(r"an $\ell_0$ penalty on the \textit{full model}") == "an ℓ₀ penalty on the full model"
    assert latex_to_text(r"we present $\textbf{NeuroTrails}$, 5% faster") == "we present NeuroTrails, 5% faster"
    assert latex_to_text(r"error $O(T^{\frac{1}{3}})$ and $10^{-3}$") == "error O(T^(1/3)) and 10⁻³"
    assert latex_to_text(r"costs \$127 and runs ~10x faster~\cite{x}.") == "costs $127 and runs ∼10x faster."
    assert latex_to_text(r"the \ourmethod{} framework") == "the ourmethod framework"  # an author's macro keeps its name
    assert latex_to_text("Plain  text\nstays.") == "Plain text stays."
    assert latex_to_text("R&D #1 at 5% in window.__x") == "R&D #1 at 5% in window.__x"  # prose, not LaTeX


def test_every_font_macro_keeps_its_words() -> None:
    """pylatexenc drops the argument of the font macros it has no text for: "Random Reshuffle ($\\textsf{RR}$)"
    read "Random Reshuffle ()" in a TL;DR. Every text font keeps its words, as \\textbf does."""
    assert latex_to_text(r"Random Reshuffle ($\textsf{RR}$) and Single Shuffle (\textsf{SS})") == (
        "Random Reshuffle (RR) and Single Shuffle (SS)"
    )
    assert latex_to_text(r"the \texttt{lm-eval} harness, \textup{up}, \textmd{md}, \mbox{a box}") == (
        "the lm-eval harness, up, md, a box"
    )


def test_leading_connectives_and_purpose_clauses_are_dropped() -> None:
    assert drop_connective("To address this gap, we propose X.") == "We propose X."
    assert drop_connective("In contrast, the method uses no labels.") == "The method uses no labels."
    assert drop_connective("In this paper we introduce Y.") == "We introduce Y."
    assert drop_connective("Motivated by this, in this work we study Z.") == "We study Z."
    # a phrase that carries the content is not a connective
    assert drop_connective("By pruning heads, we halve the cost.") == "By pruning heads, we halve the cost."


def test_a_connective_adverb_after_the_subject_is_dropped() -> None:
    """A TL;DR read "We then introduce Grouped Latent Attention (GLA)", pointing to a step the reader has not seen."""
    assert (
        drop_connective("We then introduce Grouped Latent Attention (GLA).")
        == "We introduce Grouped Latent Attention (GLA)."
    )
    assert drop_connective("Finally, we also propose two techniques.") == "We propose two techniques."
    assert drop_connective("This study therefore explores embedding models.") == "This study explores embedding models."
    # "further" as the verb stays
    assert drop_connective("We further the state of the art.") == "We further the state of the art."


def test_any_sentence_adverb_set_off_by_a_comma_is_a_leading_connective() -> None:
    """TL;DRs opened with "Subsequently, we prove ...", "Currently, ...", "So, we ..." (no listed connective)."""
    assert drop_connective("Subsequently, we prove global convergence.") == "We prove global convergence."
    assert drop_connective("So, we formulate the challenges.") == "We formulate the challenges."
    assert drop_connective("Remarkably, sparse models match dense ones.") == "Sparse models match dense ones."
    # an adverb that is part of the clause stays
    assert drop_connective("Only a few methods work.") == "Only a few methods work."


def test_a_lead_clause_holding_a_list_is_dropped_whole() -> None:
    """The lead clause ended at its list's first comma: "Deduction, and induction, this survey offers ..." and
    "Unstructured and noisy commands, we propose Cog-TiPRO, ..." were TL;DRs."""
    assert drop_connective(
        "Guided by Peirce's framework of abduction, deduction, and induction, this survey offers a structured lens."
    ) == ("This survey offers a structured lens.")
    assert drop_connective(
        "To address the challenges of analyzing these short, unstructured and noisy commands, we propose Cog-TiPRO."
    ) == ("We propose Cog-TiPRO.")
    # no main clause after the list: nothing is dropped (was "a comparative analysis ... is performed.")
    kept = "Based on the most appropriate fairness measures, a comparative analysis of strategies is performed."
    assert drop_connective(kept) == kept


def test_a_closing_clause_pointing_to_an_earlier_sentence_is_dropped() -> None:
    """A TL;DR read "We introduce HYDRO, the first Hybrid Cross-Domain Robust RL framework designed to address these
    challenges.", challenges it never shows."""
    assert drop_pointing_clause(
        "We introduce HYDRO, the first Hybrid Cross-Domain Robust RL framework designed to address these challenges."
    ) == ("We introduce HYDRO, the first Hybrid Cross-Domain Robust RL framework")
    assert drop_pointing_clause("We introduce KGQAGen, an LLM-in-the-loop framework that resolves these pitfalls.") == (
        "We introduce KGQAGen, an LLM-in-the-loop framework"
    )
    # the noun was named earlier in the sentence: the clause points inside it
    kept = "We study the cold-start problem of recommenders and propose a method that solves this problem."
    assert drop_pointing_clause(kept) == kept
    # too little would be left
    assert drop_pointing_clause("We propose ST-PINNs to address such problems.") == (
        "We propose ST-PINNs to address such problems."
    )
    paper = _paper(
        "Ensembles are costly and brittle. We propose NeuroTrails, a sparse multi-head architecture for ensembles, "
        "designed to overcome these obstacles."
    )
    assert extractive_tldr(paper) == "We propose NeuroTrails, a sparse multi-head architecture for ensembles."


def test_a_verb_whose_object_points_back_gives_way_to_the_means_it_names() -> None:
    """About 120 TL;DRs of the shared days leaned on a sentence the reader never sees with no clause to drop: "We
    tackle this problem by proposing an informativeness alignment mechanism.", "a novel GP model that jointly
    addresses these challenges by combining ...", "a benchmark designed to address this gap by incorporating ...".
    The means after "by" states what the paper does, in the frame verb's form."""
    assert drop_pointing_frame("We tackle this problem by proposing an informativeness alignment mechanism.") == (
        "We propose an informativeness alignment mechanism."
    )
    assert (
        drop_pointing_frame(
            "We propose FDBPL, which addresses these issues by sharing soft contexts across stages and implementing "
            "accelerated I/O."
        )
        == "We propose FDBPL, which shares soft contexts across stages and implements accelerated I/O."
    )
    assert drop_pointing_frame("We address this by analyzing message passing networks.") == (
        "We analyze message passing networks."
    )
    assert drop_pointing_frame("A benchmark designed to bridge this gap by offering legal help.") == (
        "A benchmark designed to offer legal help."
    )
    # the object names a noun of the sentence (it points inside it), a past frame, a gerund's frame: as written
    for kept in (
        "We study the cold-start problem and solve this problem by mapping users to items.",
        "This issue is addressed in this study by proposing BaitRadar.",
        "We present methods for curating such datasets by focusing on Hungarian.",
    ):
        assert drop_pointing_frame(kept) == kept
    paper = _paper(
        "Ensembles are costly and brittle. We overcome these obstacles by proposing NeuroTrails, a sparse "
        "multi-head architecture for ensembles."
    )
    assert extractive_tldr(paper) == "We propose NeuroTrails, a sparse multi-head architecture for ensembles."


def test_an_answer_to_an_unseen_problem_coordinated_with_what_the_paper_does_is_dropped() -> None:
    """ "We fill this gap and provide non-asymptotic guarantees for both algorithms." answered a gap the TL;DR never
    shows: what the paper does is the verb after "and"."""
    assert drop_pointing_frame("We fill this gap and provide non-asymptotic guarantees for both algorithms.") == (
        "We provide non-asymptotic guarantees for both algorithms."
    )
    assert (
        drop_pointing_frame(
            "We propose a method that addresses this limitation and estimates bisimulation metrics from samples."
        )
        == "We propose a method that estimates bisimulation metrics from samples."
    )
    for kept in (
        "We fill this gap and the next one with a single model.",  # no verb after "and"
        "We study the sparsity gap and close this gap and provide bounds.",  # the gap was named in the sentence
    ):
        assert drop_pointing_frame(kept) == kept


def test_a_long_sentence_is_cut_at_a_clause_boundary_never_inside_one() -> None:
    sentence = (
        "We introduce the World Central Banks dataset, the most comprehensive monetary policy corpus to date, "
        "comprising over 380k sentences from 25 central banks across diverse geographic regions, which spans 28 "
        "years of historical data and enables many new studies of the language of monetary policy in detail"
    )
    fitted = fit_sentence(sentence, 200)
    assert fitted.endswith("regions.") and len(fitted) <= 200 and "…" not in fitted
    # no boundary that reads whole: nothing, so the caller takes another sentence
    assert fit_sentence("We " + "really " * 60 + "win", 100) == ""


def test_the_contribution_sentence_is_chosen_cleaned_over_background() -> None:
    paper = _paper(
        r"Sparse multi-head ensembles of neural networks have become popular. However, existing ensembles are "
        r"costly. To address this gap, we propose $\textbf{NeuroTrails}$, a sparse multi-head architecture with "
        r"dynamically evolving topology that cuts the cost of an ensemble. Experiments show 12% gains."
    )
    assert extractive_tldr(paper) == (
        "We propose NeuroTrails, a sparse multi-head architecture with dynamically evolving topology that cuts the "
        "cost of an ensemble."
    )


def test_llm_tldrs_get_the_same_cleaning() -> None:
    reply = '{"tldrs": [{"id": 1, "text": "In contrast, $\\\\textbf{KVzip}$ compresses the KV cache 4x."}]}'
    assert parse_tldrs(reply, 1) == {1: "KVzip compresses the KV cache 4x."}


async def test_every_view_shows_the_cleaned_tldr(core: Core) -> None:
    paper = _paper(
        "Background sentence about the field at large. To address this gap, we propose $\\textbf{NeuroTrails}$, "
        "a sparse multi-head architecture for ensembles. Results are good."
    )
    llm_paper = _paper("We study things at some length here.", title=r"$\alpha$-Routing", pid="2505.30002")
    await core.repo.upsert_papers([paper, llm_paper])
    # what an older version stored: raw LaTeX, a connective; and an LLM's line with the same faults
    await core.repo.set_tldrs({paper.id: r"To address this gap, we propose $\textbf{NeuroTrails}$…"}, "extractive")
    await core.repo.set_tldrs({llm_paper.id: r"However, $\alpha$-Routing routes tokens."}, "some-model")
    shown = await shown_tldrs(core, [paper, llm_paper])
    assert shown[paper.id] == "We propose NeuroTrails, a sparse multi-head architecture for ensembles."
    assert shown[llm_paper.id] == "α-Routing routes tokens."
    # a digest frozen in the ledger before the cleaning existed is shown cleaned too
    frozen = ScoredPaper(llm_paper, 0.5, 5.0, 5.0, tldr=r"In this paper, we route $\alpha$ tokens...")
    view = digest_view(Digest(DAY, "p", 10, (frozen,)))
    assert view.items[0].tldr == "We route α tokens..." and view.items[0].title == "α-Routing"
    assert paper_view(llm_paper, tldr=shown[llm_paper.id]).tldr == shown[llm_paper.id]


@pytest.mark.skipif(not (SHARED_DATA / "arxiv").is_dir(), reason="needs ../shared/data/arxiv")
def test_a_real_days_tldrs_are_readable() -> None:
    papers = read_jsonl([SHARED_DATA / "arxiv" / "2025-05-30.jsonl"])
    tldrs = [extractive_tldr(p) for p in papers]
    assert not [t for t in tldrs if re.search(r"\$(?!\d)|\\[A-Za-z]", t)]
    assert not [t for t in tldrs if re.match(r"(However|In contrast|To address th\w+ \w+|In this paper),", t)]
    assert sum(t.endswith("…") for t in tldrs) <= 0.03 * len(tldrs)
    assert all(len(t) <= TLDR_MAX for t in tldrs)


def test_what_is_left_after_a_connective_reads_as_a_sentence_and_a_main_clause_stays() -> None:
    # an ordinary hyphenated word is capitalised again; a name written in mixed case is not
    assert (
        drop_connective("However, low-batch inference remains important.") == "Low-batch inference remains important."
    )
    assert drop_connective("However, kNN-based search is slow.") == "kNN-based search is slow."
    # a list number before the connective goes with it
    assert drop_connective("(3) Finally, we propose two techniques.") == "We propose two techniques."
    # the main clause holding a demonstrative is no lead clause: only a capitalised word may follow a cut one
    sentence = "This work demonstrates that complexity control, conveniently implementable, improves scaling."
    assert drop_connective(sentence) == sentence


def test_this_paper_describes_x_states_the_contribution_over_a_background_sentence() -> None:
    paper = _paper(
        "Existing kernels target large-batch training and inference. However, low-batch inference, where memory "
        "bandwidth and launch overheads matter, remains important for many applications such as edge deployment. "
        "This paper describes FlashFormer, a proof-of-concept kernel for accelerating single-batch inference.",
        title="FlashFormer: Whole-Model Kernels for Efficient Low-Batch Inference",
    )
    assert extractive_tldr(paper).startswith("This paper describes FlashFormer")


@pytest.mark.parametrize(
    "sentence",
    [
        "Family, school, and peer networks shape how adolescents learn online.",
        "Anomaly, fraud and intrusion detection share one statistical core.",
    ],
)
def test_a_noun_ending_in_ly_opening_a_sentence_is_no_connective(sentence: str) -> None:
    """d58a254 read any word ending in "ly" before a comma as a sentence adverb: "Family, school, and peer networks
    ..." lost its first subject ("School, and peer networks ..."). An adverb is made from a word by an -ly ending."""
    assert drop_connective(sentence) == sentence
    assert drop_connective("Remarkably, the model needs no labels at all.") == "The model needs no labels at all."


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("We address this problem by setting a new objective.", "We set a new objective."),
        ("We overcome these limitations by putting the verifier first.", "We put the verifier first."),
        ("We close this gap by planning ahead.", "We plan ahead."),
        ("We address this gap by filling the missing labels.", "We fill the missing labels."),
        ("We tackle this issue by passing messages.", "We pass messages."),
    ],
)
def test_a_means_with_a_doubled_consonant_reads_as_its_verb(sentence: str, expected: str) -> None:
    """ "We address this problem by setting a new objective" became "We sett a new objective" ("putting": "putt"):
    a consonant an English verb doubles before "-ing" (set, put, plan) is read single before the stem is; a stem
    ending in ss, ll, ff or zz is the verb's own (pass, fill)."""
    assert drop_pointing_frame(sentence) == expected
