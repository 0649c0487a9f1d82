"""Benchmark and data-set questions (issue 22): the paper's own contribution, read by role from title and abstract."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from bot.core import Core
from bot.ingest.save import store_papers
from bot.models import Paper
from bot.questions import rag
from bot.questions.filters import Filters
from bot.questions.rag import ask
from bot.questions.request import names_contribution
from bot.questions.retrieval import SENTENCE_NEAR, Retrieved, exact_names, select, states_about, topic_evidence
from bot.text.introduces import introduced_kinds, introduces_benchmark, stating_sentences

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
    # adjectives of any kind may stand between the verb and the kind noun: only closed classes end the object
    ("Tidal Gauges Revisited", "We also construct a large-scale, diverse, and high-quality tide chart dataset."),
    # read as the LaTeX prints: a macro around the name is no word ending the object
    ("Tidal Gauges Revisited", "To fill the gap, we introduce the \\textbf{TideQA} benchmark of 2,000 questions."),
    # a name ending in "Gym" or "Arena" names a benchmark, as one ending in "Bench" does
    ("TideGym: A Tool for Studying Flood Control", "We study floods."),
    # an environment the authors made for agents is a benchmark, as a gym is
    ("Tidal Gauges Revisited", "We propose TideWorld, an interactive environment for flood-control agents."),
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
    # an environment in a title is as often where something happens
    ("Towards Conversational Development Environments", "We study assistants."),
    ("Robust Control in Changing Environments", "We propose a controller for changing environments."),
    ("Gymnastics Pose Estimation", "We estimate poses."),
]


@pytest.mark.parametrize(("title", "abstract"), MAKES_ONE)
def test_a_paper_stating_it_made_a_benchmark_or_data_set_introduces_one(title: str, abstract: str) -> None:
    assert introduces_benchmark(title, abstract)


@pytest.mark.parametrize(("title", "abstract"), USES_ONE)
def test_a_paper_using_a_benchmark_or_data_set_does_not_introduce_one(title: str, abstract: str) -> None:
    assert not introduces_benchmark(title, abstract)


def test_what_a_paper_makes_is_named_by_kind() -> None:
    assert introduced_kinds("BLUCK: A Benchmark Dataset for Bengali Culture", "") == {"benchmark", "dataset"}
    assert introduced_kinds("Tidal Gauges Revisited", "We release a corpus of 10k tide charts.") == {"dataset"}
    assert introduced_kinds("OrbitBench: Probing Orbital Mechanics in LLMs", "") == {"benchmark"}
    assert introduced_kinds("Scaling Dataset Pruning to Point Clouds", "We prune redundant samples.") == frozenset()
    # a side contribution counts for a question, not as the main one
    router = "We propose a router that picks a mode per question. We also build a dataset of 5k labelled questions."
    assert introduced_kinds("Self-routing reasoners", router) == {"dataset"}
    assert introduced_kinds("Self-routing reasoners", router, main=True) == frozenset()


def test_a_paper_close_in_meaning_to_one_part_of_a_compound_is_offered_not_shown(demo_papers: list[Paper]) -> None:
    # no paper carries "math reasoning" together; the closest in meaning is about logical reasoning (one part only),
    # the next holds "math" and "reasoning" apart in its abstract: that one is shown, the other offered
    logical, both, neither = (
        Retrieved(demo_papers[0], 0.45, 0.45, False, False, every_part=False),
        Retrieved(demo_papers[1], 0.42, 0.42, False, False, every_part=True),
        Retrieved(demo_papers[2], 0.10, 0.10, False, False, every_part=False),
    )
    shown, offered = select([logical, both, neither], Filters(topic="math reasoning"))
    assert shown == [both] and offered == [logical]


def test_when_no_paper_holds_every_part_the_closest_in_meaning_are_shown(demo_papers: list[Paper]) -> None:
    close, far = (
        Retrieved(demo_papers[0], 0.45, 0.45, False, False, every_part=False),
        Retrieved(demo_papers[1], 0.10, 0.10, False, False, every_part=False),
    )
    shown, _ = select([close, far], Filters(topic="math reasoning"))
    assert shown == [close]


def test_a_named_term_joined_to_a_plain_word_is_no_method_name() -> None:
    # "LLM-based" used to be matched as a method name: every "LLM-based" title came first, whatever its topic
    assert exact_names("LLM-based agents for software engineering") == []
    assert exact_names("GRPO-style training for vision-language models") == []
    assert [p.pattern for p in exact_names("SWE-bench agents")] and [p.pattern for p in exact_names("Trinity-RFT")]


def test_papers_whose_main_contribution_is_a_benchmark_are_shown_before_side_ones() -> None:
    day = dt.date(2025, 5, 26)
    made = Paper("1", "TideBench: Probing Tidal Forecasts", ("A. B",), "We introduce TideBench.", ("cs.LG",), day)
    side = Paper(
        "2",
        "Faster tidal forecasts",
        ("C. D",),
        "We propose a fast tidal forecaster. We also release a dataset of tide charts.",
        ("cs.LG",),
        day,
    )
    first, also = (Retrieved(made, 0.60, 0.60, True, True), Retrieved(side, 0.62, 0.62, True, True))
    shown, offered = select([also, first], Filters(topic="tidal forecasts", contribution="benchmark"))
    assert shown == [first] and offered == [also]


def test_a_benchmark_in_words_of_its_own_is_offered_before_a_method_that_also_releases_data() -> None:
    # "which papers introduce new benchmarks for LLM agents?" (issue 22): "SWE-bench Goes Live!" says "agents" and
    # "language models" apart; a framework for LLM agents that also releases a dataset said the words. The benchmark
    # was listed after every such framework
    day = dt.date(2025, 5, 26)
    made = Paper("1", "AgentBench: Evaluating LLM agents", ("A. B",), "We introduce AgentBench.", ("cs.LG",), day)
    side = Paper(
        "2",
        "A framework for LLM agents",
        ("C. D",),
        "We propose a framework for LLM agents. We also release a dataset of agent traces.",
        ("cs.LG",),
        day,
    )
    apart = Paper(
        "3",
        "SWE-bench Goes Live!",
        ("E. F",),
        "We present SWE-bench-Live, a live benchmark. We evaluate agents built on large language models.",
        ("cs.SE",),
        day,
    )
    first, framework, live = (
        Retrieved(made, 0.60, 0.60, True, True),
        Retrieved(side, 0.62, 0.62, True, True),
        Retrieved(apart, 0.40, 0.40, False, False, every_part=True),
    )
    shown, offered = select([framework, first, live], Filters(topic="LLM agents", contribution="benchmark"))
    assert shown == [first] and offered == [live, framework]


def test_a_benchmark_holding_every_part_of_the_topic_apart_is_offered(demo_papers: list[Paper]) -> None:
    named, apart, elsewhere = (
        Retrieved(demo_papers[0], 0.60, 0.60, True, True),
        Retrieved(demo_papers[1], 0.20, 0.20, False, False, every_part=True),
        Retrieved(demo_papers[2], 0.20, 0.20, False, False, every_part=False),
    )
    shown, offered = select([named, apart, elsewhere], Filters(topic="code generation", contribution="benchmark"))
    assert shown == [named] and offered == [apart]


def test_a_benchmark_one_sentence_of_which_states_the_topic_is_offered(demo_papers: list[Paper]) -> None:
    # "a new dataset for non-English languages": a Hungarian document-QA data set never says "non-English", its whole
    # vector is far (0.25), one sentence is close (0.6): offered, as any question offers such a paper
    named, stating, vague = (
        Retrieved(demo_papers[0], 0.60, 0.60, True, True),
        Retrieved(demo_papers[1], 0.25, 0.25, False, False, every_part=False, sentence=SENTENCE_NEAR + 0.05),
        Retrieved(demo_papers[2], 0.25, 0.25, False, False, every_part=False, sentence=SENTENCE_NEAR - 0.1),
    )
    topic = Filters(topic="non-English languages", contribution="benchmark")
    shown, offered = select([named, stating, vague], topic)
    assert shown == [named] and offered == [stating]


def test_an_exclusion_naming_only_a_contribution_is_read_as_that_contribution() -> None:
    assert names_contribution("benchmarks") and names_contribution("datasets or benchmarks")
    assert not names_contribution("benchmark contamination") and not names_contribution("pure evaluation studies")


async def test_excluding_benchmarks_drops_benchmark_papers_not_methods_releasing_data(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "jailbreak papers, excluding benchmarks": JALMBench's main contribution is a benchmark; the expert-model defence
    # says "benchmark dataset" twice (it releases the data it was tested on) and is a method: kept
    jalmbench, defence = "2505.17568", "2505.17066"
    jailbreak = [p for p in demo_papers if "jailbreak" in f"{p.title} {p.abstract}".lower()]
    assert {jalmbench, defence} <= {p.id for p in jailbreak}
    await store_papers(core, jailbreak)
    answer = await ask(core, "jailbreak papers, excluding benchmarks", today=dt.date(2025, 5, 26))
    listed = {p.id for p in (*answer.citations, *answer.more)}
    assert defence in listed and jalmbench not in listed


def test_the_sentence_making_a_benchmark_says_what_it_is_about() -> None:
    abstract = (
        "Coasts erode. We introduce CoastBench, a benchmark of coastal engineering tasks. "
        "One of its task families concerns tidal forecasting."
    )
    assert stating_sentences(abstract) == ("We introduce CoastBench, a benchmark of coastal engineering tasks.",)
    assert stating_sentences("We propose a faster tidal forecaster and evaluate it on two benchmarks.") == ()


async def test_a_benchmark_naming_the_topic_once_beside_what_it_is_about_is_offered(
    core: Core, demo_papers: list[Paper]
) -> None:
    # "new benchmarks for tidal forecasting": a benchmark of coastal engineering naming tidal forecasting once, in
    # passing, is offered after the one made for it, not shown beside it
    await core.repo.upsert_papers(demo_papers[:50])
    day = dt.date(2025, 5, 26)
    made = Paper(
        "1", "TideQA", ("A. B",), "We introduce TideQA, a benchmark of tidal forecasting questions.", ("cs.LG",), day
    )
    other = Paper(
        "2",
        "CoastBench",
        ("C. D",),
        "We introduce CoastBench, a benchmark of coastal engineering tasks. One task family is tidal forecasting.",
        ("cs.LG",),
        day,
    )
    topic = await topic_evidence(core, "tidal forecasting")
    assert states_about(topic, made) and not states_about(topic, other)
    first, passing = (
        Retrieved(made, 0.50, 0.50, False, True),
        Retrieved(other, 0.55, 0.55, False, True, states=False),
    )
    shown, offered = select([passing, first], Filters(topic="tidal forecasting", contribution="benchmark"))
    assert shown == [first] and offered == [passing]


async def test_a_benchmark_question_offers_last_the_topics_papers_that_name_an_evaluation(
    core: Core, demo_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A paper the contribution reader does not read as making a benchmark ("this paper introduces X, a framework for
    generating and verifying instances ... beyond existing evaluation methods") was never listed for "benchmarks for
    X", though the question about X alone lists it; it is now offered after every other paper, a method paper naming
    no evaluation still not."""
    made = dataclasses.replace(demo_papers[0], id="made", title="TideBench: A Benchmark for Tidal Models")
    framework = dataclasses.replace(
        demo_papers[1],
        id="framework",
        title="How Reliable are Tidal Models?",
        abstract="This paper introduces a framework for generating and verifying tidal instances, beyond existing "
        "evaluation methods.",
    )
    method = dataclasses.replace(
        demo_papers[2], id="method", title="A Tidal Model", abstract="We propose a faster tidal model."
    )

    def found(paper: Paper) -> Retrieved:
        return Retrieved(paper, 0.5, 0.5, True, True)

    async def retrieve_all(core: Core, filters: Filters, **_: object) -> tuple[list[Retrieved], list[Retrieved]]:
        if filters.contribution:
            return [found(made)], []
        return [found(made), found(method)], [found(framework)]

    monkeypatch.setattr(rag, "retrieve_all", retrieve_all)
    asked = Filters(topic="tidal models", contribution="benchmark")
    offered, count = await rag.with_evaluations(core, asked, [found(made)], [])
    assert [r.paper.id for r in offered] == ["framework"] and count == 1
    assert "1 paper" in rag.evaluating_note(count, asked.topic)
    # a follow-up narrowing a list, or a question without a topic, is left as it was
    for other in (dataclasses.replace(asked, restrict_to=("made",)), dataclasses.replace(asked, topic="")):
        assert await rag.with_evaluations(core, other, [found(made)], []) == ([], 0)
