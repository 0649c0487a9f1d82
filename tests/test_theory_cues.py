"""How a paper's text is read for what theory papers write (`theory_mentions`): "prove" in its sense of a proof only."""

from __future__ import annotations

import pytest

from bot.ranking.contribution_words import theory_mentions


@pytest.mark.parametrize(
    "abstract",
    [
        "The distillation step proves effective in reducing latency on three benchmarks.",
        "Curriculum training proves highly effective, and the schedule proved useful for smaller models too.",
        "Such filtering could prove useful in practice. Experiments on four datasets confirm it.",
        "Mixing real data proves most effective and synthetic data alone may prove ineffective once deployed.",
        "The retrieval stage proved crucial. We release the code.",
        "A larger draft model proved to be faster, and the method proves to outperform strong baselines.",
    ],
)
def test_prove_as_a_verb_of_outcome_is_no_proof(abstract: str) -> None:
    """ "proves effective", "proved useful", "proves to be": what turned out, not what was proved."""
    assert theory_mentions("A Method for Faster Inference", abstract) == 0


@pytest.mark.parametrize(
    ("abstract", "count"),
    [
        ("We prove that the estimator is consistent and prove a matching lower bound.", 3),
        ("We prove convergence, with a rate that is optimal, and prove its consistency.", 2),
        ("We prove new theoretical bounds and prove global convergence results for the method.", 3),
        ("We prove strong guarantees under weak assumptions; the bound is proved for any depth.", 2),
        ("Furthermore we prove for diagonal linear networks that the flow converges, and prove it never diverges.", 2),
        ("We rigorously prove that the condition holds and prove optimal rates for sparse recovery.", 2),
        ("The estimator is proved to be consistent; the rate is rigorously proved optimal in the minimax sense.", 2),
    ],
)
def test_prove_with_a_claim_or_an_object_is_a_proof(abstract: str, count: int) -> None:
    """A "that" clause, a determiner or a noun after "prove" (an adjective before its noun too: "optimal rates"), or a
    passive ("is proved to be consistent", "is proved optimal in")."""
    assert theory_mentions("On Estimators", abstract) == count
