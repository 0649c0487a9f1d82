"""Topics as units (issue 14): named terms in every spelling, compounds about the whole, inflections, abbreviations."""

from __future__ import annotations

import pytest

from bot.core import Core
from bot.models import Paper
from bot.questions.retrieval import topic_evidence
from bot.questions.spelling import corrected
from bot.questions.topics import COVERED, split_units, topic_key
from bot.text.terms import same_word


@pytest.fixture
async def archive(core: Core, demo_papers: list[Paper]) -> Core:
    """The bundled day in the database only: topic evidence and spelling read titles and word counts, no vectors."""
    await core.repo.upsert_papers(demo_papers)
    return core


def test_inflections_match_and_lookalikes_do_not() -> None:
    for word, token in [
        ("model", "modeling"),
        ("model", "modelling"),
        ("quantization", "quantized"),
        ("quantization", "quantisation"),
        ("tokenization", "tokenizer"),
        ("distillation", "distilling"),
        ("pruning", "pruned"),
    ]:
        assert same_word(word, token), (word, token)
    for word, token in [
        ("continual", "continuous"),
        ("optimization", "optimal"),
        ("quantization", "quantification"),
        ("differential", "different"),
        ("moe", "moes"),  # acronyms match as written (plurals are folded before)
    ]:
        assert not same_word(word, token), (word, token)
    assert not same_word("modeling", "model", exact=True)


def test_named_terms_are_units_in_any_spelling() -> None:
    parts = split_units(topic_key("SSMs for KV cache compression"))
    assert [(p.term.name if p.term else " ".join(p.tokens)) for p in parts] == [
        "state space model",
        "key value cache",
        "compression",
    ]
    assert [p.term.name for p in split_units(topic_key("Mixture-of-Experts")) if p.term] == ["mixture of expert"]


async def test_a_named_term_matches_its_acronym_synonyms_and_method_names(archive: Core) -> None:
    ssm = await topic_evidence(archive, "state space models")
    assert ssm.coverage("Graph Mamba for Efficient Whole Slide Image Understanding") == 1.0
    assert ssm.coverage("SAMamba: Adaptive State Space Modeling for Small Targets") == 1.0
    assert ssm.coverage("Efficient SSMs at Scale") == 1.0
    assert ssm.coverage("Spaces of Models") < COVERED
    moe = await topic_evidence(archive, "MoE")
    assert moe.coverage("MoRE: A Mixture of Low-Rank Experts for Adaptive Multi-Task Learning") == 1.0
    assert moe.coverage("CoMoE: Contrastive Representation") == 1.0  # the acronym ending a method's name
    assert moe.coverage("Shoe sizes in fashion") < COVERED
    gnn = await topic_evidence(archive, "GNNs")
    assert gnn.coverage("HyperIMTS: Hypergraph Neural Network for Irregular Multivariate Time Series") == 1.0


async def test_a_compound_is_not_any_one_of_its_words(archive: Core) -> None:
    scaling = await topic_evidence(archive, "test-time scaling")
    assert scaling.coverage("TrimR: Verifier-based Thinking Compression for Efficient Test-Time Scaling") == 1.0
    assert scaling.coverage("AutoMiSeg: Segmentation via Test-Time Adaptation of Foundation Models") < COVERED
    bayes = await topic_evidence(archive, "Bayesian optimization")
    assert bayes.coverage("Bayesian Optimization from Human Feedback") == 1.0
    assert bayes.coverage("Optimizing Data Augmentation through Bayesian Model Selection") < COVERED
    world = await topic_evidence(archive, "world models")  # "model" may go next to a rare word, not "world"
    assert world.coverage("Control of Renewable Energy Communities using AI and Real-World Data") < COVERED
    assert world.coverage("Learning World Models for Planning") == 1.0
    continual = await topic_evidence(archive, "continual learning")
    assert continual.coverage("A Lifelong Learning Framework for Motion Planning") == 1.0
    assert continual.coverage("Pretraining Language Models to Ponder in Continuous Space") < COVERED


async def test_abbreviations_are_written_out_and_split_words_joined(archive: Core) -> None:
    assert await corrected(archive, "spec decoding") == "speculative decoding"
    assert await corrected(archive, "code gen with LLMs") == "code generation with LLMs"  # not "general"
    assert await corrected(archive, "sparse auto-encoders") == "sparse autoencoders"
    assert await corrected(archive, "physics-infromed networks") == "physics-informed networks"
    assert await corrected(archive, "multi-agent systems") == "multi-agent systems"  # papers write it apart
