"""Benchmark and data-set questions (issue 22): the paper's own contribution, read by role from title and abstract."""

from __future__ import annotations

import pytest

from bot.questions.introduces import introduces_benchmark

MAKES_ONE = [
    ("OrbitBench: Probing Orbital Mechanics in LLMs", ""),
    ("Hydra: A Benchmark for Satellite Question Answering", ""),
    ("A Multi-Speaker Dataset for Welsh Speech Synthesis", ""),
    ("Tidal Gauges Revisited", "We introduce TideQA, a benchmark of 2,000 questions on coastal flooding."),
    ("Tidal Gauges Revisited", "In this work we also release a dataset of 10k annotated tide charts."),
    ("Tidal Gauges Revisited", "We study bias in tutors and contribute a new benchmark dataset of dialogues."),
    ("Tidal Gauges Revisited", "We then spend 300 hours constructing REEF-BENCH, a set of 40 reproducible tasks."),
    ("Tidal Gauges Revisited", "We propose the Synthetic Tide Evaluation Benchmark (STEB) for comparisons."),
    ("Tidal Gauges Revisited", "We publicly release our dataset and code."),
]
USES_ONE = [
    ("Crop Disease Detection Using CNNs with the PlantLeaf Dataset", "We train a CNN."),
    ("Scaling Dataset Pruning to Point Clouds", "We prune redundant samples."),
    ("Fine-tuning Language Models on Multiple Datasets", "We ensemble adapters."),
    ("Clusters in a Dataset: A Regularized K-means Approach", "We choose k."),
    ("Cross-Dataset Generalization in Ultrasound", "We normalise intensities."),
    ("Knowledge-Augmented LLMs for the ARC Benchmark", "We augment prompts."),
    ("A faster optimizer", "We propose Foo and evaluate it on three standard benchmarks."),
    ("A faster optimizer", "We propose adapting pretrained models to small single-speaker datasets."),
    ("A faster optimizer", "We aim to learn a policy from a pre-collected dataset."),
    ("A faster optimizer", "We fine-tune Whisper with the open-source dementia speech dataset."),
    ("A faster optimizer", "We introduce Foo, a framework that automatically transforms existing datasets."),
    ("A faster optimizer", "Creating evaluation benchmarks raises the bar for this paradigm."),
    ("A faster optimizer", "We extend DC and introduce Multi-Domain Dataset Condensation (MDDC)."),
]


@pytest.mark.parametrize(("title", "abstract"), MAKES_ONE)
def test_a_paper_stating_it_made_a_benchmark_or_data_set_introduces_one(title: str, abstract: str) -> None:
    assert introduces_benchmark(title, abstract)


@pytest.mark.parametrize(("title", "abstract"), USES_ONE)
def test_a_paper_using_a_benchmark_or_data_set_does_not_introduce_one(title: str, abstract: str) -> None:
    assert not introduces_benchmark(title, abstract)
